// Fuzz target: the litmus parsers, as `ringsim litmus` reads a .litmus file: ringsim's own
// format (platform/litmus/litmus.h : parse) or, when the first word is `C`, the kernel's C
// format (kernel_litmus.h : parse_kernel, with the built-in exceptions). Bad input is an
// error "file:line: what" (or, for the kernel's format, what it lacks), never a crash. A
// small test either accepts is then run once, so that what the parsers let through is what
// the interpreter can run (a test they accept must not crash run_once).
#include "platform/litmus/kernel_litmus.h"
#include "platform/litmus/litmus.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ringsim::platform::litmus;
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::optional<Test> test;
    if (is_kernel_litmus(text)) {
        static const ExceptionsResult ex =
            parse_exceptions(builtin_lkmm_exceptions(), "lkmm-exceptions.txt");
        test = parse_kernel(text, "fuzz.litmus", ex.list, 1).test;
    } else {
        test = parse(text, "fuzz.litmus").test;
    }
    if (!test) return 0;
    const Test& t = *test;
    size_t ops = 0;
    for (const Thread& th : t.threads)
        ops += th.ops.size();
    if (ops > 64 || t.threads.size() > 8) return 0; // keeps every input fast
    const MemoryModel model = all_models()[size % all_models().size()];
    try {
        const Outcome o = run_once(t, model, size);
        for (const Condition& c : t.conditions)
            (void)holds(c, o);
    } catch (const std::exception&) {
        // What run_tests does with it: the error is reported for the test (litmus.cpp).
    }
    return 0;
}
