// The kernel's C litmus format (platform/litmus/kernel_litmus.h): each primitive becomes the
// engine operation the kernel compiles it to; pointers, address and data dependencies and
// `if` over part of a thread behave as in C; what ringsim cannot express is named, never run
// approximately; the Result line is every model's verdict except where the exceptions file
// says otherwise, with its reason; and `ringsim litmus` reads such files beside its own.
// The kernel's own tests, from Debian's linux-source-6.1, run in lkmm_suite_test.cpp.
#include "platform/litmus/kernel_litmus.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

using namespace ringsim::platform::litmus;
using ringsim::testing_support::run_command_output;

// Message passing in the layout of the kernel's MP+fencewmbonceonce+fencermbonceonce (a
// comment block, `{}`, commented process headers), written for this test.
const char* kMpWmbRmb = R"(C MP+fencewmbonceonce+fencermbonceonce

(*
 * Result: Never
 *
 * Written for ringsim in the kernel's layout: a producer and a
 * consumer, ordered by smp_wmb() and smp_rmb().
 *)

{}

P0(int *buf, int *flag) // Producer
{
	WRITE_ONCE(*buf, 1);
	smp_wmb();
	WRITE_ONCE(*flag, 1);
}

P1(int *buf, int *flag) // Consumer
{
	int r0;
	int r1;

	r0 = READ_ONCE(*flag);
	smp_rmb();
	r1 = READ_ONCE(*buf);
}

exists (1:r0=1 /\ 1:r1=0) (* Bad outcome. *)
)";

// The shape of the kernel's MP+onceassign+derefonce: a pointer published with
// rcu_assign_pointer and followed with rcu_dereference (an address dependency).
const char* kRcu = R"(C MP+onceassign+derefonce
(* Result: Never *)
{
p=y;
}

P0(int *x, int **p)
{
	WRITE_ONCE(*x, 1);
	rcu_assign_pointer(*p, x);
}

P1(int *x, int **p)
{
	int *r0;
	int r1;

	rcu_read_lock();
	r0 = rcu_dereference(*p);
	r1 = READ_ONCE(*r0);
	rcu_read_unlock();
}

exists (1:r0=x /\ 1:r1=0)
)";

KernelParse read(const std::string& text, const std::vector<LkmmException>& ex = {}) {
    return parse_kernel(text, "t.litmus", ex, 200);
}

// A kernel test around `body`, one process with parameters x, y, z, and an exists clause.
std::string one_process(const std::string& body, const std::string& exists = "x=0",
                        const std::string& result = "Sometimes") {
    return "C T\n(* Result: " + result + " *)\n{}\nP0(int *x, int *y, int *z)\n{\n\tint r0;\n" +
           body + "\n}\nexists (" + exists + ")\n";
}

TEST(KernelLitmus, EachPrimitiveBecomesTheOperationTheKernelCompilesItTo) {
    const KernelParse k = read(kMpWmbRmb);
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    const ringsim::platform::litmus::Test& t = *k.test;
    EXPECT_EQ(t.name, "MP+fencewmbonceonce+fencermbonceonce");
    EXPECT_EQ(t.locations, (std::vector<std::string>{"buf", "flag"}));
    ASSERT_EQ(t.threads.size(), 2u);
    const auto& p0 = t.threads[0].ops;
    ASSERT_EQ(p0.size(), 3u);
    EXPECT_EQ(p0[0].type, OpType::store);
    EXPECT_EQ(p0[0].loc, 0u);
    EXPECT_FALSE(p0[0].release);
    EXPECT_EQ(p0[1].type, OpType::fence);
    EXPECT_EQ(p0[1].fence, ringsim::models::Fence::wmb);
    EXPECT_EQ(p0[2].loc, 1u);
    const auto& p1 = t.threads[1].ops;
    ASSERT_EQ(p1.size(), 3u);
    EXPECT_EQ(p1[0].type, OpType::load);
    EXPECT_EQ(p1[0].reg, 0u);
    EXPECT_FALSE(p1[0].acquire);
    EXPECT_EQ(p1[1].fence, ringsim::models::Fence::rmb);
    EXPECT_EQ(p1[2].reg, 1u);
    EXPECT_EQ(p1[2].loc, 0u);
    // The line numbers are the file's, comments included.
    EXPECT_EQ(p0[0].line, 14);
    ASSERT_EQ(t.conditions.size(), 1u);
    EXPECT_EQ(t.conditions[0].terms.size(), 2u);
    for (MemoryModel m : all_models())
        EXPECT_EQ(t.conditions[0].expect.at(m), Verdict::forbidden);
    EXPECT_EQ(t.runs, 200u);

    const KernelParse acq = read(one_process("r0 = smp_load_acquire(y);\nsmp_store_release(x, 2);"
                                             "\nsmp_mb();"));
    ASSERT_TRUE(acq.test) << acq.error << acq.lacks;
    const auto& ops = acq.test->threads[0].ops;
    ASSERT_EQ(ops.size(), 3u);
    EXPECT_TRUE(ops[0].acquire);
    EXPECT_EQ(ops[0].loc, 1u);
    EXPECT_TRUE(ops[1].release);
    EXPECT_EQ(ops[1].value.value, 2u);
    EXPECT_EQ(ops[2].fence, ringsim::models::Fence::mb);
}

