// AuxChecker fed by hand (no simulation): sources with known streams, commits (runs, stores,
// the bytes the driver's copy stored), the tool's reads (exactly the bytes
// EtrFrameLog::materialize gives, or one byte wrong) and the PERF_RECORD_AUXs perf.data got.
// Each case checks the books exactly: bytes delivered / lost per cause / unread / corrupted,
// gaps per cause, violations by kind.
//
// Sources run at 1e9 B/s: C(t) = floor(t / 8000 ps). With a sync period of 4 counts the
// stream of one session started at count 0 is
//   [sync 0..14) [pkt 0..3: 14..46) [sync 46..60) [pkt 4..7: 60..92) [sync 92..106)
//   [pkt 8..11: 106..138) [sync 138..152) [pkt 12..15: 152..184) [sync 184..198)
//   [pkt 16..19: 198..230) [sync 230..244) [pkt 20..23: 244..276) [sync 276..290)
//   [pkt 24..27: 290..322) [sync 322..336) [pkt 28..31: 336..368) ... [pkt 36..39: 428..460)
// so 40 counts (stopped at 320'000 ps) are 460 bytes = 32 full frames + one of 12 bytes.
#include "models/check/aux_checker.h"

#include "models/common/aux_stats.h"
#include "models/coresight/etm_source.h"
#include "models/coresight/etr_frame_log.h"
#include "models/coresight/formatter.h"
#include "models/kernel/perf_abi.h"

#include <gtest/gtest.h>

#include <memory>
#include <tuple>
#include <vector>

using namespace ringsim::models;
using namespace ringsim::models::coresight;

namespace {

using Bytes = std::vector<uint8_t>;

size_t idx(GapCause c) {
    return static_cast<size_t>(c);
}

struct Run {
    uint64_t off, n;
};

struct Rig {
    TraceRate rate{1e9, {}};
    EtmSource src;
    // The checker's books of its one buffer and its own counts, read as one.
    struct Stats : AuxBooks, AuxCheckCounters {};
    Stats stats() const {
        Stats s;
        static_cast<AuxBooks&>(s) = checker->books(0);
        static_cast<AuxCheckCounters&>(s) = checker->counters();
        return s;
    }
    std::unique_ptr<AuxChecker> checker;
    uint64_t aux_size;

    bool snapshot;

