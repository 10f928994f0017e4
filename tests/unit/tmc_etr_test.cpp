// TMC registers and the compute-on-read ETR state: exact register offsets and bits (E3), RWP
// in whole frames, wrap and Full, RRP after a wrap, FIFO fill / overflow / drain of arriving
// batches against the memory bandwidth, the fractional credit carried between arrivals (and
// not saved while idle), flush_and_stop drain timing, enable restarting at the base, arrivals
// that are ignored, SG addresses, and 128-bit exactness over seconds.
#include "models/coresight/etr_hw.h"
#include "models/coresight/tmc_regs.h"

#include <gtest/gtest.h>

using namespace ringsim::models;
using namespace ringsim::models::coresight;

namespace {

constexpr Picos kNs = 1000;
constexpr Addr kDba = 0x8010'0000;

EtrHw make(uint64_t size = 4096, double bw = 1e9, uint64_t fifo = 64) {
    EtrHwConfig c;
    c.buffer_bytes = size;
    c.mem_bytes_per_second = bw;
    c.fifo_bytes = fifo;
    c.dba = kDba;
    return *EtrHw::create(c);
}

} // namespace

TEST(TmcRegs, OffsetsAndBitsAsTheDriverUsesThem) {
    EXPECT_EQ(tmc::RSZ, 0x004u);
    EXPECT_EQ(tmc::STS, 0x00cu);
    EXPECT_EQ(tmc::RRP, 0x014u);
    EXPECT_EQ(tmc::RWP, 0x018u);
    EXPECT_EQ(tmc::TRG, 0x01cu);
    EXPECT_EQ(tmc::CTL, 0x020u);
    EXPECT_EQ(tmc::MODE, 0x028u);
    EXPECT_EQ(tmc::RRPHI, 0x038u);
    EXPECT_EQ(tmc::RWPHI, 0x03cu);
    EXPECT_EQ(tmc::AXICTL, 0x110u);
    EXPECT_EQ(tmc::DBALO, 0x118u);
    EXPECT_EQ(tmc::DBAHI, 0x11cu);
    EXPECT_EQ(tmc::FFSR, 0x300u);
    EXPECT_EQ(tmc::FFCR, 0x304u);
    EXPECT_EQ(tmc::STS_Full | tmc::STS_Triggered | tmc::STS_TMCReady | tmc::STS_MemErr, 0x27u);
    EXPECT_EQ(tmc::CTL_TraceCaptEn, 1u);
    EXPECT_EQ(tmc::AXICTL_ScatterGather, 0x80u);
    EXPECT_EQ(tmc::FFSR_FtStopped, 2u);
    EXPECT_EQ(tmc::FFCR_FlushMan, 0x40u);
    EXPECT_EQ(tmc::FFCR_StopOnFl, 0x1000u);
    EXPECT_EQ(tmc::kEtrEnableFfcr, 0x133u);
}

TEST(EtrHw, CreateValidatesConfig) {
    EtrHwConfig c;
    c.mem_bytes_per_second = 1e9;
    EXPECT_FALSE(EtrHw::create(c)); // size 0
    c.buffer_bytes = 100;
    EXPECT_FALSE(EtrHw::create(c)); // not whole frames
    c.buffer_bytes = 8192;
    c.mem_bytes_per_second = 0.4; // rounds to 0 bytes/s
    EXPECT_FALSE(EtrHw::create(c));
    c.mem_bytes_per_second = 1e9;
    c.sg_pages = {0x1000};
    EXPECT_FALSE(EtrHw::create(c)); // one page for two pages' worth
    c.sg_pages = {0x1000, 0x3000};
    ASSERT_TRUE(EtrHw::create(c));
    EXPECT_EQ(EtrHw::create(c)->rsz(), 2048u);
}

TEST(EtrHw, IdleBeforeEnable) {
    EtrHw hw = make();
    EXPECT_EQ(hw.sts(0), tmc::STS_TMCReady);
    EXPECT_EQ(hw.arrive(1 * kNs, 64), 0u); // no capture: nothing taken
    EXPECT_EQ(hw.bytes_arrived(), 0u);
    EXPECT_EQ(hw.bytes_written(1'000'000), 0u);
    EXPECT_EQ(hw.rwp(5), kDba);
    EXPECT_FALSE(hw.flush_and_stop(10, 0));
}

