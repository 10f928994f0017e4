#include "models/kernel/etr_alloc.h"

#include "models/common/rng.h"
#include "models/coresight/etr_sg_table.h"
#include "models/memory/phys_mem.h"

#include <algorithm>
#include <utility>

namespace ringsim::models {

using coresight::kSgPageSize;

uint64_t etr_buf_size(uint64_t aux_size, uint64_t sysfs_buffer_size) {
    return std::max(aux_size, sysfs_buffer_size);
}

bool etr_buf_is_sg(EtrBufMode preferred, uint64_t size) {
    switch (preferred) {
    case EtrBufMode::flat:
        return false;
    case EtrBufMode::sg:
        return true;
    case EtrBufMode::auto_:
        return size >= kEtrSgMinSize;
    }
    return false;
}

EtrBuf alloc_etr_buf(uint64_t aux_size, uint64_t sysfs_buffer_size, EtrBufMode preferred,
                     PhysicalMemory& phys, uint64_t seed) {
    EtrBuf b;
    b.size = etr_buf_size(aux_size, sysfs_buffer_size);
    b.sg = etr_buf_is_sg(preferred, b.size);
    if (!b.sg) {
        b.flat_base = phys.allocate("etr.flat", b.size, kSgPageSize);
        return b;
    }
    const uint64_t pages = b.size / kSgPageSize;
    const Addr pool = phys.allocate("etr.sg_pages", b.size, kSgPageSize);
    for (uint64_t i = 0; i < pages; ++i)
        b.sg_pages.push_back(pool + i * kSgPageSize);
    Rng rng(seed);
    for (uint64_t i = pages; i > 1; --i)
        std::swap(b.sg_pages[i - 1], b.sg_pages[rng.below(i)]);
    const uint64_t tables = coresight::sg_table_pages(pages);
    const Addr table = phys.allocate("etr.sg_table", tables * kSgPageSize, kSgPageSize);
    for (uint64_t i = 0; i < tables; ++i)
        b.sg_table.push_back(table + i * kSgPageSize);
    return b;
}

} // namespace ringsim::models
