// sim_wait (models/common/sim_wait.h): a wait of simulated time is skipped, the process
// running on ahead of SystemC's clock, only when nothing else is due up to its end; the
// kernel's answer to "when is the next activity" is remembered for the running process and
// must never outlive what it describes. An answer kept across waits and instants fails these
// tests; the forgetting and the key (process, instant) are each enough alone, as an answer
// is remembered only while its process is ahead or about to sleep, so removing one of the
// two does not. The scenario-level check, every scenario with and without skipped waits, is
// tests/regression/lead_is_exact.cmake.
#include "models/common/sim_clock.h"
#include "models/common/sim_wait.h"
#include "platform/systemc_kernel.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <gtest/gtest.h>
#include <memory>
#include <queue>
#include <string>
#include <systemc>
#include <tuple>
#include <vector>

using namespace ringsim;
using models::Picos;

namespace {

struct Seen {
    std::string who;
    Picos at;   // sim_now(): the process's own time
    Picos lead; // how far ahead of SystemC's clock it was
};

// Thread a waits `a_waits` one after the other; thread b waits `b_wait` once, or, given
// `b_on_event`, first for `kick` and then `b_wait`. Each writes down when it woke. At time 0
// a runs first: its first wait is a real one, as b is still to run.
SC_MODULE(Pair) {
    std::vector<Picos> a_waits;
    Picos b_wait = 0;
    bool b_on_event = false;
    sc_core::sc_event kick;
    Picos a_notifies_after = 0; // a notifies `kick` after its second wait, this much later
    std::vector<Seen> seen;

    SC_CTOR(Pair) {
        SC_THREAD(a);
        SC_THREAD(b);
    }
    void a() {
        for (size_t i = 0; i < a_waits.size(); ++i) {
            models::sim_wait(a_waits[i]);
            seen.push_back({"a", models::sim_now(), models::sim_lead()});
            if (i == 1 && a_notifies_after) models::sim_notify(kick, a_notifies_after);
        }
        models::sim_sync();
    }
    void b() {
        if (b_on_event) {
            models::sim_wait(kick);
            seen.push_back({"b", models::sim_now(), models::sim_lead()});
        }
        models::sim_wait(b_wait);
        seen.push_back({"b", models::sim_now(), models::sim_lead()});
        models::sim_sync();
    }
};

std::vector<Seen> run(Pair& p, Picos until) {
    models::sim_set_horizon(until);
    sc_core::sc_start(sc_core::sc_time::from_value(until));
    models::sim_reset_lead();
    return p.seen;
}

} // namespace

TEST(SimWait, SkipsOnlyTheWaitsThatNothingElseComesBefore) {
    platform::fresh_systemc(); // each test its own kernel, run alone or in one process
    Pair p("pair");
    p.a_waits = {10, 5, 5, 10, 10};
    p.b_wait = 25;
    const std::vector<Seen> seen = run(p, 1000);
    // a's first wait is real (b still to run at 0). Woken at 10, its next two end before
    // b's wake at 25: skipped, both by one answer of the kernel, asked at 10. Its fourth
    // would pass 25: a real wait (by that same answer), after which b runs first. Its last
    // has nothing after it but the horizon.
    ASSERT_EQ(seen.size(), 6u);
    const char* want[] = {"a10+0", "a15+5", "a20+10", "b25+0", "a30+0", "a40+10"};
    for (size_t i = 0; i < seen.size(); ++i)
        EXPECT_EQ(seen[i].who + std::to_string(seen[i].at) + "+" + std::to_string(seen[i].lead),
                  want[i])
            << i;
}

TEST(SimWait, AWaitAtTheInstantOfAnotherActivityIsRealAndTakesItsTurn) {
    platform::fresh_systemc(); // each test its own kernel, run alone or in one process
    Pair p("pair");
    p.a_waits = {25, 5};
    p.b_wait = 25;
    const std::vector<Seen> seen = run(p, 1000);
    // Both due at 25: a real wait for a, and the one that went to sleep first (a, at 0,
    // before b's thread ran) wakes first.
    ASSERT_EQ(seen.size(), 3u);
    EXPECT_EQ(seen[0].who + std::to_string(seen[0].at), "a25");
    EXPECT_EQ(seen[0].lead, 0u);
    EXPECT_EQ(seen[1].who + std::to_string(seen[1].at), "b25");
    EXPECT_EQ(seen[2].who + std::to_string(seen[2].at), "a30");
}

