// `ringsim litmus FILE|DIR... [--runs N]`: runs litmus tests on the ordering engine and prints,
// per test, per exists clause and per model, the expected verdict, how often the outcome was
// seen and PASS/FAIL. Exit codes: 0 every check passed, 1 some failed, 2 bad input or flag.
// A file is ringsim's own format (docs/litmus.md) or the kernel's C format (kernel_litmus.h):
// a kernel test ringsim cannot express is listed with the primitive it lacks, not failed.
#include "platform/litmus/herd_emit.h"
#include "platform/litmus/kernel_litmus.h"
#include "platform/litmus/litmus.h"

#include "platform/commands.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

namespace ringsim::platform {

namespace {

struct LitmusArgs {
    std::vector<std::string> paths;
    uint64_t runs = 0;
    uint64_t trace = 0;     // 1-based run to print, 0: none
    std::string emit_dir;   // --emit herd DIR: write herd7 tests there instead of running
    std::string exceptions; // --exceptions FILE: the kernel tests' LKMM exceptions
    bool help = false;
};

bool parse_count(const std::string& v, uint64_t& runs) {
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(c); }))
        return false;
    try {
        runs = std::stoull(v);
    } catch (const std::exception&) {
        return false;
    }
    return runs > 0;
}

// `--flag VALUE` or `--flag=VALUE` at args[i]: true, with the value (advancing i past it).
bool flag_value(const std::vector<std::string>& args, size_t& i, const std::string& flag,
                std::string& value) {
    const std::string& s = args[i];
    if (s == flag) {
        value = i + 1 < args.size() ? args[++i] : "";
        return true;
    }
    if (s.rfind(flag + "=", 0) != 0) return false;
    value = s.substr(flag.size() + 1);
    return true;
}

// False (after saying why) on a bad flag.
bool parse_args(const std::vector<std::string>& args, LitmusArgs& a) {
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& s = args[i];
        std::string v;
        if (s == "--help" || s == "-h") {
            a.help = true;
        } else if (flag_value(args, i, "--runs", v) || flag_value(args, i, "--trace", v)) {
            const bool runs = s.rfind("--runs", 0) == 0;
            if (!parse_count(v, runs ? a.runs : a.trace)) {
                std::cerr << "ringsim litmus: " << (runs ? "--runs" : "--trace")
                          << " needs a positive number, got '" << v << "'\n";
                return false;
            }
        } else if (flag_value(args, i, "--exceptions", v)) {
            if (v.empty()) {
                bad_usage("litmus", "--exceptions needs a FILE");
                return false;
            }
            a.exceptions = v;
        } else if (s == "--emit") {
            if (i + 2 >= args.size() || args[i + 1] != "herd") {
                bad_usage("litmus", "--emit takes `herd DIR`");
                return false;
            }
            a.emit_dir = args[i + 2];
            i += 2;
        } else if (s.rfind("-", 0) == 0) {
            bad_usage("litmus", "unknown flag '" + s + "'");
            return false;
        } else {
            a.paths.push_back(s);
        }
    }
    if (a.paths.empty() && !a.help) {
        bad_usage("litmus", "expected at least one FILE or DIR");
        return false;
    }
    return true;
}

// How many runs an Allowed outcome of a kernel test may take (ringsim's own tests say).
constexpr uint64_t kKernelRuns = 2000;

// The kernel C tests read, and those ringsim cannot express with what each lacks.
struct KernelTally {
    size_t read = 0;
    std::set<std::string> names;                                  // of the expressed ones
    std::vector<std::pair<std::string, std::string>> unexpressed; // file, what it lacks
};

void print_kernel_tally(const KernelTally& k) {
    namespace fs = std::filesystem;
    std::cout << "kernel tests: " << k.read - k.unexpressed.size() << " of " << k.read
              << " expressed and run";
    if (k.unexpressed.empty()) {
        std::cout << "\n";
        return;
    }
    std::cout << "; not expressed, with what each lacks:\n";
    for (const auto& [file, lacks] : k.unexpressed)
        std::cout << "  " << fs::path(file).filename().string() << ": " << lacks << "\n";
}

bool read_text(const std::string& path, std::string& text) {
    std::ifstream in(path);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    text = s.str();
    return true;
}

