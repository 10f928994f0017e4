// How the perf tool's mappings of a buffer get their page-table entries (docs/mmu.md).
#pragma once

namespace ringsim::models {

// lazy: every page faults on first touch (M1); eager: the pages are mapped at mmap time
// (M2), only the control page's first write faults (page_mkwrite).
enum class MappingPolicy { lazy, eager };

} // namespace ringsim::models
