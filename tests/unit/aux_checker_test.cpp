// AuxChecker fed by hand (no simulation): sources with known streams, commits (runs, stores,
// the bytes the driver's copy stored), the tool's reads (exactly the bytes
// EtrFrameLog::materialize gives, or one byte wrong) and the PERF_RECORD_AUXs perf.data got.
// Each case checks the books exactly: bytes delivered / lost per cause / unread / corrupted,
// gaps per cause, violations by kind.
//
// Sources run at 1e9 B/s: C(t) = floor(t / 8000 ps). With a sync period of 4 counts the
// stream of one session started at count 0 is (start block 25 bytes, periodic sync 24,
// packet 8: packet c at 25 + 8c + 24 * (c / 4), the sync before count 4m at 1 + 56m)
//   [start 0..25) [pkt 0..3: 25..57) [sync 57..81) [pkt 4..7: 81..113) [sync 113..137)
//   [pkt 8..11: 137..169) [sync 169..193) [pkt 12..15: 193..225) [sync 225..249)
//   [pkt 16..19: 249..281) [sync 281..305) [pkt 20..23: 305..337) [sync 337..361)
//   [pkt 24..27: 361..393) [sync 393..417) [pkt 28..31: 417..449) [sync 449..473)
//   [pkt 32..35: 473..505) [sync 505..529) [pkt 36..39: 529..561)
// so 40 counts (stopped at 320'000 ps) are 561 bytes = 40 full frames + one of 1 byte.
//
// Every case runs twice: with the books closed only at the end, and closed as far as they
// can be after every report (trace_books.h); the books must be the same.
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

// The checker's close_every for the case running (the parameter of AuxChecker below).
size_t g_close_every = 0;

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
            std::vector<EtmSource*>{&src}, std::vector<unsigned>{0},
            std::vector<CheckedAux>{{"cpu0.aux", aux_size, 0x9000'0000}}, snapshot, nullptr, 20,
            g_close_every);
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

// One session, 40 counts, 561 bytes.
void forty_counts(EtmSource& s) {
    s.start(0, UntracedCause::stop_window);
    s.stop(320'000);
    ASSERT_EQ(s.stream().size(), 561u);
}

// 0: books closed only at the end; 1: closed as far as they can be after every report.
class AuxCheckerCase : public ::testing::TestWithParam<size_t> {
protected:
    void SetUp() override { g_close_every = GetParam(); }
};

} // namespace

// One commit of all 41 frames (656 bytes), read whole, its record delivered.
TEST_P(AuxCheckerCase, AllDelivered) {
    Rig r(4, 4096);
    forty_counts(r.src);
    const Bytes b = r.commit(0, {{0, 561}}, false, 10);
    ASSERT_EQ(b.size(), 656u);
    r.read(0, b, 0, 656, 10);
    r.checker->on_aux_record(0, 0, 656, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().bytes_produced, 561u);
    EXPECT_EQ(r.stats().bytes_delivered, 561u);
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

// Harvest 1: frames of bytes [0, 105) (8 frames, the last of 7 bytes, AUX [0, 128)); 105
// ends packet 6. Lost in the sink (sink_wrap): [105, 393).
// Harvest 2 at AUX 128: barrier + frames of [393, 561) (12 frames, 208 bytes, TRUNCATED).
// 393 is an A-Sync: the decoder resynchronises at once, counts resume at 28 (byte 417).
// Delivered: [0, 105) + [393, 561) = 273; lost: exactly the 288 reported.
TEST_P(AuxCheckerCase, LossAtAPacketBoundaryBeforeAnASync) {
    Rig r(4, 4096);
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 105}}, false, 10);
    ASSERT_EQ(b1.size(), 128u);
    r.checker->on_trace_lost(0x10, 105, 288, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(128, {{393, 168}}, true, 11);
    ASSERT_EQ(b2.size(), 208u);
    r.read(0, b1, 0, 128, 10);
    r.checker->on_aux_record(0, 0, 128, 0);
    r.read(128, b2, 0, 208, 11);
    r.checker->on_aux_record(0, 128, 208, PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
    EXPECT_EQ(r.stats().bytes_produced, 561u);
    EXPECT_EQ(r.stats().decoded_packets, 7u + 12u); // 0..6, 28..39
    EXPECT_EQ(r.stats().bytes_delivered, 273u);
    EXPECT_EQ(r.stats().bytes_lost, 288u);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 288u);
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u); // counts 7..27
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().truncated_delivered, 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// As above but the loss is [105, 223) and harvest 2 (barrier + frames of [223, 561), 25
// frames, 416 bytes) starts 2 bytes before the end of packet 15 (217..225). The decoder skips
// those 2 bytes, finds the periodic A-Sync at 225 and resumes at count 16 (byte 249).
void loss_inside_a_packet(Rig& r) {
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 105}}, false, 10);
    r.checker->on_trace_lost(0x10, 105, 118, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(128, {{223, 338}}, true, 11);
    ASSERT_EQ(b2.size(), 416u);
    r.read(0, b1, 0, 128, 10);
    r.checker->on_aux_record(0, 0, 128, 0);
    r.read(128, b2, 0, 416, 11);
    r.checker->on_aux_record(0, 128, 416, PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
}

TEST_P(AuxCheckerCase, LossInsideAPacketIsOneSinkWrapGap) {
    Rig r(4, 4096);
    loss_inside_a_packet(r);
    EXPECT_EQ(r.stats().decoded_packets, 7u + 24u); // 0..6, 16..39
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u);     // counts 7..15
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
    // Decoded: [0, 105) and [249, 561) (417); the rest is lost to the wrap, at least the 118
    // reported and the 2 skipped; nothing unread or corrupted.
    EXPECT_GE(r.lost(GapCause::sink_wrap), 120u);
    EXPECT_EQ(r.stats().bytes_lost, r.lost(GapCause::sink_wrap));
    EXPECT_EQ(r.stats().bytes_delivered + r.stats().bytes_lost, 561u);
    EXPECT_EQ(r.stats().bytes_unread + r.stats().bytes_corrupted, 0u);
}