TEST(KernelLitmus, LocksAndExchangesBecomeReadModifyWrites) {
    const KernelParse k = read(one_process(
        "spin_lock(x);\nr0 = spin_is_locked(x);\nsmp_mb__after_spinlock();\nspin_unlock(x);\n"
        "r0 = xchg(y, 2);\nr0 = xchg_acquire(y, 3);\nr0 = xchg_release(y, r0);\n"
        "r0 = xchg_relaxed(z, 5);"));
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    const auto& ops = k.test->threads[0].ops;
    ASSERT_EQ(ops.size(), 11u);
    // spin_lock: an acquire exchange of 1 into a register of the reader's own, retried while
    // it reads the lock taken.
    EXPECT_EQ(ops[0].type, OpType::rmw);
    EXPECT_TRUE(ops[0].acquire);
    EXPECT_FALSE(ops[0].release);
    EXPECT_EQ(ops[0].value.value, 1u);
    EXPECT_EQ(ops[0].loc, 0u);
    EXPECT_GE(ops[0].reg, kHiddenReg);
    EXPECT_EQ(ops[1].type, OpType::lock_retry);
    EXPECT_EQ(ops[1].reg, ops[0].reg);
    // spin_is_locked: a plain load of the lock word; smp_mb__after_spinlock: smp_mb().
    EXPECT_EQ(ops[2].type, OpType::load);
    EXPECT_FALSE(ops[2].acquire);
    EXPECT_EQ(ops[3].type, OpType::fence);
    EXPECT_EQ(ops[3].fence, ringsim::models::Fence::mb);
    // spin_unlock: a release store of 0.
    EXPECT_EQ(ops[4].type, OpType::store);
    EXPECT_TRUE(ops[4].release);
    EXPECT_EQ(ops[4].value.value, 0u);
    // xchg: fully ordered, smp_mb() on both sides; the suffixed forms order one part only.
    EXPECT_EQ(ops[5].fence, ringsim::models::Fence::mb);
    EXPECT_EQ(ops[5].type, OpType::fence);
    EXPECT_EQ(ops[6].type, OpType::rmw);
    EXPECT_EQ(ops[6].reg, 0u);
    EXPECT_EQ(ops[6].loc, 1u);
    EXPECT_FALSE(ops[6].acquire || ops[6].release);
    EXPECT_EQ(ops[7].type, OpType::fence);
    EXPECT_TRUE(ops[8].acquire && !ops[8].release);
    EXPECT_TRUE(ops[9].release && !ops[9].acquire);
    EXPECT_TRUE(ops[9].value.is_reg); // a data dependency on r0
    EXPECT_EQ(ops[9].deps, (std::vector<unsigned>{0}));
    EXPECT_FALSE(ops[10].acquire || ops[10].release);
    EXPECT_EQ(ops[10].loc, 2u);
}

