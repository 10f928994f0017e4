// ringsim's litmus tests as herd7 tests, for AArch64 and X86 (`ringsim litmus --emit herd
// DIR FILE|DIR...`), so that any verdict can be checked with herd7 itself, which computes
// every execution the architecture's model allows:
//     herd7 -model aarch64.cat DIR/AArch64/MP+wmb+rmb.litmus
//
// Each statement becomes what the kernel compiles it to (tools/memory-model and the arm64
// and x86 barrier headers): on AArch64 READ_ONCE/WRITE_ONCE are LDR/STR, smp_load_acquire
// LDAR, smp_store_release STLR, smp_mb DMB ISH, smp_rmb DMB ISHLD, smp_wmb DMB ISHST; an
// `addr` or `data` dependency is herd's fake one (EOR of the register with itself, added to
// the address or the value), `ctrl` a CBNZ to the next instruction, `if` a CMP and a branch
// over the rest of the thread. On x86 every access is a MOV (acquire and release are plain
// accesses under TSO), smp_mb is MFENCE, and smp_rmb, smp_wmb and the dependencies compile
// to nothing. A file with several `exists` clauses gives one herd test per clause, named
// NAME-CLAUSE. The expected verdict under the architecture's ringsim model (arm, tso) is in
// each file's doc string.
#pragma once

#include "platform/litmus/litmus.h"

#include <string>
#include <vector>

namespace ringsim::platform::litmus {

struct HerdTest {
    std::string arch; // "AArch64" or "X86": the directory it goes in
    std::string name; // the test's name, and its file's (NAME.litmus)
    std::string text;
};

// Every herd test of `t`; an empty list with `error` set when `t` uses what the translation
// cannot express (a register or location beyond the ones it maps).
std::vector<HerdTest> to_herd(const Test& t, std::string& error);

} // namespace ringsim::platform::litmus