// Exact bytes: lost under sink_wrap = the 118 reported + the 2 skipped = 120. The sync block
// [225, 249) reached the decoder and resynchronised it, so it is delivered like any other
// sync that reached the decoder: delivered [0, 105) + [225, 561) = 441.
TEST_P(AuxCheckerCase, LossInsideAPacketLosesOnlyTheBytesSkippedBeforeTheASync) {
    Rig r(4, 4096);
    loss_inside_a_packet(r);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 120u);
    EXPECT_EQ(r.stats().bytes_lost, 120u);
    EXPECT_EQ(r.stats().bytes_delivered, 441u);
}

// Harvest 1 ends at byte 140 (10 frames), inside packet 8 (137..145): its first 3 bytes reach
// the decoder but can never be decoded. Loss [140, 393) (253 bytes); harvest 2 = barrier +
// [393, 561) at AUX 160.
void packet_cut_by_a_loss(Rig& r) {
    forty_counts(r.src);
    const Bytes b1 = r.commit(0, {{0, 140}}, false, 10);
    ASSERT_EQ(b1.size(), 160u);
    r.checker->on_trace_lost(0x10, 140, 253, TraceLoss::sink_wrap);
    const Bytes b2 = r.commit(160, {{393, 168}}, true, 11);
    r.read(0, b1, 0, 160, 10);
    r.checker->on_aux_record(0, 0, 160, 0);
    r.read(160, b2, 0, b2.size(), 11);
    r.checker->on_aux_record(0, 160, b2.size(), PERF_AUX_FLAG_TRUNCATED);
    r.checker->finish();
}

