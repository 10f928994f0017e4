// Reads the kernel's C litmus format (see kernel_litmus.h for the mapping of each primitive).
// Only the C subset the kernel's tests use is accepted: processes P0..Pn with pointer
// parameters, `int rN;` declarations, the primitives below as statements, `if` with an
// optional block, an init block `{ x=1; p=y; }` and an `exists` clause of `/\` terms.
#include "platform/litmus/kernel_litmus.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace ringsim::platform::litmus {

// ---------------------------------------------------------------------------------------
// The exceptions file
// ---------------------------------------------------------------------------------------

ExceptionsResult parse_exceptions(const std::string& text, const std::string& file) {
    ExceptionsResult r;
    std::istringstream in(text);
    std::string line;
    std::set<std::pair<std::string, MemoryModel>> seen;
    for (int n = 1; std::getline(in, line); ++n) {
        const std::string where = file + ":" + std::to_string(n);
        std::istringstream words(line);
        LkmmException e;
        std::string model, verdict;
        if (!(words >> e.test) || e.test[0] == '#') continue;
        words >> model >> verdict;
        std::getline(words, e.reason);
        e.reason.erase(0, e.reason.find_first_not_of(" \t"));
        e.where = where;
        const auto& models = all_models();
        const auto m = std::find_if(models.begin(), models.end(),
                                    [&](MemoryModel x) { return model == model_name(x); });
        if (m == models.end()) {
            r.error = where + ": expected a model (sc, tso, arm), got '" + model + "'";
            return r;
        }
        e.model = *m;
        if (verdict != "Allowed" && verdict != "Forbidden") {
            r.error = where + ": expected Allowed or Forbidden, got '" + verdict + "'";
            return r;
        }
        e.verdict = verdict == "Allowed" ? Verdict::allowed : Verdict::forbidden;
        if (e.reason.empty()) {
            r.error = where + ": an exception needs its reason after the verdict";
            return r;
        }
        if (!seen.insert({e.test, e.model}).second) {
            r.error = where + ": a second exception for " + e.test + " under " + model;
            return r;
        }
        r.list.push_back(e);
    }
    return r;
}

bool is_kernel_litmus(const std::string& text) {
    std::istringstream in(text);
    std::string first;
    return (in >> first) && first == "C";
}

namespace {

// Thrown inside the reader: malformed input (error) or a primitive it cannot express (lacks).
struct Malformed {
    std::string message;
};
struct Lacks {
    std::string primitive;
};

struct Token {
    std::string text;
    int line = 0;
};

// Comments ((* *), /* */, //) become spaces, newlines kept, so lines still count. `(*`
// right after a name is a call's argument (`WRITE_ONCE(*x, 1)`, `READ_ONCE(* x)`), code;
// anywhere else it opens a comment.
std::string strip_comments(const std::string& s) {
    std::string out = s;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = 0; i + 1 < out.size(); ++i) {
        std::string close;
        if (out.compare(i, 2, "(*") == 0 && !(i > 0 && ident(out[i - 1])))
            close = "*)";
        else if (out.compare(i, 2, "/*") == 0)
            close = "*/";
        else if (out.compare(i, 2, "//") == 0)
            close = "\n";
        else
            continue;
        size_t end = out.find(close, i + 2);
        end = end == std::string::npos ? out.size() : end + (close == "\n" ? 0 : close.size());
        for (size_t j = i; j < end; ++j)
            if (out[j] != '\n') out[j] = ' ';
    }
    return out;
}

std::vector<Token> tokenize(const std::string& s, int first_line, const std::string& file) {
    std::vector<Token> out;
    int line = first_line;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '\n') {
            ++line;
            ++i;
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (ident(c)) {
            size_t j = i;
            while (j < s.size() && ident(s[j]))
                ++j;
            out.push_back({s.substr(i, j - i), line});
            i = j;
        } else {
            static const char* pairs[] = {"/\\", "\\/", "==", "!=", "&&", "||"};
            const auto two = std::find_if(std::begin(pairs), std::end(pairs),
                                          [&](const char* p) { return s.compare(i, 2, p) == 0; });
            if (two != std::end(pairs)) {
                out.push_back({*two, line});
                i += 2;
            } else if (std::string("(){}[];,*=&:~!+-<>").find(c) != std::string::npos) {
                out.push_back({std::string(1, c), line});
                ++i;
            } else {
                throw Malformed{file + ":" + std::to_string(line) + ": unexpected character '" +
                                std::string(1, c) + "'"};
            }
        }
    }
    return out;
}

