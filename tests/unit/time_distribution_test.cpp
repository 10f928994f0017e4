// models/common/time_distribution.h: the one form of a distributed time. Each kind draws
// what it says, from the caller's seeded stream; a draw above the cap is cut and flagged.
#include "models/common/time_distribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace ringsim::models;

namespace {

std::vector<Picos> draws(const TimeDistribution& d, int n, uint64_t seed, int* capped = nullptr) {
    Rng rng(seed);
    std::vector<Picos> out;
    for (int i = 0; i < n; ++i) {
        bool c = false;
        out.push_back(d.draw(rng, c));
        if (capped) *capped += c;
    }
    return out;
}

} // namespace

TEST(TimeDistribution, AFixedTimeDrawsItselfAndTouchesNoStream) {
    const TimeDistribution d = Picos(1234);
    Rng rng(1), untouched(1);
    bool capped = true;
    EXPECT_EQ(d.draw(rng, capped), 1234u);
    EXPECT_FALSE(capped);
    EXPECT_EQ(rng.next(), untouched.next()); // other keys' draws do not shift
    EXPECT_EQ(d.mean(), 1234.0);
}

// The exponential kind is the old per_record_cost_distribution's draw, value for value, so
// scenarios that used it (scenarios/sweeps/mm1k-base.json) give the same runs.
TEST(TimeDistribution, ExponentialIsTheRoundedExponentialDrawOfRng) {
    TimeDistribution d;
    d.kind = TimeDistribution::Kind::exponential;
    d.value = 1'000'000;
    Rng rng(42);
    for (Picos t : draws(d, 1000, 42))
        EXPECT_EQ(t, Picos(std::llround(rng.exponential(1e6))));
}

// ln(time) is normal with mean ln(median) and standard deviation sigma: half the draws lie
// below the median, and 84.1% below median x e^sigma.
TEST(TimeDistribution, LognormalHasItsMedianAndSigma) {
    TimeDistribution d;
    d.kind = TimeDistribution::Kind::lognormal;
    d.value = 50'000'000;
    d.sigma = 1.2;
    auto v = draws(d, 200000, 7);
    std::sort(v.begin(), v.end());
    EXPECT_NEAR(double(v[v.size() / 2]), 50e6, 50e6 * 0.02);
    const double one_sigma = 50e6 * std::exp(1.2);
    const double below = double(std::lower_bound(v.begin(), v.end(), Picos(one_sigma)) - v.begin());
    EXPECT_NEAR(below / double(v.size()), 0.8413, 0.005);
    EXPECT_NEAR(d.mean(), 50e6 * std::exp(0.72), 1);
}

// Each listed time is drawn with probability count / total; a bin of count 0 never is.
TEST(TimeDistribution, EmpiricalDrawsEachTimeInProportionToItsCount) {
    TimeDistribution d;
    d.kind = TimeDistribution::Kind::empirical;
    d.times = {10, 20, 30};
    d.cumulative = {900, 900, 1000}; // counts 900, 0, 100
    int tens = 0, thirties = 0, other = 0;
    for (Picos t : draws(d, 100000, 3))
        (t == 10 ? tens : t == 30 ? thirties : other)++;
    EXPECT_EQ(other, 0);
    EXPECT_NEAR(thirties / 100000.0, 0.1, 0.005);
    EXPECT_EQ(tens + thirties, 100000);
    EXPECT_DOUBLE_EQ(d.mean(), (900 * 10 + 100 * 30) / 1000.0);
}

// The lognormal's far tail passes any bound: draws above cap are cut to it and flagged, so
// the consumer can count them (consumer.draws_capped).
TEST(TimeDistribution, DrawsAboveTheCapAreCutAndFlagged) {
    TimeDistribution d;
    d.kind = TimeDistribution::Kind::lognormal;
    d.value = 1'000'000;
    d.sigma = 3;
    d.cap = 20'000'000; // 20 x the median: about 16% of the draws lie above
    int capped = 0;
    const auto v = draws(d, 100000, 11, &capped);
    EXPECT_EQ(*std::max_element(v.begin(), v.end()), d.cap);
    EXPECT_NEAR(capped / 100000.0, 0.5 * std::erfc(std::log(20.0) / 3 / std::sqrt(2.0)), 0.005);
    EXPECT_EQ(capped, std::count(v.begin(), v.end(), d.cap));
}