// The cut packet's bytes are lost to the wrap that cut it, not an unexplained violation.
TEST_P(AuxCheckerCase, PacketCutByALossIsNotUnexplained) {
    Rig r(4, 4096);
    packet_cut_by_a_loss(r);
    EXPECT_EQ(r.stats().decoded_packets, 8u + 12u); // 0..7, 28..39
    EXPECT_EQ(r.stats().violations_total, 0u);
    EXPECT_EQ(r.stats().violations_unexplained, 0u);
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u); // counts 8..27
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_GE(r.lost(GapCause::sink_wrap), 256u); // 253 reported + the 3 of packet 8
    EXPECT_EQ(r.stats().bytes_delivered + r.stats().bytes_lost, 561u);
    EXPECT_EQ(r.stats().bytes_unread + r.stats().bytes_corrupted, 0u);
}

// Exact bytes: lost 3 + 253 = 256; delivered [0, 137) (counts 0..7 and the sync after them,
// which the decoder read) + [393, 561) = 305.
TEST_P(AuxCheckerCase, PacketCutByALossLosesOnlyThePacket) {
    Rig r(4, 4096);
    packet_cut_by_a_loss(r);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 256u);
    EXPECT_EQ(r.stats().bytes_delivered, 305u);
}

// Two sessions with no sync period: counts 0..9 (0 .. 80'000 ps: 25 + 80 = 105 bytes), off
// until 160'000 (C = 20), counts 20..29 (to 240'000: 105 more). Each stop flushes a partial
// frame: 8 + 8 frames, one commit of 256 bytes, all read and recorded. Counts 10..19 are the
// untraced window: one stop_window gap, 10 * 8 = 80 bytes, not lost trace.
TEST_P(AuxCheckerCase, UntracedWindowIsAStopWindowGap) {
    Rig r(0, 4096);
    r.src.start(0, UntracedCause::stop_window);
    r.src.stop(80'000);
    r.src.start(160'000, UntracedCause::stop_window);
    // The window is the gap's cause; what the event books as untraced (its code ran with
    // the ETM off for half of it: CsEtmEvent) is what bytes.untraced counts.
    r.src.add_untraced(80'000, 120'000, UntracedCause::stop_window);
    r.src.stop(240'000);
    ASSERT_EQ(r.src.stream().size(), 210u);
    const Bytes b = r.commit(0, {{0, 105}, {105, 105}}, false, 10);
    ASSERT_EQ(b.size(), 256u);
    r.read(0, b, 0, 256, 10);
    r.checker->on_aux_record(0, 0, 256, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 20u);
    EXPECT_EQ(r.stats().bytes_delivered, 210u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.stats().bytes_untraced, 40u);
    EXPECT_EQ(r.lost(GapCause::stop_window), 40u);
    EXPECT_EQ(r.gaps(GapCause::stop_window), 1u);
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// 2,000 sessions of 10 counts each (25 + 80 = 105 bytes, no sync period), each with the 10
// counts after it untraced, each lost to the sink's wrap as soon as it ends; then one more
// session, committed, read and decoded. Books: the 210,000 bytes lost, the last 105
// delivered, one gap (the counts before the last session) whose cause is the first loss in
// it. Closed as the run goes, the stream and the source keep no history of the sessions
// behind the books; closed at the end, they keep all of it.
TEST_P(AuxCheckerCase, ManySessionsLostAsTheyComeLeaveNoHistoryBehind) {
    Rig r(0, 4096);
    const int sessions = 2000;
    for (int i = 0; i < sessions; ++i) {
        const uint64_t from = r.src.stream().size();
        r.src.start(Picos(i) * 160'000, UntracedCause::stop_window);
        r.src.stop(Picos(i) * 160'000 + 80'000);
        r.checker->on_trace_lost(r.src.trace_id(), from, r.src.stream().size() - from,
                                 TraceLoss::sink_wrap);
    }
    r.src.start(Picos(sessions) * 160'000, UntracedCause::stop_window);
    r.src.stop(Picos(sessions) * 160'000 + 80'000);
    ASSERT_EQ(r.src.stream().size(), 105u * (sessions + 1));
    const Bytes b = r.commit(0, {{105u * sessions, 105}}, false, 10);
    r.read(0, b, 0, b.size(), 10);
    r.checker->on_aux_record(0, 0, b.size(), 0);
    if (GetParam()) {
        EXPECT_LE(r.src.stream().sessions().size(), 2u);
        EXPECT_LE(r.src.untraced().size(), 2u);
    } else {
        EXPECT_EQ(r.src.stream().sessions().size(), size_t(sessions) + 1);
        EXPECT_EQ(r.src.untraced().size(), size_t(sessions));
    }
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 10u);
    EXPECT_EQ(r.stats().bytes_produced, 105u * (sessions + 1));
    EXPECT_EQ(r.stats().bytes_delivered, 105u);
    EXPECT_EQ(r.lost(GapCause::sink_wrap), 105u * sessions);
    EXPECT_EQ(r.stats().bytes_lost, 105u * sessions);
    EXPECT_EQ(r.gaps(GapCause::sink_wrap), 1u);
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().discontinuities, 0u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// No sync period, 35 counts (0 .. 280'000 ps): 25 + 280 = 305 bytes.
// Harvest 1: [0, 81) = 6 frames, the last of 11 bytes (81 ends packet 6), AUX [0, 96),
// recorded.
// Harvest 2: [81, 305) = 16 frames, AUX [96, 352): its PERF_RECORD_AUX was lost (D11). The
// tool copies both, but only harvest 1 is decoded: 224 bytes lost as record_lost.
TEST_P(AuxCheckerCase, CommitWhoseRecordWasLost) {
    Rig r(0, 4096);
    r.src.start(0, UntracedCause::stop_window);
    r.src.stop(280'000);
    ASSERT_EQ(r.src.stream().size(), 305u);
    const Bytes b1 = r.commit(0, {{0, 81}}, false, 10);
    ASSERT_EQ(b1.size(), 96u);
    const Bytes b2 = r.commit(96, {{81, 224}}, false, 11, false);
    ASSERT_EQ(b2.size(), 256u);
    r.read(0, b1, 0, 96, 10);
    r.read(96, b2, 0, 256, 11);
    r.checker->on_aux_record(0, 0, 96, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 7u);
    EXPECT_EQ(r.stats().bytes_delivered, 81u);
    EXPECT_EQ(r.stats().bytes_lost, 224u);
    EXPECT_EQ(r.lost(GapCause::record_lost), 224u);
    EXPECT_EQ(r.gaps(GapCause::record_lost), 1u); // counts 7..34
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// A read whose byte 100 (frame 6 = AUX [96, 112), source bytes [84, 98): the last 5 bytes of
// packet 4, packet 5, the first byte of packet 6) is wrong. The frame is corrupted; packet 4
// is cut by it, and the decoder resynchronises at the next sync, 113 (after the rest of packet
// 6 and packet 7), decoding again from count 8 (byte 137).
// Corrupted: [81, 84) (packet 4's start, cut) + [84, 98) + [98, 113) = 32; the sync
// [113, 137) it resynchronised on is decoded: delivered 561 - 32 = 529; one violation.
void wrong_byte(uint64_t read_seq, bool stale) {
    Rig r(4, 4096);
    forty_counts(r.src);
    Bytes b = r.commit(0, {{0, 561}}, false, 10);
    b[100] ^= 0x40;
    r.read(0, b, 0, 656, read_seq);
    r.checker->on_aux_record(0, 0, 656, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 4u + 32u); // 0..3, 8..39
    EXPECT_EQ(r.stats().bytes_corrupted, 32u);
    EXPECT_EQ(r.stats().bytes_delivered, 529u);
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

TEST_P(AuxCheckerCase, WrongByteFromAnOlderStoreIsStale) {
    wrong_byte(7, true);
}
TEST_P(AuxCheckerCase, WrongByteFromNoKnownStoreIsStale) {
    wrong_byte(0, true);
}
TEST_P(AuxCheckerCase, WrongByteFromANewerStoreIsOverwritten) {
    wrong_byte(12, false);
}

// A read is compared in place with the bytes of the commit that wrote it only when no later
// commit wrote any of them (AuxChecker::kept_bytes), as expected_bytes() lets the later
// commit win. A made-up layout (the driver's harvests follow each other in free-running AUX
// offsets; none lands on another's): a second commit covers the second half of the first
// one's 656 bytes, and perf read the first one's bytes throughout. The second half is stale:
// from store 10 where store 11 was due. Comparing with the first commit's bytes because they
// cover the read, or with the newest commit that covers it all, would see nothing wrong.
TEST_P(AuxCheckerCase, ReadOfBytesALaterCommitWroteOverIsComparedWithThatCommit) {
    Rig r(4, 4096, true);
    forty_counts(r.src);
    const Bytes first = r.commit(0, {{0, 561}}, false, 10);
    r.commit(320, {{0, 561}}, false, 11);
    r.read(0, first, 0, 656, 10);
    EXPECT_EQ(r.stats().violations_total, 1u);
    EXPECT_EQ(r.stats().violations_stale, 1u);
    ASSERT_EQ(r.checker->violations().size(), 1u);
    EXPECT_EQ(r.checker->violations()[0].kind, "stale");
    EXPECT_GE(r.checker->violations()[0].pos, 320u); // the first half is the first commit's
}

// Committed and recorded, never read: all 561 bytes unread, no gap cause, no violation.
TEST_P(AuxCheckerCase, CommitNeverReadIsUnread) {
    Rig r(4, 4096);
    forty_counts(r.src);
    r.commit(0, {{0, 561}}, false, 10);
    r.checker->on_aux_record(0, 0, 656, 0);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 0u);
    EXPECT_EQ(r.stats().bytes_unread, 561u);
    EXPECT_EQ(r.stats().bytes_delivered, 0u);
    EXPECT_EQ(r.stats().bytes_lost, 0u);
    EXPECT_EQ(r.all_gaps(), 0u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// Snapshot mode, AUX buffer 160 bytes, one harvest of 656 bytes at AUX 0 (E6: the copy wraps
// and only the last 160 bytes survive). The first 496 AUX bytes = 31 frames = source bytes
// [0, 434) are snapshot_overwrite. The tool reads [496, 656) (record: OVERWRITE, offset = new
// head 656, size 656). 434 is inside packet 30 (433..441): the decoder skips [434, 449) to the
// A-Sync at 449, lost to the same overwrite; counts 32..39 decode. Delivered 561 - 449 = 112.
TEST_P(AuxCheckerCase, SnapshotLargerThanTheAuxBufferOverwritesItsOwnStart) {
    Rig r(4, 160, true);
    forty_counts(r.src);
    const Bytes b = r.commit(0, {{0, 561}}, false, 10);
    r.read(496, b, 496, 160, 10);
    r.checker->on_aux_record(0, 656, 656, PERF_AUX_FLAG_OVERWRITE);
    r.checker->finish();
    EXPECT_EQ(r.stats().decoded_packets, 8u);
    EXPECT_EQ(r.lost(GapCause::snapshot_overwrite), 449u);
    EXPECT_EQ(r.stats().bytes_lost, 449u);
    EXPECT_EQ(r.stats().bytes_delivered, 112u);
    EXPECT_EQ(r.stats().bytes_unread, 0u);
    EXPECT_EQ(r.gaps(GapCause::snapshot_overwrite), 1u); // counts 0..31
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

// The sink's FIFO drops whole frames and the trace says nothing (no ETM Overflow packet), so
// the decoder joins the bytes on either side of the drop. Sync period 10: 40 counts are
// 25 + 320 + 3 * 24 = 417 bytes, packet c at 25 + 8c + 24 (c / 10), the sync before count 10m
// at 1 + 104m. One commit of frames [0, cut) then [resume, 417), the frames of [cut, resume)
// reported lost to the FIFO overflow; all read and recorded.
void fifo_drop(Rig& r, uint64_t cut, uint64_t resume, uint64_t frames) {
    r.src.start(0, UntracedCause::stop_window);
    r.src.stop(320'000);
    ASSERT_EQ(r.src.stream().size(), 417u);
    r.checker->on_trace_lost(0x10, cut, resume - cut, TraceLoss::fifo_overflow);
    const Bytes b = r.commit(0, {{0, cut}, {resume, 417 - resume}}, false, 10);
    ASSERT_EQ(b.size(), frames * kFrameSize);
    r.read(0, b, 0, b.size(), 10);
    r.checker->on_aux_record(0, 0, b.size(), 0);
    r.checker->finish();
}

// Exactly the splice aux_path_test met at 3 GB/s: frames [56, 98) (3 frames, 42 bytes)
// dropped. Packet 3 is [49, 57): its first 7 bytes (0xf7, 0x02, 5 value bytes with the
// continuation bit) reach the decoder, then packet 9's bytes from 98, its 0x02 header, which
// ends the Timestamp as its 6th value byte: count 3 + 2^36, never produced. (Possible since
// the 25-byte start block: packets start at odd offsets, so 7 bytes into one is a frame
// boundary.) The next byte, packet 9's first value byte 0x89, is no header: the decoder looks
// for the A-Sync at 105 and resumes at count 10 (129).
// The splice is booked as one, never as a count (nor as an "unexplained" violation): lost to
// the overflow are [49, 56) (packet 3's bytes that arrived), the 42 dropped and [98, 105)
// (skipped to the sync): 56; delivered 417 - 56 = 361. Counts 3..9: one fifo_overflow gap.
TEST_P(AuxCheckerCase, FifoDropSplicingAPacketIntoANeverProducedCountIsASplice) {
    Rig r(10, 4096);
    fifo_drop(r, 56, 98, 4 + 23);
    EXPECT_EQ(r.stats().spliced_packets, 1u);
    EXPECT_EQ(r.stats().decoded_packets, 3u + 30u + 1u); // 0..2, 10..39, the splice
    EXPECT_EQ(r.stats().bytes_delivered, 361u);
    EXPECT_EQ(r.lost(GapCause::fifo_overflow), 56u);
    EXPECT_EQ(r.stats().bytes_lost, 56u);
    EXPECT_EQ(r.stats().bytes_corrupted, 0u);
    EXPECT_EQ(r.gaps(GapCause::fifo_overflow), 1u);
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().discontinuities, 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
    EXPECT_TRUE(r.checker->violations().empty());
}

// The same kind of splice decoding to a plausible count: frames [84, 140) (4 frames) dropped.
// Packet 7 is [81, 89): its first 3 bytes (0xf7, 0x02, 0x87) arrive, then packet 11's
// ([137, 145)) last 5 value bytes from 140 (0x80 x 4, 0x00): the decoder gets count 7, the very
// count it expected, and goes on with count 12 (145). Still a splice (its bytes are not one
// packet of the source), not a delivered count 7: lost [81, 84) + 56 + [140, 145) = 64,
// delivered 353, counts 7..11 one fifo_overflow gap.
TEST_P(AuxCheckerCase, FifoDropSplicingAPacketIntoTheExpectedCountIsStillASplice) {
    Rig r(10, 4096);
    fifo_drop(r, 84, 140, 6 + 20);
    EXPECT_EQ(r.stats().spliced_packets, 1u);
    EXPECT_EQ(r.stats().decoded_packets, 7u + 28u + 1u); // 0..6, 12..39, the splice
    EXPECT_EQ(r.stats().bytes_delivered, 353u);
    EXPECT_EQ(r.lost(GapCause::fifo_overflow), 64u);
    EXPECT_EQ(r.stats().bytes_lost, 64u);
    EXPECT_EQ(r.stats().bytes_corrupted, 0u);
    EXPECT_EQ(r.gaps(GapCause::fifo_overflow), 1u);
    EXPECT_EQ(r.all_gaps(), 1u);
    EXPECT_EQ(r.stats().discontinuities, 1u);
    EXPECT_EQ(r.stats().violations_total, 0u);
}

INSTANTIATE_TEST_SUITE_P(Closing, AuxCheckerCase, ::testing::Values(size_t{0}, size_t{1}),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                             return i.param ? std::string("AsTheRunGoes") : std::string("AtTheEnd");
                         });
