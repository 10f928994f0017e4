// The TMC-ETR scatter-gather table: kernel-exact population, a strict hardware-style walker,
// and the driver's offset <-> address translation. See etr_sg_table.h.
#include "models/coresight/etr_sg_table.h"

#include <algorithm>
#include <array>

namespace ringsim::models::coresight {

namespace {

constexpr uint32_t kLinkSlot = kSgEntriesPerPage - 1;

bool page_aligned(Addr a) {
    return a % kSgPageSize == 0;
}
bool addressable(Addr a) {
    return (a >> kSgAddrBits) == 0;
}

void put_u32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i)
        p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
    return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
           static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
}

SgBuildError check_pages(const std::vector<Addr>& pages) {
    for (Addr a : pages) {
        if (!page_aligned(a)) return SgBuildError::unaligned;
        if (!addressable(a)) return SgBuildError::address_too_high;
    }
    return SgBuildError::none;
}

} // namespace

uint64_t sg_table_entries(uint64_t data_pages) {
    // Every table page but the last gives one slot to a link; a single entry spilling into a
    // new table page goes into the link's slot instead (the kernel's "< 2" adjustment).
    uint64_t links = data_pages / (kSgEntriesPerPage - 1);
    if (links != 0 && data_pages % (kSgEntriesPerPage - 1) < 2) --links;
    return data_pages + links;
}

uint64_t sg_table_pages(uint64_t data_pages) {
    return (sg_table_entries(data_pages) + kSgEntriesPerPage - 1) / kSgEntriesPerPage;
}

std::vector<uint32_t> sg_table_populate(const std::vector<Addr>& data_pages,
                                        const std::vector<Addr>& table_pages) {
    const uint64_t n = data_pages.size();
    if (n == 0 || table_pages.size() != sg_table_pages(n)) return {};
    const uint64_t n_entries = sg_table_entries(n);
    std::vector<uint32_t> out;
    out.reserve(n_entries);
    uint64_t dp = 0;
    // As in the kernel: every entry but the final one, then the final LAST data entry.
    for (uint64_t i = 0; i + 1 < n_entries; ++i) {
        if (i % kSgEntriesPerPage == kLinkSlot) {
            out.push_back(sg_entry(table_pages[i / kSgEntriesPerPage + 1], SgEntryType::link));
        } else {
            out.push_back(sg_entry(data_pages[dp++], SgEntryType::normal));
        }
    }
    out.push_back(sg_entry(data_pages[dp], SgEntryType::last));
    return out;
}

const char* to_string(SgBuildError e) {
    switch (e) {
    case SgBuildError::none:
        return "none";
    case SgBuildError::no_data_pages:
        return "no data pages";
    case SgBuildError::table_page_count:
        return "wrong number of table pages";
    case SgBuildError::unaligned:
        return "page address not 4 KiB aligned";
    case SgBuildError::address_too_high:
        return "page address above 40 bits";
    }
    return "?";
}

SgBuildResult sg_table_build(MemoryPort& port, const std::vector<Addr>& data_pages,
                             const std::vector<Addr>& table_pages) {
    SgBuildResult r;
    if (data_pages.empty())
        r.error = SgBuildError::no_data_pages;
    else if (table_pages.size() != sg_table_pages(data_pages.size()))
        r.error = SgBuildError::table_page_count;
    if (r.error == SgBuildError::none) r.error = check_pages(data_pages);
    if (r.error == SgBuildError::none) r.error = check_pages(table_pages);
    if (r.error != SgBuildError::none) return r;

    const std::vector<uint32_t> entries = sg_table_populate(data_pages, table_pages);
    std::vector<uint8_t> bytes(kSgPageSize);
    for (uint64_t tp = 0; tp < table_pages.size(); ++tp) {
        const uint64_t first = tp * kSgEntriesPerPage;
        const uint64_t count = std::min<uint64_t>(kSgEntriesPerPage, entries.size() - first);
        for (uint64_t i = 0; i < count; ++i)
            put_u32(&bytes[i * 4], entries[first + i]);
        port.store_bytes(table_pages[tp], bytes.data(), count * 4, false, Barrier::none);
        ++r.stores;
    }
    r.hwaddr = table_pages.front();
    r.entries = entries.size();
    return r;
}

