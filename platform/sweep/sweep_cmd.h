// `ringsim sweep` and `ringsim merge`: the command lines of sweeps (docs/sweeps.md).
#pragma once

#include <string>
#include <vector>

namespace ringsim::platform {

// `ringsim sweep SPEC --out DIR [--jobs J] [--shard I/N] [--set PATH=VALUE]...
// [--timeout SECONDS] [--force]` or `ringsim sweep SPEC --list`. Exit code: 0 every point of
// the shard completed, 2 bad spec, flag or DIR, 3 some point failed (its line says why), 130
// interrupted (the lines written so far stay; rerunning resumes).
int sweep_main(const std::vector<std::string>& args);

// `ringsim merge DIR... [--csv FILE] [--json FILE] [--answer FILE]`. Exit code: 0 done, 2 bad
// flag, a directory that holds no sweep, or directories of different sweeps.
int merge_main(const std::vector<std::string>& args);

} // namespace ringsim::platform
