// `ringsim litmus --emit herd DIR` (platform/litmus/herd_emit.h): every test of the suite and
// every exists clause becomes one AArch64 and one X86 herd7 test, named as herd names them,
// with the verdict ringsim expects in its doc string; MP+wmb+rmb comes out exactly as
// written by hand below (herd's MP+dmb.st+dmb.ld shape); each statement kind becomes the
// instructions Linux compiles it to; bad flags are exit 2.
#include "platform/litmus/herd_emit.h"
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

using namespace ringsim::platform::litmus;
using ringsim::testing_support::run_command;
using ringsim::testing_support::run_command_output;

const std::string kSuite = std::string(RINGSIM_SOURCE_DIR) + "/tests/litmus";

// The herd tests of one suite file, by "ARCH NAME".
std::map<std::string, std::string> emitted(const std::string& test) {
    const ParseResult r = parse_file(kSuite + "/" + test + ".litmus");
    EXPECT_TRUE(r.test) << r.error;
    std::map<std::string, std::string> out;
    if (!r.test) return out;
    std::string error;
    for (const HerdTest& h : to_herd(*r.test, error))
        out[h.arch + " " + h.name] = h.text;
    EXPECT_EQ(error, "");
    return out;
}

TEST(HerdEmit, MessagePassingWithWmbAndRmbAsWrittenByHand) {
    const auto h = emitted("MP+wmb+rmb");
    ASSERT_EQ(h.size(), 2u);
    EXPECT_EQ(h.at("AArch64 MP+wmb+rmb"), "AArch64 MP+wmb+rmb\n"
                                          "\"ringsim MP+wmb+rmb.litmus: arm=Forbidden\"\n"
                                          "{\n"
                                          "0:X10=x; 0:X11=y;\n"
                                          "1:X10=x; 1:X11=y;\n"
                                          "x=0; y=0;\n"
                                          "}\n"
                                          " P0            | P1           ;\n"
                                          " MOV W20,#1    | LDR W0,[X11] ;\n"
                                          " STR W20,[X10] | DMB ISHLD    ;\n"
                                          " DMB ISHST     | LDR W1,[X10] ;\n"
                                          " MOV W20,#1    |              ;\n"
                                          " STR W20,[X11] |              ;\n"
                                          "exists (1:X0=1 /\\ 1:X1=0)\n");
    // x86: smp_wmb and smp_rmb compile to nothing.
    EXPECT_EQ(h.at("X86 MP+wmb+rmb"), "X86 MP+wmb+rmb\n"
                                      "\"ringsim MP+wmb+rmb.litmus: tso=Forbidden\"\n"
                                      "{ x=0; y=0; }\n"
                                      " P0         | P1          ;\n"
                                      " MOV [x],$1 | MOV EAX,[y] ;\n"
                                      " MOV [y],$1 | MOV EBX,[x] ;\n"
                                      "exists (1:EAX=1 /\\ 1:EBX=0)\n");
}

TEST(HerdEmit, EachStatementBecomesWhatLinuxCompilesItTo) {
    auto has = [](const std::string& text, const std::string& what) {
        return text.find(what) != std::string::npos;
    };
    const auto rel = emitted("MP+release+acquire");
    EXPECT_TRUE(has(rel.at("AArch64 MP+release+acquire"), "STLR W20,[X11]"));
    EXPECT_TRUE(has(rel.at("AArch64 MP+release+acquire"), "LDAR W0,[X11]"));
    EXPECT_FALSE(has(rel.at("X86 MP+release+acquire"), "FENCE"));
    const auto sb = emitted("SB+mb+mb");
    EXPECT_TRUE(has(sb.at("AArch64 SB+mb+mb"), "DMB ISH "));
    EXPECT_TRUE(has(sb.at("X86 SB+mb+mb"), "MFENCE"));
    EXPECT_TRUE(has(emitted("LB+data+data").at("AArch64 LB+data+data"), "EOR W22,W0,W0"));
    EXPECT_TRUE(has(emitted("MP+wmb+addr").at("AArch64 MP+wmb+addr"), "LDR W1,[X10,X22]"));
    const auto ctrl = emitted("LB+ctrl+mb").at("AArch64 LB+ctrl+mb");
    EXPECT_TRUE(has(ctrl, "CBNZ W0,LC00"));
    EXPECT_TRUE(has(ctrl, "LC00:"));
    // Two exists clauses: two tests per architecture; a real branch skips the rest.
    const auto rb = emitted("RB+ABCD");
    ASSERT_EQ(rb.size(), 4u);
    EXPECT_TRUE(has(rb.at("AArch64 RB+ABCD-stale"), "B.NE LEND0"));
    EXPECT_TRUE(has(rb.at("X86 RB+ABCD-overwrite"), "JNE LEND0"));
    EXPECT_TRUE(has(rb.at("X86 RB+ABCD-overwrite"), "exists (0:EAX=1 /\\ 1:EBX=1 /\\ 1:ECX=2)"));
}

TEST(HerdEmit, TheWholeSuiteThroughTheCommand) {
    const std::string dir = ::testing::TempDir() + "/herd-" + std::to_string(::getpid());
    const auto r = run_command_output(std::string(RINGSIM_BINARY) + " litmus " + kSuite +
                                      " --emit herd " + dir);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    size_t clauses = 0;
    for (const auto& e : std::filesystem::directory_iterator(kSuite)) {
        if (e.path().extension() != ".litmus") continue;
        const ParseResult p = parse_file(e.path().string());
        ASSERT_TRUE(p.test) << p.error;
        for (const Condition& c : p.test->conditions) {
            ++clauses;
            const std::string name = c.name.empty() ? p.test->name : p.test->name + "-" + c.name;
            for (const char* arch : {"AArch64", "X86"}) {
                std::ifstream in(dir + "/" + arch + "/" + name + ".litmus");
                ASSERT_TRUE(in) << arch << " " << name;
                std::stringstream text;
                text << in.rdbuf();
                const std::string t = text.str();
                EXPECT_EQ(t.rfind(std::string(arch) + " " + name + "\n", 0), 0u) << name;
                const auto model = std::string(arch) == "X86" ? MemoryModel::tso : MemoryModel::arm;
                EXPECT_NE(t.find(std::string(model_name(model)) + "=" +
                                 verdict_name(c.expect.at(model)) + "\""),
                          std::string::npos)
                    << name;
                EXPECT_EQ(t.find("exists ("), t.rfind("exists (")) << name; // one clause
            }
        }
    }
    EXPECT_NE(r.out.find("wrote " + std::to_string(2 * clauses) + " herd7 tests"),
              std::string::npos)
        << r.out;
    std::filesystem::remove_all(dir);
}

TEST(HerdEmit, BadFlagsAreBadInput) {
    const std::string bin = RINGSIM_BINARY;
    EXPECT_EQ(run_command(bin + " litmus " + kSuite + " --emit").exit_code, 2);
    EXPECT_EQ(run_command(bin + " litmus " + kSuite + " --emit c /tmp/x").exit_code, 2);
}

} // namespace