    Rig(uint32_t period, uint64_t aux_size_, bool snapshot_ = false)
        : src("etm0", 0x10, rate, period), aux_size(aux_size_), snapshot(snapshot_) {
        checker = std::make_unique<AuxChecker>(
            std::vector<const EtmSource*>{&src}, std::vector<unsigned>{0},
            std::vector<CheckedAux>{{"cpu0.aux", aux_size, 0x9000'0000}}, snapshot, nullptr);
    }

    // A harvest of these source byte runs at AUX position aux_off, optionally behind a
    // barrier packet, written by one store `seq`. Returns the bytes the copy stored.
    Bytes commit(uint64_t aux_off, const std::vector<Run>& runs, bool barrier, uint64_t seq,
                 bool record_written = true) {
        EtrFrameLog log;
        for (const Run& r : runs)
            log.append(src.trace_id(), r.off, r.n);
        AuxCommit c;
        c.aux = 0;
        c.aux_off = aux_off;
        c.barrier = barrier;
        log.runs_in(0, log.frames(), c.runs);
        Bytes bytes(barrier ? kBarrierSize : 0);
        if (barrier) insert_barrier_packet(bytes.data());
        const size_t at = bytes.size();
        bytes.resize(at + log.frames() * kFrameSize);
        log.materialize(
            0, log.frames(), [this](uint8_t) -> const EtmStream& { return src.stream(); },
            bytes.data() + at);
        c.size = bytes.size();
        c.stores = {{aux_off, c.size, seq}};
        c.bytes = bytes;
        c.record_written = record_written;
        // The PERF_RECORD_AUX perf_aux_output_end wrote for it (A3, A5): in snapshot mode
        // at the new head with OVERWRITE, else at its first byte, TRUNCATED with a barrier.
        c.record_size = c.size;
        c.record_offset = snapshot ? aux_off + c.size : aux_off;
        c.flags = snapshot ? PERF_AUX_FLAG_OVERWRITE : barrier ? PERF_AUX_FLAG_TRUNCATED : 0;
        checker->on_aux_commit(c);
        return bytes;
    }
    // The tool copied bytes[from, from + n) of a commit at AUX position pos, all loaded from
    // store `seq`.
    void read(uint64_t pos, const Bytes& bytes, uint64_t from, uint64_t n, uint64_t seq) {
        CopySource cs;
        cs.offset = 0;
        cs.length = n;
        cs.store_seq = seq;
        checker->on_aux_copied(0, pos, bytes.data() + from, n, {cs}, CopyContext{});
    }
    uint64_t lost(GapCause c) const { return stats().lost_by_cause[idx(c)]; }
    uint64_t gaps(GapCause c) const { return stats().gaps_by_cause[idx(c)]; }
    uint64_t all_gaps() const {
        uint64_t n = 0;
        for (uint64_t g : checker->books(0).gaps_by_cause)
            n += g;
        return n;
    }
};

// One session, 40 counts, 460 bytes.
void forty_counts(EtmSource& s) {
    s.start(0, UntracedCause::stop_window);
    s.stop(320'000);
    ASSERT_EQ(s.stream().size(), 460u);
}

} // namespace

// One commit of all 33 frames (528 bytes), read whole, its record delivered.
TEST(AuxChecker, AllDelivered) {
    Rig r(4, 4096);
    forty_counts(r.src);
    const Bytes b = r.commit(0, {{0, 460}}, false, 10);
    ASSERT_EQ(b.size(), 528u);
    r.read(0, b, 0, 528, 10);
    r.checker->on_aux_record(0, 0, 528, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().bytes_produced, 460u);
    EXPECT_EQ(r.stats().bytes_delivered, 460u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.stats().bytes_unread, 0u);
    EXPECT_EQ(r.stats().bytes_corrupted, 0u);
    EXPECT_EQ(r.stats().bytes_untraced, 0u);
    EXPECT_EQ(r.stats().decoded_packets, 40u);
    EXPECT_EQ(r.stats().records_delivered, 1u);
    EXPECT_EQ(r.all_gaps(), 0u);
    EXPECT_EQ(r.stats().violations_total, 0u);
    EXPECT_TRUE(r.checker->violations().empty());
}

// Harvest 1: frames of bytes [0, 84) (6 frames, AUX [0, 96)); 84 ends packet 6.
// Lost in the sink (sink_wrap): [84, 322), the last frame of it under the barrier packet.
// Harvest 2 at AUX 96: barrier + frames of [322, 460) (10 frames, 176 bytes, TRUNCATED).
// 322 is an A-Sync: the decoder resynchronises at once, counts resume at 28 (byte 336).
// Delivered: [0, 84) + [322, 460) = 222; lost: exactly the 238 reported.
TEST(AuxChecker, LossAtAPacketBoundaryBeforeAnASync) {
    Rig r(4, 4096);
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 84}}, false, 10);
    ASSERT_EQ(b1.size(), 96u);
    r.checker->on_trace_lost(0x10, 84, 238, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(96, {{322, 138}}, true, 11);
    ASSERT_EQ(b2.size(), 176u);
    r.read(0, b1, 0, 96, 10);
    r.checker->on_aux_record(0, 0, 96, 0);
    r.read(96, b2, 0, 176, 11);
    r.checker->on_aux_record(0, 96, 176, PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
    EXPECT_EQ(r.stats().bytes_produced, 460u);
    EXPECT_EQ(r.stats().decoded_packets, 7u + 12u); // 0..6, 28..39
    EXPECT_EQ(r.stats().bytes_delivered, 222u);
    EXPECT_EQ(r.stats().bytes_lost, 238u);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 238u);
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u); // counts 7..27
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().truncated_delivered, 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// As above but the loss is [84, 182) and harvest 2 (barrier + frames of [182, 460), 20
// frames, 336 bytes) starts 2 bytes before the end of packet 15 (176..184). The decoder skips
// those 2 bytes, finds the periodic A-Sync at 184 and resumes at count 16 (byte 198).
void loss_inside_a_packet(Rig& r) {
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 84}}, false, 10);
    r.checker->on_trace_lost(0x10, 84, 98, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(96, {{182, 278}}, true, 11);
    ASSERT_EQ(b2.size(), 336u);
    r.read(0, b1, 0, 96, 10);
    r.checker->on_aux_record(0, 0, 96, 0);
    r.read(96, b2, 0, 336, 11);
    r.checker->on_aux_record(0, 96, 336, PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
}

TEST(AuxChecker, LossInsideAPacketIsOneSinkWrapGap) {
    Rig r(4, 4096);
    loss_inside_a_packet(r);
    EXPECT_EQ(r.stats().decoded_packets, 7u + 24u); // 0..6, 16..39
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u);     // counts 7..15
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
    // Decoded: [0, 84) and [198, 460) (262); the rest is lost to the wrap, at least the 98
    // reported and the 2 skipped; nothing unread or corrupted.
    EXPECT_GE(r.lost(GapCause::sink_wrap), 100u);
    EXPECT_EQ(r.stats().bytes_lost, r.lost(GapCause::sink_wrap));
    EXPECT_EQ(r.stats().bytes_delivered + r.stats().bytes_lost, 460u);
    EXPECT_EQ(r.stats().bytes_unread + r.stats().bytes_corrupted, 0u);
}