TEST(SimWait, ANotificationEndsTheSkippingOfItsNotifier) {
    platform::fresh_systemc();
    Pair p("pair");
    // Woken at 10, a skips to 20 (b waits for the event: nothing else is due), then notifies
    // it for 23, which first brings SystemC's clock to 20. Its next wait, to 40, must not be
    // skipped past b's wake at 23, nor past b's own wait to 28 (skipped: a's is later).
    p.a_waits = {10, 10, 20};
    p.b_on_event = true;
    p.b_wait = 5;
    p.a_notifies_after = 3;
    const std::vector<Seen> seen = run(p, 1000);
    ASSERT_EQ(seen.size(), 5u);
    const char* want[] = {"a10+0", "a20+10", "b23+0", "b28+5", "a40+0"};
    for (size_t i = 0; i < seen.size(); ++i)
        EXPECT_EQ(seen[i].who + std::to_string(seen[i].at) + "+" + std::to_string(seen[i].lead),
                  want[i])
            << i;
}

// Parking (sim_wait.cpp, WakeQueue) changes nothing: the test below runs once with the
// default threshold and once with every sleeper parked from the first instant on.
class SimWaitParking : public ::testing::TestWithParam<size_t> {
protected:
    void SetUp() override { models::sim_set_park_from(GetParam()); }
    void TearDown() override { models::sim_set_park_from(models::kParkFrom); }
};
INSTANTIATE_TEST_SUITE_P(ParkFrom, SimWaitParking, ::testing::Values(models::kParkFrom, 1),
                         [](const ::testing::TestParamInfo<size_t>& p) {
                             return p.param == 1 ? std::string("Always")
                                                 : std::string("FromKParkFrom");
                         });

