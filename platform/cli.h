// The ringsim command line: run, validate, params, stats, --help, --version.
// Exit codes: 0 success, 2 bad input (scenario, override or flag), 3 model error.
#pragma once

#include <string>
#include <vector>

namespace ringsim::config {
struct ScenarioTexts; // config/loader.h
} // namespace ringsim::config

namespace ringsim::platform {

int run_cli(int argc, char** argv);
// `ringsim run ARGS... --stats-only` (ARGS after the word run), with stats.json's text put in
// `stats` instead of a file in --out, which is left untouched unless --series writes there:
// a sweep's point, which a worker hands back to the sweep (runner/ringsim_child.h). The exit
// code is run_cli's. Given `scenario_texts`, the scenario is that text and its histogram
// files those texts (the ones its caller planned from) instead of the files ARGS name; the
// scenario's file name is still its name in messages and in run.json, and the directory of
// a histogram file not among the texts.
int run_cli_stats(const std::vector<std::string>& args, std::string& stats,
                  const config::ScenarioTexts* scenario_texts = nullptr);
// Every flag `ringsim run` accepts ("--set", "--seed", ...), as its parser knows them.
std::vector<std::string> run_flags();

} // namespace ringsim::platform