// Runs `text` (a kernel test) with `ex` as exceptions; every check must pass.
void expect_verdicts(const std::string& text, const std::vector<LkmmException>& ex = {},
                     uint64_t runs = 2000) {
    const KernelParse k = parse_kernel(text, "t.litmus", ex, runs);
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    for (const ConditionResult& r : run_test(*k.test))
        EXPECT_TRUE(r.pass) << r.label() << " under " << model_name(r.model) << ": expected "
                            << verdict_name(r.expected) << ", seen " << r.observed << "/" << r.runs
                            << (r.error.empty() ? "" : ": " + r.error);
}

std::vector<LkmmException> forbidden_on(std::initializer_list<MemoryModel> models) {
    std::vector<LkmmException> out;
    for (MemoryModel m : models)
        out.push_back({"T", m, Verdict::forbidden, "written for this test", "here"});
    return out;
}

TEST(KernelLitmus, ExchangesAreAtomicAndLocksExcludeEachOther) {
    // Two exchanges never both read the initial value, nor each the other's.
    const char* both = R"(C T
(* Result: Never *)
{}
P0(int *x) { int r0; r0 = xchg_relaxed(x, 1); }
P1(int *x) { int r1; r1 = xchg_relaxed(x, 2); }
exists (0:r0=0 /\ 1:r1=0)
)";
    expect_verdicts(both);
    std::string cycle = both;
    cycle.replace(cycle.find("0:r0=0"), 6, "0:r0=2");
    cycle.replace(cycle.find("1:r1=0"), 6, "1:r1=1");
    expect_verdicts(cycle);
    // Two critical sections that each read x and then write their own value never both
    // read the initial 0: one ran entirely before the other.
    expect_verdicts(R"(C T
(* Result: Never *)
{}
P0(int *x, spinlock_t *l) { int r0; spin_lock(l); r0 = READ_ONCE(*x); WRITE_ONCE(*x, 1); spin_unlock(l); }
P1(int *x, spinlock_t *l) { int r1; spin_lock(l); r1 = READ_ONCE(*x); WRITE_ONCE(*x, 2); spin_unlock(l); }
exists (0:r0=0 /\ 1:r1=0)
)");
}

TEST(KernelLitmus, AnExchangesOrderingIsItsSuffixs) {
    // Message passing with the flag written by an exchange: relaxed, arm may show the flag
    // before the data (the exchange's store part is not ordered after x=1); x86's exchange is
    // a locked instruction, and sc interleaves. Release (and the fully ordered xchg) forbid it.
    const std::string mp = R"(C T
(* Result: RESULT *)
{}
P0(int *x, int *y) { int r9; WRITE_ONCE(*x, 1); r9 = XCHG(y, 1); }
P1(int *x, int *y) { int r0; int r1; r0 = READ_ONCE(*y); smp_rmb(); r1 = READ_ONCE(*x); }
exists (1:r0=1 /\ 1:r1=0)
)";
    // `shape` with its exchange and Result line filled in.
    auto with = [](std::string shape, const std::string& xchg, const std::string& result) {
        shape.replace(shape.find("RESULT"), 6, result);
        shape.replace(shape.find("XCHG"), 4, xchg);
        return shape;
    };
    expect_verdicts(with(mp, "xchg_relaxed", "Sometimes"),
                    forbidden_on({MemoryModel::sc, MemoryModel::tso}));
    expect_verdicts(with(mp, "xchg_acquire", "Sometimes"),
                    forbidden_on({MemoryModel::sc, MemoryModel::tso}));
    expect_verdicts(with(mp, "xchg_release", "Never"));
    expect_verdicts(with(mp, "xchg", "Never"));

    // Store buffering with the exchange first: only the fully ordered xchg (its trailing
    // smp_mb) holds the load of y after the exchange's store part on arm; x86's exchange is
    // a locked instruction whatever its suffix.
    const std::string sb = R"(C T
(* Result: RESULT *)
{}
P0(int *x, int *y) { int r0; int r1; r0 = XCHG(x, 1); r1 = READ_ONCE(*y); }
P1(int *x, int *y) { int r2; WRITE_ONCE(*y, 1); smp_mb(); r2 = READ_ONCE(*x); }
exists (0:r1=0 /\ 1:r2=0)
)";
    for (const char* weak : {"xchg_relaxed", "xchg_acquire", "xchg_release"})
        expect_verdicts(with(sb, weak, "Sometimes"),
                        forbidden_on({MemoryModel::sc, MemoryModel::tso}));
    expect_verdicts(with(sb, "xchg", "Never"));
}

