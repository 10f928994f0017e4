// Linked into every program in an AddressSanitizer build (cmake/Sanitizers.cmake).
//
// SystemC maps each thread process's coroutine stack with mmap and unmaps it when its
// kernel is deleted. A thread suspended in wait() never returns from its frames, so the
// red zones ASan poisoned around their locals stay in the shadow memory, and this
// libasan does not clear the shadow of an unmapped range. The next kernel of a worker
// process (platform/systemc_kernel.cpp, one per run) maps its stacks at the same
// addresses, and the first frame laid out differently over a stale red zone is reported
// as a stack-buffer-underflow that is not there.
//
// The fix: this munmap, which interposes the C library's for libsystemc too, clears the
// range's shadow before it unmaps it, as a stack's own frames would have on return.
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

extern "C" {
void __asan_unpoison_memory_region(const volatile void* addr, std::size_t size);

int munmap(void* addr, std::size_t length) {
    __asan_unpoison_memory_region(addr, length);
    const long r = syscall(SYS_munmap, addr, length);
    if (r != 0) return -1; // syscall() has set errno
    return 0;
}
}