bool is_number(const std::string& w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) { return std::isdigit(c); });
}

bool is_reg_name(const std::string& w) {
    return w.size() >= 2 && w.size() <= 3 && w[0] == 'r' && is_number(w.substr(1));
}

// The primitives the reader maps, by what they become.
const std::set<std::string> kLoads{"READ_ONCE", "smp_load_acquire", "rcu_dereference"};
const std::set<std::string> kStores{"WRITE_ONCE", "smp_store_release", "rcu_assign_pointer"};
const std::map<std::string, models::Fence> kFences{{"smp_mb", models::Fence::mb},
                                                   {"smp_rmb", models::Fence::rmb},
                                                   {"smp_wmb", models::Fence::wmb}};
// Those that take the location itself (`*x`) rather than a pointer to it (`x`).
const std::set<std::string> kTakesLvalue{"READ_ONCE", "WRITE_ONCE", "rcu_dereference",
                                         "rcu_assign_pointer"};

// The exchanges, `rN = xchg(x, V)`, by name: whether the load part is acquire, the store
// part release, and whether full barriers surround it (the unsuffixed, fully ordered form:
// LKMM's smp_mb() before and after; arm64's ldaxr/stlxr then dmb ish, or swpal; x86's
// xchg, a locked instruction).
struct Exchange {
    bool acquire, release, full;
};
const std::map<std::string, Exchange> kExchanges{{"xchg", {false, false, true}},
                                                 {"xchg_acquire", {true, false, false}},
                                                 {"xchg_release", {false, true, false}},
                                                 {"xchg_relaxed", {false, false, false}}};

// Why an unmapped primitive cannot be expressed, by family.
std::string lacks_why(const std::string& name) {
    auto starts = [&](const char* p) { return name.rfind(p, 0) == 0; };
    if (starts("spin_") || starts("raw_spin_"))
        return name + " (ringsim maps spin_lock, spin_unlock and spin_is_locked, not this one)";
    if (starts("cmpxchg") || starts("atomic_cmpxchg") || starts("try_cmpxchg"))
        return name + " (a conditional read-modify-write: the ordering engine's rmw always stores)";
    if (starts("xchg") || starts("atomic_") || starts("smp_mb__"))
        return name + " (an atomic operation ringsim does not map; it maps xchg, xchg_acquire, "
                      "xchg_release, xchg_relaxed and smp_mb__after_spinlock)";
    if (starts("synchronize_") || starts("srcu_") || starts("call_rcu"))
        return name + " (an RCU grace period, which the ordering engine has not)";
    return name + " (not one of the primitives ringsim maps)";
}

class KernelReader {
public:
    KernelReader(const std::string& file, uint64_t runs) : m_file(file) {
        m_test.file = file;
        m_test.runs = runs;
    }
    Test read(const std::string& text, std::string& result);

private:
    [[noreturn]] void fail(const std::string& msg) const {
        const int line = m_pos < m_tok.size() ? m_tok[m_pos].line : m_last_line;
        throw Malformed{m_file + ":" + std::to_string(line) + ": " + msg};
    }
    bool at(const char* t) const { return m_pos < m_tok.size() && m_tok[m_pos].text == t; }
    const std::string& peek(const char* what) const {
        if (m_pos >= m_tok.size())
            fail(std::string("expected ") + what + " at the end of the file");
        return m_tok[m_pos].text;
    }
    const std::string& next(const char* what) {
        const std::string& t = peek(what);
        ++m_pos;
        return t;
    }
    void expect(const char* t) {
        if (peek(t) != t)
            fail("expected '" + std::string(t) + "', got '" + m_tok[m_pos].text + "'");
        ++m_pos;
    }
    int line() const { return m_pos < m_tok.size() ? m_tok[m_pos].line : m_last_line; }
    // A register the current process declared (`int rN;`), by number; else an error.
    unsigned declared(const std::string& r) const {
        const unsigned n = unsigned(std::stoul(r.substr(1)));
        if (!m_regs.count(n)) fail(r + " is not declared in this process");
        return n;
    }
    uint64_t number(const std::string& digits) const {
        if (digits.size() > 19) fail("the number " + digits + " is too large");
        return std::stoull(digits);
    }

