#include "platform/runner/ringsim_child.h"

#include "platform/cli.h"
#include "platform/systemc_kernel.h"

namespace ringsim::platform::runner {

namespace {

// A job in `dir` that runs in a worker, named `ringsim ARGS...` in messages, with `body`.
Job reusable_job(const std::vector<std::string>& args, std::filesystem::path dir, double timeout_s,
                 std::function<int()> body) {
    Job job;
    job.dir = std::move(dir);
    job.timeout_s = timeout_s;
    job.argv = {"ringsim"}; // for messages; the body runs them in this very binary
    job.argv.insert(job.argv.end(), args.begin(), args.end());
    // A worker runs one job after another: each gets a kernel of its own, as in a new process.
    job.reusable = true;
    job.body = std::move(body);
    return job;
}

} // namespace

Job ringsim_job(std::vector<std::string> args, std::filesystem::path dir, double timeout_s) {
    std::vector<std::string> argv = args;
    argv.insert(argv.begin(), "ringsim");
    return reusable_job(args, std::move(dir), timeout_s, [argv]() mutable {
        fresh_systemc();
        std::vector<char*> pointers;
        for (auto& s : argv)
            pointers.push_back(s.data());
        pointers.push_back(nullptr);
        return run_cli(int(argv.size()), pointers.data());
    });
}

Job ringsim_stats_job(std::vector<std::string> run_args, std::filesystem::path dir,
                      double timeout_s,
                      std::shared_ptr<const config::ScenarioTexts> scenario_texts) {
    std::vector<std::string> named = run_args; // as run_cli_stats runs it
    named.insert(named.begin(), "run");
    named.push_back("--stats-only");
    return reusable_job(named, std::move(dir), timeout_s, [run_args, scenario_texts] {
        fresh_systemc();
        std::string stats;
        const int code = run_cli_stats(run_args, stats, scenario_texts.get());
        if (code == 0) answer(std::move(stats));
        return code;
    });
}

} // namespace ringsim::platform::runner
