// Simulated physical memory: named regions (a control page, a buffer's data pages) laid
// out at fixed addresses. Only the ordering engine touches it; models never do.
#pragma once

#include "models/common/types.h"
#include "models/memory/anon_bytes.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::models {

class PhysicalMemory {
public:
    // Reserve `size` zeroed bytes aligned to `align`; returns the base address. The host
    // pays only for the pages the run writes (AnonBytes).
    Addr allocate(const std::string& name, uint64_t size, uint64_t align);

    void read(Addr addr, uint8_t* dst, uint64_t n) const;
    void write(Addr addr, const uint8_t* src, uint64_t n);
    uint64_t read_u64(Addr addr) const;

private:
    struct Region {
        std::string name;
        Addr base;
        AnonBytes bytes;
    };
    // The region holding [addr, addr + n): a model error if there is none, since a model
    // that reaches outside its buffers has a bug worth stopping for.
    const Region& region_of(Addr addr, uint64_t n) const;

    static constexpr Addr kBase = 0x8000'0000; // where DRAM starts on many Arm boards
    std::vector<Region> m_regions;             // sorted by base (allocated in order)
    mutable size_t m_last = 0; // the region the last access found: the next one's first guess
    Addr m_next = kBase;
};

} // namespace ringsim::models
