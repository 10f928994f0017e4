#include "platform/runner/ringsim_child.h"

#include "platform/cli.h"
#include "platform/systemc_kernel.h"

namespace ringsim::platform::runner {

Job ringsim_job(std::vector<std::string> args, std::filesystem::path dir, double timeout_s) {
    Job job;
    job.dir = std::move(dir);
    job.timeout_s = timeout_s;
    args.insert(args.begin(), "ringsim");
    job.argv = args; // for messages; the body runs them in this very binary
    // A worker runs one job after another: each gets a kernel of its own, as in a new process.
    job.reusable = true;
    job.body = [args]() mutable {
        fresh_systemc();
        std::vector<char*> pointers;
        for (auto& s : args)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
        return run_cli(int(args.size()), pointers.data());
    };
    return job;
}

} // namespace ringsim::platform::runner
