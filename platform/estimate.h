// What a scenario will cost before it is built (issue 14 §2): an upper bound of the host
// memory the run can touch, part by part with the keys that drive each, and the records and
// SystemC evaluation rounds ("events") it will take. `validate` prints it; `run` and
// `validate` refuse a scenario whose bound exceeds --max-memory, instead of ending in
// std::bad_alloc or the OOM killer.
//
// Simulated memory is anonymous mappings (models/memory/anon_bytes.h): a page costs only
// once touched, so each buffer counts for what the workload can write into it, not for its
// size. The bound holds every curated scenario's measured peak (tests/unit/estimate_test.cpp).
#pragma once

#include "platform/config/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::platform {

struct EstimatePart {
    std::string what; // "data buffers"
    std::string keys; // the keys that drive it: "session.data_pages x 4 buffers"
    uint64_t bytes = 0;
};

struct ResourceEstimate {
    std::vector<EstimatePart> parts; // largest first
    uint64_t bytes = 0;              // their sum: the bound of the peak
    double records = 0;              // records the writers will produce
    double events = 0;               // SystemC evaluation rounds, as run.json counts them
};

ResourceEstimate estimate_resources(const config::Scenario& s);

// 80% of this machine's physical memory: the default of --max-memory.
uint64_t default_max_memory();

// "1.2GiB" etc.: a byte count as the estimate prints it.
std::string bytes_text(uint64_t bytes);

// One line per part, each after a newline: "  1.5 GiB  data buffers (touched): KEYS".
std::string parts_text(const ResourceEstimate& e);

// The estimate in a line or two, as `validate` prints it.
std::string estimate_text(const ResourceEstimate& e, uint64_t max_memory);

} // namespace ringsim::platform
