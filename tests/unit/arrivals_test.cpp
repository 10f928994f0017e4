// Arrival processes: exact periodic times, Poisson and bursty means, determinism.
#include "models/kernel/arrivals.h"

#include <gtest/gtest.h>

using namespace ringsim::models;

TEST(Arrivals, PeriodicIsExactAfterASeededPhase) {
    ArrivalParams p;
    p.rate_hz = 50000; // 20 us
    ArrivalProcess a(p, 1);
    const Picos first = a.next();
    EXPECT_LT(first, 20'000'000u);
    EXPECT_EQ(a.next(), first + 20'000'000u);
    EXPECT_EQ(a.next(), first + 40'000'000u);
}

TEST(Arrivals, PoissonMeanRate) {
    ArrivalParams p;
    p.kind = ArrivalKind::poisson;
    p.rate_hz = 100000; // mean 10 us
    ArrivalProcess a(p, 7);
    Picos last = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i)
        last = a.next();
    const double mean_us = double(last) / n / 1e6;
    EXPECT_NEAR(mean_us, 10.0, 0.3);
}

TEST(Arrivals, BurstsAreBackToBack) {
    ArrivalParams p;
    p.kind = ArrivalKind::bursty;
    p.rate_hz = 1000;
    p.burst_size = 4;
    p.burst_spacing = 100'000; // 100 ns
    ArrivalProcess a(p, 3);
    const Picos t0 = a.next();
    EXPECT_EQ(a.next(), t0 + 100'000);
    EXPECT_EQ(a.next(), t0 + 200'000);
    EXPECT_EQ(a.next(), t0 + 300'000);
    EXPECT_GT(a.next(), t0 + 300'000); // the next burst
}

TEST(Arrivals, SameSeedSameTimes) {
    ArrivalParams p;
    p.kind = ArrivalKind::poisson;
    p.rate_hz = 1000;
    ArrivalProcess a(p, 99), b(p, 99), c(p, 100);
    bool differs = false;
    for (int i = 0; i < 100; ++i) {
        const Picos ta = a.next();
        EXPECT_EQ(ta, b.next());
        differs |= ta != c.next();
    }
    EXPECT_TRUE(differs);
}
