// The perf tool's accesses to one of its mappings, the same for the data buffer and the AUX
// area: the head word loaded with (C) after it, the tail word stored with (D) before it
// (tools/include/linux/ring_buffer.h : ring_buffer_read_head/write_tail, C1, C2;
// tools/perf/util/auxtrace.h : auxtrace_mmap__read_head/write_tail, C6), and a copy of one
// or two chunks (a range crossing the buffer's end) read back with where each byte came
// from. The callers name their barrier's partner; these build the barrier as configured.
#pragma once

#include "models/common/uninit_bytes.h"
#include "models/memory/memory_port.h"
#include "models/user/perf_consumer.h"

#include <cstdint>
#include <vector>

namespace ringsim::models {

struct HeadLoad {
    uint64_t value = 0;
    LoadTicket ticket;
    uint64_t store_seq = 0; // the store the value came from (0: unknown)
};

// (C) as `c`: acquire is the load itself; rmb or mb a fence after it; none nothing.
HeadLoad load_head(MemoryPort& mem, Addr head, BarrierKind c);

// (D) as `d`: release is the store itself; mb, rmb or wmb a fence before it; none nothing.
// Returns the store's sequence number.
uint64_t store_tail(MemoryPort& mem, Addr tail, uint64_t value, BarrierKind d);

// A copy of `len1` bytes at `a`, then `len2` bytes at `b` (what lies past the buffer's end;
// 0: none), at `bandwidth` bytes per second: each cache line's load issues when the copy
// reaches it (MemoryPort::issue_copy).
struct CopyTickets {
    LoadTicket first;
    LoadTicket second;
};
CopyTickets issue_copy(MemoryPort& mem, Addr a, uint64_t len1, Addr b, uint64_t len2,
                       double bandwidth);

// Reads the loads of a copy (`second` may be empty) into `out`, with each byte range's
// store and load in `sources`. `out` is resized to the copy and read over in full.
void read_copy(MemoryPort& mem, const LoadTicket& first, const LoadTicket& second, UninitBytes& out,
               std::vector<CopySource>& sources);

} // namespace ringsim::models