TEST(KernelLitmus, PointersAreAddressDependenciesAndRcuDereferenceIsForbiddenToReorder) {
    const KernelParse k = read(kRcu);
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    const ringsim::platform::litmus::Test& t = *k.test;
    EXPECT_EQ(t.locations, (std::vector<std::string>{"p", "y", "x"}));
    EXPECT_EQ(t.init[0], pointer_to(1)); // p=y
    const auto& p0 = t.threads[0].ops;
    EXPECT_TRUE(p0[1].release); // rcu_assign_pointer
    EXPECT_EQ(p0[1].value.value, pointer_to(2));
    const auto& p1 = t.threads[1].ops;
    ASSERT_EQ(p1.size(), 2u); // rcu_read_lock/unlock order nothing
    EXPECT_TRUE(p1[1].indirect);
    EXPECT_EQ(p1[1].addr_reg, 0u);
    EXPECT_EQ(p1[1].deps, (std::vector<unsigned>{0}));
    EXPECT_EQ(t.conditions[0].terms[0].value, pointer_to(2)); // 1:r0=x

    // Run: the pointer is followed (r1 reads x or y), and the bad outcome never shows.
    uint64_t saw_x = 0;
    for (MemoryModel m : all_models())
        for (uint64_t run = 0; run < 200; ++run) {
            const Outcome o = run_once(t, m, run);
            EXPECT_FALSE(holds(t.conditions[0], o)) << model_name(m) << " run " << run;
            saw_x += o.regs[1][0] == pointer_to(2) ? 1 : 0;
        }
    EXPECT_GT(saw_x, 0u);
}

TEST(KernelLitmus, AnIfSkipsOnlyItsOwnStatements) {
    // r0 is 0: the store under the if is skipped, the one after it still runs.
    const KernelParse k = read(one_process("r0 = READ_ONCE(*x);\nif (r0)\n\tWRITE_ONCE(*y, 1);"
                                           "\nWRITE_ONCE(*z, 1);"));
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    const auto& ops = k.test->threads[0].ops;
    ASSERT_EQ(ops.size(), 4u);
    EXPECT_EQ(ops[1].type, OpType::branch);
    EXPECT_EQ(ops[1].skip, 1u);
    const Outcome o = run_once(*k.test, MemoryModel::arm, 0);
    EXPECT_EQ(o.mem, (std::vector<uint64_t>{0, 0, 1}));

    // A block and the negated and compared forms.
    const KernelParse b = read(one_process(
        "r0 = READ_ONCE(*x);\nif (!r0) {\n\tWRITE_ONCE(*y, 1);\n\tWRITE_ONCE(*y, 2);\n}\n"
        "if (r0 == 3) WRITE_ONCE(*z, 5);"));
    ASSERT_TRUE(b.test) << b.error << b.lacks;
    const auto& bo = b.test->threads[0].ops;
    ASSERT_EQ(bo.size(), 6u);
    EXPECT_TRUE(bo[1].cond_equal);
    EXPECT_EQ(bo[1].skip, 2u);
    EXPECT_TRUE(bo[4].cond_equal);
    EXPECT_EQ(bo[4].cond_value, 3u);
    const Outcome ob = run_once(*b.test, MemoryModel::sc, 0);
    EXPECT_EQ(ob.mem, (std::vector<uint64_t>{0, 2, 0}));
}