// The files named, directories expanded to their *.litmus files in name order.
bool expand(const std::vector<std::string>& paths, std::vector<std::string>& files) {
    namespace fs = std::filesystem;
    for (const std::string& p : paths) {
        std::error_code ec;
        if (!fs::is_directory(p, ec)) {
            files.push_back(p);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& e : fs::directory_iterator(p, ec))
            if (e.path().extension() == ".litmus") found.push_back(e.path().string());
        if (ec || found.empty()) {
            std::cerr << "ringsim litmus: " << p << ": no .litmus files in this directory\n";
            return false;
        }
        std::sort(found.begin(), found.end());
        files.insert(files.end(), found.begin(), found.end());
    }
    return true;
}

std::string note(const litmus::ConditionResult& r) {
    if (!r.error.empty()) return "error: " + r.error;
    if (r.pass)
        return r.first_seen ? "first in run " + std::to_string(r.first_seen) : std::string();
    if (r.expected == litmus::Verdict::forbidden)
        return "seen first in run " + std::to_string(r.first_seen);
    if (r.first_seen)
        return "seen first in run " + std::to_string(r.first_seen) + ", after the stated " +
               std::to_string(r.window);
    return "never seen";
}

// One row: the columns of print_header, then a note on failures and first sightings.
void print_row(const std::string& test, const std::string& model, const std::string& expected,
               const std::string& observed, const std::string& result, size_t width) {
    std::cout << std::left << std::setw(int(width)) << test << "  " << std::setw(6) << model
              << std::setw(11) << expected << std::setw(12) << observed << result;
}

void print_result(const litmus::ConditionResult& r, size_t width, bool exception) {
    print_row(r.label(), litmus::model_name(r.model),
              litmus::verdict_name(r.expected) + std::string(exception ? "*" : ""),
              std::to_string(r.observed) + "/" + std::to_string(r.runs), r.pass ? "PASS" : "FAIL",
              width);
    const std::string n = note(r);
    if (!n.empty()) std::cout << "  " << n;
    std::cout << "\n";
}

// The final registers and memory of an execution, in exists-clause syntax.
std::string final_state(const litmus::Test& t, const litmus::Outcome& o) {
    std::ostringstream s;
    for (size_t th = 0; th < o.regs.size(); ++th) {
        std::set<unsigned> loaded;
        for (const auto& op : t.threads[th].ops)
            if (op.type == litmus::OpType::load) loaded.insert(op.reg);
        for (unsigned r : loaded)
            s << th << ":r" << r << "=" << o.regs[th][r] << " ";
    }
    for (size_t i = 0; i < o.mem.size(); ++i)
        s << t.locations[i] << "=" << o.mem[i] << " ";
    return s.str();
}

void print_trace(const litmus::Test& t, uint64_t run_number) {
    const uint64_t run = run_number - 1;
    for (litmus::MemoryModel m : litmus::all_models()) {
        std::cout << "-- " << t.name << " " << litmus::model_name(m) << " run " << run_number
                  << " (timing " << (run % 2 ? "adversarial" : "random") << ")\n";
        std::vector<std::string> lines;
        try {
            const litmus::Outcome o = litmus::run_once(t, m, run, &lines);
            for (const auto& l : lines)
                std::cout << "   " << l << "\n";
            std::cout << "   final: " << final_state(t, o) << "\n";
            for (const auto& c : t.conditions)
                std::cout << "   exists" << (c.name.empty() ? "" : " " + c.name) << ": "
                          << (litmus::holds(c, o) ? "yes" : "no") << "\n";
        } catch (const std::exception& e) {
            std::cout << "   error: " << e.what() << "\n";
        }
    }
}

// --emit herd DIR: DIR/AArch64/NAME.litmus and DIR/X86/NAME.litmus for every test (and
// exists clause); a test the translation cannot express is named, with why, and the exit
// status is then 1.
int emit_herd(const std::vector<litmus::Test>& tests, const std::string& dir) {
    namespace fs = std::filesystem;
    size_t written = 0, unexpressed = 0;
    for (const litmus::Test& t : tests) {
        std::string why;
        const auto herd = litmus::to_herd(t, why);
        if (!why.empty()) {
            std::cerr << "ringsim litmus: --emit herd: cannot express " << why << "\n";
            ++unexpressed;
            continue;
        }
        for (const litmus::HerdTest& h : herd) {
            const fs::path file = fs::path(dir) / h.arch / (h.name + ".litmus");
            std::error_code ec;
            fs::create_directories(file.parent_path(), ec);
            std::ofstream out(file);
            out << h.text;
            if (!out.flush()) {
                std::cerr << "ringsim litmus: cannot write " << file.string() << "\n";
                return kExitBadInput;
            }
            ++written;
        }
    }
    std::cout << "ringsim litmus: wrote " << written << " herd7 tests (AArch64 and X86) in " << dir
              << "\n";
    return unexpressed ? kExitCheckFailed : kExitOk;
}

