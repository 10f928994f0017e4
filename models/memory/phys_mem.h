// Simulated physical memory: named regions (a control page, a buffer's data pages) laid
// out at fixed addresses. Only the ordering engine touches it; models never do.
#pragma once

#include "models/common/types.h"
#include "models/memory/anon_bytes.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace ringsim::models {

class PhysicalMemory {
public:
    // Reserve `size` zeroed bytes aligned to `align`; returns the base address. The host
    // pays only for the pages the run writes (AnonBytes).
    Addr allocate(const std::string& name, uint64_t size, uint64_t align);

    // Inline: the engine copies every access through these.
    void read(Addr addr, uint8_t* dst, uint64_t n) const { copy(dst, host(addr, n), n); }
    void write(Addr addr, const uint8_t* src, uint64_t n) { copy(host(addr, n), src, n); }
    // Most accesses are a u64 of a control page or a record header: a constant size is a
    // move, where any other size is a call of memcpy.
    static void copy(uint8_t* dst, const uint8_t* src, uint64_t n) {
        if (n == 8)
            std::memcpy(dst, src, 8);
        else
            std::memcpy(dst, src, n);
    }
    uint64_t read_u64(Addr addr) const;

private:
    struct Region {
        std::string name;
        AnonBytes bytes;
    };
    // Where each region lies, apart from what owns it: a binary search touches only these.
    struct Span {
        Addr base, end;
        uint8_t* data;
    };
    // The host bytes of [addr, addr + n), which one region must hold: a model error if none
    // does, since a model that reaches outside its buffers has a bug worth stopping for.
    uint8_t* host(Addr addr, uint64_t n) const {
        // Accesses alternate between a few regions (each CPU's control page and data
        // pages): a direct-mapped cache of the span each 4 KiB page lies in, large enough
        // that 32 CPUs' hot pages seldom evict each other (64 entries did, a binary search
        // on a third of the accesses: issue 13's cost per record on 32 CPUs over 4).
        const Addr page = addr >> 12;
        const PageHint& h = m_hints[page % kHints];
        if (h.page == page) {
            const Span& s = m_spans[h.span];
            // Small regions share a page: the span must hold the access, not just the page.
            if (addr >= s.base && addr + n <= s.end) return s.data + (addr - s.base);
        }
        return host_searched(addr, n);
    }
    uint8_t* host_searched(Addr addr, uint64_t n) const;

    static constexpr Addr kBase = 0x8000'0000; // where DRAM starts on many Arm boards
    std::vector<Region> m_regions;             // in allocation order
    std::vector<Span> m_spans;                 // the same, sorted by base (allocated in order)
    struct PageHint {
        Addr page = ~Addr(0); // none
        size_t span = 0;
    };
    static constexpr size_t kHints = 1024;
    mutable PageHint m_hints[kHints];
    Addr m_next = kBase;
};

} // namespace ringsim::models
