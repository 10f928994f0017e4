// The litmus suite's parser, interpreter and runner (see litmus.h; the format is in
// docs/litmus.md). The interpreter is the part that matters for the engine's contract: it
// issues every operation through OrderingEngine on one shared clock, never reorders
// anything itself, and only waits where a real CPU must (a register's value is needed).
#include "platform/litmus/litmus.h"

#include "models/common/rng.h"
#include "models/memory/phys_mem.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ringsim::platform::litmus {

using models::Fence;
using models::LoadTicket;
using models::OrderingEngine;

const char* verdict_name(Verdict v) {
    return v == Verdict::allowed ? "Allowed" : "Forbidden";
}

const char* model_name(MemoryModel m) {
    switch (m) {
    case MemoryModel::sc:
        return "sc";
    case MemoryModel::tso:
        return "tso";
    case MemoryModel::arm:
        return "arm";
    }
    return "?";
}

const std::vector<MemoryModel>& all_models() {
    static const std::vector<MemoryModel> models{MemoryModel::sc, MemoryModel::tso,
                                                 MemoryModel::arm};
    return models;
}

std::string ConditionResult::label() const {
    return condition.empty() ? test : test + ":" + condition;
}

// ---------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------

namespace {

// Thrown inside the parser only, caught by parse(): carries "file:line: message".
struct ParseError {
    std::string message;
};

// The tokens of one line: words ([A-Za-z0-9_+.-]+) and the symbols = == != : ( ) /\ .
std::vector<std::string> tokenize(const std::string& line, const std::string& where) {
    std::vector<std::string> out;
    size_t i = 0;
    auto word_char = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '.' ||
               c == '-';
    };
    while (i < line.size()) {
        const char c = line[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (c == '#') {
            break; // a comment runs to the end of the line
        } else if (word_char(c)) {
            size_t j = i;
            while (j < line.size() && word_char(line[j]))
                ++j;
            out.push_back(line.substr(i, j - i));
            i = j;
        } else if ((c == '=' || c == '!') && i + 1 < line.size() && line[i + 1] == '=') {
            out.push_back(line.substr(i, 2));
            i += 2;
        } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '\\') {
            out.push_back("/\\");
            i += 2;
        } else if (c == '=' || c == ':' || c == '(' || c == ')') {
            out.push_back(std::string(1, c));
            ++i;
        } else {
            throw ParseError{where + ": unexpected character '" + std::string(1, c) + "'"};
        }
    }
    return out;
}

bool is_register(const std::string& w) {
    return w.size() >= 2 && w.size() <= 3 && w[0] == 'r' &&
           std::all_of(w.begin() + 1, w.end(), [](char c) { return std::isdigit(c); });
}

