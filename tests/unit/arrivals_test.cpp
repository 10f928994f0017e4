// Arrival processes: exact periodic times, Poisson and bursty means, determinism.
#include "models/kernel/arrivals.h"

#include <gtest/gtest.h>

#include <cmath>

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

TEST(Arrivals, TimeSaturatesAtTheEndInsteadOfWrapping) {
    // A rate so low that a few periods pass 2^64 ps: the times climb to kNever and stay
    // there (a writer then waits out its duration) instead of wrapping to an early instant,
    // which made a run at the longest duration and a tiny rate never end.
    for (ArrivalKind kind : {ArrivalKind::periodic, ArrivalKind::poisson, ArrivalKind::bursty}) {
        ArrivalParams p;
        p.kind = kind;
        p.rate_hz = 1e-7; // a period of 1e19 ps, over half of 2^64
        p.start = kNever - 1000;
        p.burst_size = kind == ArrivalKind::bursty ? 3 : 1;
        p.burst_spacing = kind == ArrivalKind::bursty ? 5000 : 0;
        ArrivalProcess a(p, 3);
        Picos last = 0;
        for (int i = 0; i < 8; ++i) {
            const Picos t = a.next();
            EXPECT_GE(t, last) << int(kind) << " event " << i;
            last = t;
        }
        EXPECT_EQ(last, kNever) << int(kind);
    }
}

TEST(Arrivals, PicosFromDoublesAtTheLimits) {
    EXPECT_EQ(picos_from(-1.0), 0u);
    EXPECT_EQ(picos_from(std::nan("")), 0u);
    EXPECT_EQ(picos_from(2.5), 3u); // half away from zero, as llround
    EXPECT_EQ(picos_from(1e19), 10'000'000'000'000'000'000u);
    EXPECT_EQ(picos_from(2e19), kNever);
    EXPECT_EQ(add_picos(kNever - 5, 5), kNever);
    EXPECT_EQ(add_picos(kNever - 5, 6), kNever);
    EXPECT_EQ(add_picos(1, 2), 3u);
    EXPECT_EQ(transfer_time(uint64_t(1) << 62, 1.0), kNever); // 2^62 B at 1 B/s
    EXPECT_EQ(transfer_time(64, 64e9), 1000u);
}