    unsigned location(const std::string& name, bool declare);
    void init_block();
    void process();
    void statement(std::vector<Op>& ops);
    void declaration();
    void call_statement(const std::string& name, std::vector<Op>& ops);
    void assignment(const std::string& reg, std::vector<Op>& ops);
    void exchange(unsigned r, const std::string& name, std::vector<Op>& ops);
    void if_statement(std::vector<Op>& ops);
    void address(Op& op, bool lvalue);
    Operand value(Op* store);
    void exists();

    std::string m_file;
    Test m_test;
    std::vector<Token> m_tok;
    size_t m_pos = 0;
    int m_last_line = 1;
    std::set<std::string> m_params;                // the current process's pointer parameters
    std::set<unsigned> m_regs;                     // the current process's declared registers
    std::vector<std::set<unsigned>> m_thread_regs; // each finished process's
    static constexpr unsigned kMaxDepth = 16;
    unsigned m_depth = 0; // blocks and ifs open around the statement being read
};

unsigned KernelReader::location(const std::string& name, bool declare) {
    auto& locs = m_test.locations;
    const auto it = std::find(locs.begin(), locs.end(), name);
    if (it != locs.end()) return unsigned(it - locs.begin());
    if (!declare) fail("'" + name + "' is neither a register nor a location");
    locs.push_back(name);
    m_test.init.push_back(0);
    return unsigned(locs.size() - 1);
}

void KernelReader::init_block() {
    // { x=1; p=y; int z=2; }: a location's initial value, a number or another's address.
    expect("{");
    while (!at("}")) {
        std::vector<std::string> words;
        while (!at("=") && !at(";") && !at("}")) {
            const std::string& w = next("an initial value");
            if (w == ":") throw Lacks{"an initial register value (T:rN=V)"};
            if (w != "*") words.push_back(w);
        }
        if (at(";")) {
            ++m_pos;
            continue; // a declaration without a value: zero
        }
        if (at("}") || words.empty()) fail("expected `LOC=VALUE;` in the init block");
        expect("=");
        const unsigned loc = location(words.back(), true);
        const std::string v = next("an initial value");
        if (v == "&") {
            m_test.init[loc] = pointer_to(location(next("a location"), true));
        } else if (is_number(v)) {
            m_test.init[loc] = number(v);
        } else {
            m_test.init[loc] = pointer_to(location(v, true));
        }
        if (!at("}")) expect(";");
    }
    expect("}");
}

void KernelReader::process() {
    // Pn(int *x, int **p, ...) { body }
    const std::string name = next("a process");
    const std::string n = name.substr(1);
    if (name[0] != 'P' || !is_number(n) || number(n) != m_test.threads.size())
        fail("expected P" + std::to_string(m_test.threads.size()) + "(...), got '" + name + "'");
    Thread t;
    t.id = unsigned(m_test.threads.size());
    t.line = line();
    m_params.clear();
    m_regs.clear();
    expect("(");
    while (!at(")")) {
        std::vector<std::string> words;
        while (!at(",") && !at(")")) {
            const std::string& w = next("a parameter");
            if (w != "*") words.push_back(w);
        }
        if (words.size() < 2) fail("a parameter needs a type and a name");
        m_params.insert(words.back());
        location(words.back(), true);
        if (at(",")) ++m_pos;
    }
    expect(")");
    expect("{");
    while (!at("}"))
        statement(t.ops);
    expect("}");
    if (t.ops.empty()) fail(name + " has no statements");
    m_test.threads.push_back(t);
    m_thread_regs.push_back(m_regs);
}

void KernelReader::declaration() {
    // int r0; int *r0; int r0, r1;  (registers start at 0, as in herd)
    ++m_pos; // the type
    for (;;) {
        while (at("*"))
            ++m_pos;
        const std::string& r = next("a register name");
        if (!is_reg_name(r)) throw Lacks{"a register not named r0 ... r99 ('" + r + "')"};
        if (m_params.count(r)) fail(r + " is declared as a parameter and as a register");
        m_regs.insert(unsigned(std::stoul(r.substr(1))));
        if (at("=")) throw Lacks{"an initialised register declaration"};
        if (at(";")) break;
        expect(",");
    }
    expect(";");
}

