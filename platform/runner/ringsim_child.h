// A child that is `ringsim run ARGS...` without an exec: the pool forks ringsim itself and the
// child calls the command line's entry point, in a worker that runs one such job after another
// with a new SystemC kernel each. Explore, matrix and sweep use it so that a short run pays
// neither exec and dynamic linking, nor a fork and the first touches of its memory.
#pragma once

#include "platform/runner/process_pool.h"

#include <memory>

namespace ringsim::config {
struct ScenarioTexts; // config/loader.h
} // namespace ringsim::config

namespace ringsim::platform::runner {

// The job `ringsim ARGS...` (ARGS start with the command word, e.g. "run") in `dir`.
Job ringsim_job(std::vector<std::string> args, std::filesystem::path dir, double timeout_s = 0);
// The job `ringsim run RUN_ARGS... --stats-only`, whose stats.json comes back as the text of
// ChildStatus::answer instead of a file in --out (run_cli_stats): a sweep's point. Given
// `scenario_texts`, the run takes its scenario and histogram files from them instead of the
// files RUN_ARGS name.
Job ringsim_stats_job(std::vector<std::string> run_args, std::filesystem::path dir,
                      double timeout_s = 0,
                      std::shared_ptr<const config::ScenarioTexts> scenario_texts = nullptr);

} // namespace ringsim::platform::runner
