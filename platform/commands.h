// Every command of ringsim in one place: the exit codes they share and the usage text each
// prints, so that `ringsim --help`, a command's own usage on a bad flag and the exit status
// a script sees are written once (README "Exit codes").
#pragma once

#include <csignal>
#include <string>

namespace ringsim::platform {

enum ExitCode : int {
    kExitOk = 0,
    kExitCheckFailed = 1, // litmus: a Forbidden outcome seen or an Allowed one never seen
    kExitBadInput = 2,    // a bad scenario, spec, litmus file, override or flag
    kExitModelError = 3,  // the model failed (explore, sweep: a run of theirs failed)
    kExitInterrupted = 128 + SIGINT, // what a shell reports for Ctrl-C
};

// The usage of `cmd` ("run", "explore", ...; "" for ringsim itself, which lists them all).
std::string usage(const std::string& cmd);

// Says on stderr "ringsim CMD: WHY" and then CMD's usage; returns kExitBadInput.
int bad_usage(const std::string& cmd, const std::string& why);

} // namespace ringsim::platform
