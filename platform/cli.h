// The ringsim command line: run, validate, params, stats, --help, --version.
// Exit codes: 0 success, 2 bad input (scenario, override or flag), 3 model error.
#pragma once

namespace ringsim::platform {

int run_cli(int argc, char** argv);

} // namespace ringsim::platform
