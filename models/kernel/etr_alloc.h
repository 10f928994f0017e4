// The ETR driver's buffer for a perf session (KERNEL-SEMANTICS E1, E2): its size, its mode
// and where its pages are. Mirrors drivers/hwtracing/coresight/coresight-tmc-etr.c :
// tmc_alloc_etr_buffer -> get_perf_etr_buf -> alloc_etr_buf -> tmc_alloc_etr_buf, and
// tmc_etr_alloc_sg_buf for the SG pages and table.
//  - E1: the buffer never uses the AUX pages; it is the AUX size when that is larger than
//    sysfs buffer_size, else buffer_size (the kernel halves it on allocation failure down
//    to 1 MiB; simulated memory never fails, so that loop ends at once).
//  - E2: the preferred mode (sysfs buf_mode_preferred) when not auto; else FLAT below 1 MiB
//    and ETR_SG from 1 MiB up (a TMC with SG support, no IOMMU, no CATU).
//  - ETR_SG data pages come from the page allocator in no particular order (a seeded
//    shuffle); the table that makes them one buffer takes sg_table_pages() pages of its own.
// Leaves out: CATU, reserved-memory (RESRV) buffers, the IOMMU case.
#pragma once

#include "models/common/types.h"

#include <vector>

namespace ringsim::models {

class PhysicalMemory;

enum class EtrBufMode { auto_, flat, sg }; // sysfs buf_mode_preferred

constexpr uint64_t kEtrSgMinSize = 1u << 20; // auto picks ETR_SG from this size up

struct EtrBuf {
    uint64_t size = 0;
    bool sg = false;
    Addr flat_base = 0;         // FLAT: the one contiguous DMA buffer
    std::vector<Addr> sg_pages; // ETR_SG: data pages in buffer order
    std::vector<Addr> sg_table; // ETR_SG: table pages
};

// The size E1 picks.
uint64_t etr_buf_size(uint64_t aux_size, uint64_t sysfs_buffer_size);
// The mode E2 picks for a buffer of `size` bytes.
bool etr_buf_is_sg(EtrBufMode preferred, uint64_t size);

// Allocates the session's buffer in `phys` (regions "etr.flat", or "etr.sg_pages" and
// "etr.sg_table"); `seed` orders the SG pages.
EtrBuf alloc_etr_buf(uint64_t aux_size, uint64_t sysfs_buffer_size, EtrBufMode preferred,
                     PhysicalMemory& phys, uint64_t seed);

} // namespace ringsim::models