bool is_identifier(const std::string& w) {
    if (w.empty() || !(std::isalpha(static_cast<unsigned char>(w[0])) || w[0] == '_')) return false;
    return std::all_of(w.begin(), w.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

// Words that start a line or follow `=` in a load, so cannot name a location.
const std::set<std::string>& keywords() {
    static const std::set<std::string> k{"litmus", "runs",   "timing",  "locations", "thread",
                                         "exists", "expect", "rmb",     "wmb",       "mb",
                                         "ctrl",   "if",     "release", "acquire"};
    return k;
}

// Parses one file; every method reports errors by throwing ParseError with file:line.
class Parser {
public:
    Parser(const std::string& text, const std::string& file) : m_text(text), m_file(file) {
        m_test.file = file;
    }
    Test run();

private:
    [[noreturn]] void fail(const std::string& msg) const {
        throw ParseError{m_file + ":" + std::to_string(m_line) + ": " + msg};
    }
    void expect_end(size_t i) const {
        if (i < m_tok.size()) fail("unexpected '" + m_tok[i] + "' at the end of the line");
    }
    const std::string& tok(size_t i, const char* what) const {
        if (i >= m_tok.size()) fail(std::string("expected ") + what + " at the end of the line");
        return m_tok[i];
    }
    void expect_tok(size_t i, const char* want) const {
        if (tok(i, want) != want)
            fail("expected '" + std::string(want) + "', got '" + m_tok[i] + "'");
    }

    uint64_t number(const std::string& w, const char* what) const;
    Picos duration(const std::string& w) const;
    unsigned reg(const std::string& w) const;
    unsigned use_reg(const std::string& w) const; // a register read: must be loaded already
    unsigned location(const std::string& w) const;

    void line();
    void header_litmus();
    void header_runs();
    void header_timing();
    void header_locations();
    void header_thread();
    void header_exists();
    void header_expect();
    void statement();
    Op fence_or_ctrl();
    Op branch();
    Op load(size_t i);
    Op store(size_t i, bool release);
    size_t deps(size_t i, Op& op) const;
    Term term(size_t& i) const;
    void check_last_thread() const;
    void check_complete() const;

    const std::string& m_text;
    const std::string& m_file;
    Test m_test;
    int m_line = 0;
    std::vector<std::string> m_tok;
    std::set<unsigned> m_loaded;                   // registers loaded so far in the current thread
    std::vector<std::set<unsigned>> m_thread_regs; // registers each thread loads
    bool m_seen_runs = false, m_seen_timing = false, m_seen_locations = false;
    bool m_cond_open = false; // the last `exists` still waits for its `expect`
};

uint64_t Parser::number(const std::string& w, const char* what) const {
    uint64_t v = 0;
    size_t used = 0;
    try {
        v = std::stoull(w, &used, 0);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != w.size() || w.empty() || w[0] == '-' || w[0] == '+')
        fail(std::string("expected ") + what + ", got '" + w + "'");
    return v;
}

Picos Parser::duration(const std::string& w) const {
    static const std::pair<const char*, Picos> units[] = {{"ps", 1}, {"ns", 1000}, {"us", 1000000}};
    for (const auto& [suffix, scale] : units) {
        const size_t n = std::strlen(suffix);
        if (w.size() > n && w.compare(w.size() - n, n, suffix) == 0)
            return number(w.substr(0, w.size() - n), "a duration") * scale;
    }
    fail("expected a duration with a unit (ps, ns, us), got '" + w + "'");
}

unsigned Parser::reg(const std::string& w) const {
    if (!is_register(w)) fail("expected a register (r0 ... r99), got '" + w + "'");
    return unsigned(std::stoul(w.substr(1)));
}

unsigned Parser::use_reg(const std::string& w) const {
    const unsigned r = reg(w);
    if (!m_loaded.count(r))
        fail(w + " is used before any load in thread " + std::to_string(m_test.threads.back().id) +
             " sets it");
    return r;
}

unsigned Parser::location(const std::string& w) const {
    const auto& locs = m_test.locations;
    const auto it = std::find(locs.begin(), locs.end(), w);
    if (it != locs.end()) return unsigned(it - locs.begin());
    if (!m_seen_locations) fail("'" + w + "' is used before the `locations` line");
    std::string declared;
    for (const auto& l : locs)
        declared += (declared.empty() ? "" : " ") + l;
    fail("unknown location '" + w + "' (declared: " + declared + ")");
}

Test Parser::run() {
    std::istringstream in(m_text);
    std::string text;
    while (std::getline(in, text)) {
        ++m_line;
        m_tok = tokenize(text, m_file + ":" + std::to_string(m_line));
        if (!m_tok.empty()) line();
    }
    check_complete();
    return std::move(m_test);
}

void Parser::line() {
    const std::string& w = m_tok[0];
    if (m_test.name.empty() && w != "litmus")
        fail("a test starts with `litmus NAME`, got '" + w + "'");
    if (w == "litmus") return header_litmus();
    if (w == "runs") return header_runs();
    if (w == "timing") return header_timing();
    if (w == "locations") return header_locations();
    if (w == "thread") return header_thread();
    if (w == "exists") return header_exists();
    if (w == "expect") return header_expect();
    if (!m_test.conditions.empty())
        fail("statement '" + w + "' after `exists`: threads come first");
    if (m_test.threads.empty()) fail("statement '" + w + "' outside a thread (missing `thread 0`)");
    statement();
}

void Parser::header_litmus() {
    if (!m_test.name.empty()) fail("a second `litmus` line: one test per file");
    m_test.name = tok(1, "the test name");
    expect_end(2);
}

void Parser::header_runs() {
    if (m_seen_runs) fail("a second `runs` line");
    m_seen_runs = true;
    m_test.runs = number(tok(1, "the number of runs"), "the number of runs");
    if (m_test.runs == 0) fail("`runs` must be at least 1");
    expect_end(2);
}

void Parser::header_timing() {
    if (m_seen_timing) fail("a second `timing` line");
    m_seen_timing = true;
    Timing& t = m_test.timing;
    const std::map<std::string, Picos*> keys{{"step", &t.step},
                                             {"skew", &t.skew},
                                             {"drain", &t.drain},
                                             {"early", &t.early},
                                             {"late", &t.late}};
    for (size_t i = 1; i < m_tok.size(); i += 3) {
        const auto it = keys.find(m_tok[i]);
        if (it == keys.end())
            fail("unknown timing key '" + m_tok[i] + "' (step, skew, drain, early, late)");
        expect_tok(i + 1, "=");
        *it->second = duration(tok(i + 2, "a duration"));
    }
    if (t.step == 0) fail("timing step must be more than 0");
}

void Parser::header_locations() {
    if (m_seen_locations) fail("a second `locations` line");
    if (!m_test.threads.empty()) fail("`locations` must come before the threads");
    m_seen_locations = true;
    for (size_t i = 1; i < m_tok.size(); ++i) {
        const std::string& name = m_tok[i];
        if (!is_identifier(name) || is_register(name) || keywords().count(name))
            fail("'" + name + "' cannot name a location");
        if (std::count(m_test.locations.begin(), m_test.locations.end(), name))
            fail("location '" + name + "' declared twice");
        uint64_t init = 0;
        if (i + 1 < m_tok.size() && m_tok[i + 1] == "=") {
            init = number(tok(i + 2, "an initial value"), "an initial value");
            i += 2;
        }
        m_test.locations.push_back(name);
        m_test.init.push_back(init);
    }
    if (m_test.locations.empty()) fail("`locations` names no location");
}

// A thread ends at the next `thread` or `exists` line: it must have said something.
void Parser::check_last_thread() const {
    if (m_test.threads.empty() || !m_test.threads.back().ops.empty()) return;
    const Thread& t = m_test.threads.back();
    throw ParseError{m_file + ":" + std::to_string(t.line) + ": thread " + std::to_string(t.id) +
                     " has no statements"};
}

void Parser::header_thread() {
    if (!m_seen_locations) fail("`thread` before the `locations` line");
    if (!m_test.conditions.empty()) fail("`thread` after `exists`: threads come first");
    check_last_thread();
    const unsigned id = unsigned(number(tok(1, "the thread number"), "the thread number"));
    if (id != m_test.threads.size())
        fail("expected `thread " + std::to_string(m_test.threads.size()) + "` (threads are " +
             "numbered 0, 1, ... in order), got thread " + std::to_string(id));
    size_t i = 2;
    if (i < m_tok.size() && m_tok[i] == ":") ++i;
    expect_end(i);
    Thread t;
    t.id = id;
    t.line = m_line;
    m_test.threads.push_back(t);
    m_thread_regs.emplace_back();
    m_loaded.clear();
}

void Parser::statement() {
    const std::string& w = m_tok[0];
    Op op;
    if (w == "rmb" || w == "wmb" || w == "mb" || w == "ctrl")
        op = fence_or_ctrl();
    else if (w == "if")
        op = branch();
    else if (w == "release")
        op = store(1, true);
    else if (is_register(w))
        op = load(0);
    else
        op = store(0, false);
    op.line = m_line;
    if (op.type == OpType::load) {
        m_loaded.insert(op.reg);
        m_thread_regs.back().insert(op.reg);
    }
    m_test.threads.back().ops.push_back(op);
}

Op Parser::fence_or_ctrl() {
    Op op;
    const std::string& w = m_tok[0];
    if (w == "ctrl") {
        op.type = OpType::ctrl;
        op.reg = use_reg(tok(1, "a register"));
        expect_end(2);
        return op;
    }
    op.type = OpType::fence;
    op.fence = w == "rmb" ? Fence::rmb : w == "wmb" ? Fence::wmb : Fence::mb;
    expect_end(1);
    return op;
}

Op Parser::branch() {
    // if rN then | if rN == V then | if rN != V then
    Op op;
    op.type = OpType::branch;
    op.reg = use_reg(tok(1, "a register"));
    size_t i = 2;
    op.cond_equal = false; // `if rN then`: taken when rN != 0
    if (tok(i, "`then`") == "==" || m_tok[i] == "!=") {
        op.cond_equal = m_tok[i] == "==";
        op.cond_value = number(tok(i + 1, "a value"), "a value");
        i += 2;
    }
    expect_tok(i, "then");
    expect_end(i + 1);
    return op;
}

size_t Parser::deps(size_t i, Op& op) const {
    // [addr rM ...] [data rK ...]: the address (or, for a store, the value) is computed from
    // these registers, as herd's fake dependencies (r0 ^ r0 added to an address or value).
    while (i < m_tok.size()) {
        const std::string& kind = m_tok[i];
        if (kind != "addr" && !(kind == "data" && op.type == OpType::store))
            fail("unexpected '" + kind + "'" +
                 (op.type == OpType::store ? " (expected addr or data)" : " (expected addr)"));
        if (++i >= m_tok.size() || !is_register(m_tok[i])) fail("`" + kind + "` names no register");
        for (; i < m_tok.size() && is_register(m_tok[i]); ++i)
            op.deps.push_back(use_reg(m_tok[i]));
    }
    return i;
}

Op Parser::load(size_t i) {
    // rN = [acquire] LOC [addr rM ...]
    Op op;
    op.type = OpType::load;
    op.reg = reg(m_tok[i]);
    expect_tok(i + 1, "=");
    i += 2;
    if (tok(i, "a location") == "acquire") {
        op.acquire = true;
        ++i;
    }
    op.loc = location(tok(i, "a location"));
    expect_end(deps(i + 1, op));
    return op;
}

Op Parser::store(size_t i, bool release) {
    // [release] LOC = VALUE|rN [addr rM ...]
    Op op;
    op.type = OpType::store;
    op.release = release;
    const std::string& w = tok(i, "a location");
    if (i + 1 >= m_tok.size() || m_tok[i + 1] != "=" || !is_identifier(w) || keywords().count(w))
        fail("unknown statement '" + w + "' (see docs/litmus.md for the statements)");
    op.loc = location(w);
    expect_tok(i + 1, "=");
    const std::string& v = tok(i + 2, "a value or register");
    if (is_register(v)) {
        op.value.is_reg = true;
        op.value.reg = use_reg(v);
    } else {
        op.value.value = number(v, "a value or register");
    }
    expect_end(deps(i + 3, op));
    return op;
}

Term Parser::term(size_t& i) const {
    // T:rN=V or LOC=V
    Term t;
    const std::string& w = tok(i, "a term (T:rN=V or LOC=V)");
    if (i + 1 < m_tok.size() && m_tok[i + 1] == ":") {
        t.is_reg = true;
        t.thread = unsigned(number(w, "a thread number"));
        if (t.thread >= m_test.threads.size())
            fail("exists names thread " + w + ", which does not exist");
        const std::string& r = tok(i + 2, "a register");
        t.index = reg(r);
        if (!m_thread_regs[t.thread].count(t.index))
            fail("exists names " + w + ":" + r + ", but thread " + w + " never loads " + r);
        i += 3;
    } else {
        t.index = location(w);
        i += 1;
    }
    expect_tok(i, "=");
    t.value = number(tok(i + 1, "a value"), "a value");
    i += 2;
    return t;
}

void Parser::header_exists() {
    // exists [NAME] ( TERM /\ TERM ... )
    if (m_cond_open) fail("`exists` before the previous one's `expect` line");
    if (m_test.threads.empty()) fail("`exists` before any thread");
    check_last_thread();
    Condition c;
    c.line = m_line;
    size_t i = 1;
    if (tok(i, "'('") != "(") {
        c.name = m_tok[i];
        if (!is_identifier(c.name)) fail("'" + c.name + "' cannot name an exists clause");
        for (const auto& other : m_test.conditions)
            if (other.name == c.name) fail("a second exists clause named '" + c.name + "'");
        ++i;
    }
    expect_tok(i++, "(");
    for (;;) {
        c.terms.push_back(term(i));
        if (tok(i, "')'") == ")") break;
        expect_tok(i++, "/\\");
    }
    expect_end(i + 1);
    m_test.conditions.push_back(c);
    m_cond_open = true;
}

void Parser::header_expect() {
    // expect sc=V tso=V arm=V, for the exists clause just above
    if (!m_cond_open) fail("`expect` without an `exists` clause just above it");
    Condition& c = m_test.conditions.back();
    for (size_t i = 1; i < m_tok.size(); i += 3) {
        MemoryModel m{};
        const std::string& name = m_tok[i];
        if (name == "sc")
            m = MemoryModel::sc;
        else if (name == "tso")
            m = MemoryModel::tso;
        else if (name == "arm")
            m = MemoryModel::arm;
        else
            fail("unknown model '" + name + "' (sc, tso, arm)");
        if (c.expect.count(m)) fail("model " + name + " given twice");
        expect_tok(i + 1, "=");
        const std::string& v = tok(i + 2, "Allowed or Forbidden");
        if (v == "Allowed")
            c.expect[m] = Verdict::allowed;
        else if (v == "Forbidden")
            c.expect[m] = Verdict::forbidden;
        else
            fail("expected Allowed or Forbidden, got '" + v + "'");
    }
    for (MemoryModel m : all_models())
        if (!c.expect.count(m)) fail(std::string("`expect` gives no verdict for ") + model_name(m));
    m_cond_open = false;
}

void Parser::check_complete() const {
    auto at_end = [&](const std::string& msg) {
        throw ParseError{m_file + ":" + std::to_string(std::max(m_line, 1)) + ": " + msg};
    };
    if (m_test.name.empty()) at_end("empty file: a test starts with `litmus NAME`");
    if (!m_seen_runs) at_end("no `runs N` line (how many runs an Allowed outcome may take)");
    if (m_test.threads.empty()) at_end("no threads");
    check_last_thread();
    if (m_test.conditions.empty()) at_end("no `exists` clause");
    if (m_cond_open) at_end("the last `exists` clause has no `expect` line");
    if (m_test.conditions.size() > 1)
        for (const Condition& c : m_test.conditions)
            if (c.name.empty())
                throw ParseError{m_file + ":" + std::to_string(c.line) +
                                 ": with several exists clauses, each needs a name"};
}

} // namespace

ParseResult parse(const std::string& text, const std::string& file) {
    ParseResult r;
    try {
        r.test = Parser(text, file).run();
    } catch (const ParseError& e) {
        r.error = e.message;
    } catch (const std::exception& e) {
        r.error = file + ": " + e.what();
    }
    return r;
}

ParseResult parse_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) return ParseResult{std::nullopt, path + ": cannot read the file"};
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path);
}

