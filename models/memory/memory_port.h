// The one way software and hardware agents touch shared memory. Each agent owns one
// MemoryPort and issues its operations through it in program order; the ordering engine
// behind it decides when each operation performs (MEMORY-MODEL.md). Barrier sites pass
// their protocol label, (A) to (D), so reports and timelines can name them.
//
// A load is issued, then read: between the two the agent may issue more operations that
// do not depend on the value (a late load is a pending value; reading it waits until it
// has performed). The convenience calls below issue and read at once.
// All values are little-endian, as on arm64 and x86-64.
#pragma once

#include "models/common/types.h"

#include <cstdint>
#include <vector>

namespace ringsim::models {

enum class Fence { rmb, wmb, mb };

// The barrier labels of the perf ring buffer protocol (KERNEL-SEMANTICS §9):
// (A) pairs with (D), (B) pairs with (C).
enum class Barrier : char { none = '-', A = 'A', B = 'B', C = 'C', D = 'D' };

// How a barrier site of the protocol is built (MEMORY-MODEL.md "The four barriers, as
// switches"): `none` is the site switched off.
enum class BarrierKind { none, ctrl, rmb, wmb, mb, acquire, release };
const char* barrier_kind_name(BarrierKind k);

// An issued load: its identity and the time it performs.
struct LoadTicket {
    uint64_t seq = 0;
    Picos issue = 0;
    Picos perform = 0;
    Addr addr = 0;
    uint64_t size = 0;
};

// The unit in which a copy's loads and a record's stores perform: a cache line of arm64
// and x86-64 (MEMORY-MODEL.md "Copies and records in pieces").
inline constexpr uint64_t kCacheLine = 64;

// Where a loaded byte range came from: the store that wrote it (0: memory older than the
// engine's history window, or never written), and when the load, or the piece of a copy,
// that read it issued and performed.
struct ByteSource {
    uint64_t offset = 0;
    uint64_t length = 0;
    uint64_t store_seq = 0;
    Picos load_issue = 0;
    Picos load_perform = 0;
};

class MemoryPort {
public:
    virtual ~MemoryPort() = default;

    virtual LoadTicket issue_load(Addr addr, uint64_t n, bool acquire, Barrier label) = 0;
    // A bulk copy out of memory (memcpy, perf's reads of a record) of n bytes that starts
    // `start` from now and takes `span`: one load per cache line, each issued when the copy
    // reaches it and performing on its own (MEMORY-MODEL.md "Copies and records in pieces").
    // The ticket performs when its last piece does; read() gives every piece's bytes.
    virtual LoadTicket issue_copy(Addr addr, uint64_t n, Picos start, Picos span) = 0;
    // The loaded bytes; waits until the load has performed. `sources`, if given, says which
    // store each byte range came from.
    virtual void read(const LoadTicket& t, uint8_t* dst,
                      std::vector<ByteSource>* sources = nullptr) = 0;
    // Stalls the agent until load `t` has performed, without taking its value: an interrupt
    // arriving while a load is outstanding is taken once it completes.
    virtual void wait_for(const LoadTicket& t) = 0;
    // A store of n bytes, all performing at once; returns its store sequence number. A
    // record or a burst that the hardware writes in pieces is one call per piece.
    virtual uint64_t store_bytes(Addr addr, const uint8_t* src, uint64_t n, bool release,
                                 Barrier label) = 0;
    virtual void fence(Fence kind, Barrier label) = 0;
    // A control dependency on a load: the agent's later stores perform after it.
    virtual void ctrl_dep(const LoadTicket& t, Barrier label) = 0;
    // Squashes a speculative store whose branch, on the value of load `branch`, went the
    // other way: unless it performed before that load did, nobody ever sees it. Returns
    // false when it had performed, and other agents may have seen it.
    virtual bool cancel_store(uint64_t seq, const LoadTicket& branch) = 0;

    // READ_ONCE / WRITE_ONCE of an aligned 1, 2, 4 or 8 byte value, and friends.
    uint64_t load(Addr addr, unsigned size) {
        return value(issue_load(addr, size, false, Barrier::none));
    }
    uint64_t load_acquire(Addr addr, unsigned size, Barrier label) {
        return value(issue_load(addr, size, true, label));
    }
    uint64_t value(const LoadTicket& t) {
        uint64_t v = 0;
        read(t, reinterpret_cast<uint8_t*>(&v));
        return v;
    }
    void load_bytes(Addr addr, uint8_t* dst, uint64_t n) {
        read(issue_load(addr, n, false, Barrier::none), dst);
    }
    void store(Addr addr, uint64_t value, unsigned size) {
        store_bytes(addr, reinterpret_cast<const uint8_t*>(&value), size, false, Barrier::none);
    }
    void store_release(Addr addr, uint64_t value, unsigned size, Barrier label) {
        store_bytes(addr, reinterpret_cast<const uint8_t*>(&value), size, true, label);
    }
};

} // namespace ringsim::models
