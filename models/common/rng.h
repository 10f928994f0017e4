// Deterministic randomness: one master seed, one stream per component derived from the
// component's name, and distributions written out here so results do not depend on the
// standard library's unspecified std::*_distribution algorithms.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace ringsim::models {

// splitmix64 finaliser: a good 64-bit mixer for deriving seeds.
constexpr uint64_t mix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// The seed of component `name` under master seed `master` (FNV-1a of the name, mixed).
constexpr uint64_t derive_seed(uint64_t master, std::string_view name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : name)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    return mix64(master ^ mix64(h));
}

// xoshiro256** by Blackman and Vigna.
class Rng {
public:
    explicit Rng(uint64_t seed) {
        for (auto& s : m_s)
            s = seed = mix64(seed);
    }
    uint64_t next() {
        const uint64_t result = rotl(m_s[1] * 5, 7) * 9;
        const uint64_t t = m_s[1] << 17;
        m_s[2] ^= m_s[0];
        m_s[3] ^= m_s[1];
        m_s[1] ^= m_s[2];
        m_s[0] ^= m_s[3];
        m_s[2] ^= t;
        m_s[3] = rotl(m_s[3], 45);
        return result;
    }
    // Uniform in [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    // Uniform integer in [0, n).
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
    // Exponentially distributed with the given mean.
    double exponential(double mean) { return -std::log1p(-uniform()) * mean; }

private:
    static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    uint64_t m_s[4];
};

} // namespace ringsim::models
