// TraceRate (the exact count clock C(t) = floor(bytes the rate profile yields by t / 8)) and
// EtmSource (start / produce_until / stop produce exactly the counts due; untraced windows
// between sessions with their cause; a second start is a no-op; the bytes are EtmEncoder's).
// Times in ps, rates in bytes/s; expected values worked out by hand in the comments.
#include "models/coresight/etm_source.h"

#include "models/common/types.h"
#include "models/coresight/etm_packets.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ringsim::models;
using namespace ringsim::models::coresight;

namespace {

constexpr Picos kUs = 1'000'000;

// 100 MB/s from 0, nothing from 1 us, 50 MB/s from 3 us.
// Bytes by t: 100e6 B/s = 1e-4 B/ps, so 100 bytes at 1 us; still 100 at 3 us; then 5e-5 B/ps.
TraceRate three_phases() {
    return TraceRate(100e6, {{1 * kUs, 0.0}, {3 * kUs, 50e6}});
}

uint64_t u64(TraceUnits u) {
    return static_cast<uint64_t>(u);
}

} // namespace

TEST(TraceRate, UnitsAreExactBytesTimesPicos) {
    const TraceRate r = three_phases();
    EXPECT_EQ(u64(r.units_until(0)), 0u);
    EXPECT_EQ(u64(r.units_until(1)), 100'000'000u);               // 100e6 * 1 ps
    EXPECT_EQ(u64(r.units_until(1 * kUs)), 100'000'000'000'000u); // 1e14 = 100 bytes
    EXPECT_EQ(u64(r.units_until(3 * kUs)), 100'000'000'000'000u); // the 0 phase adds nothing
    // + 50e6 * 1e6 = 5e13: 150 bytes at 4 us.
    EXPECT_EQ(u64(r.units_until(4 * kUs)), 150'000'000'000'000u);
}