const char* to_string(SgWalkError e) {
    switch (e) {
    case SgWalkError::none:
        return "none";
    case SgWalkError::unaligned_hwaddr:
        return "table address not 4 KiB aligned";
    case SgWalkError::invalid_entry:
        return "invalid entry (type 0)";
    case SgWalkError::misplaced_link:
        return "link before the last slot of a table page";
    case SgWalkError::missing_link:
        return "data entry in the link slot of a table page";
    case SgWalkError::link_instead_of_last:
        return "link where the last data page belongs";
    case SgWalkError::too_many_pages:
        return "more data pages than the buffer size";
    case SgWalkError::too_few_pages:
        return "fewer data pages than the buffer size";
    }
    return "?";
}

namespace {

// The verdict on one entry at `slot` with `seen` data pages already collected.
SgWalkError check_entry(uint32_t entry, uint32_t slot, uint64_t seen, uint64_t expected) {
    switch (sg_entry_type(entry)) {
    case SgEntryType::invalid:
        return SgWalkError::invalid_entry;
    case SgEntryType::link:
        if (slot != kLinkSlot) return SgWalkError::misplaced_link;
        // The kernel puts the LAST entry in the link slot when it is the only one left.
        if (seen + 1 == expected) return SgWalkError::link_instead_of_last;
        return SgWalkError::none;
    case SgEntryType::normal:
        if (seen + 1 >= expected) return SgWalkError::too_many_pages;
        if (slot == kLinkSlot) return SgWalkError::missing_link;
        return SgWalkError::none;
    case SgEntryType::last:
        if (seen + 1 > expected) return SgWalkError::too_many_pages;
        if (seen + 1 < expected) return SgWalkError::too_few_pages;
        return SgWalkError::none;
    }
    return SgWalkError::invalid_entry;
}

} // namespace

SgWalkResult sg_table_walk(MemoryPort& port, Addr hwaddr, uint64_t expected_pages) {
    SgWalkResult r;
    if (!page_aligned(hwaddr)) {
        r.error = SgWalkError::unaligned_hwaddr;
        r.error_table_page = hwaddr;
        return r;
    }
    std::array<uint8_t, kSgPageSize> page{};
    Addr table = hwaddr;
    // Each table page adds 1023 data pages or fails, so the walk ends within expected_pages.
    for (;;) {
        port.load_bytes(table, page.data(), kSgPageSize);
        ++r.table_pages_walked;
        for (uint32_t slot = 0; slot < kSgEntriesPerPage; ++slot) {
            const uint32_t e = get_u32(&page[slot * 4]);
            const SgWalkError err = check_entry(e, slot, r.pages.size(), expected_pages);
            if (err != SgWalkError::none) {
                r.error = err;
                r.error_table_page = table;
                r.error_slot = slot;
                r.error_entry = e;
                return r;
            }
            const SgEntryType type = sg_entry_type(e);
            if (type == SgEntryType::link) {
                table = sg_entry_addr(e);
                break;
            }
            r.pages.push_back(sg_entry_addr(e));
            if (type == SgEntryType::last) return r;
        }
    }
}

std::optional<Addr> sg_offset_to_addr(const std::vector<Addr>& pages, uint64_t offset) {
    const uint64_t index = offset / kSgPageSize;
    if (index >= pages.size()) return std::nullopt;
    return pages[index] + offset % kSgPageSize;
}

std::optional<uint64_t> sg_addr_to_offset(const std::vector<Addr>& pages, Addr addr) {
    for (uint64_t i = 0; i < pages.size(); ++i) {
        if (addr >= pages[i] && addr - pages[i] < kSgPageSize)
            return i * kSgPageSize + (addr - pages[i]);
    }
    return std::nullopt;
}

} // namespace ringsim::models::coresight