void KernelReader::statement(std::vector<Op>& ops) {
    const std::string w = peek("a statement");
    // Blocks and ifs recurse: a bound keeps a hostile file from exhausting the stack.
    if (m_depth > kMaxDepth) fail("statements nested deeper than " + std::to_string(kMaxDepth));
    if (w == "{") {
        ++m_pos;
        ++m_depth;
        while (!at("}"))
            statement(ops);
        --m_depth;
        ++m_pos;
    } else if (w == ";") {
        ++m_pos;
    } else if (w == "int" || w == "long" || w == "unsigned") {
        declaration();
    } else if (w == "if") {
        if_statement(ops);
    } else if (is_reg_name(w) && m_pos + 1 < m_tok.size() && m_tok[m_pos + 1].text == "=") {
        m_pos += 2;
        assignment(w, ops);
    } else if (m_pos + 1 < m_tok.size() && m_tok[m_pos + 1].text == "(") {
        ++m_pos;
        call_statement(w, ops);
    } else {
        fail("unexpected '" + w + "' (a statement is a primitive call, `rN = ...;` or `if`)");
    }
}

// The argument naming where a primitive accesses: `*x` (lvalue) or `x` (pointer), where x
// is a parameter (the location itself) or a register holding a pointer (an address
// dependency on the load that set it).
void KernelReader::address(Op& op, bool lvalue) {
    if (lvalue) expect("*");
    const std::string& w = next("a location");
    if (m_params.count(w)) {
        op.loc = location(w, false);
    } else if (is_reg_name(w)) {
        op.indirect = true;
        op.addr_reg = declared(w);
        op.deps.push_back(op.addr_reg);
    } else {
        fail("'" + w + "' is neither a parameter nor a declared register");
    }
}

// A value stored or compared: a number, a register (a data dependency when stored), or a
// location's address.
Operand KernelReader::value(Op* store) {
    Operand v;
    const std::string& w = next("a value");
    if (is_number(w)) {
        v.value = number(w);
    } else if (is_reg_name(w) && !m_params.count(w)) {
        v.is_reg = true;
        v.reg = declared(w);
        if (store) store->deps.push_back(v.reg);
    } else if (w == "&") {
        v.value = pointer_to(location(next("a location"), false));
    } else if (m_params.count(w)) {
        v.value = pointer_to(location(w, false));
    } else {
        throw Lacks{"the expression '" + w + "' (values are numbers, registers and pointers)"};
    }
    return v;
}

void KernelReader::call_statement(const std::string& name, std::vector<Op>& ops) {
    expect("(");
    Op op;
    op.line = line();
    if (kFences.count(name)) {
        op.type = OpType::fence;
        op.fence = kFences.at(name);
        ops.push_back(op);
    } else if (name == "spin_lock") {
        // LKMM's lock: an acquire exchange of 1, again while it reads the lock taken (arm64
        // qspinlock's fast path is an acquire cmpxchg, casa or ldaxr/stxr; x86's a lock
        // cmpxchg, fully ordered as every locked instruction).
        op.type = OpType::rmw;
        op.acquire = true;
        op.reg = kHiddenReg;
        op.value.value = 1;
        address(op, false);
        ops.push_back(op);
        Op spin;
        spin.type = OpType::lock_retry;
        spin.line = op.line;
        spin.reg = kHiddenReg;
        ops.push_back(spin);
    } else if (name == "spin_unlock") {
        // A release store of 0 (arm64 and x86 queued_spin_unlock: smp_store_release).
        op.type = OpType::store;
        op.release = true;
        address(op, false);
        ops.push_back(op);
    } else if (name == "smp_mb__after_spinlock") {
        // arm64: smp_mb(). x86: nothing, the lock's locked instruction is a full barrier
        // already, as the tso model's rmw is: a fence there changes nothing.
        op.type = OpType::fence;
        op.fence = models::Fence::mb;
        ops.push_back(op);
    } else if (name == "rcu_read_lock" || name == "rcu_read_unlock") {
        // Orders nothing by itself; a test with a grace period is refused where it calls one.
    } else if (kStores.count(name)) {
        op.type = OpType::store;
        op.release = name != "WRITE_ONCE";
        address(op, kTakesLvalue.count(name) != 0);
        expect(",");
        op.value = value(&op);
        ops.push_back(op);
    } else {
        throw Lacks{lacks_why(name)};
    }
    expect(")");
    expect(";");
}

