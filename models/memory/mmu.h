// The perf tool's address space and its CPU's TLB (KERNEL-SEMANTICS M1-M3): the consumer's
// loads and stores use virtual addresses, translated here before they reach the ordering
// engine; the kernel keeps writing through its own mapping (physical addresses, no faults).
//  - AddressSpace: one simulated process's page table. mmap() creates a VMA over physical
//    pages at a file offset (pgoff 0 is the control page). Two policies:
//      lazy  (kernels before 6.14, M1): nothing is mapped at mmap; the first touch of a page
//            faults and the kernel installs it; a write fault on any pgoff but 0 is SIGBUS;
//      eager (6.14 and later, M2): every page is mapped read-only at mmap (map_range); the
//            first write to pgoff 0 faults once (pfn_mkwrite) and makes it writable; a write
//            to any other page is SIGBUS.
//    A read-only mapping (an overwrite buffer, R11, or a snapshot AUX area, C7) refuses every
//    write.
//  - The TLB: `entries` entries, least recently used out; each page an access touches costs
//    the hit latency, or the miss latency plus a page walk. A bulk access is translated
//    page by page and its whole cost is paid once, before the access issues (no event per
//    page).
// Leaves out: huge pages, ASIDs and TLB shootdowns (nothing is unmapped during a run), the
// kernel's own TLB, page-table pages in simulated memory (the walk is a cost, not loads).
#pragma once

#include "models/common/types.h"
#include "models/memory/engine_port.h"
#include "models/memory/mapping_policy.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ringsim::models {

struct MmuParams {
    uint64_t page_size = 0;
    MappingPolicy policy = MappingPolicy::eager;
    unsigned tlb_entries = 0;
    Picos tlb_hit = 0;   // per page the TLB holds
    Picos tlb_miss = 0;  // per page it misses, before the walk
    Picos page_walk = 0; // per page it misses
    Picos fault = 0;     // servicing one page fault (first touch, or the mkwrite of pgoff 0)
};

// A write the kernel refuses: perf would die of SIGBUS (a write to a perf page other than
// the control page, M1/M2) or SIGSEGV (any write to a read-only VMA); the message says which.
class AccessFault : public ModelError {
public:
    using ModelError::ModelError;
};

// What one translation cost, for the statistics and the timeline.
struct Translation {
    Addr phys = 0;
    Picos cost = 0;
    unsigned tlb_misses = 0;
    unsigned faults = 0;
};

// What the MMU counts on one mapping's pages (stats mmu.*): kept by the mapping's owner,
// one block per buffer (its data and AUX mappings share it).
struct MmuCounters {
    uint64_t page_faults = 0;
    uint64_t fault_time = 0; // ps
    uint64_t tlb_misses = 0;
    uint64_t tlb_hits = 0;
};

// Told about every translation that cost time (TLB walks, faults).
class MmuObserver {
public:
    virtual ~MmuObserver() = default;
    virtual void on_translation(unsigned agent, Addr vaddr, uint64_t n, bool write, Picos start,
                                const Translation& t) = 0;
};

class AddressSpace {
public:
    explicit AddressSpace(const MmuParams& params);

    // perf_mmap: a VMA over `phys_pages` (one physical address per page) starting at file
    // page `pgoff`; returns its virtual base. `counters` counts its faults and TLB misses.
    Addr mmap(const std::string& name, const std::vector<Addr>& phys_pages, uint64_t pgoff,
              bool writable, MmuCounters* counters);

    // Translates [vaddr, vaddr + n) for a load or a store, updating the TLB and the page
    // table; the range must lie in one VMA, on physically contiguous pages. Throws AccessFault.
    Translation translate(Addr vaddr, uint64_t n, bool write);

    const MmuParams& params() const { return m_p; }

private:
    struct Pte {
        bool present = false;
        bool writable = false;
    };
    struct Vma {
        std::string name;
        Addr vbase = 0;
        uint64_t pgoff = 0;
        std::vector<Addr> phys;
        // The page table of this VMA, a Pte per page: two bytes a page, so a large mapping
        // the run never touches costs little (issue 13 §2).
        std::vector<Pte> ptes;
        bool writable = false;
        MmuCounters* counters = nullptr;
    };
    Vma& vma_of(Addr vaddr);
    bool tlb_lookup(uint64_t vpage);

    MmuParams m_p;
    std::vector<Vma> m_vmas;
    Addr m_next_vbase;
    std::list<uint64_t> m_lru; // TLB, most recent first
    std::unordered_map<uint64_t, std::list<uint64_t>::iterator> m_tlb;
};

// The consumer's MemoryPort: translates, pays the translation's cost in simulated time on
// the calling thread, then issues the access to the engine at the physical address.
class MmuPort final : public MemoryPort {
public:
    MmuPort(EnginePort& inner, AddressSpace& space) : m_inner(inner), m_space(space) {}
    void add_observer(MmuObserver* o) { m_observers.push_back(o); }
    void remove_observer(MmuObserver* o) {
        m_observers.erase(std::remove(m_observers.begin(), m_observers.end(), o),
                          m_observers.end());
    }
    EnginePort& inner() { return m_inner; }

    LoadTicket issue_load(Addr vaddr, uint64_t n, bool acquire, Barrier label) override;
    LoadTicket issue_copy(Addr vaddr, uint64_t n, Picos start, Picos span) override;
    void read(const LoadTicket& t, uint8_t* dst, std::vector<ByteSource>* sources) override {
        m_inner.read(t, dst, sources);
    }
    uint64_t store_bytes(Addr vaddr, const uint8_t* src, uint64_t n, bool release,
                         Barrier label) override;
    void wait_for(const LoadTicket& t) override { m_inner.wait_for(t); }
    void fence(Fence kind, Barrier label) override { m_inner.fence(kind, label); }
    void ctrl_dep(const LoadTicket& t, Barrier label) override { m_inner.ctrl_dep(t, label); }
    bool cancel_store(uint64_t seq, const LoadTicket& branch) override {
        return m_inner.cancel_store(seq, branch);
    }

private:
    Addr translate(Addr vaddr, uint64_t n, bool write);

    EnginePort& m_inner;
    AddressSpace& m_space;
    std::vector<MmuObserver*> m_observers;
};

} // namespace ringsim::models