TEST(TraceRate, CountAtPhaseEdgesIsExact) {
    const TraceRate r = three_phases();
    EXPECT_EQ(r.count_at(0), 0u);
    // Count 1 needs 8 bytes: 8 / 1e-4 = 80'000 ps.
    EXPECT_EQ(r.count_at(79'999), 0u);
    EXPECT_EQ(r.count_at(80'000), 1u);
    // Count 12 needs 96 bytes: 960'000 ps.
    EXPECT_EQ(r.count_at(959'999), 11u);
    EXPECT_EQ(r.count_at(960'000), 12u);
    // 100 bytes at the 1 us edge: floor(100 / 8) = 12, and it stays there through the 0 phase.
    EXPECT_EQ(r.count_at(1 * kUs - 1), 12u);
    EXPECT_EQ(r.count_at(1 * kUs), 12u);
    EXPECT_EQ(r.count_at(2 * kUs), 12u);
    EXPECT_EQ(r.count_at(3 * kUs), 12u);
    // 13 needs 104 bytes: 4 more at 5e-5 B/ps = 80'000 ps after 3 us.
    EXPECT_EQ(r.count_at(3 * kUs + 79'999), 12u);
    EXPECT_EQ(r.count_at(3 * kUs + 80'000), 13u);
    // 150 bytes at 4 us -> 18; 19 needs 152 bytes: 52 bytes / 5e-5 = 1'040'000 ps after 3 us.
    EXPECT_EQ(r.count_at(4 * kUs), 18u);
    EXPECT_EQ(r.count_at(4'039'999), 18u);
    EXPECT_EQ(r.count_at(4'040'000), 19u);
    // 200 bytes at 5 us -> 25.
    EXPECT_EQ(r.count_at(5 * kUs), 25u);
}

TEST(TraceRate, RateAtAndNextChange) {
    const TraceRate r = three_phases();
    EXPECT_EQ(r.rate_at(0), 100'000'000u);
    EXPECT_EQ(r.rate_at(1 * kUs - 1), 100'000'000u);
    EXPECT_EQ(r.rate_at(1 * kUs), 0u);
    EXPECT_EQ(r.rate_at(3 * kUs - 1), 0u);
    EXPECT_EQ(r.rate_at(3 * kUs), 50'000'000u);
    EXPECT_EQ(r.rate_at(1000 * kUs), 50'000'000u);
    EXPECT_EQ(r.next_change(0), 1 * kUs);
    EXPECT_EQ(r.next_change(1 * kUs - 1), 1 * kUs);
    EXPECT_EQ(r.next_change(1 * kUs), 3 * kUs); // strictly after t
    EXPECT_EQ(r.next_change(3 * kUs), 0u);      // none left
}

TEST(TraceRate, PhaseAtZeroReplacesBaseRateAndRatesRoundToWholeBytes) {
    const TraceRate r(1e6, {{0, 2e6}});
    EXPECT_EQ(r.rate_at(0), 2'000'000u);
    EXPECT_EQ(r.next_change(0), 0u); // the phase at 0 is not a change
    // 2e6 B/s: 8 bytes in 4 us.
    EXPECT_EQ(r.count_at(4 * kUs - 1), 0u);
    EXPECT_EQ(r.count_at(4 * kUs), 1u);
    // 7.6 B/s rounds to 8 (llround); a negative or NaN rate is 0.
    EXPECT_EQ(TraceRate(7.6, {}).rate_at(0), 8u);
    EXPECT_EQ(TraceRate(-5.0, {}).rate_at(0), 0u);
    EXPECT_EQ(TraceRate(1e9, {{10, std::nan("")}}).rate_at(10), 0u);
    EXPECT_EQ(TraceRate(-5.0, {}).count_at(1000 * kUs), 0u);
}

TEST(TraceRate, HundredSecondsAtOneGigabyteIsExact) {
    // 1e9 B/s * 1e14 ps = 1e23 units, past 64 bits; 1e11 bytes / 8 = 12'500'000'000 counts.
    const TraceRate r(1e9, {});
    const Picos t = 100 * kPicosPerSecond;
    EXPECT_EQ(r.count_at(t), 12'500'000'000u);
    // One ps earlier is 1e-3 byte short of the 1e11 boundary: one count less.
    EXPECT_EQ(r.count_at(t - 1), 12'499'999'999u);
}

TEST(EtmSource, ProducesExactlyTheCountsDue) {
    const TraceRate r = three_phases();
    EtmSource s("etm0", 0x10, r, 4); // a periodic sync block every 4 count packets
    EXPECT_EQ(s.name(), "etm0");
    EXPECT_EQ(s.trace_id(), 0x10);
    EXPECT_FALSE(s.running());
    EXPECT_EQ(s.produce_until(1 * kUs), 0u); // not started: nothing
    s.start(0, UntracedCause::stop_window);
    EXPECT_TRUE(s.running());
    EXPECT_EQ(s.stream().size(), kStartSize); // 25
    // 80'000 ps: count 1 due (count 0's packet).
    EXPECT_EQ(s.produce_until(80'000), 25u + 8u);
    EXPECT_EQ(s.produce_until(80'000), 33u); // nothing new
    // 960'000 ps: 12 packets, periodic syncs (24 bytes) before packets 5 and 9: 25 + 96 + 48.
    EXPECT_EQ(s.produce_until(959'999), 25u + 11 * 8u + 2 * 24u);
    EXPECT_EQ(s.produce_until(960'000), 169u);
    EXPECT_EQ(s.stream().next_count(), 12u);
    // The 0 phase: nothing more by 2 us; stop produces what is due (nothing).
    s.stop(2 * kUs);
    EXPECT_FALSE(s.running());
    EXPECT_EQ(s.stream().size(), 169u);
    EXPECT_EQ(s.produce_until(5 * kUs), 169u); // stopped: nothing
    s.stop(5 * kUs);                           // stopping twice is harmless
    EXPECT_EQ(s.stream().counts_produced(), 12u);
    EXPECT_TRUE(s.untraced().empty());
}

TEST(EtmSource, StopProducesWhatIsDue) {
    const TraceRate r = three_phases();
    EtmSource s("etm1", 0x11, r, 0);
    s.start(0, UntracedCause::stop_window);
    s.stop(1 * kUs); // 12 counts due at 1 us, never asked for before
    EXPECT_EQ(s.stream().counts_produced(), 12u);
    EXPECT_EQ(s.stream().size(), 25u + 96u);
}

TEST(EtmSource, UntracedWindowBetweenSessionsWithItsCause) {
    const TraceRate r = three_phases();
    EtmSource s("etm0", 0x10, r, 4);
    // The first start at count 2 (160'000 ps) records no window: nothing was off before it.
    s.start(160'000, UntracedCause::aux_disabled);
    EXPECT_TRUE(s.untraced().empty());
    EXPECT_EQ(s.stream().next_count(), 2u);
    s.stop(960'000); // counts 2..11: 10 packets, syncs before packets 5 and 9
    EXPECT_EQ(s.stream().size(), 25u + 80u + 2 * 24u);
    // Off from count 12 until 4'040'000 ps (count 19): 7 counts, for the AUX buffer (D1).
    s.start(4'040'000, UntracedCause::aux_disabled);
    ASSERT_EQ(s.untraced().size(), 1u);
    EXPECT_EQ(s.untraced()[0].first_count, 12u);
    EXPECT_EQ(s.untraced()[0].counts, 7u);
    EXPECT_EQ(s.untraced()[0].cause, UntracedCause::aux_disabled);
    EXPECT_EQ(s.stream().sessions().size(), 2u);
    EXPECT_EQ(s.stream().sessions()[1].offset, 153u);
    EXPECT_EQ(s.stream().sessions()[1].first_count, 19u);
    // Starting while running is a no-op: no session, no window, no bytes.
    s.start(4'500'000, UntracedCause::stop_window);
    EXPECT_EQ(s.untraced().size(), 1u);
    EXPECT_EQ(s.stream().sessions().size(), 2u);
    EXPECT_EQ(s.stream().size(), 153u + 25u);
    // 5 us: count 25 due: 6 packets (19..24) with one periodic sync before the 5th.
    s.stop(5 * kUs);
    EXPECT_EQ(s.stream().size(), 178u + 48u + 24u);
    // Restarting at once (count 25 = next count): a new session but no untraced window.
    s.start(5 * kUs, UntracedCause::stop_window);
    EXPECT_EQ(s.untraced().size(), 1u);
    EXPECT_EQ(s.stream().sessions().size(), 3u);
    // Stopped again at once, then off until 6 us (250 bytes -> count 31): a stop window of
    // counts 25..30.
    s.stop(5 * kUs);
    s.start(6 * kUs, UntracedCause::stop_window);
    ASSERT_EQ(s.untraced().size(), 2u);
    EXPECT_EQ(s.untraced()[1].first_count, 25u);
    EXPECT_EQ(s.untraced()[1].counts, 6u);
    EXPECT_EQ(s.untraced()[1].cause, UntracedCause::stop_window);
    EXPECT_STREQ(to_string(UntracedCause::stop_window), "stop_window");
    EXPECT_STREQ(to_string(UntracedCause::aux_disabled), "aux_disabled");
}

TEST(EtmSource, StreamBytesEqualEtmEncoderForTheSameStarts) {
    const TraceRate r = three_phases();
    EtmSource s("etm0", 0x10, r, 4);
    s.start(0, UntracedCause::stop_window);
    s.produce_until(500'000); // 50 bytes: counts 0..5
    s.produce_until(960'000); // counts 6..11
    s.stop(2 * kUs);
    s.start(4'040'000, UntracedCause::aux_disabled); // count 19
    s.stop(5 * kUs);                                 // counts 19..24
    s.start(6 * kUs, UntracedCause::stop_window);    // count 31
    s.produce_until(7 * kUs);                        // 300 bytes: counts 31..36

    std::vector<uint8_t> ref;
    EtmEncoder enc(0x10, 4);
    enc.start(ref);
    enc.emit(0, 6, ref);
    enc.emit(6, 6, ref);
    enc.start(ref);
    enc.emit(19, 6, ref);
    enc.start(ref);
    enc.emit(31, 6, ref);
    ASSERT_EQ(s.stream().size(), ref.size());
    // 3 starts (75) + 24 packets (192) + periodic syncs: 2 + 1 + 1 (96) = 363.
    EXPECT_EQ(ref.size(), 363u);
    std::vector<uint8_t> got(ref.size());
    s.stream().read(0, got.size(), got.data());
    EXPECT_EQ(got, ref);
}
