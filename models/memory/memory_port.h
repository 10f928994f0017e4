// The one way software and hardware agents touch shared memory. Each agent owns one
// MemoryPort and issues its operations through it in program order; the ordering engine
// behind it decides when each operation performs (MEMORY-MODEL.md). Barrier sites pass
// their protocol label, (A) to (D), so reports and timelines can name them.
//
// All values are little-endian, as on arm64 and x86-64.
#pragma once

#include "models/common/types.h"

#include <cstdint>

namespace ringsim::models {

enum class Fence { rmb, wmb, mb };

// The barrier labels of the perf ring buffer protocol (KERNEL-SEMANTICS §9):
// (A) pairs with (D), (B) pairs with (C).
enum class Barrier : char { none = '-', A = 'A', B = 'B', C = 'C', D = 'D' };

class MemoryPort {
public:
    virtual ~MemoryPort() = default;

    // READ_ONCE / WRITE_ONCE of an aligned 1, 2, 4 or 8 byte value.
    virtual uint64_t load(Addr addr, unsigned size) = 0;
    virtual void store(Addr addr, uint64_t value, unsigned size) = 0;

    // A bulk copy (memcpy) as one operation, not one per byte.
    virtual void load_bytes(Addr addr, uint8_t* dst, uint64_t n) = 0;
    virtual void store_bytes(Addr addr, const uint8_t* src, uint64_t n) = 0;

    virtual void fence(Fence kind, Barrier label) = 0;
    virtual uint64_t load_acquire(Addr addr, unsigned size, Barrier label) = 0;
    virtual void store_release(Addr addr, uint64_t value, unsigned size, Barrier label) = 0;

    // The control dependency of (A): the agent's later stores may not perform before the
    // load that produced `value`. Returns value, so it reads like the branch it models.
    virtual uint64_t ctrl_dep(uint64_t value, Barrier label) = 0;
};

} // namespace ringsim::models
