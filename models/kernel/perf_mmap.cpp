#include "models/kernel/perf_mmap.h"

#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/memory/mmu.h"

namespace ringsim::models::perf {

namespace {
bool pow2(uint64_t v) {
    return v && !(v & (v - 1));
}
} // namespace

std::string data_mmap_error(uint64_t pgoff, uint64_t pages) {
    if (pgoff != 0) return "the data mapping must start at file offset 0 (the control page)";
    if (pages < 2 || !pow2(pages - 1))
        return "the data mapping must be 1 + 2^n pages: the control page, then 2^n data pages";
    return "";
}

std::string aux_mmap_error(uint64_t aux_offset, uint64_t aux_size, uint64_t vma_offset,
                           uint64_t vma_len, uint64_t data_size, uint64_t page_size) {
    if (aux_offset % page_size)
        return "aux_offset must be a whole number of pages (it is the mapping's pgoff << "
               "PAGE_SHIFT)";
    if (aux_offset < data_size + page_size)
        return "aux_offset must be at least data_size + PAGE_SIZE = " +
               std::to_string(data_size + page_size) +
               " bytes: the AUX area lies beyond the control page and the data pages";
    if (aux_offset != vma_offset)
        return "aux_offset must equal the AUX mapping's file offset (pgoff << PAGE_SHIFT)";
    if (aux_size != vma_len) return "aux_size must equal the AUX mapping's length";
    if (aux_size % page_size || !pow2(aux_size / page_size))
        return "the AUX mapping must be 2^n pages";
    return "";
}

Addr mmap_aux(MemoryPort& kernel, AddressSpace& space, const AuxArea& area, uint64_t vma_offset,
              bool writable, uint64_t page_size) {
    const uint64_t aux_offset = kernel.load(area.user_page + kOffAuxOffset, 8);
    const uint64_t aux_size = kernel.load(area.user_page + kOffAuxSize, 8);
    const uint64_t vma_len = area.pages.size() * page_size;
    if (const std::string why =
            aux_mmap_error(aux_offset, aux_size, vma_offset, vma_len, area.data_size, page_size);
        !why.empty())
        throw ModelError("perf_mmap refused the AUX mapping of " + area.name + " (EINVAL): " + why);
    area.aux->set_overwrite(!writable);
    return space.mmap(area.name + ".aux", area.pages, vma_offset / page_size, writable, area.mmu);
}

} // namespace ringsim::models::perf
