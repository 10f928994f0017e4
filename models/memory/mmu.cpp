#include "models/memory/mmu.h"
#include "models/common/sim_wait.h"

#include "models/common/hex.h"
#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"

namespace ringsim::models {

AddressSpace::AddressSpace(const MmuParams& params)
    : m_p(params), m_next_vbase(Addr{0x7f00'0000'0000}) {
    require_param(params.page_size > 0, "MmuParams.page_size");
    require_param(params.tlb_entries > 0, "MmuParams.tlb_entries");
}

Addr AddressSpace::mmap(const std::string& name, const std::vector<Addr>& phys_pages,
                        uint64_t pgoff, bool writable, MmuCounters* counters) {
    Vma v;
    v.name = name;
    v.vbase = m_next_vbase;
    v.pgoff = pgoff;
    v.phys = phys_pages;
    v.writable = writable;
    v.counters = counters;
    // A guard page between VMAs, as mmap leaves holes between unrelated mappings.
    m_next_vbase += (phys_pages.size() + 1) * m_p.page_size;
    // map_range (M2): every page present, read-only; pgoff 0 becomes writable on its first
    // write (pfn_mkwrite). Lazy (M1): nothing present until touched.
    v.ptes.assign(phys_pages.size(), Pte{m_p.policy == MappingPolicy::eager, false});
    m_vmas.push_back(std::move(v));
    return m_vmas.back().vbase;
}

AddressSpace::Vma& AddressSpace::vma_of(Addr vaddr) {
    for (Vma& v : m_vmas)
        if (vaddr >= v.vbase && vaddr < v.vbase + v.phys.size() * m_p.page_size) return v;
    throw ModelError("mmu: the consumer touched " + hex(vaddr) +
                     ", which no mapping covers (SIGSEGV)");
}

bool AddressSpace::tlb_lookup(uint64_t vpage) {
    const auto it = m_tlb.find(vpage);
    if (it != m_tlb.end()) {
        m_lru.splice(m_lru.begin(), m_lru, it->second);
        return true;
    }
    if (m_p.tlb_entries == 0) return false;
    if (m_tlb.size() == m_p.tlb_entries) {
        m_tlb.erase(m_lru.back());
        m_lru.pop_back();
    }
    m_lru.push_front(vpage);
    m_tlb[vpage] = m_lru.begin();
    return false;
}

Translation AddressSpace::translate(Addr vaddr, uint64_t n, bool write) {
    Vma& v = vma_of(vaddr);
    const uint64_t ps = m_p.page_size;
    const uint64_t first = (vaddr - v.vbase) / ps;
    const uint64_t last = (vaddr + (n ? n : 1) - 1 - v.vbase) / ps;
    if (last >= v.phys.size())
        throw ModelError("mmu: an access of " + std::to_string(n) + " bytes at " + hex(vaddr) +
                         " runs past the end of the " + v.name + " mapping");
    Translation t;
    for (uint64_t i = first; i <= last; ++i) {
        if (i > first && v.phys[i] != v.phys[i - 1] + ps)
            throw ModelError("mmu: an access at " + hex(vaddr) +
                             " spans physically "
                             "discontiguous pages of the " +
                             v.name + " mapping");
        const uint64_t vpage = v.vbase / ps + i;
        if (tlb_lookup(vpage)) {
            t.cost += m_p.tlb_hit;
            if (v.counters) ++v.counters->tlb_hits;
        } else {
            ++t.tlb_misses;
            t.cost += m_p.tlb_miss + m_p.page_walk;
            if (v.counters) ++v.counters->tlb_misses;
        }
        Pte& pte = v.ptes[i];
        const uint64_t pgoff = v.pgoff + i;
        if (write && !v.writable)
            // A read-only VMA: the fault is refused before any perf handler runs.
            throw AccessFault("mmu: SIGSEGV: the consumer wrote " + std::to_string(n) +
                              " bytes at " + hex(vaddr) + ", page " + std::to_string(pgoff) +
                              " of the " + v.name + " mapping, which is read-only");
        if (write && pgoff != 0)
            // perf_mmap_fault / perf_mmap_pfn_mkwrite refuse a write to anything but the
            // control page (M1, M2).
            throw AccessFault("mmu: SIGBUS: the consumer wrote " + std::to_string(n) +
                              " bytes at " + hex(vaddr) + ", page " + std::to_string(pgoff) +
                              " of the " + v.name +
                              " mapping: only page 0, the control page, is writable");
        if (!pte.present || (write && !pte.writable)) {
            // A first touch (lazy, M1) or the first write to the control page (M1's
            // page_mkwrite, M2's pfn_mkwrite): the kernel installs the page.
            pte.present = true;
            pte.writable = pte.writable || write;
            ++t.faults;
            t.cost += m_p.fault;
            if (v.counters) {
                ++v.counters->page_faults;
                v.counters->fault_time += m_p.fault;
            }
        }
    }
    t.phys = v.phys[first] + (vaddr - v.vbase) % ps;
    return t;
}

Addr MmuPort::translate(Addr vaddr, uint64_t n, bool write) {
    const Picos start = sim_now();
    const Translation t = m_space.translate(vaddr, n, write);
    if (t.cost) {
        for (MmuObserver* o : m_observers)
            o->on_translation(m_inner.agent(), vaddr, n, write, start, t);
        sim_wait(t.cost);
    }
    return t.phys;
}

LoadTicket MmuPort::issue_load(Addr vaddr, uint64_t n, bool acquire, Barrier label) {
    return m_inner.issue_load(translate(vaddr, n, false), n, acquire, label);
}

LoadTicket MmuPort::issue_copy(Addr vaddr, uint64_t n, Picos start, Picos span) {
    // The whole range is translated first (its TLB misses and faults paid up front), then
    // copied: the pieces' times count from the end of the translation.
    return m_inner.issue_copy(translate(vaddr, n, false), n, start, span);
}

uint64_t MmuPort::store_bytes(Addr vaddr, const uint8_t* src, uint64_t n, bool release,
                              Barrier label) {
    return m_inner.store_bytes(translate(vaddr, n, true), src, n, release, label);
}

} // namespace ringsim::models

namespace ringsim::models {

// Counted per buffer: each mapping carries the MmuCounters of the buffer it maps.
void declare_mmu_stats(StatRegistry& r) {
    using S = MmuCounters;
    r.counter("mmu.page_faults", "faults",
              "page faults the consumer took on this buffer's "
              "mappings: first touches under lazy mapping (M1), the first write to the control "
              "page under either (page_mkwrite / pfn_mkwrite, M2)",
              &S::page_faults);
    r.counter("mmu.fault_time", "ps", "time the consumer spent in those faults", &S::fault_time);
    r.counter("mmu.tlb_misses", "misses",
              "the consumer's TLB misses on this buffer's pages, "
              "each a page walk",
              &S::tlb_misses);
    r.counter("mmu.tlb_hits", "hits", "the consumer's TLB hits on this buffer's pages",
              &S::tlb_hits);
}

} // namespace ringsim::models