int litmus_main_unguarded(const std::vector<std::string>& args) {
    LitmusArgs a;
    if (!parse_args(args, a)) return kExitBadInput;
    if (a.help) {
        std::cout << usage("litmus");
        return kExitOk;
    }
    std::vector<std::string> files;
    if (!expand(a.paths, files)) return kExitBadInput;

    litmus::ExceptionsResult ex;
    if (a.exceptions.empty()) {
        ex = litmus::parse_exceptions(litmus::builtin_lkmm_exceptions(),
                                      "platform/litmus/lkmm-exceptions.txt");
    } else {
        std::string text;
        if (!read_text(a.exceptions, text)) {
            std::cerr << "ringsim litmus: " << a.exceptions << ": cannot read the file\n";
            return kExitBadInput;
        }
        ex = litmus::parse_exceptions(text, a.exceptions);
    }
    if (!ex.error.empty()) {
        std::cerr << "ringsim litmus: " << ex.error << "\n";
        return kExitBadInput;
    }

    // Every file parses before anything runs: a typo should not cost a long run.
    std::vector<litmus::Test> tests;
    KernelTally kernel;
    bool bad = false;
    for (const std::string& f : files) {
        std::string text, error;
        if (!read_text(f, text)) {
            error = f + ": cannot read the file";
        } else if (litmus::is_kernel_litmus(text)) {
            ++kernel.read;
            litmus::KernelParse k = litmus::parse_kernel(text, f, ex.list, kKernelRuns);
            if (!k.lacks.empty()) kernel.unexpressed.push_back({f, k.lacks});
            if (k.test) {
                kernel.names.insert(k.test->name);
                tests.push_back(std::move(*k.test));
            }
            error = k.error;
        } else {
            litmus::ParseResult r = litmus::parse(text, f);
            if (r.test) tests.push_back(std::move(*r.test));
            error = r.error;
        }
        if (!error.empty()) std::cerr << "ringsim litmus: " << error << "\n";
        bad = bad || !error.empty();
    }
    if (bad) return kExitBadInput;
    if (!a.emit_dir.empty()) {
        // A kernel test is a herd7 test already: `herd7 -conf linux-kernel.cfg FILE`.
        std::vector<litmus::Test> own;
        for (auto& t : tests)
            if (!kernel.names.count(t.name)) own.push_back(std::move(t));
        if (kernel.read)
            std::cout << "ringsim litmus: " << kernel.read
                      << " kernel C tests left out: herd7 runs them as they are\n";
        return emit_herd(own, a.emit_dir);
    }

    size_t width = 4;
    for (const auto& t : tests)
        for (const auto& c : t.conditions)
            width = std::max(width, t.name.size() + (c.name.empty() ? 0 : c.name.size() + 1));
    print_row("test", "model", "expected", "observed", "result\n", width);
    size_t checks = 0, failed = 0, excepted = 0;
    for (const auto& t : tests) {
        for (const auto& r : litmus::run_test(t, a.runs)) {
            const auto& c = *std::find_if(t.conditions.begin(), t.conditions.end(),
                                          [&](const auto& x) { return x.name == r.condition; });
            const bool exception = c.exception.count(r.model) != 0;
            print_result(r, width, exception);
            ++checks;
            failed += r.pass ? 0 : 1;
            excepted += exception ? 1 : 0;
        }
        if (a.trace) print_trace(t, a.trace);
    }
    std::cout << checks << " checks, " << failed << " failed\n";
    if (excepted)
        std::cout << "*: " << excepted << " verdicts differ from the test's LKMM Result line, "
                  << "as the model's architecture does ("
                  << (a.exceptions.empty() ? std::string("platform/litmus/lkmm-exceptions.txt")
                                           : a.exceptions)
                  << " says why)\n";
    if (kernel.read) print_kernel_tally(kernel);
    return failed ? kExitCheckFailed : kExitOk;
}

} // namespace

int litmus_main(const std::vector<std::string>& args) {
    // Errors never reach the user as an exception: anything unexpected (a file system error
    // while listing a directory, say) is reported like bad input.
    try {
        return litmus_main_unguarded(args);
    } catch (const std::exception& e) {
        std::cerr << "ringsim litmus: " << e.what() << "\n";
        return kExitBadInput;
    }
}

} // namespace ringsim::platform
