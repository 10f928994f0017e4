// perf's arithmetic for reading an AUX buffer: which bytes a read takes, in which one or two
// chunks, and the PERF_RECORD_AUXTRACE offset it writes. Pure C++; the consumer model does
// the loads. Mirrors tools/perf/util/auxtrace.c : __auxtrace_mmap__read (KERNEL-SEMANTICS C6,
// C8), including its modulo behaviour when aux_head has lapped the buffer: older lapped data
// is invisible, and a lap of exactly the buffer length reads as one full buffer (D7).
// Leaves out: the 32-bit tool's triple head read, and find_snapshot callbacks (CoreSight's
// was removed in 2021).
#pragma once

#include <cstdint>

namespace ringsim::models::perf {

struct AuxtraceRead {
    uint64_t size = 0;   // bytes taken (after snapshot clipping and alignment)
    uint64_t offset = 0; // PERF_RECORD_AUXTRACE offset: free-running position of the first
    uint64_t off1 = 0;   // first chunk: buffer offset and length
    uint64_t len1 = 0;
    uint64_t len2 = 0;    // second chunk, from buffer offset 0 (0 when the data do not wrap)
    uint64_t padding = 0; // to PERF_AUXTRACE_RECORD_ALIGNMENT (8)
    bool nothing() const { return size == 0; }
};

// `old` is the tool's previous head (mm->prev), `head` the aux_head it read, `len` the AUX
// buffer size (a power of two here, as the kernel requires), `alignment` the PMU's
// itr->alignment (0: none; CoreSight ETM has 0).
AuxtraceRead auxtrace_read(uint64_t old, uint64_t head, uint64_t len, bool snapshot,
                           uint64_t snapshot_size, uint64_t alignment = 0);

} // namespace ringsim::models::perf