TEST(KernelLitmus, WhatTheEngineCannotExpressIsNamedNotApproximated) {
    const std::pair<std::string, std::string> cases[] = {
        {one_process("spin_trylock(x);"), "spin_trylock (ringsim maps spin_lock, spin_unlock"},
        {one_process("atomic_inc(x);"), "atomic_inc (an atomic operation ringsim does not map"},
        {one_process("r0 = cmpxchg_acquire(x, 0, 1);"),
         "cmpxchg_acquire (a conditional read-modify-write"},
        {one_process("synchronize_rcu();"), "synchronize_rcu (an RCU grace period"},
        {one_process("r0 = READ_ONCE(*x);\nif (r0) WRITE_ONCE(*y, 1); else WRITE_ONCE(*y, 2);"),
         "else"},
        {one_process("WRITE_ONCE(*x, 1);", "x=1 \\/ y=1"), "a disjunction"},
        {one_process("WRITE_ONCE(*x, 1);", "x=1", "Always"), "Result: Always"},
        {"C T\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n", "a `Result:` line"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n"
         "filter (x=1)\nexists (x=1)\n",
         "`filter`"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x, int *z)\n{\n\tint r0;\n\tint r1;\n"
         "\tr0 = READ_ONCE(*x);\n\tr1 = READ_ONCE(*x);\n\tif (r0 == r1) WRITE_ONCE(*z, 1);\n}\n"
         "exists (z=0)\n",
         "a condition comparing two registers"},
    };
    for (const auto& [text, lacks] : cases) {
        const KernelParse k = read(text);
        EXPECT_FALSE(k.test) << text;
        EXPECT_EQ(k.error, "") << text;
        EXPECT_EQ(k.lacks.rfind(lacks, 0), 0u) << "lacks: " << k.lacks << "\n" << text;
    }
}

TEST(KernelLitmus, MalformedInputNamesFileAndLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1;\n}\nexists (x=1)\n",
         "t.litmus:6: expected ')', got ';'"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*q, 1);\n}\nexists (x=1)\n",
         "t.litmus:6: 'q' is neither a parameter nor a declared register"},
        {"C T\n(* Result: Never *)\n{}\nP1(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\nexists (x=1)\n",
         "t.litmus:4: expected P0(...), got 'P1'"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1);\n}\n",
         "t.litmus:7: no exists clause"},
        {"C\n", "t.litmus:1: a kernel litmus test starts with `C NAME`"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tWRITE_ONCE(*x, 1) $\n}\nexists (x=1)\n",
         "t.litmus:6: unexpected character '$'"},
        // A typo is an error, not a primitive ringsim lacks.
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tint r0;\n\tif (r1) WRITE_ONCE(*x, 1);\n}\n"
         "exists (x=1)\n",
         "t.litmus:7: r1 is not declared in this process"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tint r0;\n\tWRITE_ONCE(*x, r2);\n}\n"
         "exists (x=1)\n",
         "t.litmus:7: r2 is not declared in this process"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\n"
         "exists (0:r7=0)\n",
         "t.litmus:9: exists names 0:r7, which P0 does not declare"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *x)\n{\n\tint r0;\n\tr0 = READ_ONCE(*x);\n}\n"
         "exists (4294967296:r0=1)\n",
         "t.litmus:9: exists names thread 4294967296, which does not exist"},
        {"C T\n(* Result: Never *)\n{}\nP0(int *r0)\n{\n\tint r0;\n\tWRITE_ONCE(*r0, 1);\n}\n"
         "exists (r0=1)\n",
         "t.litmus:6: r0 is declared as a parameter and as a register"},
    };
    for (const auto& [text, error] : cases) {
        const KernelParse k = read(text);
        EXPECT_FALSE(k.test) << text;
        EXPECT_EQ(k.error, error) << text;
    }
}

// herd's comments need no space after `(*`; a call's `(*x` is code, spaced or not.
TEST(KernelLitmus, CommentsAreTheOnesHerdReads) {
    const KernelParse k = read("C T\n(*Result: Never*)\n{}\nP0(int *x)\n{\n\tint r0;\n"
                               "\tr0 = READ_ONCE(* x); (*after*)\n\tWRITE_ONCE(*x, 1);\n}\n"
                               "exists (0:r0=1) (* bad *)\n");
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    EXPECT_EQ(k.test->threads[0].ops.size(), 2u);
    EXPECT_EQ(k.test->conditions[0].expect.at(MemoryModel::arm), Verdict::forbidden);
}