TEST(EtrHw, ArrivalWithinCapacityIsAllWritten) {
    EtrHw hw = make(); // 1 byte/ns, FIFO 64
    ASSERT_TRUE(hw.enable(0));
    EXPECT_EQ(hw.arrive(100 * kNs, 96), 96u); // 96 bytes against 100 bytes of capacity
    EXPECT_EQ(hw.bytes_written(100 * kNs), 96u);
    EXPECT_EQ(hw.fifo_level(100 * kNs), 0u);
    EXPECT_EQ(hw.overflow_bytes(100 * kNs), 0u);
    EXPECT_EQ(hw.rwp(100 * kNs), kDba + 96);
    EXPECT_EQ(hw.bytes_arrived(), 96u);
}

TEST(EtrHw, RwpAdvancesInWholeFrames) {
    EtrHw hw = make();
    ASSERT_TRUE(hw.enable(1 * kNs));
    EXPECT_EQ(hw.sts(1 * kNs), 0u); // capturing: TMCReady low
    // 16 bytes over 10 ns of 10 bytes' capacity: the frame waits in the FIFO.
    EXPECT_EQ(hw.arrive(11 * kNs, 16), 16u);
    EXPECT_EQ(hw.bytes_written(11 * kNs), 0u);
    EXPECT_EQ(hw.fifo_level(11 * kNs), 16u);
    // It drains after the arrival: 6 more bytes' worth of time completes it.
    EXPECT_EQ(hw.bytes_written(17 * kNs - 1), 0u);
    EXPECT_EQ(hw.bytes_written(17 * kNs), 16u);
    EXPECT_EQ(hw.fifo_level(17 * kNs), 0u);
    EXPECT_EQ(hw.rwp(17 * kNs), kDba + 16);
    EXPECT_EQ(hw.rrp(17 * kNs), kDba);
}

TEST(EtrHw, FractionalCreditCarriesAcrossArrivals) {
    EtrHw hw = make(4096, 1e9, 4096);
    hw.enable(0);
    // A frame every 10 ns against 10 bytes of capacity per interval: the FIFO never empties,
    // so after k arrivals exactly floor(10k / 16) frames are written. Without the carried
    // credit no interval could ever write a frame.
    const uint64_t written[] = {0, 16, 16, 32, 48, 48, 64, 80};
    for (uint64_t k = 1; k <= 8; ++k) {
        const Picos t = 10 * k * kNs;
        EXPECT_EQ(hw.arrive(t, 16), 16u) << k;
        EXPECT_EQ(hw.bytes_written(t), written[k - 1]) << k;
        EXPECT_EQ(hw.fifo_level(t), 16 * k - written[k - 1]) << k;
    }
    EXPECT_EQ(hw.bytes_written(15 * kNs), 0u);  // between arrivals: the state at 10 ns
    EXPECT_EQ(hw.bytes_written(45 * kNs), 32u); // ... and at 40 ns
    // After the last arrival (80 ns, 48 queued, no credit) the FIFO drains 16 bytes per 16 ns.
    EXPECT_EQ(hw.bytes_written(96 * kNs - 1), 80u);
    EXPECT_EQ(hw.bytes_written(96 * kNs), 96u);
    EXPECT_EQ(hw.bytes_written(128 * kNs), 128u);
    EXPECT_EQ(hw.fifo_level(128 * kNs), 0u);
}

