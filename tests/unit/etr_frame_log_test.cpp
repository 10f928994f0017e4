// EtrFrameLog: frame -> source bytes runs (append, merge, drop, clip, forget) and lazy
// materialisation that is byte-identical to FrameEncoder and deformats back to the sources.
#include "models/coresight/etr_frame_log.h"

#include "models/common/types.h"
#include "models/coresight/etm_packets.h"
#include "models/coresight/etm_stream.h"
#include "models/coresight/formatter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <random>
#include <string>

using namespace ringsim::models::coresight;
using ringsim::models::ModelError;

namespace {

using Bytes = std::vector<uint8_t>;

std::string str(const std::vector<FrameRun>& v) {
    std::string s;
    for (const auto& r : v)
        s += "[f" + std::to_string(r.first_frame) + "+" + std::to_string(r.frames) + " id" +
             std::to_string(r.trace_id) + " b" + std::to_string(r.src_off) + "+" +
             std::to_string(r.src_bytes) + "]";
    return s;
}

std::string runs_in(const EtrFrameLog& log, uint64_t first, uint64_t n) {
    std::vector<FrameRun> v;
    log.runs_in(first, n, v);
    return str(v);
}

// What the formatter writes for one frame of m bytes of one source.
Bytes encoder_frame(uint8_t id, const uint8_t* data, size_t m) {
    FrameEncoder fe;
    Bytes out;
    fe.write(id, data, m, out);
    fe.flush(out);
    return out;
}

struct Collect : DeformatterSink {
    std::map<int, Bytes> streams;
    uint64_t unattributed = 0;
    void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t) override {
        streams[id].insert(streams[id].end(), data, data + n);
    }
    void on_unattributed(uint64_t, size_t n) override { unattributed += n; }
};

// Two ETMs whose bytes a funnel passes to the log in random pieces: whole frames while a
// source runs, and its remainder (a partial frame) when it stops.
struct TwoSources {
    EtmStream a{0x10, 7};
    EtmStream b{0x6f, 0};
    uint64_t sent_a = 0, sent_b = 0;
    EtrFrameLog log;
    Bytes expected; // the frames, each made by a fresh FrameEncoder

    EtmStream& stream(uint8_t id) { return id == a.trace_id() ? a : b; }

    void send(EtmStream& s, uint64_t& sent, uint64_t n) {
        if (n == 0) return;
        const uint64_t frames = log.append(s.trace_id(), sent, n);
        EXPECT_EQ(frames, (n + 13) / 14);
        Bytes data(n);
        s.read(sent, n, data.data());
        for (uint64_t at = 0; at < n; at += 14) {
            const Bytes f =
                encoder_frame(s.trace_id(), data.data() + at, std::min<uint64_t>(14, n - at));
            expected.insert(expected.end(), f.begin(), f.end());
        }
        sent += n;
    }

    void step(std::mt19937_64& rng) {
        const bool pick_a = rng() % 2 == 0;
        EtmStream& s = pick_a ? a : b;
        uint64_t& sent = pick_a ? sent_a : sent_b;
        const auto r = rng() % 8;
        if (!s.running()) {
            s.start(s.next_count() + rng() % 50);
        } else if (r == 0) {
            s.stop();
            send(s, sent, s.size() - sent); // the source flushes: a partial frame may follow
            return;
        } else {
            s.produce(rng() % 40);
        }
        const uint64_t whole = (s.size() - sent) / 14;
        send(s, sent, std::min<uint64_t>(whole, rng() % 30) * 14);
    }
};

} // namespace

TEST(EtrFrameLog, PackSourceFrameMatchesFrameEncoder) {
    std::mt19937_64 rng(7);
    for (uint8_t id : {uint8_t{0x01}, uint8_t{0x10}, uint8_t{0x6f}}) {
        for (size_t m = 1; m <= 14; ++m) {
            for (int rep = 0; rep < 50; ++rep) {
                uint8_t d[14];
                for (auto& x : d)
                    x = rep == 0 ? 0xff : rep == 1 ? 0x00 : static_cast<uint8_t>(rng());
                uint8_t f[16];
                pack_source_frame(id, d, m, f);
                const Bytes want = encoder_frame(id, d, m);
                ASSERT_EQ(want.size(), 16u);
                ASSERT_TRUE(std::equal(want.begin(), want.end(), f))
                    << "id " << int(id) << " m " << m << " rep " << rep;
            }
        }
    }
}