void KernelReader::assignment(const std::string& reg, std::vector<Op>& ops) {
    const unsigned r = unsigned(std::stoul(reg.substr(1)));
    if (!m_regs.count(r)) fail(reg + " is not declared");
    const std::string name = next("a primitive");
    if (kExchanges.count(name)) return exchange(r, name, ops);
    if (name == "spin_is_locked") {
        // A plain load of the lock word (arm64 and x86: atomic_read of the lock), which holds
        // 1 while the lock is taken and 0 once released.
        expect("(");
        Op op;
        op.type = OpType::load;
        op.line = line();
        op.reg = r;
        address(op, false);
        expect(")");
        expect(";");
        ops.push_back(op);
        return;
    }
    if (!kLoads.count(name)) {
        if (m_pos < m_tok.size() && m_tok[m_pos].text == "(") throw Lacks{lacks_why(name)};
        throw Lacks{"arithmetic or copies between registers ('" + reg + " = " + name + "...')"};
    }
    expect("(");
    Op op;
    op.type = OpType::load;
    op.line = line();
    op.reg = r;
    op.acquire = name == "smp_load_acquire";
    address(op, kTakesLvalue.count(name) != 0);
    expect(")");
    expect(";");
    ops.push_back(op);
}

void KernelReader::exchange(unsigned r, const std::string& name, std::vector<Op>& ops) {
    // rN = xchg(x, V): the old value into rN, V stored, atomically.
    const Exchange x = kExchanges.at(name);
    expect("(");
    Op op;
    op.type = OpType::rmw;
    op.line = line();
    op.reg = r;
    op.acquire = x.acquire;
    op.release = x.release;
    address(op, false);
    expect(",");
    op.value = value(&op);
    expect(")");
    expect(";");
    Op mb;
    mb.type = OpType::fence;
    mb.line = op.line;
    mb.fence = models::Fence::mb;
    if (x.full) ops.push_back(mb);
    ops.push_back(op);
    if (x.full) ops.push_back(mb);
}

void KernelReader::if_statement(std::vector<Op>& ops) {
    // if (rN) S | if (!rN) S | if (rN == V) S | if (rN != V) S: a real branch on the
    // register, over the statements of S when not taken.
    ++m_pos;
    expect("(");
    Op op;
    op.type = OpType::branch;
    op.line = line();
    const bool negated = at("!");
    if (negated) ++m_pos;
    const std::string& r = next("a register");
    if (!is_reg_name(r)) throw Lacks{"a condition other than a register compared with a value"};
    op.reg = declared(r);
    op.cond_equal = negated; // `if (rN)` is taken when rN != 0; `if (!rN)` when rN == 0
    if (!negated && (at("==") || at("!="))) {
        op.cond_equal = next("==") == "==";
        const Operand v = value(nullptr);
        if (v.is_reg) throw Lacks{"a condition comparing two registers"};
        op.cond_value = v.value;
    }
    if (!at(")")) throw Lacks{"a condition other than a register compared with a value"};
    ++m_pos;
    const size_t at_branch = ops.size();
    ops.push_back(op);
    ++m_depth;
    statement(ops);
    --m_depth;
    ops[at_branch].skip = ops.size() - at_branch - 1;
    if (at("else")) throw Lacks{"else"};
}

