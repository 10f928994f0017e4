// Little-endian word loads and stores: the trace formats are little-endian (the ETMv4 packets' byte
// order, the TMC formatter's frames), and the fast decoders read them 8 bytes at a time.
#pragma once

#include <cstdint>
#include <cstring>

namespace ringsim::models {

inline uint64_t load_le64(const uint8_t* p) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

inline void store_le64(uint8_t* p, uint64_t w) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    std::memcpy(p, &w, sizeof w);
}

} // namespace ringsim::models
