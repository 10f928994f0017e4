// perf_mmap's checks on the perf tool's two mappings of a perf event (KERNEL-SEMANTICS R11,
// M3): pure functions the builder and the scenario loader share (the loader reports what
// they refuse at the key that asked for it), and the AUX branch as the tool's mmap call
// runs it (mmap_aux).
// Mirrors kernel/events/core.c : perf_mmap (the data branch: vma_size = (1 + 2^n) pages at
// pgoff 0; the AUX branch: aux_offset/aux_size from the control page).
#pragma once

#include "models/common/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::models {
class AddressSpace;
class MemoryPort;
class PerfAux;
struct MmuCounters;
} // namespace ringsim::models

namespace ringsim::models::perf {

// The data mapping: "" when perf_mmap accepts it, else why it returns -EINVAL.
std::string data_mmap_error(uint64_t pgoff, uint64_t pages);

// The AUX mapping at file offset `vma_offset` of `vma_len` bytes, after the tool wrote
// aux_offset and aux_size into the control page; `data_size` is the data area (2^n pages).
std::string aux_mmap_error(uint64_t aux_offset, uint64_t aux_size, uint64_t vma_offset,
                           uint64_t vma_len, uint64_t data_size, uint64_t page_size);

// One perf event's AUX area as perf_mmap's AUX branch sees it.
struct AuxArea {
    std::string name;           // its buffer's (the VMA is name + ".aux")
    Addr user_page = 0;         // the control page, kernel-side address
    std::vector<Addr> pages;    // the AUX pages rb_alloc_aux allocated
    uint64_t data_size = 0;     // the data area (2^n pages)
    PerfAux* aux = nullptr;     // its AUX buffer, made overwrite by a read-only mapping
    MmuCounters* mmu = nullptr; // counts the mapping's faults and TLB misses
};

// perf_mmap of the AUX area (M3), in the tool's mmap call on its own CPU (`kernel`: that
// CPU's kernel-side view of memory): reads the aux_offset and aux_size the tool has just
// stored in the control page (same CPU: program order), refuses what aux_mmap_error
// refuses (ModelError, EINVAL), makes a read-only mapping the AUX buffer's overwrite mode
// (rb_alloc_aux), and maps the pages into `space` at file offset `vma_offset`. Returns the
// mapping's address in `space`.
Addr mmap_aux(MemoryPort& kernel, AddressSpace& space, const AuxArea& area, uint64_t vma_offset,
              bool writable, uint64_t page_size);

// Where perf puts the AUX area: right after the data mapping (auxtrace_mmap_params__init:
// mp->offset = the data mapping's length).
inline uint64_t default_aux_offset(uint64_t data_size, uint64_t page_size) {
    return data_size + page_size;
}

} // namespace ringsim::models::perf
