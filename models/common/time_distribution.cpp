#include "models/common/time_distribution.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models {

double TimeDistribution::mean() const {
    switch (kind) {
    case Kind::fixed:
    case Kind::exponential:
        return double(value);
    case Kind::lognormal:
        return double(value) * std::exp(sigma * sigma / 2);
    case Kind::empirical: {
        double sum = 0;
        uint64_t before = 0;
        for (size_t i = 0; i < times.size(); ++i) {
            sum += double(times[i]) * double(cumulative[i] - before);
            before = cumulative[i];
        }
        return before ? sum / double(before) : 0;
    }
    }
    return 0;
}

namespace {

// A standard normal draw (Box-Muller, one of the pair), written out so that results do not
// depend on the library's std::normal_distribution.
double standard_normal(Rng& rng) {
    const double u1 = 1.0 - rng.uniform(); // (0, 1]: log stays finite
    const double u2 = rng.uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace

Picos TimeDistribution::draw(Rng& rng, bool& capped) const {
    double t = 0;
    switch (kind) {
    case Kind::fixed:
        capped = false;
        return value;
    case Kind::exponential:
        t = rng.exponential(double(value));
        break;
    case Kind::lognormal:
        t = double(value) * std::exp(sigma * standard_normal(rng));
        break;
    case Kind::empirical: {
        if (times.empty()) return capped = false, 0;
        const uint64_t pick = rng.below(cumulative.back());
        const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), pick);
        t = double(times[size_t(it - cumulative.begin())]);
        break;
    }
    }
    capped = cap != 0 && t > double(cap);
    return capped ? cap : Picos(std::llround(t));
}

} // namespace ringsim::models
