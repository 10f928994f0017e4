// The kernel's own litmus tests (tools/memory-model/litmus-tests/ in the Linux source), read
// from their C format into ringsim's Test, so that `ringsim litmus` runs them on the ordering
// engine like its own suite.
//
// Each primitive becomes the engine operation the kernel compiles it to (arch/arm64 and
// arch/x86 asm/barrier.h, include/asm-generic/rwonce.h): READ_ONCE and WRITE_ONCE a plain
// load and store (LDR/STR, MOV), smp_load_acquire an acquire load (LDAR; a MOV under TSO),
// smp_store_release a release store (STLR; MOV), smp_mb, smp_rmb, smp_wmb the engine's mb,
// rmb and wmb fences (DMB ISH, ISHLD, ISHST; MFENCE and nothing on x86), rcu_dereference a
// READ_ONCE whose result is used as an address (an address dependency), rcu_assign_pointer a
// release store, an `if` a real branch (a control dependency), and a register stored or used
// as an address a data or address dependency. xchg and its _acquire, _release, _relaxed
// forms are the engine's read-modify-write (the unsuffixed one between two smp_mb()),
// spin_lock an acquire exchange of 1 repeated while it reads the lock taken, spin_unlock a
// release store of 0, spin_is_locked a load of the lock word, smp_mb__after_spinlock an
// smp_mb. rcu_read_lock and rcu_read_unlock order nothing without a grace period to wait for,
// so they are accepted only in a test that has no synchronize_rcu. What the engine has no
// operation for (cmpxchg, the atomic_* operations, trylocks, grace periods, `filter`, a
// disjunction in `exists`) makes the test unexpressed: reported with the primitive, never
// run approximately.
//
// The expected verdict of every model is the test's `Result:` line (Never: Forbidden,
// Sometimes: Allowed), which is LKMM's, except where a model's architecture gives another
// verdict: those exceptions are listed, each with its reason, in a file
// (platform/litmus/lkmm-exceptions.txt, built into the binary; `--exceptions FILE` for another).
#pragma once

#include "platform/litmus/litmus.h"

#include <optional>
#include <string>
#include <vector>

namespace ringsim::platform::litmus {

// One line of the exceptions file: `TEST MODEL VERDICT REASON...`.
struct LkmmException {
    std::string test;
    MemoryModel model = MemoryModel::sc;
    Verdict verdict = Verdict::forbidden;
    std::string reason;
    std::string where; // file:line, for errors
};

struct ExceptionsResult {
    std::vector<LkmmException> list;
    std::string error; // file:line: what is wrong
};
ExceptionsResult parse_exceptions(const std::string& text, const std::string& file);
// The text of platform/litmus/lkmm-exceptions.txt, as built into the binary.
const std::string& builtin_lkmm_exceptions();

// True when `text` is a kernel C litmus test (its first word is `C`).
bool is_kernel_litmus(const std::string& text);

struct KernelParse {
    std::optional<Test> test; // expressed, with every model's expected verdict
    std::string lacks;        // not expressed: the primitive ringsim has no operation for
    std::string error;        // malformed (file:line: what is wrong), or a bad exception
};

// Reads one kernel C litmus test; `runs` is how many runs an Allowed outcome may take.
KernelParse parse_kernel(const std::string& text, const std::string& file,
                         const std::vector<LkmmException>& exceptions, uint64_t runs);

} // namespace ringsim::platform::litmus