// ---------------------------------------------------------------------------------------
// Interpreter
// ---------------------------------------------------------------------------------------

namespace {

constexpr uint64_t kLocSpacing = 64; // one location per cache line: no accidental overlap

struct LoadSlot {
    LoadTicket ticket;
    bool read = false;
    uint64_t value = 0;
};

// One thread's progress through its program.
struct AgentRun {
    const Thread* thread = nullptr;
    unsigned agent = 0;             // the engine's id
    size_t pc = 0;                  // next statement
    bool stopped = false;           // a branch was not taken: the rest of the thread does not run
    Picos next_issue = 0;           // earliest issue of ops[pc]: one step after the previous one
    std::vector<LoadSlot> loads;    // every load issued, in program order
    std::map<unsigned, size_t> reg; // register -> its latest load in `loads`
    uint64_t spins = 0;             // spin_lock's attempts that found the lock taken
    bool issuing() const { return !stopped && pc < thread->ops.size(); }
};

// Notes the latest perform time of any operation, to know when memory has settled, and
// keeps the operations themselves when a trace is wanted.
struct Horizon : models::OpObserver {
    Picos latest = 0;
    bool keep = false;
    std::vector<models::OpRecord> ops;
    void on_op(const models::OpRecord& op) override {
        latest = std::max(latest, op.perform);
        if (keep) ops.push_back(op);
    }
};

std::string format_ns(Picos t) {
    std::ostringstream s;
    s << t / 1000 << "." << std::setw(3) << std::setfill('0') << t % 1000;
    return s.str();
}

// The registers whose values `op` needs before it can issue (the branch, addresses, the
// stored value). A `ctrl` dependency is not here: it orders, it does not wait.
std::vector<unsigned> waits_for(const Op& op) {
    std::vector<unsigned> regs = op.deps;
    if (op.type == OpType::branch) regs.push_back(op.reg);
    if ((op.type == OpType::store || op.type == OpType::rmw) && op.value.is_reg)
        regs.push_back(op.value.reg);
    if (op.type == OpType::lock_retry) regs.push_back(op.reg);
    return regs;
}

class Execution {
public:
    Execution(const Test& t, MemoryModel model, uint64_t run);
    Outcome run();
    void keep_trace(bool on) { m_horizon.keep = on; }
    std::vector<std::string> trace() const;

private:
    // When the agent's next action (issue, or a read once it has finished) can happen.
    std::optional<Picos> next_time(const AgentRun& a) const;
    void step(AgentRun& a);
    void issue(AgentRun& a, const Op& op);
    uint64_t value_of(AgentRun& a, unsigned reg);    // reads the load if it is still pending
    unsigned location_of(AgentRun& a, const Op& op); // the location op accesses
    void read(LoadSlot& s);
    Outcome final_state();
    models::Addr addr(unsigned loc) const { return m_base + loc * kLocSpacing; }