void KernelReader::exists() {
    // exists (T:rN=V /\ LOC=V /\ ...), the outer parentheses optional.
    Condition c;
    c.line = line();
    size_t depth = 0;
    while (at("(")) {
        ++m_pos;
        ++depth;
    }
    for (;;) {
        Term t;
        const std::string w = next("a term");
        if (w == "~" || w == "not") throw Lacks{"a negation in exists"};
        if (at(":")) {
            if (!is_number(w)) fail("expected a thread number, got '" + w + "'");
            t.is_reg = true;
            if (number(w) >= m_test.threads.size())
                fail("exists names thread " + w + ", which does not exist");
            t.thread = unsigned(number(w));
            ++m_pos;
            const std::string& r = next("a register");
            if (!is_reg_name(r)) fail("expected a register, got '" + r + "'");
            t.index = unsigned(std::stoul(r.substr(1)));
            if (!m_thread_regs[t.thread].count(t.index))
                fail("exists names " + w + ":" + r + ", which P" + w + " does not declare");
        } else {
            t.index = location(w, false);
        }
        expect("=");
        const std::string v = next("a value");
        if (is_number(v))
            t.value = number(v);
        else
            t.value = pointer_to(location(v, false));
        c.terms.push_back(t);
        if (at("\\/")) throw Lacks{"a disjunction (\\/) in exists"};
        if (!at("/\\")) break;
        ++m_pos;
    }
    for (; depth; --depth)
        expect(")");
    m_test.conditions.push_back(c);
}

Test KernelReader::read(const std::string& text, std::string& result) {
    // Line 1: C NAME. The LKMM verdict is in the comment after it: "Result: Never".
    const size_t eol = text.find('\n');
    std::istringstream head(text.substr(0, eol));
    std::string c;
    head >> c >> m_test.name;
    if (c != "C" || m_test.name.empty())
        throw Malformed{m_file + ":1: a kernel litmus test starts with `C NAME`"};
    static const std::regex result_re(R"(Result:\s*([A-Za-z]+))");
    std::smatch m;
    if (std::regex_search(text, m, result_re)) result = m[1];
    const std::string body = eol == std::string::npos ? "" : text.substr(eol + 1);
    m_tok = tokenize(strip_comments(body), 2, m_file);
    m_last_line = int(std::count(text.begin(), text.end(), '\n')) +
                  (!text.empty() && text.back() == '\n' ? 0 : 1);

    if (at("{")) init_block();
    while (m_pos < m_tok.size() && m_tok[m_pos].text[0] == 'P')
        process();
    if (m_test.threads.empty()) fail("expected a process P0(...) { ... }");
    while (m_pos < m_tok.size()) {
        const std::string w = next("exists");
        if (w == "locations") {
            while (!at("]"))
                next("']'");
            ++m_pos;
        } else if (w == "exists") {
            if (!m_test.conditions.empty()) fail("a second exists clause");
            exists();
        } else if (w == "filter" || w == "forall" || w == "~") {
            throw Lacks{"`" + w + "` conditions"};
        } else {
            --m_pos;
            fail("unexpected '" + w + "' after the processes");
        }
    }
    if (m_test.conditions.empty()) fail("no exists clause");
    return m_test;
}

} // namespace

KernelParse parse_kernel(const std::string& text, const std::string& file,
                         const std::vector<LkmmException>& exceptions, uint64_t runs) {
    KernelParse r;
    std::string result;
    try {
        r.test = KernelReader(file, runs).read(text, result);
    } catch (const Malformed& e) {
        r.error = e.message;
        return r;
    } catch (const Lacks& e) {
        r.lacks = e.primitive;
        return r;
    }
    if (result != "Never" && result != "Sometimes") {
        r.lacks = result.empty() ? "a `Result:` line (no LKMM verdict to check against)"
                                 : "Result: " + result + " (ringsim checks Never and Sometimes)";
        r.test.reset();
        return r;
    }
    const Verdict lkmm = result == "Never" ? Verdict::forbidden : Verdict::allowed;
    Condition& c = r.test->conditions.front();
    for (MemoryModel m : all_models())
        c.expect[m] = lkmm;
    for (const LkmmException& e : exceptions) {
        if (e.test != r.test->name) continue;
        if (e.verdict == lkmm) {
            r.error = e.where + ": " + e.test + " under " + model_name(e.model) + " is " +
                      verdict_name(lkmm) + ", as its Result line says: not an exception";
            r.test.reset();
            return r;
        }
        c.expect[e.model] = e.verdict;
        c.exception[e.model] = e.reason;
    }
    return r;
}

} // namespace ringsim::platform::litmus
