// TMC registers and the compute-on-read ETR state: exact register offsets and bits (E3), RWP
// in whole frames, wrap and Full, RRP after a wrap, FIFO fill / overflow / drain against the
// memory bandwidth, flush_and_stop timing and partial-frame padding, enable restarting at the
// base, SG addresses, 128-bit exactness over seconds, and purity of the rate history.
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
    EXPECT_EQ(hw.bytes_written(1'000'000), 0u);
    EXPECT_EQ(hw.rwp(5), kDba);
    EXPECT_FALSE(hw.flush_and_stop(10, 0));
}

TEST(EtrHw, RwpAdvancesInWholeFrames) {
    EtrHw hw = make();
    ASSERT_TRUE(hw.enable(1 * kNs));
    ASSERT_TRUE(hw.set_input(1 * kNs, 5e8)); // one byte every 2 ns
    EXPECT_EQ(hw.sts(1 * kNs), 0u);          // capturing: TMCReady low
    EXPECT_EQ(hw.bytes_written(33 * kNs - 1), 0u);
    EXPECT_EQ(hw.bytes_written(33 * kNs), 16u);
    EXPECT_EQ(hw.rwp(41 * kNs), kDba + 16);
    EXPECT_EQ(hw.rrp(41 * kNs), kDba);
    EXPECT_FALSE(hw.set_input(0, 1e9)); // before the last change: ignored
}

TEST(EtrHw, WrapSetsFullAndMovesRrp) {
    EtrHw hw = make();
    hw.enable(0);
    hw.set_input(0, 5e8);
    const Picos wrap = 8192 * kNs; // 4096 bytes at 0.5 byte/ns
    EXPECT_FALSE(hw.full(wrap - 1));
    EXPECT_EQ(hw.write_offset(wrap - 1), 4080u);
    EXPECT_EQ(hw.sts(wrap), tmc::STS_Full);
    EXPECT_EQ(hw.rwp(wrap), kDba);
    EXPECT_EQ(hw.rwp(wrap + 32 * kNs), kDba + 16);
    EXPECT_EQ(hw.rrp(wrap + 32 * kNs), kDba + 16);
    EXPECT_EQ(hw.bytes_written(wrap + 32 * kNs), 4112u);
}

TEST(EtrHw, FlushPadsThePartialFrameWhenReady) {
    EtrHw hw = make();
    hw.enable(0);
    hw.set_input(0, 5e8);
    const auto ready = hw.flush_and_stop(40 * kNs, 500 * kNs); // 20 bytes in, FIFO empty
    ASSERT_TRUE(ready);
    EXPECT_EQ(*ready, 540 * kNs);
    EXPECT_EQ(hw.bytes_written(540 * kNs - 1), 16u);
    EXPECT_EQ(hw.sts(540 * kNs - 1), 0u);
    EXPECT_EQ(hw.bytes_written(540 * kNs), 32u);
    EXPECT_EQ(hw.sts(540 * kNs), tmc::STS_TMCReady);
    EXPECT_FALSE(hw.flush_and_stop(600 * kNs, 0)); // already stopped
    hw.set_input(700 * kNs, 1e9);                  // no capture: nothing written
    EXPECT_EQ(hw.bytes_written(900 * kNs), 32u);
}

TEST(EtrHw, FifoFillsOverflowsAndDrains) {
    EtrHw hw = make(4096, 1e9, 64);
    hw.enable(0);
    hw.set_input(0, 3e9); // 3 bytes/ns against 1 byte/ns: FIFO gains 2 bytes/ns
    EXPECT_EQ(hw.fifo_level(32 * kNs), 64u);
    EXPECT_EQ(hw.overflow_bytes(32 * kNs), 0u);
    EXPECT_EQ(hw.bytes_written(32 * kNs), 32u);
    EXPECT_EQ(hw.overflow_bytes(50 * kNs), 36u);
    EXPECT_EQ(hw.bytes_written(50 * kNs), 48u);
    hw.set_input(50 * kNs, 0); // drains 64 bytes at 1 byte/ns
    EXPECT_EQ(hw.fifo_level(100 * kNs), 14u);
    EXPECT_EQ(hw.bytes_written(100 * kNs), 96u);
    EXPECT_EQ(hw.fifo_level(114 * kNs), 0u);
    EXPECT_EQ(hw.bytes_written(114 * kNs), 112u);
    EXPECT_EQ(hw.bytes_written(200 * kNs), 112u);
    EXPECT_EQ(hw.overflow_bytes(200 * kNs), 36u);
}

TEST(EtrHw, FlushWaitsForTheFifoToDrain) {
    EtrHw hw = make(4096, 1e9, 64);
    hw.enable(0);
    hw.set_input(0, 3e9);
    // At 60 ns: 60 written, 64 queued, 56 lost; draining takes 64 ns > the 1 ns handshake.
    const auto ready = hw.flush_and_stop(60 * kNs, 1 * kNs);
    ASSERT_TRUE(ready);
    EXPECT_EQ(*ready, 124 * kNs);
    EXPECT_EQ(hw.overflow_bytes(*ready), 56u);
    EXPECT_EQ(hw.bytes_written(*ready - 1), 112u); // 123.999 bytes: 7 whole frames
    EXPECT_EQ(hw.bytes_written(*ready), 128u);     // 124 bytes, padded
}

TEST(EtrHw, EnableRestartsAtTheBase) {
    EtrHw hw = make();
    hw.enable(0);
    hw.set_input(0, 1e9);
    hw.set_memerr(true);
    EXPECT_EQ(hw.sts(5000 * kNs), tmc::STS_Full | tmc::STS_MemErr);
    const auto ready = hw.flush_and_stop(5000 * kNs, 0);
    ASSERT_TRUE(ready);
    EXPECT_EQ(hw.sts(*ready), tmc::STS_Full | tmc::STS_TMCReady | tmc::STS_MemErr);
    ASSERT_TRUE(hw.enable(6000 * kNs)); // the input rate carries over
    EXPECT_EQ(hw.sts(6000 * kNs), 0u);
    EXPECT_EQ(hw.rwp(6000 * kNs), kDba);
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
    hw.set_input(0, 1e9);
    EXPECT_EQ(hw.rwp(4095 * kNs), 0x9000'0ff0u);
    EXPECT_EQ(hw.rwp(4112 * kNs), 0x7000'0010u);
    EXPECT_EQ(hw.rrp(8192 * kNs + 48 * kNs), 0x9000'0030u);
}

TEST(EtrHw, ExactOverSecondsWithoutDrift) {
    EtrHw one = make(1 << 20, 1e10, 0);
    EtrHw many = make(1 << 20, 1e10, 0);
    one.enable(0);
    many.enable(0);
    one.set_input(0, 1e9 / 3); // 333333333 bytes/s once rounded
    for (Picos t = 0; t < 3 * kPicosPerSecond; t += 7'777'777'777)
        many.set_input(t, 1e9 / 3); // same rate, many segments
    const Picos end = 3 * kPicosPerSecond;
    EXPECT_EQ(one.bytes_written(end), 999'999'984u); // 999999999 bytes, whole frames
    for (Picos t : {Picos{1}, Picos{123'456'789'011}, end - 1, end})
        EXPECT_EQ(many.bytes_written(t), one.bytes_written(t)) << t;
    EXPECT_EQ(one.bytes_written(end - 1), 999'999'984u);
}
