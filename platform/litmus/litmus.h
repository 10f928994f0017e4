// The litmus suite: small multi-agent programs, in ringsim's own text format (docs/litmus.md),
// run many times on the ordering engine under each memory model (sc, tso, arm) to check the
// engine's contract (MEMORY-MODEL.md): an outcome a test declares Forbidden must never be
// seen, one it declares Allowed must be seen within the runs the test states.
//
// Three parts: a parser (text to Test, errors name file:line), an interpreter that runs one
// execution of a Test on a fresh OrderingEngine with every thread on one clock, and a runner
// that repeats executions with seeds 0, 1, ... and compares the counts with the verdicts.
// Nothing here throws to the caller: parse errors and model errors come back as values.
#pragma once

#include "models/memory/ordering_engine.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::platform::litmus {

using models::MemoryModel;
using models::Picos;

enum class Verdict { allowed, forbidden };
const char* verdict_name(Verdict v);
const char* model_name(MemoryModel m);
// Every model, in the order reports list them.
const std::vector<MemoryModel>& all_models();

// rmw: an atomic exchange (xchg and its forms; a lock's acquisition attempt). lock_retry:
// the spin of spin_lock, back to the rmw before it while the value it read is not 0.
enum class OpType { load, store, fence, branch, ctrl, rmw, lock_retry };

// A value stored: a constant, or a register (a data dependency on the load that set it).
struct Operand {
    bool is_reg = false;
    unsigned reg = 0;
    uint64_t value = 0;
};

// A branch's `skip` in ringsim's own format: not taken, it ends the thread.
constexpr size_t kRestOfThread = SIZE_MAX;

// One statement of a thread, in program order.
struct Op {
    OpType type = OpType::load;
    int line = 0;
    unsigned loc = 0;           // load, store: the location's index
    unsigned reg = 0;           // load, rmw: destination; branch, ctrl, lock_retry: the one read
    bool acquire = false;       // load-acquire; rmw: its load part
    bool release = false;       // store-release; rmw: its store part
    Operand value;              // store, rmw: what is stored
    std::vector<unsigned> deps; // load, store: registers the address (or value) depends on
    models::Fence fence = models::Fence::mb;
    bool cond_equal = false; // branch: taken when (reg == cond_value) == cond_equal
    uint64_t cond_value = 0;
    size_t skip = kRestOfThread; // branch: the statements it jumps over when not taken
    // load, store: the location is the one register `addr_reg` points to (a kernel C test's
    // `READ_ONCE(*r0)`); addr_reg is also in `deps`, the address dependency.
    bool indirect = false;
    unsigned addr_reg = 0;
};

// Registers from this number on are the reader's own (spin_lock's value), never a test's
// (r0 ... r99): they are not part of an outcome.
constexpr unsigned kHiddenReg = 100;

// How many times spin_lock may find the lock taken before the run is a model error.
constexpr uint64_t kMaxSpins = 100000;

// The value of a pointer to location `loc` (a kernel C test's `p=y`, `rcu_assign_pointer(*p,
// x)`): kPointerBase plus 64 per location, far above the small integers tests store.
constexpr uint64_t kPointerBase = 0x10000;
constexpr uint64_t pointer_to(unsigned loc) {
    return kPointerBase + 64 * uint64_t(loc);
}

struct Thread {
    unsigned id = 0;
    int line = 0;
    std::vector<Op> ops;
};

// One conjunct of an `exists` clause: `T:rN=V` (a final register) or `loc=V` (final memory).
struct Term {
    bool is_reg = false;
    unsigned thread = 0;
    unsigned index = 0; // register number, or location index
    uint64_t value = 0;
};

// An `exists` clause with its expected verdict per model.
struct Condition {
    std::string name; // empty when the file has a single, unnamed clause
    int line = 0;
    std::vector<Term> terms;
    std::map<MemoryModel, Verdict> expect;
    // A kernel C test: the models whose verdict differs from its LKMM `Result:` line, each
    // with the architecture's reason (platform/litmus/lkmm-exceptions.txt).
    std::map<MemoryModel, std::string> exception;
};

// How far the run's timing spreads operations (MEMORY-MODEL.md bounds), in picoseconds.
struct Timing {
    Picos step = 1000;   // between consecutive operations of a thread
    Picos skew = 8000;   // each thread starts at a random offset in [0, skew]
    Picos drain = 10000; // store_drain_max
    Picos early = 10000; // load_early_max
    Picos late = 10000;  // load_late_max
};

struct Test {
    std::string name;
    std::string file;
    uint64_t runs = 0; // runs by default; an Allowed outcome must show within these
    std::vector<std::string> locations;
    std::vector<uint64_t> init;
    std::vector<Thread> threads;
    std::vector<Condition> conditions;
    Timing timing;
};

// Parses the text of one file; `file` names it in errors ("file:line: what is wrong").
struct ParseResult {
    std::optional<Test> test;
    std::string error;
};
ParseResult parse(const std::string& text, const std::string& file);
// Reads and parses a file; an unreadable file is an error like any other.
ParseResult parse_file(const std::string& path);

// The final state of one execution.
struct Outcome {
    std::vector<std::vector<uint64_t>> regs; // [thread][register]; never-loaded ones are 0
    std::vector<uint64_t> mem;               // [location]
};
bool holds(const Condition& c, const Outcome& o);

// One execution of `t` under `model` with run index `run`: the run index seeds the engine and
// the thread start offsets, and picks the timing policy (even: random, odd: adversarial).
// Throws models::ModelError if the engine rejects the program (an interpreter or engine bug).
// `trace`, if given, receives every operation as the engine timed it, in issue order.
Outcome run_once(const Test& t, MemoryModel model, uint64_t run,
                 std::vector<std::string>* trace = nullptr);

// The counts of one `exists` clause under one model.
struct ConditionResult {
    std::string test;
    std::string condition;
    MemoryModel model = MemoryModel::sc;
    Verdict expected = Verdict::forbidden;
    uint64_t observed = 0; // runs whose final state satisfies the clause
    uint64_t runs = 0;
    uint64_t first_seen = 0; // 1-based run number of the first sighting, 0 if none
    uint64_t window = 0;     // an Allowed outcome must be seen within this many runs
    std::string error;       // a run failed with this model error: the check fails
    bool pass = false;
    std::string label() const; // "MP+wmb+rmb" or "RB+ABCD:stale"
};

// Runs `t` under every model, `runs` times each (0: the file's count; never fewer than the
// file's count, which the Allowed check needs).
std::vector<ConditionResult> run_test(const Test& t, uint64_t runs = 0);

} // namespace ringsim::platform::litmus

namespace ringsim::platform {

// `ringsim litmus ...`: `args` are the arguments after `litmus` (files, directories, flags).
// Prints one row per test, exists clause and model; returns 0 if every check passes, 1 if
// one fails, 2 on a bad file or flag.
int litmus_main(const std::vector<std::string>& args);

} // namespace ringsim::platform