TEST(EtrHw, NoCreditIsSavedWhileIdle) {
    EtrHw hw = make();
    hw.enable(0);
    EXPECT_EQ(hw.arrive(10 * kNs, 16), 16u); // 10 bytes of credit, frame queued
    EXPECT_EQ(hw.arrive(100 * kNs, 0), 0u);  // it drains; 84 bytes of capacity unused
    EXPECT_EQ(hw.bytes_written(100 * kNs), 16u);
    EXPECT_EQ(hw.fifo_level(100 * kNs), 0u);
    // A frame over the next 1 ns has 1 byte of capacity, not 85: it waits 15 ns more.
    EXPECT_EQ(hw.arrive(101 * kNs, 16), 16u);
    EXPECT_EQ(hw.bytes_written(101 * kNs), 16u);
    EXPECT_EQ(hw.bytes_written(116 * kNs - 1), 16u);
    EXPECT_EQ(hw.bytes_written(116 * kNs), 32u);
    // Reading while idle saves nothing either: 1 ns after a long gap is 1 byte of capacity.
    EXPECT_EQ(hw.arrive(1000 * kNs, 0), 0u);
    EXPECT_EQ(hw.arrive(1001 * kNs, 32), 32u);
    EXPECT_EQ(hw.bytes_written(1001 * kNs), 32u);
    EXPECT_EQ(hw.fifo_level(1001 * kNs), 32u);
}

TEST(EtrHw, ArrivalAboveCapacityFillsTheFifoThenOverflows) {
    EtrHw hw = make(4096, 1e9, 64);
    hw.enable(0);
    // 160 bytes over 32 ns: 32 written, 128 left for a 64-byte FIFO, the newest 64 lost.
    EXPECT_EQ(hw.arrive(32 * kNs, 160), 96u);
    EXPECT_EQ(hw.bytes_written(32 * kNs), 32u);
    EXPECT_EQ(hw.fifo_level(32 * kNs), 64u);
    EXPECT_EQ(hw.overflow_bytes(32 * kNs), 64u);
    EXPECT_EQ(hw.overflow_bytes(32 * kNs - 1), 0u); // the state at the enable
    // Then the FIFO drains at 1 byte/ns.
    EXPECT_EQ(hw.bytes_written(80 * kNs), 80u);
    EXPECT_EQ(hw.fifo_level(80 * kNs), 16u);
    EXPECT_EQ(hw.bytes_written(200 * kNs), 96u);
    EXPECT_EQ(hw.fifo_level(200 * kNs), 0u);
    EXPECT_EQ(hw.overflow_bytes(200 * kNs), 64u);
    EXPECT_EQ(hw.arrive(300 * kNs, 16), 16u);
    EXPECT_EQ(hw.bytes_written(300 * kNs), 112u);
    EXPECT_EQ(hw.bytes_arrived(), 176u);
    EXPECT_EQ(hw.overflow_total(), 64u);
}

TEST(EtrHw, FifoHoldsWholeFramesAndMayBeAbsent) {
    EtrHw odd = make(4096, 1e9, 70); // room for 4 frames
    odd.enable(0);
    EXPECT_EQ(odd.arrive(0, 96), 64u); // no time to drain: 64 queued, 32 lost
    EXPECT_EQ(odd.fifo_level(0), 64u);
    EXPECT_EQ(odd.overflow_bytes(0), 32u);

    EtrHw none = make(4096, 1e9, 0);
    none.enable(0);
    EXPECT_EQ(none.arrive(20 * kNs, 48), 16u); // only what the memory takes in 20 ns
    EXPECT_EQ(none.bytes_written(20 * kNs), 16u);
    EXPECT_EQ(none.fifo_level(20 * kNs), 0u);
    EXPECT_EQ(none.overflow_total(), 32u);
}

TEST(EtrHw, WrapSetsFullAndMovesRrp) {
    EtrHw hw = make();
    hw.enable(0);
    EXPECT_EQ(hw.arrive(4080 * kNs, 4080), 4080u);
    EXPECT_FALSE(hw.full(4080 * kNs));
    EXPECT_EQ(hw.write_offset(4080 * kNs), 4080u);
    EXPECT_EQ(hw.arrive(4096 * kNs, 16), 16u);
    EXPECT_EQ(hw.sts(4096 * kNs), tmc::STS_Full);
    EXPECT_EQ(hw.rwp(4096 * kNs), kDba);
    EXPECT_EQ(hw.rrp(4096 * kNs), kDba);
    EXPECT_EQ(hw.arrive(4128 * kNs, 32), 32u);
    EXPECT_EQ(hw.bytes_written(4128 * kNs), 4128u);
    EXPECT_EQ(hw.rwp(4128 * kNs), kDba + 32);
    EXPECT_EQ(hw.rrp(4128 * kNs), kDba + 32);
    EXPECT_EQ(hw.sts(4080 * kNs), 0u); // earlier arrivals keep their state
}