    const Test& m_test;
    models::PhysicalMemory m_mem;
    models::Addr m_base = 0;
    OrderingEngine m_engine;
    Horizon m_horizon;
    std::vector<AgentRun> m_agents;
    unsigned m_observer = 0; // an extra agent that reads final memory once all is settled
    Picos m_now = 0;
};

models::TimingPolicy policy_for(uint64_t run) {
    // Both policies on every test: random explores the middle of the bounds, adversarial
    // their ends, where most reorderings live.
    return run % 2 == 0 ? models::TimingPolicy::random : models::TimingPolicy::adversarial;
}

Execution::Execution(const Test& t, MemoryModel model, uint64_t run)
    : m_test(t), m_engine(m_mem, model, policy_for(run), run) {
    m_base = m_mem.allocate("litmus", t.locations.size() * kLocSpacing, kLocSpacing);
    for (size_t i = 0; i < t.init.size(); ++i)
        m_mem.write(addr(unsigned(i)), reinterpret_cast<const uint8_t*>(&t.init[i]), 8);
    m_engine.add_observer(&m_horizon);
    const models::TimingBounds bounds{t.timing.drain, t.timing.early, t.timing.late};
    models::Rng skew(models::derive_seed(run, "litmus-skew"));
    for (const Thread& th : t.threads) {
        AgentRun a;
        a.thread = &th;
        a.agent = m_engine.add_agent("P" + std::to_string(th.id), bounds);
        a.next_issue = skew.below(t.timing.skew + 1);
        m_agents.push_back(std::move(a));
    }
    m_observer = m_engine.add_agent("final", models::TimingBounds{});
}

std::optional<Picos> Execution::next_time(const AgentRun& a) const {
    if (a.issuing()) {
        Picos t = a.next_issue;
        for (unsigned r : waits_for(a.thread->ops[a.pc])) {
            const auto it = a.reg.find(r);
            if (it != a.reg.end()) t = std::max(t, a.loads[it->second].ticket.perform);
        }
        return std::max(t, m_now);
    }
    // Finished issuing: read the pending loads, earliest perform first.
    std::optional<Picos> t;
    for (const LoadSlot& s : a.loads)
        if (!s.read) t = std::min(t.value_or(s.ticket.perform), s.ticket.perform);
    if (t) t = std::max(*t, m_now);
    return t;
}

void Execution::read(LoadSlot& s) {
    uint64_t v = 0;
    m_engine.read(s.ticket, m_now, reinterpret_cast<uint8_t*>(&v), nullptr);
    s.read = true;
    s.value = v;
}

unsigned Execution::location_of(AgentRun& a, const Op& op) {
    if (!op.indirect) return op.loc;
    // The pointer was read when the address dependency was resolved (issue() reads deps first).
    const uint64_t p = value_of(a, op.addr_reg);
    for (unsigned i = 0; i < m_test.locations.size(); ++i)
        if (pointer_to(i) == p) return i;
    throw std::runtime_error("thread " + std::to_string(a.thread->id) + " line " +
                             std::to_string(op.line) + ": r" + std::to_string(op.addr_reg) +
                             " holds " + std::to_string(p) + ", which points to no location");
}

uint64_t Execution::value_of(AgentRun& a, unsigned reg) {
    const auto it = a.reg.find(reg);
    if (it == a.reg.end()) return 0; // never loaded on this path: registers start at 0
    LoadSlot& s = a.loads[it->second];
    if (!s.read) read(s);
    return s.value;
}

void Execution::issue(AgentRun& a, const Op& op) {
    for (unsigned r : op.deps) {
        value_of(a, r); // the address or value is computed now
        // ... and the access it feeds performs after the load it came from.
        if (a.reg.count(r)) m_engine.dep(a.agent, a.loads[a.reg[r]].ticket);
    }
    switch (op.type) {
    case OpType::load: {
        const models::Addr at = addr(location_of(a, op));
        a.reg[op.reg] = a.loads.size();
        a.loads.push_back(
            LoadSlot{m_engine.load(a.agent, m_now, at, 8, op.acquire, models::Barrier::none)});
        break;
    }
    case OpType::store: {
        const uint64_t v = op.value.is_reg ? value_of(a, op.value.reg) : op.value.value;
        m_engine.store(a.agent, m_now, addr(location_of(a, op)),
                       reinterpret_cast<const uint8_t*>(&v), 8, op.release, models::Barrier::none);
        break;
    }
    case OpType::rmw: {
        const uint64_t v = op.value.is_reg ? value_of(a, op.value.reg) : op.value.value;
        const models::RmwTicket t = m_engine.rmw(a.agent, m_now, addr(location_of(a, op)),
                                                 reinterpret_cast<const uint8_t*>(&v), 8,
                                                 op.acquire, op.release, models::Barrier::none);
        a.reg[op.reg] = a.loads.size();
        a.loads.push_back(LoadSlot{t.load});
        break;
    }
    case OpType::lock_retry:
        // spin_lock: the exchange read the lock taken; try again (the rmw just before).
        if (value_of(a, op.reg) == 0) break;
        if (++a.spins > kMaxSpins)
            throw models::ModelError("thread " + std::to_string(a.thread->id) + " line " +
                                     std::to_string(op.line) + ": spin_lock found the lock taken " +
                                     std::to_string(kMaxSpins) + " times");
        a.pc -= 2; // step() moves on by one: to the rmw
        break;
    case OpType::fence:
        m_engine.fence(a.agent, m_now, op.fence, models::Barrier::none);
        break;
    case OpType::ctrl:
        // herd's fake control dependency (a branch to the next instruction): orders the
        // thread's later stores after the load without waiting for its value.
        if (a.reg.count(op.reg)) m_engine.ctrl_dep(a.agent, a.loads[a.reg[op.reg]].ticket);
        break;
    case OpType::branch: {
        // A real branch: the later stores must not perform before the load (ctrl_dep), and
        // whether they run at all needs the value, as in the kernel producer's room check.
        if (a.reg.count(op.reg)) m_engine.ctrl_dep(a.agent, a.loads[a.reg[op.reg]].ticket);
        const bool equal = value_of(a, op.reg) == op.cond_value;
        if (equal == op.cond_equal) break;
        if (op.skip == kRestOfThread)
            a.stopped = true;
        else
            a.pc += op.skip; // step() moves past the branch itself
        break;
    }
    }
}

void Execution::step(AgentRun& a) {
    if (!a.issuing()) {
        for (LoadSlot& s : a.loads)
            if (!s.read && s.ticket.perform <= m_now) return read(s);
        return;
    }
    issue(a, a.thread->ops[a.pc]);
    ++a.pc;
    a.next_issue = m_now + m_test.timing.step;
}

Outcome Execution::run() {
    // Always the globally earliest action next, so the shared clock never goes back.
    for (;;) {
        AgentRun* next = nullptr;
        Picos when = 0;
        for (AgentRun& a : m_agents) {
            const auto t = next_time(a);
            if (t && (!next || *t < when)) {
                next = &a;
                when = *t;
            }
        }
        if (!next) break;
        m_now = when;
        step(*next);
    }
    return final_state();
}

Outcome Execution::final_state() {
    Outcome o;
    for (const AgentRun& a : m_agents) {
        // The test's registers, in order; the reader's own (kHiddenReg on) are not outcomes.
        const auto end = a.reg.lower_bound(kHiddenReg);
        std::vector<uint64_t> regs(end == a.reg.begin() ? 0 : std::prev(end)->first + 1, 0);
        for (auto it = a.reg.begin(); it != end; ++it)
            regs[it->first] = a.loads[it->second].value;
        o.regs.push_back(std::move(regs));
    }
    // Read memory after every store has performed: then it holds each location's last
    // store in coherence order.
    m_now = std::max(m_now, m_horizon.latest) + 1;
    for (unsigned i = 0; i < m_test.locations.size(); ++i) {
        const LoadTicket t =
            m_engine.load(m_observer, m_now, addr(i), 8, false, models::Barrier::none);
        uint64_t v = 0;
        m_engine.read(t, m_now, reinterpret_cast<uint8_t*>(&v), nullptr);
        o.mem.push_back(v);
    }
    return o;
}

} // namespace