TEST(KernelLitmus, TheResultLineIsTheVerdictExceptWhereTheArchitectureDiffers) {
    const ExceptionsResult ex = parse_exceptions(
        "# comment\n\nT tso Forbidden x86 keeps stores in order\nT sc Forbidden interleavings\n",
        "ex.txt");
    ASSERT_EQ(ex.error, "");
    ASSERT_EQ(ex.list.size(), 2u);
    const KernelParse k = read(one_process("WRITE_ONCE(*x, 1);"), ex.list);
    ASSERT_TRUE(k.test) << k.error << k.lacks;
    const Condition& c = k.test->conditions[0];
    EXPECT_EQ(c.expect.at(MemoryModel::arm), Verdict::allowed);
    EXPECT_EQ(c.expect.at(MemoryModel::tso), Verdict::forbidden);
    EXPECT_EQ(c.exception.at(MemoryModel::tso), "x86 keeps stores in order");
    EXPECT_EQ(c.exception.count(MemoryModel::arm), 0u);

    // An "exception" that agrees with the Result line is an error in the file.
    const ExceptionsResult same = parse_exceptions("T arm Allowed it is\n", "ex.txt");
    const KernelParse s = read(one_process("WRITE_ONCE(*x, 1);"), same.list);
    EXPECT_FALSE(s.test);
    EXPECT_EQ(s.error,
              "ex.txt:1: T under arm is Allowed, as its Result line says: not an exception");

    const std::pair<std::string, std::string> bad[] = {
        {"T x86 Forbidden why\n", "ex.txt:1: expected a model (sc, tso, arm), got 'x86'"},
        {"T tso Never why\n", "ex.txt:1: expected Allowed or Forbidden, got 'Never'"},
        {"T tso Forbidden\n", "ex.txt:1: an exception needs its reason after the verdict"},
        {"T tso Forbidden a\nT tso Forbidden b\n", "ex.txt:2: a second exception for T under tso"},
    };
    for (const auto& [text, error] : bad)
        EXPECT_EQ(parse_exceptions(text, "ex.txt").error, error);

    // The built-in file parses, and every entry has a reason.
    const ExceptionsResult builtin = parse_exceptions(builtin_lkmm_exceptions(), "builtin");
    EXPECT_EQ(builtin.error, "");
    EXPECT_GE(builtin.list.size(), 10u);
}

TEST(KernelLitmus, RingsimLitmusReadsKernelFilesBesideItsOwn) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(::testing::TempDir()) / "kernel-litmus-cli";
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::ofstream(dir / "MP+fencewmbonceonce+fencermbonceonce.litmus") << kMpWmbRmb;
    std::ofstream(dir / "trylock.litmus") << one_process("spin_trylock(x);");
    const std::string bin = RINGSIM_BINARY;
    const auto r = run_command_output(bin + " litmus " + dir.string());
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("MP+fencewmbonceonce+fencermbonceonce  arm   Forbidden  0/2000"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("kernel tests: 1 of 2 expressed and run; not expressed, with what each "
                         "lacks:\n  trylock.litmus: spin_trylock (ringsim maps spin_lock"),
              std::string::npos)
        << r.out;

    // --emit herd leaves kernel tests as they are (herd7 runs them with the LKMM).
    const auto e = run_command_output(bin + " litmus " + dir.string() + " --emit herd " +
                                      (dir / "herd").string());
    EXPECT_NE(e.out.find("2 kernel C tests left out"), std::string::npos) << e.out << e.err;

    // A bad exceptions file is bad input.
    std::ofstream(dir / "ex.txt") << "T arm Sometimes x\n";
    const auto b = run_command_output(bin + " litmus " + dir.string() + " --exceptions " +
                                      (dir / "ex.txt").string());
    EXPECT_EQ(b.exit_code, 2);
    EXPECT_NE(b.err.find("ex.txt:1: expected Allowed or Forbidden, got 'Sometimes'"),
              std::string::npos)
        << b.err;
    const auto m = run_command_output(bin + " litmus " + dir.string() + " --exceptions " +
                                      (dir / "missing.txt").string());
    EXPECT_EQ(m.exit_code, 2);
    EXPECT_NE(m.err.find("missing.txt: cannot read the file"), std::string::npos) << m.err;
}

} // namespace
