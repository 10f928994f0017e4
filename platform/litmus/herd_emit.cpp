// ringsim's litmus tests as herd7 tests (see herd_emit.h).
#include "platform/litmus/herd_emit.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

namespace ringsim::platform::litmus {

namespace {

constexpr unsigned kDataRegs = 10; // r0..r9 -> X0..X9 on AArch64
constexpr unsigned kLocRegs = 10;  // location i's address in X(10 + i)
const char* const kX86Regs[] = {"EAX", "EBX", "ECX", "EDX", "ESI", "EDI"};

// One thread's instructions, one per row.
using Column = std::vector<std::string>;

std::string w(unsigned r) {
    return "W" + std::to_string(r);
}
std::string x(unsigned r) {
    return "X" + std::to_string(r);
}
std::string fence_aarch64(models::Fence f) {
    switch (f) {
    case models::Fence::mb:
        return "DMB ISH";
    case models::Fence::rmb:
        return "DMB ISHLD";
    case models::Fence::wmb:
        return "DMB ISHST";
    }
    return "";
}

Column aarch64_thread(const Thread& th) {
    Column c;
    const std::string end = "LEND" + std::to_string(th.id);
    bool branched = false;
    unsigned label = 0;
    // A fake dependency on `deps`: register 22 = rd ^ rd for the first, ORed with the others' (all
    // zero), in X registers for an address and W registers for a value.
    auto zero_of = [&c](const std::vector<unsigned>& deps, bool address) {
        const char r = address ? 'X' : 'W';
        auto reg = [r](unsigned n) { return std::string(1, r) + std::to_string(n); };
        c.push_back("EOR " + reg(22) + "," + reg(deps[0]) + "," + reg(deps[0]));
        for (size_t i = 1; i < deps.size(); ++i) {
            c.push_back("EOR " + reg(23) + "," + reg(deps[i]) + "," + reg(deps[i]));
            c.push_back("ORR " + reg(22) + "," + reg(22) + "," + reg(23));
        }
    };
    for (const Op& op : th.ops) {
        switch (op.type) {
        case OpType::load: {
            std::string addr = "[" + x(kDataRegs + op.loc) + "]";
            if (!op.deps.empty()) {
                // herd's idiom: a register offset of zero; LDAR takes no offset, so the
                // address is formed first.
                zero_of(op.deps, true);
                if (op.acquire) {
                    c.push_back("ADD X24," + x(kDataRegs + op.loc) + ",X22");
                    addr = "[X24]";
                } else {
                    addr = "[" + x(kDataRegs + op.loc) + ",X22]";
                }
            }
            c.push_back(std::string(op.acquire ? "LDAR " : "LDR ") + w(op.reg) + "," + addr);
            break;
        }
        case OpType::store: {
            std::string value;
            if (op.value.is_reg && op.deps.empty()) {
                value = w(op.value.reg);
            } else {
                // A constant; with `data`/`addr` registers, computed from them (herd's fake
                // data dependency: the value, not the address, for a store: both order it
                // after the loads the same way, ARMv8's dependency-ordered-before).
                c.push_back("MOV W20," + (op.value.is_reg ? w(op.value.reg)
                                                          : "#" + std::to_string(op.value.value)));
                if (!op.deps.empty()) {
                    zero_of(op.deps, false);
                    c.push_back("ADD W20,W20,W22");
                }
                value = "W20";
            }
            c.push_back(std::string(op.release ? "STLR " : "STR ") + value + ",[" +
                        x(kDataRegs + op.loc) + "]");
            break;
        }
        case OpType::fence:
            c.push_back(fence_aarch64(op.fence));
            break;
        case OpType::ctrl: {
            const std::string l = "LC" + std::to_string(th.id) + std::to_string(label++);
            c.push_back("CBNZ " + w(op.reg) + "," + l);
            c.push_back(l + ":");
            break;
        }
        case OpType::rmw:
        case OpType::lock_retry:
            break; // only in kernel C tests, which to_herd() refuses
        case OpType::branch:
            // The rest of the thread runs only when (reg == value) == cond_equal.
            c.push_back("CMP " + w(op.reg) + ",#" + std::to_string(op.cond_value));
            c.push_back(std::string(op.cond_equal ? "B.NE " : "B.EQ ") + end);
            branched = true;
            break;
        }
    }
    if (branched) c.push_back(end + ":");
    return c;
}

Column x86_thread(const Thread& th, const Test& t) {
    Column c;
    const std::string end = "LEND" + std::to_string(th.id);
    bool branched = false;
    auto loc = [&t](unsigned i) { return "[" + t.locations[i] + "]"; };
    for (const Op& op : th.ops) {
        switch (op.type) {
        case OpType::load:
            c.push_back(std::string("MOV ") + kX86Regs[op.reg] + "," + loc(op.loc));
            break;
        case OpType::store:
            c.push_back("MOV " + loc(op.loc) + "," +
                        (op.value.is_reg ? std::string(kX86Regs[op.value.reg])
                                         : "$" + std::to_string(op.value.value)));
            break;
        case OpType::fence:
            if (op.fence == models::Fence::mb) c.push_back("MFENCE");
            break;
        case OpType::ctrl:
            break; // x86 never performs a store before an earlier load: nothing to emit
        case OpType::rmw:
        case OpType::lock_retry:
            break; // only in kernel C tests, which to_herd() refuses
        case OpType::branch:
            c.push_back(std::string("CMP ") + kX86Regs[op.reg] + ",$" +
                        std::to_string(op.cond_value));
            c.push_back(std::string(op.cond_equal ? "JNE " : "JE ") + end);
            branched = true;
            break;
        }
    }
    if (branched) c.push_back(end + ":");
    return c;
}

// The threads side by side: "P0 | P1 ;" then one row per instruction, columns padded.
std::string program(const std::vector<Column>& cols) {
    std::vector<size_t> width(cols.size(), 0);
    size_t rows = 0;
    for (size_t i = 0; i < cols.size(); ++i) {
        width[i] = 1 + std::to_string(i).size(); // "P" and the number
        for (const std::string& s : cols[i])
            width[i] = std::max(width[i], s.size());
        rows = std::max(rows, cols[i].size());
    }
    std::ostringstream out;
    auto row = [&](auto cell) {
        for (size_t i = 0; i < cols.size(); ++i) {
            const std::string s = cell(i);
            out << ' ' << s << std::string(width[i] - s.size(), ' ') << ' '
                << (i + 1 < cols.size() ? "|" : ";");
        }
        out << '\n';
    };
    row([](size_t i) { return "P" + std::to_string(i); });
    for (size_t r = 0; r < rows; ++r)
        row([&](size_t i) { return r < cols[i].size() ? cols[i][r] : std::string(); });
    return out.str();
}

std::string condition(const Condition& c, const Test& t, bool aarch64) {
    std::ostringstream s;
    s << "exists (";
    for (size_t i = 0; i < c.terms.size(); ++i) {
        const Term& term = c.terms[i];
        if (i) s << " /\\ ";
        if (term.is_reg)
            s << term.thread << ':' << (aarch64 ? x(term.index) : kX86Regs[term.index]);
        else
            s << t.locations[term.index];
        s << '=' << term.value;
    }
    s << ")\n";
    return s.str();
}

} // namespace

std::vector<HerdTest> to_herd(const Test& t, std::string& error) {
    error.clear();
    if (t.locations.size() > kLocRegs) {
        error = t.name + ": more than " + std::to_string(kLocRegs) + " locations";
        return {};
    }
    for (const Thread& th : t.threads)
        for (const Op& op : th.ops) {
            // Only a kernel C test (which herd7 runs as it is, with the LKMM) has these.
            const bool exchange = op.type == OpType::rmw || op.type == OpType::lock_retry;
            if (op.indirect || exchange ||
                (op.type == OpType::branch && op.skip != kRestOfThread)) {
                error = t.name + ": " +
                        (op.indirect ? "an access through a pointer register"
                         : exchange  ? "an exchange or a spin lock"
                                     : "a branch over part of the thread") +
                        " (a kernel C test: herd7 runs it as it is)";
                return {};
            }
            std::vector<unsigned> regs = op.deps;
            if (op.type == OpType::load || op.type == OpType::branch || op.type == OpType::ctrl)
                regs.push_back(op.reg);
            if (op.type == OpType::store && op.value.is_reg) regs.push_back(op.value.reg);
            for (unsigned r : regs)
                if (r >= std::size(kX86Regs)) {
                    error = t.name + ": register r" + std::to_string(r) +
                            " (the translation maps r0 to r" +
                            std::to_string(std::size(kX86Regs) - 1) + ")";
                    return {};
                }
        }
    std::vector<Column> arm, x86;
    for (const Thread& th : t.threads) {
        arm.push_back(aarch64_thread(th));
        x86.push_back(x86_thread(th, t));
    }
    // The init sections: each thread's address registers, then the locations' values.
    auto joined = [](const std::vector<std::string>& items) {
        std::string line;
        for (const std::string& i : items)
            line += (line.empty() ? "" : " ") + i + ";";
        return line;
    };
    std::string arm_init;
    for (const Thread& th : t.threads) {
        std::vector<std::string> regs;
        for (size_t i = 0; i < t.locations.size(); ++i)
            regs.push_back(std::to_string(th.id) + ":" + x(kDataRegs + unsigned(i)) + "=" +
                           t.locations[i]);
        arm_init += joined(regs) + "\n";
    }
    std::vector<std::string> values;
    for (size_t i = 0; i < t.locations.size(); ++i)
        values.push_back(t.locations[i] + "=" + std::to_string(i < t.init.size() ? t.init[i] : 0));
    arm_init += joined(values) + "\n";
    const std::string x86_init = joined(values);
    const std::string source = std::filesystem::path(t.file).filename().string();
    std::vector<HerdTest> out;
    for (const Condition& c : t.conditions) {
        const std::string name = c.name.empty() ? t.name : t.name + "-" + c.name;
        auto expected = [&c](MemoryModel m) {
            const auto it = c.expect.find(m);
            return it == c.expect.end() ? std::string("?") : std::string(verdict_name(it->second));
        };
        out.push_back({"AArch64", name,
                       "AArch64 " + name + "\n\"ringsim " + source +
                           ": arm=" + expected(MemoryModel::arm) + "\"\n{\n" + arm_init + "}\n" +
                           program(arm) + condition(c, t, true)});
        out.push_back({"X86", name,
                       "X86 " + name + "\n\"ringsim " + source +
                           ": tso=" + expected(MemoryModel::tso) + "\"\n{ " + x86_init + " }\n" +
                           program(x86) + condition(c, t, false)});
    }
    return out;
}

} // namespace ringsim::platform::litmus