// Exact bytes: lost under sink_wrap = the 98 reported + the 2 skipped = 100. The A-Sync +
// Trace Info [184, 198) reached the decoder and resynchronised it, so it is delivered like
// any other sync that reached the decoder: delivered [0, 84) + [184, 460) = 360.
TEST(AuxChecker, LossInsideAPacketLosesOnlyTheBytesSkippedBeforeTheASync) {
    Rig r(4, 4096);
    loss_inside_a_packet(r);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 100u);
    EXPECT_EQ(r.stats().bytes_lost, 100u);
    EXPECT_EQ(r.stats().bytes_delivered, 360u);
}

// Harvest 1 ends at byte 112, inside packet 8 (106..114): its first 6 bytes reach the decoder
// but can never be decoded. Loss [112, 322) (210 bytes); harvest 2 = barrier + [322, 460) at
// AUX 128.
void packet_cut_by_a_loss(Rig& r) {
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 112}}, false, 10);
    ASSERT_EQ(b1.size(), 128u);
    r.checker->on_trace_lost(0x10, 112, 210, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(128, {{322, 138}}, true, 11);
    r.read(0, b1, 0, 128, 10);
    r.checker->on_aux_record(0, 0, 128, 0);
    r.read(128, b2, 0, b2.size(), 11);
    r.checker->on_aux_record(0, 128, b2.size(), PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
}

// The cut packet's bytes are lost to the wrap that cut it, not an unexplained violation.
TEST(AuxChecker, PacketCutByALossIsNotUnexplained) {
    Rig r(4, 4096);
    packet_cut_by_a_loss(r);
    EXPECT_EQ(r.stats().decoded_packets, 8u + 12u); // 0..7, 28..39
    EXPECT_EQ(r.stats().violations_total, 0u);
    EXPECT_EQ(r.stats().violations_unexplained, 0u);
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u); // counts 8..27
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_GE(r.lost(GapCause::sink_wrap), 216u); // 210 reported + the 6 of packet 8
    EXPECT_EQ(r.stats().bytes_delivered + r.stats().bytes_lost, 460u);
    EXPECT_EQ(r.stats().bytes_unread + r.stats().bytes_corrupted, 0u);
}

// Exact bytes: lost 6 + 210 = 216; delivered [0, 106) (counts 0..7 and the sync after them,
// which the decoder read) + [322, 460) = 244.
TEST(AuxChecker, PacketCutByALossLosesOnlyThePacket) {
    Rig r(4, 4096);
    packet_cut_by_a_loss(r);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 216u);
    EXPECT_EQ(r.stats().bytes_delivered, 244u);
}