TEST(EtrFrameLog, AppendMergesContinuingBytesOfOneSource) {
    EtrFrameLog log;
    EXPECT_EQ(log.append(1, 0, 28), 2u);
    EXPECT_EQ(log.append(1, 28, 14), 1u); // continues: merged
    EXPECT_EQ(log.runs(), 1u);
    EXPECT_EQ(log.append(1, 50, 14), 1u); // a hole in the source bytes: new run
    EXPECT_EQ(log.append(2, 64, 20), 2u); // another source, with a partial frame
    EXPECT_EQ(log.append(2, 84, 14), 1u); // after a partial frame: new run
    EXPECT_EQ(log.append(1, 64, 5), 1u);  // source 1 again, not after its last run
    EXPECT_EQ(log.append(1, 69, 0), 0u);
    EXPECT_EQ(log.frames(), 8u);
    EXPECT_EQ(
        runs_in(log, 0, 8),
        "[f0+3 id1 b0+42][f3+1 id1 b50+14][f4+2 id2 b64+20][f6+1 id2 b84+14][f7+1 id1 b64+5]");
    EXPECT_EQ(log.append(1, 69, 14), 1u); // after a partial frame, even of the same source
    EXPECT_EQ(log.runs(), 6u);
    EXPECT_THROW(log.append(0, 0, 14), ModelError);
    EXPECT_THROW(log.append(0x70, 0, 14), ModelError);
}

TEST(EtrFrameLog, DropNewestSplitsARun) {
    EtrFrameLog log;
    log.append(3, 1000, 14 * 10 + 3); // 11 frames, the last with 3 bytes
    log.append(4, 0, 28);             // 2 frames
    std::vector<FrameRun> out;
    log.drop_newest(1, out);
    EXPECT_EQ(str(out), "[f12+1 id4 b14+14]");
    out.clear();
    log.drop_newest(5, out); // the rest of source 4 and 4 frames of source 3
    EXPECT_EQ(str(out), "[f7+4 id3 b1098+45][f11+1 id4 b0+14]");
    EXPECT_EQ(log.frames(), 7u);
    EXPECT_EQ(runs_in(log, 0, 7), "[f0+7 id3 b1000+98]");
    // The kept part ends with a full frame: the source continuing right after it merges.
    log.append(3, 1098, 14);
    EXPECT_EQ(runs_in(log, 0, 8), "[f0+8 id3 b1000+112]");
    out.clear();
    log.drop_newest(0, out);
    EXPECT_TRUE(out.empty());
    EXPECT_THROW(log.drop_newest(9, out), ModelError);
    log.drop_newest(8, out);
    EXPECT_EQ(log.frames(), 0u);
    EXPECT_EQ(log.runs(), 0u);
    EXPECT_EQ(log.append(5, 0, 14), 1u);
    EXPECT_EQ(runs_in(log, 0, 1), "[f0+1 id5 b0+14]");
}

TEST(EtrFrameLog, RunsInClipsAtBothEnds) {
    EtrFrameLog log;
    log.append(1, 100, 14 * 4 + 6); // frames 0..4, frame 4 has 6 bytes
    log.append(2, 0, 14 * 3);       // frames 5..7
    log.append(1, 500, 9);          // frame 8, partial
    EXPECT_EQ(runs_in(log, 1, 2), "[f1+2 id1 b114+28]");
    EXPECT_EQ(runs_in(log, 3, 2), "[f3+2 id1 b142+20]"); // ends with the partial frame
    EXPECT_EQ(runs_in(log, 4, 1), "[f4+1 id1 b156+6]");
    EXPECT_EQ(runs_in(log, 2, 5), "[f2+3 id1 b128+34][f5+2 id2 b0+28]");
    EXPECT_EQ(runs_in(log, 6, 3), "[f6+2 id2 b14+28][f8+1 id1 b500+9]");
    EXPECT_EQ(runs_in(log, 0, 9), "[f0+5 id1 b100+62][f5+3 id2 b0+42][f8+1 id1 b500+9]");
    EXPECT_EQ(runs_in(log, 9, 0), "");
    EXPECT_EQ(runs_in(log, 3, 0), "");
    std::vector<FrameRun> v;
    EXPECT_THROW(log.runs_in(8, 2, v), ModelError);
    EXPECT_THROW(log.runs_in(10, 0, v), ModelError);
}

TEST(EtrFrameLog, MaterializeMatchesFrameEncoderAndRoundTrips) {
    std::mt19937_64 rng(2024);
    for (int rep = 0; rep < 10; ++rep) {
        SCOPED_TRACE("rep " + std::to_string(rep));
        TwoSources t;
        for (int i = 0; i < 400; ++i)
            t.step(rng);
        t.a.stop();
        t.b.stop();
        t.send(t.a, t.sent_a, t.a.size() - t.sent_a);
        t.send(t.b, t.sent_b, t.b.size() - t.sent_b);
        auto stream_of = [&](uint8_t id) -> const EtmStream& { return t.stream(id); };
        const uint64_t frames = t.log.frames();
        ASSERT_EQ(t.expected.size(), frames * kFrameSize);
        Bytes got(frames * kFrameSize);
        t.log.materialize(0, frames, stream_of, got.data());
        for (uint64_t f = 0; f < frames; ++f)
            ASSERT_TRUE(std::equal(got.begin() + f * 16, got.begin() + f * 16 + 16,
                                   t.expected.begin() + f * 16))
                << "frame " << f;
        for (int k = 0; k < 100; ++k) {
            const uint64_t first = rng() % (frames + 1);
            const uint64_t n = rng() % (frames - first + 1);
            Bytes part(n * kFrameSize);
            t.log.materialize(first, n, stream_of, part.data());
            ASSERT_TRUE(std::equal(part.begin(), part.end(), got.begin() + first * 16));
        }
        // Deformatted, the frames give back both sources' whole streams.
        Collect c;
        Deformatter d(c);
        d.feed(got);
        d.finish();
        EXPECT_EQ(c.unattributed, 0u);
        ASSERT_EQ(c.streams.size(), 2u);
        Bytes a(t.a.size()), b(t.b.size());
        t.a.read(0, a.size(), a.data());
        t.b.read(0, b.size(), b.data());
        EXPECT_TRUE(c.streams.at(0x10) == a);
        EXPECT_TRUE(c.streams.at(0x6f) == b);
    }
}

