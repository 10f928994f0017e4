// The ringsim command line: run, validate, params, stats, --help, --version.
// Exit codes: 0 success, 2 bad input (scenario, override or flag), 3 model error.
#pragma once

#include <string>
#include <vector>

namespace ringsim::platform {

int run_cli(int argc, char** argv);
// Every flag `ringsim run` accepts ("--set", "--seed", ...), as its parser knows them.
std::vector<std::string> run_flags();

} // namespace ringsim::platform
