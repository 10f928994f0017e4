// Bisection by index, for the sequences models/common keeps sorted (RingDeque, FlatRing):
// they index in constant time but have no iterators for std::lower_bound.
#pragma once

#include <cstddef>

namespace ringsim::models {

// The first index i in [0, seq.size()) whose element is not less than `key` under
// less(seq[i], key), or seq.size().
template <class Seq, class K, class Less>
size_t lower_bound_index(const Seq& seq, const K& key, Less less) {
    size_t lo = 0, hi = seq.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (less(seq[mid], key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

} // namespace ringsim::models
