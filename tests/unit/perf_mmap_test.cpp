// perf_mmap's checks on the tool's two mappings (KERNEL-SEMANTICS R11, M3), and its AUX
// branch as the tool's mmap call runs it (mmap_aux).
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/kernel/perf_mmap.h"
#include "models/memory/engine_port.h"
#include "models/memory/mmu.h"

#include <gtest/gtest.h>

namespace {

using namespace ringsim::models::perf;
using ringsim::models::Addr;

TEST(PerfMmap, DataMappingIsOnePlusTwoToTheNPagesAtOffsetZero) {
    EXPECT_EQ(data_mmap_error(0, 9), "");
    EXPECT_EQ(data_mmap_error(0, 2), "");
    EXPECT_NE(data_mmap_error(0, 8), ""); // 7 data pages
    EXPECT_NE(data_mmap_error(0, 1), ""); // no data page
    EXPECT_NE(data_mmap_error(1, 9), ""); // not at the control page
}

TEST(PerfMmap, AuxMappingRules) {
    const uint64_t page = 4096, data = 8 * page;
    // perf's choice: right after the data mapping.
    EXPECT_EQ(default_aux_offset(data, page), 9 * page);
    EXPECT_EQ(aux_mmap_error(9 * page, 16 * page, 9 * page, 16 * page, data, page), "");
    EXPECT_EQ(aux_mmap_error(64 * page, 16 * page, 64 * page, 16 * page, data, page), "");
    // Inside the data area.
    EXPECT_NE(aux_mmap_error(8 * page, 16 * page, 8 * page, 16 * page, data, page)
                  .find("data_size + PAGE_SIZE"),
              std::string::npos);
    // Not page aligned.
    EXPECT_NE(aux_mmap_error(9 * page + 8, 16 * page, 9 * page + 8, 16 * page, data, page), "");
    // The mapping not at aux_offset, or not aux_size long.
    EXPECT_NE(aux_mmap_error(9 * page, 16 * page, 10 * page, 16 * page, data, page), "");
    EXPECT_NE(aux_mmap_error(9 * page, 16 * page, 9 * page, 8 * page, data, page), "");
    // Not 2^n pages.
    EXPECT_NE(aux_mmap_error(9 * page, 12 * page, 9 * page, 12 * page, data, page).find("2^n"),
              std::string::npos);
}

// The tool's side of mmap_aux's rig: the control page, 4 AUX pages, the tool's address
// space, and the kernel's view of memory on the tool's CPU.
struct AuxMapRig {
    static constexpr uint64_t kPage = 4096;
    ringsim::models::PhysicalMemory phys;
    ringsim::models::MemorySystem mem{phys, ringsim::models::MemoryModel::sc,
                                      ringsim::models::TimingPolicy::none, 1};
    ringsim::models::EnginePort& cpu = mem.agent("cpu0");
    ringsim::models::AddressSpace space{[] {
        ringsim::models::MmuParams p;
        p.page_size = kPage;
        p.tlb_entries = 64;
        return p;
    }()};
    ringsim::models::PerfAux aux{[] {
        ringsim::models::PerfAuxParams p;
        p.name = "cpu0.aux";
        p.aux_size = 4 * kPage;
        return p;
    }()};
    AuxArea area;
    AuxMapRig() {
        area.name = "cpu0";
        area.user_page = phys.allocate("up", kPage, kPage);
        const Addr base = phys.allocate("aux", 4 * kPage, kPage);
        for (uint64_t i = 0; i < 4; ++i)
            area.pages.push_back(base + i * kPage);
        area.data_size = 8 * kPage;
        area.aux = &aux;
    }
    // What auxtrace_mmap__mmap stores before its mmap call (C7).
    void tool_asks(uint64_t aux_offset, uint64_t aux_size) {
        cpu.store(area.user_page + kOffAuxOffset, aux_offset, 8);
        cpu.store(area.user_page + kOffAuxSize, aux_size, 8);
    }
};

TEST(PerfMmap, MmapAuxMapsTheAuxPagesWhereTheToolAskedForThem) {
    AuxMapRig r;
    r.tool_asks(9 * AuxMapRig::kPage, 4 * AuxMapRig::kPage);
    const Addr v = mmap_aux(r.cpu, r.space, r.area, 9 * AuxMapRig::kPage, true, AuxMapRig::kPage);
    for (uint64_t i = 0; i < 4; ++i)
        EXPECT_EQ(r.space.translate(v + i * AuxMapRig::kPage + 8, 8, false).phys,
                  r.area.pages[i] + 8);
    EXPECT_FALSE(r.aux.overwrite()); // a writable mapping: the tool moves aux_tail
}

TEST(PerfMmap, MmapAuxReadOnlyMakesTheAuxBufferOverwrite) {
    // rb_alloc_aux: without VM_WRITE the AUX buffer is in overwrite mode (snapshot, C7, M3).
    AuxMapRig r;
    r.tool_asks(9 * AuxMapRig::kPage, 4 * AuxMapRig::kPage);
    const Addr v = mmap_aux(r.cpu, r.space, r.area, 9 * AuxMapRig::kPage, false, AuxMapRig::kPage);
    EXPECT_TRUE(r.aux.overwrite());
    EXPECT_EQ(r.space.translate(v, 8, false).phys, r.area.pages[0]);
}

TEST(PerfMmap, MmapAuxRefusesWhatTheControlPageDoesNotMatch) {
    AuxMapRig r;
    r.tool_asks(9 * AuxMapRig::kPage, 8 * AuxMapRig::kPage); // aux_size is not the mapping's
    try {
        mmap_aux(r.cpu, r.space, r.area, 9 * AuxMapRig::kPage, true, AuxMapRig::kPage);
        FAIL() << "perf_mmap accepted an AUX mapping of another size than aux_size";
    } catch (const ringsim::models::ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("refused the AUX mapping of cpu0 (EINVAL)"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
