// ETR scatter-gather table: the kernel's entry/table-page counts at every link boundary, exact
// entry words, one bulk store per table page on build, one load per table page on walk, each
// MemErr reason of the walker, and the driver's offset <-> address translation.
#include "models/coresight/etr_sg_table.h"
#include "models/memory/phys_mem.h"

#include <gtest/gtest.h>

using namespace ringsim::models;
using namespace ringsim::models::coresight;

namespace {

// A MemoryPort straight onto PhysicalMemory that counts operations.
struct CountingPort : MemoryPort {
    explicit CountingPort(PhysicalMemory& m) : mem(m) {}
    LoadTicket issue_load(Addr addr, uint64_t n, bool, Barrier) override {
        ++loads;
        LoadTicket t;
        t.addr = addr;
        t.size = n;
        return t;
    }
    LoadTicket issue_copy(Addr addr, uint64_t n, Picos, Picos) override {
        return issue_load(addr, n, false, Barrier::none);
    }
    void read(const LoadTicket& t, uint8_t* dst, std::vector<ByteSource>*) override {
        mem.read(t.addr, dst, t.size);
    }
    uint64_t store_bytes(Addr addr, const uint8_t* src, uint64_t n, bool, Barrier) override {
        mem.write(addr, src, n);
        store_sizes.push_back(n);
        return store_sizes.size();
    }
    void fence(Fence, Barrier) override {}
    void ctrl_dep(const LoadTicket&, Barrier) override {}
    bool cancel_store(uint64_t, const LoadTicket&) override { return false; }
    void wait_for(const LoadTicket&) override {}

    PhysicalMemory& mem;
    uint64_t loads = 0;
    std::vector<uint64_t> store_sizes;
};

// n data pages scattered (every other page) above 4 GiB; they need no backing memory.
std::vector<Addr> data_pages(uint64_t n) {
    std::vector<Addr> v;
    for (uint64_t i = 0; i < n; ++i)
        v.push_back(0x1'0000'0000ull + (n - i) * 0x2000);
    return v;
}

std::vector<Addr> table_pages(PhysicalMemory& mem, uint64_t n) {
    std::vector<Addr> v;
    for (uint64_t i = 0; i < n; ++i)
        v.push_back(mem.allocate("sgt" + std::to_string(i), kSgPageSize, kSgPageSize));
    return v;
}

void poke(PhysicalMemory& mem, Addr table, uint32_t slot, uint32_t entry) {
    mem.write(table + slot * 4, reinterpret_cast<const uint8_t*>(&entry), 4);
}

uint32_t peek(const PhysicalMemory& mem, Addr table, uint32_t slot) {
    uint32_t v = 0;
    mem.read(table + slot * 4, reinterpret_cast<uint8_t*>(&v), 4);
    return v;
}

} // namespace

