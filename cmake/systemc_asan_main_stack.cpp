// Linked into every program in an AddressSanitizer build (cmake/Sanitizers.cmake).
//
// Debian's SystemC 2.3.4 tells ASan about each coroutine switch through the fiber API
// (__sanitizer_start/finish_switch_fiber), but not about the last one: when a thread
// process ends, QuickThreads leaves its stack without a call, so after sc_start()
// returns ASan still believes the main thread runs on that coroutine's stack. At exit
// LeakSanitizer scans the stack ASan believes in; by then SystemC has unmapped it or
// mapped other stacks there, whose PROT_NONE red zones crash LSan's tracer ("Tracer
// caught signal 11"), depending on where the kernel placed the mappings.
//
// The fix: before LSan's own exit handler runs (handlers run in reverse order of
// registration, and ASan registers its own before any constructor of ours), announce
// one more switch, to the stack the main thread really is on.
#include <pthread.h>

#include <cstddef>
#include <cstdlib>

extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, std::size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old,
                                     std::size_t* size_old);
}

namespace {

void announce_main_stack() {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    void* bottom = nullptr;
    std::size_t size = 0;
    const bool ok = pthread_attr_getstack(&attr, &bottom, &size) == 0;
    pthread_attr_destroy(&attr);
    if (!ok) return;
    __sanitizer_start_switch_fiber(nullptr, bottom, size);
    __sanitizer_finish_switch_fiber(nullptr, nullptr, nullptr);
}

// Registered at static initialisation, after ASan's leak check was registered.
const int registered = std::atexit(announce_main_stack);

} // namespace
