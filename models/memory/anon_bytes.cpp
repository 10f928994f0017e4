#include "models/memory/anon_bytes.h"

#include "models/common/types.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

namespace ringsim::models {

AnonBytes::AnonBytes(uint64_t size) : m_size(size) {
    if (size == 0) return;
    if (size <= kHeapMax) {
        m_data = static_cast<uint8_t*>(std::calloc(size, 1));
        if (!m_data)
            throw ModelError("cannot allocate " + std::to_string(size) +
                             " bytes of simulated memory");
        return;
    }
    // MAP_NORESERVE: the host commits a page when the model first writes it, not now.
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw ModelError("cannot map " + std::to_string(size) +
                         " bytes of simulated memory: " + std::strerror(errno));
    m_data = static_cast<uint8_t*>(p);
}

void AnonBytes::release() {
    if (!m_data) return;
    if (m_size <= kHeapMax)
        std::free(m_data);
    else
        ::munmap(m_data, m_size);
}

AnonBytes::~AnonBytes() {
    release();
}

AnonBytes& AnonBytes::operator=(AnonBytes&& o) noexcept {
    if (this != &o) {
        release();
        m_data = std::exchange(o.m_data, nullptr);
        m_size = std::exchange(o.m_size, 0);
    }
    return *this;
}

} // namespace ringsim::models
