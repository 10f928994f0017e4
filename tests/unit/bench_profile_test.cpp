// The benchmark's profile tables (tests/bench/bench_process.h): each function's self cost is
// put in its component whether callgrind_annotate names its file relative to the working
// directory (a run from the source tree, as `cmake --build build --target bench` runs it) or
// absolute, and inlined code counts for the function it was inlined into.
#include "tests/bench/bench_process.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

using namespace ringsim::bench;

namespace {
SelfCost cost(std::string file, std::string function, std::string object, double ir = 0) {
    return SelfCost{std::move(file), std::move(function), std::move(object), ir};
}

// Two profiles 10 records apart, the longer with `functions`: each instruction of theirs
// is a tenth of one a record.
std::pair<Callgrind, Callgrind> ten_records_apart(std::vector<SelfCost> functions) {
    Callgrind shorter, longer;
    shorter.ok = longer.ok = true;
    shorter.records = 10;
    longer.records = 20;
    for (const SelfCost& c : functions)
        longer.ir += c.ir;
    longer.functions = std::move(functions);
    return {shorter, longer};
}
} // namespace

TEST(BenchProfile, RingsimFilesAreTheirDirectoryRelativeOrAbsolute) {
    const std::string bin = "/work/build/ringsim";
    EXPECT_EQ(component_of(cost("models/memory/ordering_engine.cpp", "OrderingEngine::store", bin)),
              "models/memory");
    EXPECT_EQ(component_of(cost("/src/ringsim/models/check/ledger.cpp", "Ledger::place", bin)),
              "models/check");
    EXPECT_EQ(component_of(cost("platform/run_loop.cpp", "run_loop", bin)), "platform");
    EXPECT_EQ(component_of(cost("platform/export/perf_data_writer.cpp", "write", bin)),
              "platform/export");
    EXPECT_EQ(component_of(cost("???", "f", "/work/build/ringsim")), "other"); // no debug info
}

TEST(BenchProfile, LibrariesAreTheirOwnComponents) {
    EXPECT_EQ(component_of(cost("???", "sc_core::sc_simcontext::crunch(bool)",
                                "/usr/lib/x86_64-linux-gnu/libsystemc-2.3.4.so")),
              "SystemC kernel (libsystemc)");
    EXPECT_EQ(component_of(cost("./malloc/./malloc/malloc.c", "_int_malloc",
                                "/usr/lib/x86_64-linux-gnu/libc.so.6")),
              "allocator (malloc, free, new, delete)");
    EXPECT_EQ(component_of(cost("./string/../sysdeps/x86_64/multiarch/memcmp-avx2-movbe.S",
                                "__memcmp_avx2_movbe", "/usr/lib/x86_64-linux-gnu/libc.so.6")),
              "libc memcpy, memset, memcmp");
    EXPECT_EQ(component_of(cost("/usr/include/c++/12/bits/stl_tree.h", "std::_Rb_tree::_M_insert",
                                "/work/build/ringsim")),
              "C++ library templates (std::map, vector, ...) compiled into ringsim");
}

// A row without an object is code inlined from another file: it counts for the function's
// home, the file of its own row.
TEST(BenchProfile, InlinedCodeCountsForItsFunctionsHome) {
    const auto [shorter, longer] =
        ten_records_apart({cost("models/check/ledger.cpp", "Ledger::place", "/b/ringsim", 600),
                           cost("models/common/ring_deque.h", "Ledger::place", "", 400)});
    const auto by = per_record_by(shorter, longer, component_of);
    ASSERT_EQ(by.size(), 1u);
    EXPECT_DOUBLE_EQ(by.at("models/check"), 100);
}

// callgrind may name a template header as a function's own file (its object on that row),
// when the function begins with inlined code: the function's own source file is its home
// then, for its component and its name alike.
TEST(BenchProfile, AFunctionWhoseOwnRowIsATemplateHeaderCountsForItsSourceFile) {
    const std::string store = "ringsim::models::OrderingEngine::store(unsigned int, unsigned long)";
    const auto [shorter, longer] =
        ten_records_apart({cost("/usr/include/c++/12/bits/stl_vector.h", store, "/b/ringsim", 400),
                           cost("models/memory/ordering_engine.cpp", store, "", 500),
                           cost("models/memory/phys_mem.h", store, "", 100)});
    const auto by = per_record_by(shorter, longer, component_of);
    ASSERT_EQ(by.size(), 1u);
    EXPECT_DOUBLE_EQ(by.at("models/memory"), 100);
    const auto named = per_record_by(shorter, longer, function_of);
    ASSERT_EQ(named.size(), 1u);
    EXPECT_DOUBLE_EQ(named.at("OrderingEngine::store (ordering_engine.cpp)"), 100);
    // A template's own code stays the templates' (every row of it is a system header).
    const std::string push = "std::vector<int>::push_back";
    const auto [s2, l2] =
        ten_records_apart({cost("/usr/include/c++/12/bits/stl_vector.h", push, "/b/r", 300),
                           cost("/usr/include/c++/12/bits/vector.tcc", push, "", 700)});
    EXPECT_DOUBLE_EQ(per_record_by(s2, l2, component_of)
                         .at("C++ library templates (std::map, vector, ...) compiled into ringsim"),
                     100);
}

// A function's row is its name without namespaces and arguments, and its file: an anonymous
// namespace's parentheses are not taken for the argument list (its row had been empty).
TEST(BenchProfile, FunctionRowsAreNamedWithoutNamespacesOrArguments) {
    EXPECT_EQ(function_of(cost("/w/models/common/sim_wait.cpp",
                               "ringsim::models::(anonymous namespace)::WakeQueue::file(unsigned "
                               "long, ringsim::models::(anonymous namespace)::WakeQueue::Waiter*)",
                               "/b/ringsim")),
              "WakeQueue::file (sim_wait.cpp)");
    EXPECT_EQ(
        function_of(cost("/w/models/memory/ordering_engine.cpp",
                         "ringsim::models::OrderingEngine::store(unsigned int, unsigned long)",
                         "/b/ringsim")),
        "OrderingEngine::store (ordering_engine.cpp)");
    EXPECT_EQ(function_of(cost("???", "sc_core::sc_event::trigger()", "/lib/libsystemc.so")),
              "sc_core::sc_event::trigger");
}