TEST(EtrFrameLog, ForgetBeforeKeepsMemoryBounded) {
    EtrFrameLog log;
    uint64_t off1 = 0, off2 = 0;
    for (int i = 0; i < 100000; ++i) {
        // Alternating sources: no run ever merges.
        if (i % 2 == 0) {
            log.append(1, off1, 14 * 3);
            off1 += 14 * 3;
        } else {
            log.append(2, off2, 14 * 2 + 1);
            off2 += 14 * 2 + 1;
        }
        if (log.frames() > 1000) log.forget_before(log.frames() - 1000);
        ASSERT_LE(log.runs(), 1000u / 2 + 2);
    }
    const uint64_t end = log.frames();
    EXPECT_EQ(end, 50000u * 3 + 50000u * 3);
    EXPECT_EQ(log.first_kept(), end - 1000);
    std::vector<FrameRun> v;
    EXPECT_THROW(log.runs_in(end - 1001, 1, v), ModelError);
    // Forgetting backwards or past the end is harmless (clipped).
    log.forget_before(0);
    EXPECT_EQ(log.first_kept(), end - 1000);
    log.forget_before(end + 50);
    EXPECT_EQ(log.first_kept(), end);
    EXPECT_EQ(log.runs(), 0u);
    EXPECT_THROW(log.drop_newest(1, v), ModelError); // those frames are gone
    EXPECT_EQ(log.append(1, off1, 14), 1u);
    EXPECT_EQ(runs_in(log, end, 1),
              "[f" + std::to_string(end) + "+1 id1 b" + std::to_string(off1) + "+14]");
    log.clear();
    EXPECT_EQ(log.frames(), 0u);
    EXPECT_EQ(log.first_kept(), 0u);
    EXPECT_EQ(log.runs(), 0u);
    EXPECT_EQ(log.append(2, 7, 14), 1u);
    EXPECT_EQ(runs_in(log, 0, 1), "[f0+1 id2 b7+14]");
}

TEST(EtrFrameLog, ForgetBeforeClipsTheStraddlingRun) {
    EtrFrameLog log;
    log.append(1, 0, 14 * 5); // frames 0..4
    log.append(2, 0, 29);     // frames 5..7, the last with 1 byte
    log.forget_before(3);
    EXPECT_EQ(log.runs(), 2u);
    EXPECT_EQ(log.first_kept(), 3u);
    EXPECT_EQ(runs_in(log, 3, 3), "[f3+2 id1 b42+28][f5+1 id2 b0+14]");
    std::vector<FrameRun> v;
    EXPECT_THROW(log.runs_in(2, 1, v), ModelError);
    log.forget_before(5);
    EXPECT_EQ(log.runs(), 1u);
    EXPECT_EQ(runs_in(log, 5, 3), "[f5+3 id2 b0+29]");
    EtmStream s(2, 0);
    s.start(0);
    s.produce(4);
    Bytes out(3 * kFrameSize);
    auto stream_of = [&](uint8_t) -> const EtmStream& { return s; };
    EXPECT_THROW(log.materialize(4, 1, stream_of, out.data()), ModelError);
    log.materialize(5, 3, stream_of, out.data());
    Bytes src(29);
    s.read(0, 29, src.data());
    const Bytes last = encoder_frame(2, src.data() + 28, 1);
    EXPECT_TRUE(std::equal(last.begin(), last.end(), out.begin() + 32));
}

TEST(EtrFrameLog, MaterializeThirtyTwoMegabytes) {
    EtmStream s(9, 500);
    s.start(0);
    s.produce((28u << 20) / kCountPacketSize);
    EtrFrameLog log;
    log.append(9, 0, s.size());
    Bytes out(log.frames() * kFrameSize);
    const auto t0 = std::chrono::steady_clock::now();
    log.materialize(
        0, log.frames(), [&](uint8_t) -> const EtmStream& { return s; }, out.data());
    const auto t1 = std::chrono::steady_clock::now();
    Collect c;
    Deformatter d(c);
    d.feed(out);
    d.finish();
    Bytes src(s.size());
    s.read(0, src.size(), src.data());
    EXPECT_TRUE(c.streams.at(9) == src);
    const double mb = static_cast<double>(out.size()) / (1 << 20);
    std::printf("[ bench    ] EtrFrameLog::materialize %.0f MB/s (%.0f MB of frames)\n",
                mb / std::chrono::duration<double>(t1 - t0).count(), mb);
}