TEST_P(SimWaitParking, ManySleepersWakeInOrderOfInstantThenOfGoingToSleep) {
    platform::fresh_systemc();
    // 40 threads, 200 waits each, half of them of 1 to 7 ps (threads meet at one instant)
    // and half of up to 5 ns (instants spread wide, whose slots in the wake queue's table
    // collide): the table grows, and its probe runs fill and empty over and over.
    constexpr unsigned kThreads = 40, kWaits = 200;
    auto wait_of = [](unsigned thread, unsigned k) {
        const uint64_t h = uint64_t(thread) * 7919 + uint64_t(k) * 104729;
        return Picos(h % 2 ? 1 + h / 2 % 7 : 1 + h / 2 % 4999);
    };
    std::vector<std::pair<Picos, unsigned>> seen; // (time, thread), in the order they ran
    for (unsigned t = 0; t < kThreads; ++t)
        sc_core::sc_spawn(
            [&seen, &wait_of, t] {
                for (unsigned k = 0; k < kWaits; ++k) {
                    models::sim_wait(wait_of(t, k));
                    seen.emplace_back(models::sim_now(), t);
                }
                models::sim_sync();
            },
            ("sleeper" + std::to_string(t)).c_str());
    models::sim_set_horizon(1'000'000);
    sc_core::sc_start(sc_core::sc_time::from_value(1'000'000));
    models::sim_reset_lead();

    // What the rule says: each thread wakes at its instant, and threads due at one instant
    // wake in the order they went to sleep; all start at 0, in the order spawned.
    using Sleep = std::tuple<Picos, uint64_t, unsigned>; // (due, order of going to sleep, thread)
    std::priority_queue<Sleep, std::vector<Sleep>, std::greater<Sleep>> due;
    std::vector<unsigned> done(kThreads, 0);
    uint64_t order = 0;
    for (unsigned t = 0; t < kThreads; ++t)
        due.emplace(wait_of(t, 0), order++, t);
    std::vector<std::pair<Picos, unsigned>> want;
    while (!due.empty()) {
        const auto [at, o, t] = due.top();
        due.pop();
        want.emplace_back(at, t);
        if (++done[t] < kWaits) due.emplace(at + wait_of(t, done[t]), order++, t);
    }
    ASSERT_EQ(seen.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(seen[i], want[i]) << "wake " << i;
}

namespace {

// One run of `kThreads` threads that sleep (short waits that meet at one instant, long ones
// that spread), wait for their event with a timeout (woken early by a notification, or at
// the timeout), and notify another thread's event after a delay: every way a ticket comes
// and goes. Each thread writes down (time, delta cycle, thread, step) whenever it wakes: a
// parked sleeper must wake in the same delta cycle as from a timed wait, not only at the
// same time.
using Wake = std::tuple<Picos, uint64_t, unsigned, unsigned>;
std::vector<Wake> mixed_run(size_t park_from) {
    platform::fresh_systemc();
    models::sim_set_park_from(park_from);
    constexpr unsigned kThreads = 12, kSteps = 300;
    // Destroyed before the next fresh_systemc(): an event made before sc_start() is named,
    // and its destructor unregisters the name through its kernel.
    std::vector<std::unique_ptr<sc_core::sc_event>> events;
    for (unsigned t = 0; t < kThreads; ++t)
        events.push_back(std::make_unique<sc_core::sc_event>());
    std::vector<Wake> seen;
    for (unsigned t = 0; t < kThreads; ++t)
        sc_core::sc_spawn(
            [&seen, &events, t] {
                for (unsigned k = 0; k < kSteps; ++k) {
                    const uint64_t h = (uint64_t(t) * 7919 + uint64_t(k) * 104729) * 2654435761u;
                    const Picos d = h % 3 == 0 ? 1 + h / 3 % 5 : 1 + h / 3 % 3000;
                    // Timeouts and notifications mostly short, so that they meet sleepers
                    // at their instants: a timeout woken early may be the first ticket of
                    // the earliest instant, with parked sleepers behind it.
                    const Picos soon = 1 + h / 17 % 6;
                    switch (h / 7 % 4) {
                    case 0:
                        models::sim_wait(h % 5 ? soon : d, *events[t]); // woken early, or not
                        break;
                    case 1:
                        models::sim_notify(*events[(t + 1 + h / 11 % (kThreads - 1)) % kThreads],
                                           h % 5 ? soon : 1 + h / 13 % 2000);
                        models::sim_wait(d);
                        break;
                    default:
                        models::sim_wait(d);
                    }
                    seen.emplace_back(models::sim_now(), sc_core::sc_delta_count(), t, k);
                }
                models::sim_sync();
            },
            ("mixed" + std::to_string(t)).c_str());
    models::sim_prepare(); // the queue's method in the kernel's table: deleted with it
    models::sim_set_horizon(10'000'000);
    sc_core::sc_start(sc_core::sc_time::from_value(10'000'000));
    models::sim_reset_lead();
    models::sim_set_park_from(models::kParkFrom);
    return seen;
}

} // namespace

TEST(SimWait, ParkingChangesNothingInAMixOfSleepsTimeoutsAndNotifications) {
    // Never parking is the plain way (every sleeper in SystemC's timed queue); parking from
    // the first instant and from the default threshold must wake the same threads at the
    // same times in the same order.
    const auto never = mixed_run(~size_t(0));
    ASSERT_EQ(never.size(), 12u * 300u);
    for (size_t park_from : {size_t(1), models::kParkFrom}) {
        const auto parked = mixed_run(park_from);
        ASSERT_EQ(parked.size(), never.size()) << "park from " << park_from;
        for (size_t i = 0; i < never.size(); ++i)
            ASSERT_EQ(parked[i], never[i]) << "park from " << park_from << ", wake " << i;
    }
}

TEST(SimWait, ATimeoutWokenEarlyLeavesItsInstantToTheSleeperParkedBehindIt) {
    // x waits for its event or 10 ps, p sleeps 10 ps: both due at 10, x first. Parking from
    // the first instant, x sleeps with a timed wait (it has an event to wake for), and p
    // parks behind it. n notifies x's event for 5: x wakes early and gives up its ticket,
    // and 10 is then the earliest instant with only p's parked ticket at it. It must have a
    // wake on its way, or p sleeps for ever.
    platform::fresh_systemc();
    models::sim_set_park_from(1);
    sc_core::sc_event ex;
    std::vector<std::string> seen;
    auto note = [&seen](const char* who) {
        seen.push_back(who + std::to_string(models::sim_now()));
    };
    sc_core::sc_spawn(
        [&] {
            models::sim_wait(10, ex);
            note("x");
            models::sim_sync();
        },
        "x");
    sc_core::sc_spawn(
        [&] {
            models::sim_wait(10);
            note("p");
            models::sim_sync();
        },
        "p");
    sc_core::sc_spawn([&] { models::sim_notify(ex, 5); }, "n");
    models::sim_prepare();
    models::sim_set_horizon(1000);
    sc_core::sc_start(sc_core::sc_time::from_value(1000));
    models::sim_reset_lead();
    models::sim_set_park_from(models::kParkFrom);
    EXPECT_EQ(seen, (std::vector<std::string>{"x5", "p10"}));
}