// Two sessions with no sync period: counts 0..9 (0 .. 80'000 ps: 14 + 80 = 94 bytes), off
// until 160'000 (C = 20), counts 20..29 (to 240'000: 94 more). Each stop flushes a partial
// frame: 7 + 7 frames, one commit of 224 bytes, all read and recorded. Counts 10..19 are the
// untraced window: one stop_window gap, 10 * 8 = 80 bytes, not lost trace.
TEST(AuxChecker, UntracedWindowIsAStopWindowGap) {
    Rig r(0, 4096);
    r.src.start(0, UntracedCause::stop_window);
    r.src.stop(80'000);
    r.src.start(160'000, UntracedCause::stop_window);
    // The window is the gap's cause; what the event books as untraced (its code ran with
    // the ETM off for half of it: CsEtmEvent) is what bytes.untraced counts.
    r.src.add_untraced(80'000, 120'000, UntracedCause::stop_window);
    r.src.stop(240'000);
    ASSERT_EQ(r.src.stream().size(), 188u);
    const Bytes b = r.commit(0, {{0, 94}, {94, 94}}, false, 10);
    ASSERT_EQ(b.size(), 224u);
    r.read(0, b, 0, 224, 10);
    r.checker->on_aux_record(0, 0, 224, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 20u);
    EXPECT_EQ(r.stats().bytes_delivered, 188u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.stats().bytes_untraced, 40u);
    EXPECT_EQ(r.lost(GapCause::stop_window), 40u);
    EXPECT_EQ(r.gaps(GapCause::stop_window), 1u);
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// No sync period, 35 counts (0 .. 280'000 ps): 14 + 280 = 294 bytes = 21 frames.
// Harvest 1: [0, 70) = 5 frames (70 ends packet 6), AUX [0, 80), recorded.
// Harvest 2: [70, 294) = 16 frames, AUX [80, 336): its PERF_RECORD_AUX was lost (D11). The
// tool copies both, but only harvest 1 is decoded: 224 bytes lost as record_lost.
TEST(AuxChecker, CommitWhoseRecordWasLost) {
    Rig r(0, 4096);
    r.src.start(0, UntracedCause::stop_window);
    r.src.stop(280'000);
    ASSERT_EQ(r.src.stream().size(), 294u);
    const Bytes b1 = r.commit(0, {{0, 70}}, false, 10);
    const Bytes b2 = r.commit(80, {{70, 224}}, false, 11, false);
    ASSERT_EQ(b2.size(), 256u);
    r.read(0, b1, 0, 80, 10);
    r.read(80, b2, 0, 256, 11);
    r.checker->on_aux_record(0, 0, 80, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 7u);
    EXPECT_EQ(r.stats().bytes_delivered, 70u);
    EXPECT_EQ(r.stats().bytes_lost, 224u);
    EXPECT_EQ(r.lost(GapCause::record_lost), 224u);
    EXPECT_EQ(r.gaps(GapCause::record_lost), 1u); // counts 7..34
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// A read whose byte 100 (frame 6 = AUX [96, 112), source bytes [84, 98): packet 7 and the
// start of a sync) is wrong. The frame is corrupted; the decoder resynchronises at the sync
// at 138 (the sync tail 98..106 has too few zeros), decoding again from count 12 (byte 152).
// Corrupted: [84, 98) + [98, 138) = 54; the sync [138, 152) it resynchronised on is decoded:
// delivered 460 - 54 = 406; one violation.
void wrong_byte(uint64_t read_seq, bool stale) {
    Rig r(4, 4096);
    forty_counts(r.src);
    Bytes b = r.commit(0, {{0, 460}}, false, 10);
    b[100] ^= 0x40;
    r.read(0, b, 0, 528, read_seq);
    r.checker->on_aux_record(0, 0, 528, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 7u + 28u); // 0..6, 12..39
    EXPECT_EQ(r.stats().bytes_corrupted, 54u);
    EXPECT_EQ(r.stats().bytes_delivered, 406u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.all_gaps(), 0u); // corruption is not a loss cause
    EXPECT_EQ(r.stats().violations_total, 1u);
    EXPECT_EQ(r.stats().violations_unexplained, 0u);
    EXPECT_EQ(r.stats().violations_stale, stale ? 1u : 0u);
    EXPECT_EQ(r.stats().violations_overrun, stale ? 0u : 1u);
    ASSERT_EQ(r.checker->violations().size(), 1u);
    EXPECT_EQ(r.checker->violations()[0].kind, stale ? "stale" : "overrun");
    EXPECT_EQ(r.checker->violations()[0].pos, 100u);
    EXPECT_EQ(r.checker->violations()[0].buffer, "cpu0.aux");
    EXPECT_EQ(r.checker->violations()[0].barriers, stale ? "B, C" : "A, D");
}

TEST(AuxChecker, WrongByteFromAnOlderStoreIsStale) {
    wrong_byte(7, true);
}
TEST(AuxChecker, WrongByteFromNoKnownStoreIsStale) {
    wrong_byte(0, true);
}
TEST(AuxChecker, WrongByteFromANewerStoreIsOverwritten) {
    wrong_byte(12, false);
}

// Committed and recorded, never read: all 460 bytes unread, no gap cause, no violation.
TEST(AuxChecker, CommitNeverReadIsUnread) {
    Rig r(4, 4096);
    forty_counts(r.src);
    r.commit(0, {{0, 460}}, false, 10);
    r.checker->on_aux_record(0, 0, 528, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 0u);
    EXPECT_EQ(r.stats().bytes_unread, 460u);
    EXPECT_EQ(r.stats().bytes_delivered, 0u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.all_gaps(), 0u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// Snapshot mode, AUX buffer 160 bytes, one harvest of 528 bytes at AUX 0 (E6: the copy wraps
// and only the last 160 bytes survive). The first 368 AUX bytes = 23 frames = source bytes
// [0, 322) are snapshot_overwrite. The tool reads [368, 528) (record: OVERWRITE, offset = new
// head 528, size 528). 322 is an A-Sync: counts 28..39 decode. Delivered 460 - 322 = 138.
TEST(AuxChecker, SnapshotLargerThanTheAuxBufferOverwritesItsOwnStart) {
    Rig r(4, 160, true);
    forty_counts(r.src);
    const Bytes b = r.commit(0, {{0, 460}}, false, 10);
    r.read(368, b, 368, 160, 10);
    r.checker->on_aux_record(0, 528, 528, PERF_AUX_FLAG_OVERWRITE);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 12u);
    EXPECT_EQ(r.lost(GapCause::snapshot_overwrite), 322u);
    EXPECT_EQ(r.stats().bytes_lost, 322u);
    EXPECT_EQ(r.stats().bytes_delivered, 138u);
    EXPECT_EQ(r.stats().bytes_unread, 0u);
    EXPECT_EQ(r.gaps(GapCause::snapshot_overwrite), 1u); // counts 0..27
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}
