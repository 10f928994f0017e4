// `ringsim litmus FILE|DIR... [--runs N]`: runs litmus tests on the ordering engine and prints,
// per test, per exists clause and per model, the expected verdict, how often the outcome was
// seen and PASS/FAIL. Exit codes: 0 every check passed, 1 some failed, 2 bad input or flag.
#include "platform/litmus/herd_emit.h"
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
    uint64_t trace = 0;   // 1-based run to print, 0: none
    std::string emit_dir; // --emit herd DIR: write herd7 tests there instead of running
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
              << std::setw(10) << expected << std::setw(12) << observed << result;
}

void print_result(const litmus::ConditionResult& r, size_t width) {
    print_row(r.label(), litmus::model_name(r.model), litmus::verdict_name(r.expected),
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

    // Every file parses before anything runs: a typo should not cost a long run.
    std::vector<litmus::Test> tests;
    bool bad = false;
    for (const std::string& f : files) {
        litmus::ParseResult r = litmus::parse_file(f);
        if (r.test)
            tests.push_back(std::move(*r.test));
        else
            std::cerr << "ringsim litmus: " << r.error << "\n";
        bad = bad || !r.test;
    }
    if (bad) return kExitBadInput;
    if (!a.emit_dir.empty()) return emit_herd(tests, a.emit_dir);

    size_t width = 4;
    for (const auto& t : tests)
        for (const auto& c : t.conditions)
            width = std::max(width, t.name.size() + (c.name.empty() ? 0 : c.name.size() + 1));
    print_row("test", "model", "expected", "observed", "result\n", width);
    size_t checks = 0, failed = 0;
    for (const auto& t : tests) {
        for (const auto& r : litmus::run_test(t, a.runs)) {
            print_result(r, width);
            ++checks;
            failed += r.pass ? 0 : 1;
        }
        if (a.trace) print_trace(t, a.trace);
    }
    std::cout << checks << " checks, " << failed << " failed\n";
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
