// The TMC-ETR scatter-gather table (ETR_SG buffer mode, KERNEL-SEMANTICS E2/E4), as built by
// coresight-tmc-etr.c (tmc_etr_sg_table_entries, tmc_etr_sg_table_populate) and walked by the
// ETR when AXICTL bit 7 is set, plus the offset <-> address translation the driver does for
// RRP/RWP (tmc_etr_sg_paddr_to_offset, tmc_etr_sync_sg_buf).
//  - Entries are little-endian u32: bits[31:4] = address[39:12], bits[1:0] = type
//    (1 last data page, 2 normal data page, 3 link to the next table page, 0 invalid).
//  - A table page is 4 KiB = 1024 entries; the last slot of every table page but the last is
//    a link. As in the kernel, when only one entry would spill into a new table page, that
//    entry (the LAST data page) takes the link's slot instead.
// Model choices: system pages are 4 KiB (ETR_SG_PAGES_PER_SYSPAGE = 1); the builder writes one
// bulk store per table page covering only its used entries (the kernel's page is zeroed at
// allocation, so callers should hand it zeroed table pages); the walker reads each table page
// with one 4 KiB load, whole, as the cost unit the sink charges per table page. The walker is
// strict: anything the kernel's populate would never produce is a MemErr with a reason.
// Leaves out: CATU, 64 KiB system pages, the DMA mapping and cache maintenance, the ETR's real
// prefetch of table entries. An address outside simulated memory is the port's ModelError.
#pragma once

#include "models/common/types.h"
#include "models/memory/memory_port.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ringsim::models::coresight {

// A fault injected into the table after the driver built it (E4, D10): the sink's walk
// at the next enable meets it.
enum class SgTableFault { none, invalid_entry, missing_link, last_too_early };

constexpr uint64_t kSgPageSize = 4096;       // ETR_SG_PAGE_SIZE
constexpr uint32_t kSgEntriesPerPage = 1024; // ETR_SG_PTRS_PER_PAGE
constexpr unsigned kSgAddrBits = 40;         // bits[31:4] hold address[39:12]

enum class SgEntryType : uint32_t { invalid = 0, last = 1, normal = 2, link = 3 };

// ETR_SG_ENTRY(addr, type); addr must be page aligned and below 2^40.
constexpr uint32_t sg_entry(Addr addr, SgEntryType type) {
    return static_cast<uint32_t>(((addr >> 12) << 4) | static_cast<uint32_t>(type));
}
constexpr Addr sg_entry_addr(uint32_t entry) {
    return static_cast<Addr>(entry >> 4) << 12;
}
constexpr SgEntryType sg_entry_type(uint32_t entry) {
    return static_cast<SgEntryType>(entry & 3u);
}

// tmc_etr_sg_table_entries: data entries plus the links needed to chain the table pages.
uint64_t sg_table_entries(uint64_t data_pages);
// The table pages those entries fill (DIV_ROUND_UP(entries, 1024)).
uint64_t sg_table_pages(uint64_t data_pages);

// The entries of tmc_etr_sg_table_populate, in table order (all table pages concatenated).
// Empty when either list has the wrong length (see sg_table_pages) or is empty.
std::vector<uint32_t> sg_table_populate(const std::vector<Addr>& data_pages,
                                        const std::vector<Addr>& table_pages);

enum class SgBuildError { none, no_data_pages, table_page_count, unaligned, address_too_high };
const char* to_string(SgBuildError e);

struct SgBuildResult {
    SgBuildError error = SgBuildError::none;
    Addr hwaddr = 0;      // first table page: what DBALO/HI get
    uint64_t entries = 0; // table entries written
    uint64_t stores = 0;  // bulk stores issued (one per table page)
};

// Validates the pages, then writes the table through `port`; nothing is written on an error.
SgBuildResult sg_table_build(MemoryPort& port, const std::vector<Addr>& data_pages,
                             const std::vector<Addr>& table_pages);

enum class SgWalkError {
    none,
    unaligned_hwaddr,     // DBA not 4 KiB aligned
    invalid_entry,        // type 0
    misplaced_link,       // a link before the last slot of a table page
    missing_link,         // the last slot of a table page is a normal data page
    link_instead_of_last, // a link where the expected final (LAST) data page belongs
    too_many_pages,       // more data pages than the buffer size allows
    too_few_pages,        // LAST reached before the buffer size was covered
};
const char* to_string(SgWalkError e);

struct SgWalkResult {
    SgWalkError error = SgWalkError::none; // none: pages is the buffer; else STS.MemErr
    std::vector<Addr> pages;               // data pages in buffer order (so far, on error)
    uint64_t table_pages_walked = 0;       // table pages loaded, including the failing one
    Addr error_table_page = 0;             // where the walk failed
    uint32_t error_slot = 0;
    uint32_t error_entry = 0;
    bool ok() const { return error == SgWalkError::none; }
};

// Walks the table at `hwaddr` the way the ETR does, one 4 KiB load per table page, expecting
// exactly `expected_pages` data pages (RSZ * 4 / 4096).
SgWalkResult sg_table_walk(MemoryPort& port, Addr hwaddr, uint64_t expected_pages);

// Buffer offset -> physical address (the page holding it); nullopt past the end.
std::optional<Addr> sg_offset_to_addr(const std::vector<Addr>& pages, uint64_t offset);
// Physical address -> buffer offset, scanning the pages as tmc_etr_sg_paddr_to_offset does;
// nullopt when no page holds it (the driver's -EINVAL).
std::optional<uint64_t> sg_addr_to_offset(const std::vector<Addr>& pages, Addr addr);

} // namespace ringsim::models::coresight
