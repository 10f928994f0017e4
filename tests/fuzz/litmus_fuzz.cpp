// Fuzz target: the litmus parser (platform/litmus/litmus.h : parse), as `ringsim litmus`
// reads a .litmus file. Bad input is an error "file:line: what", never a crash. A small test
// it accepts is then run once, so that what the parser lets through is what the interpreter
// can run (a test it accepts must not crash run_once).
#include "platform/litmus/litmus.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ringsim::platform::litmus;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const ParseResult r = parse(text, "fuzz.litmus");
    if (!r.test) return 0;
    const Test& t = *r.test;
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
