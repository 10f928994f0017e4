#include "models/memory/anon_bytes.h"

#include "models/common/types.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace ringsim::models {

AnonBytes::AnonBytes(uint64_t size) : m_size(size) {
    if (size == 0) return;
    // MAP_NORESERVE: the host commits a page when the model first writes it, not now.
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        throw ModelError("cannot map " + std::to_string(size) +
                         " bytes of simulated memory: " + std::strerror(errno));
    m_data = static_cast<uint8_t*>(p);
}

AnonBytes::~AnonBytes() {
    if (m_data) ::munmap(m_data, m_size);
}

AnonBytes& AnonBytes::operator=(AnonBytes&& o) noexcept {
    if (this != &o) {
        if (m_data) ::munmap(m_data, m_size);
        m_data = std::exchange(o.m_data, nullptr);
        m_size = std::exchange(o.m_size, 0);
    }
    return *this;
}

} // namespace ringsim::models