std::vector<std::string> Execution::trace() const {
    std::vector<models::OpRecord> ops;
    for (const auto& op : m_horizon.ops)
        if (op.agent != m_observer) ops.push_back(op);
    std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.seq < b.seq; });
    std::vector<std::string> lines;
    for (const auto& op : ops) {
        std::ostringstream s;
        s << m_engine.agent_name(op.agent) << "  " << std::left << std::setw(13)
          << models::op_kind_name(op.kind);
        const bool access = op.kind != models::OpKind::fence_rmb &&
                            op.kind != models::OpKind::fence_wmb &&
                            op.kind != models::OpKind::fence_mb;
        s << std::setw(6) << (access ? m_test.locations.at((op.addr - m_base) / kLocSpacing) : "")
          << " issue " << std::right << std::setw(8) << format_ns(op.issue) << " ns  perform "
          << std::setw(8) << format_ns(op.perform) << " ns";
        if (access) s << "  value " << op.value;
        lines.push_back(s.str());
    }
    return lines;
}

bool holds(const Condition& c, const Outcome& o) {
    for (const Term& t : c.terms) {
        uint64_t v = 0;
        if (!t.is_reg)
            v = o.mem.at(t.index);
        else if (t.thread < o.regs.size() && t.index < o.regs[t.thread].size())
            v = o.regs[t.thread][t.index];
        if (v != t.value) return false;
    }
    return true;
}

