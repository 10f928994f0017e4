// Byte vectors whose new elements are left as they are instead of zeroed: for buffers that
// are sized and then overwritten in full (a load's bytes read from memory, a copy's
// destination). std::vector<uint8_t>::resize zero-fills what it adds, and for a 25 KiB
// copy landing in a slot that last held an 8-byte load that memset is as dear as the copy
// itself (issue 13 §1).
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace ringsim::models {

// std::allocator, but default-initialising: `resize(n)` adds n bytes it does not touch.
template <class T> struct DefaultInitAllocator : std::allocator<T> {
    template <class U> struct rebind { using other = DefaultInitAllocator<U>; };
    DefaultInitAllocator() = default;
    template <class U> DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... Args> void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};

using UninitBytes = std::vector<uint8_t, DefaultInitAllocator<uint8_t>>;

} // namespace ringsim::models