TEST(EtrSgTable, EntryEncoding) {
    EXPECT_EQ(sg_entry(0x8000'1000, SgEntryType::normal), 0x0080'0012u);
    EXPECT_EQ(sg_entry(0xff'ffff'f000, SgEntryType::last), 0xffff'fff1u);
    EXPECT_EQ(sg_entry_addr(0xffff'fff3u), 0xff'ffff'f000u);
    EXPECT_EQ(sg_entry_type(0xffff'fff3u), SgEntryType::link);
}

TEST(EtrSgTable, EntryAndPageCountsAtLinkBoundaries) {
    // {data pages, entries, table pages}
    const uint64_t cases[][3] = {{1, 1, 1},       {1023, 1023, 1}, {1024, 1024, 1}, {1025, 1026, 2},
                                 {2046, 2047, 2}, {2047, 2048, 2}, {2048, 2050, 3}, {256, 256, 1}};
    for (const auto& c : cases) {
        EXPECT_EQ(sg_table_entries(c[0]), c[1]) << c[0];
        EXPECT_EQ(sg_table_pages(c[0]), c[2]) << c[0];
    }
}

TEST(EtrSgTable, PopulateSmallExact) {
    const std::vector<uint32_t> e =
        sg_table_populate({0x8000'1000, 0x8000'3000, 0x8000'2000}, {0x9000'0000});
    EXPECT_EQ(e, (std::vector<uint32_t>{0x0080'0012, 0x0080'0032, 0x0080'0021}));
    EXPECT_TRUE(sg_table_populate({0x8000'1000}, {0x9000'0000, 0x9000'1000}).empty());
}

TEST(EtrSgTable, BuildAndWalkTwoTablePages) {
    PhysicalMemory mem;
    CountingPort port(mem);
    const auto data = data_pages(1025);
    const auto tables = table_pages(mem, 2);
    const SgBuildResult b = sg_table_build(port, data, tables);
    ASSERT_EQ(b.error, SgBuildError::none);
    EXPECT_EQ(b.hwaddr, tables[0]);
    EXPECT_EQ(b.entries, 1026u);
    EXPECT_EQ(port.store_sizes, (std::vector<uint64_t>{4096, 8}));
    EXPECT_EQ(peek(mem, tables[0], 1022), sg_entry(data[1022], SgEntryType::normal));
    EXPECT_EQ(peek(mem, tables[0], 1023), sg_entry(tables[1], SgEntryType::link));
    EXPECT_EQ(peek(mem, tables[1], 0), sg_entry(data[1023], SgEntryType::normal));
    EXPECT_EQ(peek(mem, tables[1], 1), sg_entry(data[1024], SgEntryType::last));
    EXPECT_EQ(peek(mem, tables[1], 2), 0u);

    const SgWalkResult w = sg_table_walk(port, b.hwaddr, 1025);
    ASSERT_TRUE(w.ok()) << to_string(w.error);
    EXPECT_EQ(w.pages, data);
    EXPECT_EQ(w.table_pages_walked, 2u);
    EXPECT_EQ(port.loads, 2u);
}

TEST(EtrSgTable, LastEntryTakesTheLinkSlot) {
    PhysicalMemory mem;
    CountingPort port(mem);
    const auto data = data_pages(1024);
    const auto tables = table_pages(mem, 1);
    ASSERT_EQ(sg_table_build(port, data, tables).error, SgBuildError::none);
    EXPECT_EQ(peek(mem, tables[0], 1023), sg_entry(data[1023], SgEntryType::last));
    const SgWalkResult w = sg_table_walk(port, tables[0], 1024);
    ASSERT_TRUE(w.ok());
    EXPECT_EQ(w.pages, data);
    EXPECT_EQ(w.table_pages_walked, 1u);
}

TEST(EtrSgTable, BuildRejectsBadInputsWithoutWriting) {
    PhysicalMemory mem;
    CountingPort port(mem);
    const auto tables = table_pages(mem, 1);
    EXPECT_EQ(sg_table_build(port, {}, tables).error, SgBuildError::no_data_pages);
    EXPECT_EQ(sg_table_build(port, data_pages(1025), tables).error, SgBuildError::table_page_count);
    EXPECT_EQ(sg_table_build(port, {0x1'0000'0800}, tables).error, SgBuildError::unaligned);
    EXPECT_EQ(sg_table_build(port, {0x100'0000'0000}, tables).error,
              SgBuildError::address_too_high);
    EXPECT_EQ(sg_table_build(port, {0x1000}, {tables[0] + 8}).error, SgBuildError::unaligned);
    EXPECT_TRUE(port.store_sizes.empty());
}

TEST(EtrSgTable, WalkReportsEachMemErrReason) {
    PhysicalMemory mem;
    CountingPort port(mem);
    const auto data = data_pages(4);
    const auto tables = table_pages(mem, 1);
    const Addr t = tables[0];
    ASSERT_EQ(sg_table_build(port, data, tables).error, SgBuildError::none);

    EXPECT_EQ(sg_table_walk(port, t + 4, 4).error, SgWalkError::unaligned_hwaddr);
    EXPECT_EQ(sg_table_walk(port, t, 5).error, SgWalkError::too_few_pages);
    SgWalkResult w = sg_table_walk(port, t, 3);
    EXPECT_EQ(w.error, SgWalkError::too_many_pages);
    EXPECT_EQ(w.error_slot, 2u);
    EXPECT_EQ(w.pages.size(), 2u);
    EXPECT_EQ(sg_table_walk(port, t, 0).error, SgWalkError::too_many_pages);

    poke(mem, t, 1, 0x0080'0010); // type 0
    w = sg_table_walk(port, t, 4);
    EXPECT_EQ(w.error, SgWalkError::invalid_entry);
    EXPECT_EQ(w.error_table_page, t);
    EXPECT_EQ(w.error_slot, 1u);
    EXPECT_EQ(w.error_entry, 0x0080'0010u);
    EXPECT_EQ(w.table_pages_walked, 1u);

    poke(mem, t, 1, sg_entry(t, SgEntryType::link));
    EXPECT_EQ(sg_table_walk(port, t, 4).error, SgWalkError::misplaced_link);
}

TEST(EtrSgTable, WalkChecksTheLinkSlot) {
    PhysicalMemory mem;
    CountingPort port(mem);
    const auto data = data_pages(1025);
    const auto tables = table_pages(mem, 2);
    ASSERT_EQ(sg_table_build(port, data, tables).error, SgBuildError::none);
    // A data page in the link slot runs off the table page.
    poke(mem, tables[0], 1023, sg_entry(data[1023], SgEntryType::normal));
    EXPECT_EQ(sg_table_walk(port, tables[0], 1025).error, SgWalkError::missing_link);
    // With 1024 pages expected, the kernel would have put LAST in the link slot.
    poke(mem, tables[0], 1023, sg_entry(tables[1], SgEntryType::link));
    EXPECT_EQ(sg_table_walk(port, tables[0], 1024).error, SgWalkError::link_instead_of_last);
    // A table whose link loops back to itself ends at the page limit.
    poke(mem, tables[0], 1023, sg_entry(tables[0], SgEntryType::link));
    const SgWalkResult w = sg_table_walk(port, tables[0], 5000);
    EXPECT_EQ(w.error, SgWalkError::too_many_pages);
    EXPECT_EQ(w.table_pages_walked, 5u);
    EXPECT_EQ(w.pages.size(), 4999u);
}

TEST(EtrSgTable, OffsetAddressTranslation) {
    const std::vector<Addr> pages = {0x5000, 0x2000, 0x9000};
    EXPECT_EQ(sg_offset_to_addr(pages, 0), 0x5000u);
    EXPECT_EQ(sg_offset_to_addr(pages, 4095), 0x5fffu);
    EXPECT_EQ(sg_offset_to_addr(pages, 4096), 0x2000u);
    EXPECT_EQ(sg_offset_to_addr(pages, 12287), 0x9fffu);
    EXPECT_FALSE(sg_offset_to_addr(pages, 12288).has_value());
    EXPECT_EQ(sg_addr_to_offset(pages, 0x2010), 4096u + 16);
    EXPECT_EQ(sg_addr_to_offset(pages, 0x9fff), 12287u);
    EXPECT_FALSE(sg_addr_to_offset(pages, 0x6000).has_value());
    for (uint64_t off : {0ull, 17ull, 4096ull, 9000ull})
        EXPECT_EQ(sg_addr_to_offset(pages, *sg_offset_to_addr(pages, off)), off);
}