TEST(EtrHw, FlushWaitsForTheFifoToDrain) {
    EtrHw hw = make(4096, 1e9, 64);
    hw.enable(0);
    // 176 bytes over 60 ns: 48 written (12 bytes of credit), 128 left, 64 of them lost.
    EXPECT_EQ(hw.arrive(60 * kNs, 176), 112u);
    const auto ready = hw.flush_and_stop(60 * kNs, 1 * kNs);
    ASSERT_TRUE(ready);
    EXPECT_EQ(*ready, 112 * kNs); // 64 queued less 12 of credit: 52 ns > the 1 ns handshake
    EXPECT_EQ(hw.sts(*ready - 1), 0u);
    EXPECT_EQ(hw.bytes_written(*ready - 1), 96u); // 63.999 bytes of the 64 drained
    EXPECT_EQ(hw.fifo_level(*ready - 1), 16u);
    EXPECT_EQ(hw.sts(*ready), tmc::STS_TMCReady);
    EXPECT_EQ(hw.bytes_written(*ready), 112u);
    EXPECT_EQ(hw.fifo_level(*ready), 0u);
    EXPECT_EQ(hw.bytes_written(*ready + 1'000 * kNs), 112u); // final
    EXPECT_EQ(hw.overflow_bytes(*ready), 64u);
    EXPECT_EQ(hw.bytes_arrived(), hw.bytes_written(*ready) + hw.overflow_total());
}

TEST(EtrHw, FlushDrainTimeRoundsUpAndLatencyCanDominate) {
    EtrHw slow = make(4096, 3e9, 64); // 3 bytes/ns: a frame takes 5333.33 ps
    slow.enable(0);
    EXPECT_EQ(slow.arrive(0, 16), 16u);
    const auto ready = slow.flush_and_stop(0, 0);
    ASSERT_TRUE(ready);
    EXPECT_EQ(*ready, 5334u);
    EXPECT_EQ(slow.bytes_written(5333), 0u);
    EXPECT_EQ(slow.bytes_written(5334), 16u);

    EtrHw hw = make();
    hw.enable(0);
    EXPECT_EQ(hw.arrive(40 * kNs, 32), 32u); // written at once: the FIFO is empty
    const auto late = hw.flush_and_stop(40 * kNs, 500 * kNs);
    ASSERT_TRUE(late);
    EXPECT_EQ(*late, 540 * kNs);
    EXPECT_EQ(hw.sts(540 * kNs - 1), 0u);
    EXPECT_EQ(hw.bytes_written(540 * kNs - 1), 32u);
    EXPECT_EQ(hw.sts(540 * kNs), tmc::STS_TMCReady);
}

TEST(EtrHw, IgnoredArrivals) {
    EtrHw hw = make();
    EXPECT_EQ(hw.arrive(10 * kNs, 16), 0u); // before the enable
    ASSERT_TRUE(hw.enable(20 * kNs));
    EXPECT_EQ(hw.arrive(10 * kNs, 16), 0u); // before the enable's time
    EXPECT_EQ(hw.arrive(40 * kNs, 20), 0u); // not whole frames
    EXPECT_EQ(hw.arrive(40 * kNs, 16), 16u);
    EXPECT_EQ(hw.arrive(39 * kNs, 16), 0u); // backwards
    EXPECT_FALSE(hw.flush_and_stop(39 * kNs, 0));
    ASSERT_TRUE(hw.flush_and_stop(50 * kNs, 0));
    EXPECT_FALSE(hw.flush_and_stop(60 * kNs, 0)); // already stopped
    EXPECT_EQ(hw.arrive(70 * kNs, 16), 0u);       // after the stop
    EXPECT_EQ(hw.bytes_arrived(), 16u);
    EXPECT_EQ(hw.bytes_written(100 * kNs), 16u);
    EXPECT_FALSE(hw.enable(45 * kNs)); // before the stop
}

TEST(EtrHw, EnableRestartsAtTheBase) {
    EtrHw hw = make();
    hw.enable(0);
    EXPECT_EQ(hw.arrive(5000 * kNs, 4800), 4800u);
    hw.set_memerr(true);
    EXPECT_EQ(hw.sts(5000 * kNs), tmc::STS_Full | tmc::STS_MemErr);
    const auto ready = hw.flush_and_stop(5000 * kNs, 0);
    ASSERT_TRUE(ready);
    EXPECT_EQ(*ready, 5000 * kNs);
    EXPECT_EQ(hw.sts(*ready), tmc::STS_Full | tmc::STS_TMCReady | tmc::STS_MemErr);
    ASSERT_TRUE(hw.enable(6000 * kNs));
    EXPECT_EQ(hw.sts(6000 * kNs), 0u);
    EXPECT_FALSE(hw.memerr());
    EXPECT_EQ(hw.rwp(6000 * kNs), kDba);
    EXPECT_EQ(hw.bytes_arrived(), 0u);
    EXPECT_EQ(hw.overflow_total(), 0u);
    EXPECT_EQ(hw.arrive(6016 * kNs, 16), 16u);
    EXPECT_EQ(hw.bytes_written(6016 * kNs), 16u);
    EXPECT_EQ(hw.bytes_written(5999 * kNs), 0u); // the previous capture is forgotten
}

TEST(EtrHw, ScatterGatherPointersAreSgPageAddresses) {
    EtrHwConfig c;
    c.buffer_bytes = 8192;
    c.mem_bytes_per_second = 1e9;
    c.sg_pages = {0x9000'0000, 0x7000'0000};
    EtrHw hw = *EtrHw::create(c);
    hw.enable(0);
    hw.arrive(4080 * kNs, 4080);
    EXPECT_EQ(hw.rwp(4080 * kNs), 0x9000'0ff0u);
    hw.arrive(4112 * kNs, 32);
    EXPECT_EQ(hw.rwp(4112 * kNs), 0x7000'0010u);
    hw.arrive(8240 * kNs, 4128); // 8192 + 48: wrapped
    EXPECT_EQ(hw.rrp(8240 * kNs), 0x9000'0030u);
    EXPECT_EQ(hw.rwp(8240 * kNs), 0x9000'0030u);
}

TEST(EtrHw, ExactOverSecondsWithoutDrift) {
    // 333333333 bytes/s once rounded; a deep FIFO that never empties, so whatever the
    // arrivals, the bytes written at time t are floor(333333333 * t / 1e12) in whole frames.
    EtrHw one = make(1 << 20, 1e9 / 3, 1ull << 31);
    EtrHw many = make(1 << 20, 1e9 / 3, 1ull << 31);
    one.enable(0);
    many.enable(0);
    ASSERT_EQ(one.arrive(0, 1'200'000'000), 1'200'000'000u);
    const Picos end = 3 * kPicosPerSecond;
    const Picos step = 7'777'777'777; // ~2.59 MB of capacity per interval
    for (Picos t = 0; t < end; t += step) {
        ASSERT_EQ(many.arrive(t, 4'000'000), 4'000'000u) << t;
        EXPECT_EQ(many.bytes_written(t), one.bytes_written(t)) << t;
    }
    EXPECT_EQ(one.bytes_written(step), 2'592'592u);  // 2592592.59 bytes: 162037 frames
    EXPECT_EQ(one.bytes_written(end), 999'999'984u); // 999999999 bytes, whole frames
    EXPECT_EQ(many.bytes_written(end), 999'999'984u);
    EXPECT_EQ(one.bytes_written(end - 1), 999'999'984u);
    EXPECT_EQ(many.bytes_written(end - 1), 999'999'984u);
}
