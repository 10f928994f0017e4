// perf_mmap's checks on the perf tool's two mappings of a perf event (KERNEL-SEMANTICS R11,
// M3), as pure functions: the builder maps only what they accept, and the scenario loader
// reports what they refuse at the key that asked for it.
// Mirrors kernel/events/core.c : perf_mmap (the data branch: vma_size = (1 + 2^n) pages at
// pgoff 0; the AUX branch: aux_offset/aux_size from the control page).
#pragma once

#include <cstdint>
#include <string>

namespace ringsim::models::perf {

// The data mapping: "" when perf_mmap accepts it, else why it returns -EINVAL.
std::string data_mmap_error(uint64_t pgoff, uint64_t pages);

// The AUX mapping at file offset `vma_offset` of `vma_len` bytes, after the tool wrote
// aux_offset and aux_size into the control page; `data_size` is the data area (2^n pages).
std::string aux_mmap_error(uint64_t aux_offset, uint64_t aux_size, uint64_t vma_offset,
                           uint64_t vma_len, uint64_t data_size, uint64_t page_size);

// Where perf puts the AUX area: right after the data mapping (auxtrace_mmap_params__init:
// mp->offset = the data mapping's length).
inline uint64_t default_aux_offset(uint64_t data_size, uint64_t page_size) {
    return data_size + page_size;
}

} // namespace ringsim::models::perf