Outcome run_once(const Test& t, MemoryModel model, uint64_t run, std::vector<std::string>* trace) {
    Execution e(t, model, run);
    e.keep_trace(trace != nullptr);
    Outcome o = e.run();
    if (trace) *trace = e.trace();
    return o;
}

// ---------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------

namespace {

void judge(ConditionResult& r) {
    if (!r.error.empty())
        r.pass = false;
    else if (r.expected == Verdict::forbidden)
        r.pass = r.observed == 0;
    else
        r.pass = r.first_seen != 0 && r.first_seen <= r.window;
}

} // namespace

std::vector<ConditionResult> run_test(const Test& t, uint64_t runs) {
    const uint64_t n = std::max(runs, t.runs);
    std::vector<ConditionResult> out;
    for (MemoryModel m : all_models()) {
        const size_t first = out.size();
        for (const Condition& c : t.conditions) {
            ConditionResult r;
            r.test = t.name;
            r.condition = c.name;
            r.model = m;
            r.expected = c.expect.at(m);
            r.window = t.runs;
            out.push_back(r);
        }
        for (uint64_t run = 0; run < n; ++run) {
            try {
                const Outcome o = run_once(t, m, run);
                for (size_t i = 0; i < t.conditions.size(); ++i) {
                    ConditionResult& r = out[first + i];
                    ++r.runs;
                    if (!holds(t.conditions[i], o)) continue;
                    if (!r.observed++) r.first_seen = run + 1;
                }
            } catch (const std::exception& e) {
                // An engine rule the interpreter broke, or an engine bug: report, stop.
                for (size_t i = first; i < out.size(); ++i)
                    out[i].error = "run " + std::to_string(run) + ": " + e.what();
                break;
            }
        }
        for (size_t i = first; i < out.size(); ++i)
            judge(out[i]);
    }
    return out;
}

} // namespace ringsim::platform::litmus
