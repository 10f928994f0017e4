// The consumer's MMU (KERNEL-SEMANTICS M1, M2): TLB hits and misses, first-touch faults
// under lazy mapping, the control page's mkwrite fault under both, SIGBUS on a write to any
// other page, and the costs paid in simulated time before the access issues.
#include "models/memory/mmu.h"

#include "models/memory/phys_mem.h"

#include <gtest/gtest.h>
#include <systemc>

namespace {

using namespace ringsim::models;

constexpr uint64_t kPage = 4096;

MmuParams params(MappingPolicy policy, unsigned tlb = 4) {
    MmuParams p;
    p.page_size = kPage;
    p.policy = policy;
    p.tlb_entries = tlb;
    p.tlb_hit = 1'000;    // 1 ns
    p.tlb_miss = 5'000;   // 5 ns
    p.page_walk = 25'000; // 25 ns
    p.fault = 2'000'000;  // 2 us
    return p;
}

std::vector<Addr> pages(Addr base, uint64_t n) {
    std::vector<Addr> v;
    for (uint64_t i = 0; i < n; ++i)
        v.push_back(base + i * kPage);
    return v;
}

TEST(Mmu, EagerMapsEveryPageAndOnlyTheControlPageFaultsOnItsFirstWrite) {
    AddressSpace as(params(MappingPolicy::eager));
    MmuCounters st;
    const Addr v = as.mmap("cpu0", pages(0x10000, 3), 0, true, &st);
    // First reads: TLB misses (one walk each), no fault.
    Translation t = as.translate(v + kPage, 64, false);
    EXPECT_EQ(t.phys, 0x10000 + kPage);
    EXPECT_EQ(t.tlb_misses, 1u);
    EXPECT_EQ(t.faults, 0u);
    EXPECT_EQ(t.cost, 30'000u);
    // Again: a hit.
    t = as.translate(v + kPage + 8, 8, false);
    EXPECT_EQ(t.cost, 1'000u);
    // The first write to page 0: a walk and the pfn_mkwrite fault; the second: nothing.
    t = as.translate(v + 1024, 8, true);
    EXPECT_EQ(t.faults, 1u);
    EXPECT_EQ(t.cost, 30'000u + 2'000'000u);
    t = as.translate(v + 1024, 8, true);
    EXPECT_EQ(t.cost, 1'000u);
    EXPECT_EQ(st.page_faults, 1u);
    EXPECT_EQ(st.fault_time, 2'000'000u);
    EXPECT_EQ(st.tlb_misses, 2u);
    EXPECT_EQ(st.tlb_hits, 2u);
}

TEST(Mmu, LazyFaultsOnEveryFirstTouchAndOnTheControlPagesFirstWrite) {
    AddressSpace as(params(MappingPolicy::lazy, 64));
    MmuCounters st;
    const Addr v = as.mmap("cpu0", pages(0x20000, 5), 0, true, &st);
    // A bulk read of data pages 1..4: four walks, four faults, paid once.
    Translation t = as.translate(v + kPage, 4 * kPage, false);
    EXPECT_EQ(t.tlb_misses, 4u);
    EXPECT_EQ(t.faults, 4u);
    EXPECT_EQ(t.cost, 4 * 30'000u + 4 * 2'000'000u);
    EXPECT_EQ(as.translate(v + kPage, 4 * kPage, false).cost, 4'000u); // four hits
    // Page 0: read fault, then a second fault for its first write (page_mkwrite, M1).
    EXPECT_EQ(as.translate(v, 8, false).faults, 1u);
    EXPECT_EQ(as.translate(v, 8, true).faults, 1u);
    EXPECT_EQ(as.translate(v, 8, true).faults, 0u);
    EXPECT_EQ(st.page_faults, 6u);
}

TEST(Mmu, TheTlbEvictsTheLeastRecentlyUsedPage) {
    AddressSpace as(params(MappingPolicy::eager, 2));
    const Addr v = as.mmap("cpu0", pages(0x30000, 4), 0, true, nullptr);
    EXPECT_EQ(as.translate(v + 1 * kPage, 8, false).tlb_misses, 1u); // {1}
    EXPECT_EQ(as.translate(v + 2 * kPage, 8, false).tlb_misses, 1u); // {2, 1}
    EXPECT_EQ(as.translate(v + 1 * kPage, 8, false).tlb_misses, 0u); // {1, 2}
    EXPECT_EQ(as.translate(v + 3 * kPage, 8, false).tlb_misses, 1u); // {3, 1}: 2 out
    EXPECT_EQ(as.translate(v + 1 * kPage, 8, false).tlb_misses, 0u);
    EXPECT_EQ(as.translate(v + 2 * kPage, 8, false).tlb_misses, 1u);
}

TEST(Mmu, AWriteToAnyPageButTheControlPageIsAccessFault) {
    for (MappingPolicy policy : {MappingPolicy::eager, MappingPolicy::lazy}) {
        AddressSpace as(params(policy));
        const Addr v = as.mmap("cpu0", pages(0x40000, 3), 0, true, nullptr);
        try {
            as.translate(v + 2 * kPage + 16, 8, true);
            FAIL() << "no SIGBUS";
        } catch (const AccessFault& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("SIGBUS"), std::string::npos);
            EXPECT_NE(what.find("page 2 of the cpu0 mapping"), std::string::npos) << what;
        }
        // An AUX mapping at pgoff 9: its first page is not the control page either.
        const Addr aux = as.mmap("cpu0.aux", pages(0x80000, 2), 9, true, nullptr);
        EXPECT_THROW(as.translate(aux, 8, true), AccessFault);
        // A read-only mapping (overwrite mode) refuses even the control page.
        const Addr ro = as.mmap("cpu1", pages(0x90000, 2), 0, false, nullptr);
        try {
            as.translate(ro, 8, true);
            FAIL() << "no SIGSEGV";
        } catch (const AccessFault& e) {
            EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos) << e.what();
        }
        EXPECT_NO_THROW(as.translate(ro, 8, false));
    }
}

TEST(Mmu, AccessesOutsideOrAcrossMappingsAreModelErrors) {
    AddressSpace as(params(MappingPolicy::eager));
    const Addr v = as.mmap("cpu0", {0x10000, 0x50000}, 0, true, nullptr);
    EXPECT_THROW(as.translate(v + 3 * kPage, 8, false), ModelError);     // unmapped
    EXPECT_THROW(as.translate(v + kPage - 4, 8, false), ModelError);     // discontiguous
    EXPECT_THROW(as.translate(v + kPage, 2 * kPage, false), ModelError); // past the end
}

// The port pays the cost in simulated time on the calling thread, then issues the access
// at the physical address.
struct PortRig : sc_core::sc_module {
    SC_HAS_PROCESS(PortRig);
    PhysicalMemory mem;
    MemorySystem system{mem, MemoryModel::sc, TimingPolicy::none, 1};
    AddressSpace as{params(MappingPolicy::lazy)};
    Addr phys = 0, virt = 0;
    std::unique_ptr<MmuPort> port;
    sc_core::sc_time load_issued, store_issued;
    uint64_t value = 0;
    explicit PortRig(sc_core::sc_module_name n) : sc_module(n) {
        phys = mem.allocate("buf", 2 * kPage, kPage);
        virt = as.mmap("cpu0", pages(phys, 2), 0, true, nullptr);
        port = std::make_unique<MmuPort>(system.agent("cpu1"), as);
        SC_THREAD(run);
    }
    void run() {
        port->store(virt + 8, 0x1234, 8); // read fault + mkwrite fault? lazy write: one fault
        store_issued = sc_core::sc_time_stamp();
        value = port->load(virt + 8, 8);
        load_issued = sc_core::sc_time_stamp();
    }
};

TEST(Mmu, ThePortWaitsForTheTranslationThenAccessesPhysicalMemory) {
    PortRig rig("rig");
    sc_core::sc_start();
    // The store: one walk and one fault (first touch, a write to page 0): 2.03 us.
    EXPECT_EQ(rig.store_issued.value(), 2'030'000u);
    // The load: a TLB hit, no fault: 1 ns.
    EXPECT_EQ(rig.load_issued.value(), 2'031'000u);
    EXPECT_EQ(rig.value, 0x1234u);
    uint64_t raw = 0;
    rig.mem.read(rig.phys + 8, reinterpret_cast<uint8_t*>(&raw), 8);
    EXPECT_EQ(raw, 0x1234u);
}

} // namespace

// A consumer thread that writes a data page dies of SIGBUS: the simulation stops with the
// error, naming the address, the page and the mapping (the CLI prints it and exits 3).
struct BadWriter : sc_core::sc_module {
    SC_HAS_PROCESS(BadWriter);
    PhysicalMemory mem;
    MemorySystem system{mem, MemoryModel::sc, TimingPolicy::none, 1};
    AddressSpace as{params(MappingPolicy::eager)};
    Addr virt = 0;
    std::unique_ptr<MmuPort> port;
    explicit BadWriter(sc_core::sc_module_name n) : sc_module(n) {
        const Addr phys = mem.allocate("buf", 3 * kPage, kPage);
        virt = as.mmap("cpu0", pages(phys, 3), 0, true, nullptr);
        port = std::make_unique<MmuPort>(system.agent("cpu1"), as);
        SC_THREAD(run);
    }
    void run() { port->store(virt + kPage + 0x40, 1, 8); }
};

TEST(Mmu, AConsumerThreadWritingADataPageStopsTheRunWithSigbus) {
    BadWriter w("w");
    std::string message;
    try {
        sc_core::sc_start();
    } catch (const std::exception& e) {
        message = e.what();
    }
    EXPECT_NE(message.find("SIGBUS"), std::string::npos) << message;
    EXPECT_NE(message.find("0x7f0000001040"), std::string::npos) << message; // the address
    EXPECT_NE(message.find("page 1 of the cpu0 mapping"), std::string::npos) << message;
}
