// CoreSight formatter frames: exact frame bytes for every ID-change position, flush padding,
// round trips of interleaved sources under any chunking, FSYNC / barrier packets and corrupt
// frames in the deformatter.
#include "models/coresight/formatter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>

using namespace ringsim::models::coresight;

namespace {

using Bytes = std::vector<uint8_t>;

struct Collect : DeformatterSink {
    std::map<int, Bytes> streams;
    std::vector<std::string> events;
    uint64_t unattributed = 0;

    void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t frame_pos) override {
        EXPECT_EQ(frame_pos % 4, 0u);
        streams[id].insert(streams[id].end(), data, data + n);
    }
    void on_fsync(uint64_t pos, uint64_t count) override {
        events.push_back("fsync@" + std::to_string(pos) + "x" + std::to_string(count));
    }
    void on_frame_error(uint64_t pos, FrameError e, uint64_t bytes) override {
        events.push_back(std::string(to_string(e)) + "@" + std::to_string(pos) + "+" +
                         std::to_string(bytes));
    }
    void on_unattributed(uint64_t frame_pos, size_t n) override { unattributed += n; }
};

Collect deformat(const Bytes& b, size_t chunk = 0, DeformatterStats* stats = nullptr) {
    Collect c;
    Deformatter d(c);
    if (chunk == 0) chunk = b.empty() ? 1 : b.size();
    for (size_t at = 0; at < b.size(); at += chunk)
        d.feed(b.data() + at, std::min(chunk, b.size() - at));
    d.finish();
    if (stats) *stats = d.stats();
    return c;
}

Bytes seq(size_t n, uint8_t first = 0) {
    Bytes b(n);
    for (size_t i = 0; i < n; ++i)
        b[i] = static_cast<uint8_t>(first + i);
    return b;
}

// Data byte as the deformatter reads it back out of slot `slot` of a frame.
uint8_t read_data(const Bytes& f, size_t slot) {
    if (slot % 2) return f[slot];
    return static_cast<uint8_t>((f[slot] & 0xfe) | ((f[15] >> (slot / 2)) & 1));
}

} // namespace

TEST(Formatter, BarrierPacketIsFourLittleEndianFsyncWords) {
    uint8_t b[kBarrierSize];
    insert_barrier_packet(b);
    for (size_t i = 0; i < kBarrierSize; i += 4) {
        uint32_t w = uint32_t{b[i]} | uint32_t{b[i + 1]} << 8 | uint32_t{b[i + 2]} << 16 |
                     uint32_t{b[i + 3]} << 24;
        EXPECT_EQ(w, kFsyncWord);
        EXPECT_TRUE(is_fsync(b + i));
    }
    const uint8_t not_fsync[] = {0xff, 0xff, 0x7f, 0xff};
    EXPECT_FALSE(is_fsync(not_fsync));
}

TEST(Formatter, OneSourceFrameLayout) {
    FrameEncoder enc;
    Bytes out;
    // 14 bytes: ID in byte 0, data in bytes 1..14. Byte values with bit 0 set and clear.
    const Bytes data = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                        0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
    ASSERT_TRUE(enc.write(0x10, data, out));
    ASSERT_EQ(out.size(), 16u);
    EXPECT_EQ(out[0], 0x21);   // ID 0x10 << 1 | 1
    EXPECT_EQ(out[15] & 1, 0); // takes effect at once
    for (size_t slot = 1; slot <= 14; ++slot)
        EXPECT_EQ(read_data(out, slot), data[slot - 1]);
    // Even data slots keep bits 7:1 and put bit 0 in byte 15.
    EXPECT_EQ(out[2], 0x22);
    EXPECT_EQ(out[4], 0x44);
    EXPECT_EQ(out[14], 0xee);
    EXPECT_EQ(out[15], 0x00); // 0x22,0x44,...,0xee all even
    EXPECT_EQ(enc.pending_slots(), 0u);
    EXPECT_EQ(enc.frames(), 1u);
}

TEST(Formatter, DataBitZeroGoesToByteFifteen) {
    FrameEncoder enc(FormatterOptions{false});
    Bytes out;
    // With no ID per frame the second frame is 15 data bytes: all odd values in even slots.
    const Bytes first = seq(14, 0);
    enc.write(1, first, out);
    Bytes odd(15, 0xff);
    enc.write(1, odd, out);
    ASSERT_EQ(out.size(), 32u);
    const Bytes f(out.begin() + 16, out.end());
    EXPECT_EQ(f[15], 0xff);
    for (size_t slot = 0; slot < 15; slot += 2)
        EXPECT_EQ(f[slot], 0xfe);
}

TEST(Formatter, EveryByteValueInEverySlotRoundTrips) {
    for (int every : {0, 1}) {
        FrameEncoder enc(FormatterOptions{every == 1});
        Bytes out;
        Bytes all;
        for (int rep = 0; rep < 15; ++rep) {
            const Bytes s = seq(256, static_cast<uint8_t>(rep));
            all.insert(all.end(), s.begin(), s.end());
        }
        enc.write(0x6f, all, out);
        enc.flush(out);
        ASSERT_EQ(out.size() % 16, 0u);
        const Collect c = deformat(out);
        ASSERT_EQ(c.streams.size(), 1u);
        EXPECT_EQ(c.streams.at(0x6f), all);
    }
}

TEST(Formatter, IdChangeInEvenSlotTakesEffectAtOnce) {
    FrameEncoder enc;
    Bytes out;
    enc.write(1, Bytes{0xa1}, out);       // ID@0, data@1
    enc.write(2, Bytes{0xb2, 0xb3}, out); // ID@2 immediate, data@3, data@4
    enc.write(2, seq(10, 0x40), out);     // slots 5..14
    ASSERT_EQ(out.size(), 16u);
    EXPECT_EQ(out[0], 0x03);
    EXPECT_EQ(out[1], 0xa1);
    EXPECT_EQ(out[2], 0x05);
    EXPECT_EQ((out[15] >> 1) & 1, 0);
    EXPECT_EQ(out[3], 0xb2);
    EXPECT_EQ(read_data(out, 4), 0xb3);
    const Collect c = deformat(out);
    EXPECT_EQ(c.streams.at(1), Bytes{0xa1});
    Bytes want2 = {0xb2, 0xb3};
    const Bytes rest = seq(10, 0x40);
    want2.insert(want2.end(), rest.begin(), rest.end());
    EXPECT_EQ(c.streams.at(2), want2);
}

TEST(Formatter, IdChangeInOddSlotUsesTheDelayedFlag) {
    FrameEncoder enc;
    Bytes out;
    enc.write(1, Bytes{0xa1, 0xa3}, out); // ID@0, data@1, data@2 (even)
    enc.write(2, Bytes{0xb5}, out);       // slot 3 is odd: ID moves to 2, 0xa3 to 3
    enc.write(2, seq(10, 0x40), out);     // slots 5..14
    ASSERT_EQ(out.size(), 16u);
    EXPECT_EQ(out[0], 0x03);
    EXPECT_EQ(out[1], 0xa1);
    EXPECT_EQ(out[2], 0x05);            // ID 2 ...
    EXPECT_EQ((out[15] >> 1) & 1, 1);   // ... after the next byte
    EXPECT_EQ(out[3], 0xa3);            // still ID 1's byte, bit 0 intact
    EXPECT_EQ(read_data(out, 4), 0xb5); // ID 2's first byte
    const Collect c = deformat(out);
    EXPECT_EQ(c.streams.at(1), (Bytes{0xa1, 0xa3}));
    Bytes want2 = {0xb5};
    const Bytes rest = seq(10, 0x40);
    want2.insert(want2.end(), rest.begin(), rest.end());
    EXPECT_EQ(c.streams.at(2), want2);
}

TEST(Formatter, IdChangeAtSlotFourteen) {
    for (int every : {0, 1}) {
        FrameEncoder enc(FormatterOptions{every == 1});
        Bytes out;
        enc.write(1, seq(14), out); // ID@0 + 14 data: a whole frame either way
        EXPECT_EQ(enc.pending_slots(), 0u);
        EXPECT_EQ(out.size(), 16u);
        FrameEncoder enc2(FormatterOptions{every == 1});
        Bytes o2;
        enc2.write(1, seq(13), o2); // slots 0..13 used
        EXPECT_EQ(enc2.pending_slots(), 14u);
        enc2.write(2, Bytes{0x77}, o2); // ID 2 in slot 14, data in the next frame
        ASSERT_EQ(o2.size(), 16u);
        EXPECT_EQ(o2[14], 0x05);
        EXPECT_EQ(o2[15] >> 7, 0);
        enc2.flush(o2);
        ASSERT_EQ(o2.size(), 32u);
        if (!every) {
            // 0x77 went to slot 0 with no ID; flush() then put the null ID in slot 0 with
            // "after the next byte" and moved 0x77 to slot 1.
            EXPECT_EQ(o2[16], 0x01);
            EXPECT_EQ(o2[31] & 1, 1);
            EXPECT_EQ(o2[17], 0x77);
        }
        const Collect c = deformat(o2);
        EXPECT_EQ(c.streams.at(1), seq(13));
        EXPECT_EQ(c.streams.at(2), Bytes{0x77});
    }
}

TEST(Formatter, AuxBitSevenOfAnIdInSlotFourteenIsIgnored) {
    FrameEncoder enc;
    Bytes out;
    enc.write(1, seq(13), out);
    enc.write(2, Bytes{0x77, 0x78}, out);
    enc.flush(out);
    out[15] |= 0x80;
    const Collect c = deformat(out);
    EXPECT_EQ(c.streams.at(2), (Bytes{0x77, 0x78}));
}

// Every position of an ID change, with every length of the second source's write.
TEST(Formatter, IdChangesAtEveryPositionRoundTrip) {
    for (int every : {0, 1}) {
        for (size_t a = 1; a <= 32; ++a) {
            for (size_t b = 1; b <= 17; ++b) {
                FrameEncoder enc(FormatterOptions{every == 1});
                Bytes out;
                const Bytes sa = seq(a, 0x10), sb = seq(b, 0x81), sc = seq(3, 0xf0);
                enc.write(3, sa, out);
                enc.write(0x40, sb, out);
                enc.write(3, sc, out);
                enc.flush(out);
                ASSERT_EQ(out.size() % 16, 0u);
                const Collect c = deformat(out);
                Bytes want_a = sa;
                want_a.insert(want_a.end(), sc.begin(), sc.end());
                EXPECT_EQ(c.streams.at(3), want_a) << a << " " << b << " " << every;
                EXPECT_EQ(c.streams.at(0x40), sb) << a << " " << b << " " << every;
                EXPECT_EQ(c.unattributed, 0u);
            }
        }
    }
}

TEST(Formatter, FlushPadsWithTheNullId) {
    for (size_t n = 1; n <= 14; ++n) {
        FrameEncoder enc;
        Bytes out;
        enc.write(9, seq(n, 1), out);
        if (n == 14) {
            EXPECT_EQ(enc.pending_slots(), 0u);
            enc.flush(out); // at a frame boundary: nothing to do
            EXPECT_EQ(out.size(), 16u);
            EXPECT_EQ(enc.padding_bytes(), 0u);
            continue;
        }
        enc.flush(out);
        ASSERT_EQ(out.size(), 16u) << n;
        EXPECT_EQ(enc.padding_bytes(), 14 - n);
        // The null ID sits in the first even slot at or before the end of the data.
        const size_t used = 1 + n; // ID + data
        const size_t id_slot = used % 2 == 0 ? used : used - 1;
        EXPECT_EQ(out[id_slot], 0x01) << n;
        EXPECT_EQ((out[15] >> (id_slot / 2)) & 1, used % 2 == 0 ? 0 : 1) << n;
        for (size_t s = id_slot + 2; s < 15; ++s)
            EXPECT_EQ(out[s], 0x00);
        DeformatterStats st;
        const Collect c = deformat(out, 0, &st);
        EXPECT_EQ(c.streams.at(9), seq(n, 1)) << n;
        EXPECT_EQ(st.null_bytes, 13 - n) << n; // all padding slots but the ID
    }
}

TEST(Formatter, WriteAfterFlushRestatesTheId) {
    FrameEncoder enc(FormatterOptions{false});
    Bytes out;
    enc.write(5, seq(3), out);
    enc.flush(out);
    enc.write(5, seq(3, 7), out);
    enc.flush(out);
    ASSERT_EQ(out.size(), 32u);
    EXPECT_EQ(out[16], 0x0b); // ID 5 again: the null ID was current after the padding
    const Collect c = deformat(out);
    Bytes want = seq(3);
    const Bytes more = seq(3, 7);
    want.insert(want.end(), more.begin(), more.end());
    EXPECT_EQ(c.streams.at(5), want);
}

TEST(Formatter, InvalidIdsAreRefused) {
    FrameEncoder enc;
    Bytes out;
    EXPECT_FALSE(enc.write(0x00, Bytes{1}, out));
    EXPECT_FALSE(enc.write(0x70, Bytes{1}, out));
    EXPECT_FALSE(enc.write(0x7f, Bytes{1}, out));
    EXPECT_FALSE(enc.write(0x80, Bytes{1}, out));
    EXPECT_TRUE(enc.write(0x01, Bytes{1}, out));
    EXPECT_TRUE(enc.write(0x6f, Bytes{1}, out));
    EXPECT_EQ(enc.pending_slots(), 4u);
}

TEST(Formatter, ResetDropsThePartialFrame) {
    FrameEncoder enc(FormatterOptions{false});
    Bytes out;
    enc.write(5, seq(20), out);
    EXPECT_EQ(out.size(), 16u);
    enc.reset();
    EXPECT_EQ(enc.pending_slots(), 0u);
    enc.write(5, seq(2), out);
    enc.flush(out);
    EXPECT_EQ(out[16], 0x0b); // ID stated again after the reset
}

// Several sources, random write sizes, random flushes, random chunking on the way back.
TEST(Formatter, RandomInterleavingRoundTrips) {
    std::mt19937_64 rng(3);
    for (int round = 0; round < 300; ++round) {
        FrameEncoder enc(FormatterOptions{round % 2 == 0});
        Bytes out;
        std::map<int, Bytes> want;
        const uint8_t ids[] = {1, 2, 0x10, 0x33, 0x6f};
        const int writes = 1 + static_cast<int>(rng() % 60);
        for (int w = 0; w < writes; ++w) {
            const uint8_t id = ids[rng() % 5];
            Bytes d(rng() % 40);
            for (auto& x : d)
                x = static_cast<uint8_t>(rng());
            enc.write(id, d, out);
            if (!d.empty()) want[id].insert(want[id].end(), d.begin(), d.end());
            if (rng() % 10 == 0) enc.flush(out);
        }
        enc.flush(out);
        ASSERT_EQ(out.size() % 16, 0u);
        DeformatterStats st;
        const Collect c = deformat(out, 1 + rng() % 40, &st);
        EXPECT_EQ(c.streams, want) << round;
        EXPECT_EQ(st.frames * 16, out.size());
        EXPECT_EQ(st.unattributed_bytes + st.partial_bytes + st.reserved_id_bytes, 0u);
        EXPECT_TRUE(c.events.empty());
    }
}

TEST(Deformatter, BarrierOverTheFirstFrameIsRecognisedAndTheRestDecodes) {
    // Two sources; the driver overwrote frame 0 of the capture with the barrier packet.
    FrameEncoder enc;
    Bytes out;
    for (int i = 0; i < 40; ++i)
        enc.write(i % 3 == 0 ? 7 : 8, seq(5 + i % 7, static_cast<uint8_t>(i * 13)), out);
    enc.flush(out);
    ASSERT_GE(out.size(), 64u);
    // What each frame holds, decoded frame by frame (every frame states its ID).
    std::map<int, Bytes> want;
    for (size_t f = 1; f < out.size() / 16; ++f) {
        const Collect one = deformat(Bytes(out.begin() + 16 * f, out.begin() + 16 * (f + 1)));
        for (auto& [id, b] : one.streams)
            want[id].insert(want[id].end(), b.begin(), b.end());
    }
    insert_barrier_packet(out.data());
    DeformatterStats st;
    const Collect c = deformat(out, 0, &st);
    ASSERT_FALSE(c.events.empty());
    EXPECT_EQ(c.events.front(), "fsync@0x4");
    EXPECT_EQ(c.events.size(), 1u);
    EXPECT_EQ(st.barriers, 1u);
    EXPECT_EQ(st.fsyncs, 4u);
    EXPECT_EQ(st.frames * 16 + 16, out.size());
    EXPECT_EQ(c.streams, want);
    EXPECT_EQ(c.unattributed, 0u);
    // Any chunking finds the same.
    for (size_t chunk = 1; chunk <= 20; ++chunk) {
        const Collect cc = deformat(out, chunk);
        EXPECT_EQ(cc.events, c.events) << chunk;
        EXPECT_EQ(cc.streams, c.streams) << chunk;
    }
}

TEST(Deformatter, WithoutIdPerFrameDataAfterABarrierIsUnattributed) {
    FrameEncoder enc(FormatterOptions{false});
    Bytes out;
    enc.write(7, seq(39), out);      // frames 0, 1, slots 0..9 of 2: ID only in frame 0
    enc.write(8, seq(4, 0x90), out); // ID 8 appears inside frame 2
    enc.flush(out);
    ASSERT_EQ(out.size(), 48u);
    insert_barrier_packet(out.data());
    DeformatterStats st;
    const Collect c = deformat(out, 0, &st);
    // Frame 1 (15 bytes) and frame 2's 10 bytes of ID 7 have no known ID after the barrier.
    EXPECT_EQ(c.unattributed, 15u + 10u);
    EXPECT_EQ(c.streams.count(7), 0u);
    EXPECT_EQ(c.streams.at(8), seq(4, 0x90));
}

TEST(Deformatter, FsyncsBetweenFramesAndRunsNotAWholeFrame) {
    FrameEncoder enc;
    Bytes frames;
    enc.write(4, seq(28), frames); // two frames
    Bytes b(frames.begin(), frames.begin() + 16);
    uint8_t fs[16];
    insert_barrier_packet(fs);
    b.insert(b.end(), fs, fs + 8); // two FSYNCs: not a whole frame
    b.insert(b.end(), frames.begin() + 16, frames.end());
    DeformatterStats st;
    const Collect c = deformat(b, 0, &st);
    const std::vector<std::string> want = {"fsync@16x2",
                                           "FSYNC run not a whole number of frames@16+8"};
    EXPECT_EQ(c.events, want);
    EXPECT_EQ(c.streams.at(4), seq(28)); // framing continues after the FSYNCs
    EXPECT_EQ(st.fsync_runs, 1u);
    EXPECT_EQ(st.barriers, 0u);
    for (size_t chunk = 1; chunk < 12; ++chunk)
        EXPECT_EQ(deformat(b, chunk).events, want);
}

TEST(Deformatter, TwoBarriersInARowAreOneRun) {
    Bytes b(32);
    insert_barrier_packet(b.data());
    insert_barrier_packet(b.data() + 16);
    FrameEncoder enc;
    enc.write(4, seq(14), b);
    DeformatterStats st;
    const Collect c = deformat(b, 3, &st);
    EXPECT_EQ(c.events, std::vector<std::string>{"fsync@0x8"});
    EXPECT_EQ(st.barriers, 1u);
    EXPECT_EQ(c.streams.at(4), seq(14));
}

TEST(Deformatter, ReservedIdFrameIsCorruptAndDropped) {
    FrameEncoder enc;
    Bytes out;
    enc.write(4, seq(14 * 3), out);
    ASSERT_EQ(out.size(), 48u);
    Bytes bad = out;
    bad[16 + 6] = static_cast<uint8_t>((0x72 << 1) | 1); // reserved ID in frame 1
    DeformatterStats st;
    const Collect c = deformat(bad, 0, &st);
    EXPECT_EQ(c.events, std::vector<std::string>{"reserved trace ID@16+16"});
    EXPECT_EQ(st.reserved_id_frames, 1u);
    Bytes want = seq(14);
    const Bytes f2 = seq(14, 28);
    want.insert(want.end(), f2.begin(), f2.end());
    EXPECT_EQ(c.streams.at(4), want); // frame 2 restates ID 4
    // An FSYNC that is not at a frame start is an ID 0x7F (and 0x7F data): reserved.
    Bytes bad2 = out;
    uint8_t fs[16];
    insert_barrier_packet(fs);
    std::copy(fs, fs + 4, bad2.begin() + 16 + 4);
    const Collect c2 = deformat(bad2);
    EXPECT_EQ(c2.events, std::vector<std::string>{"reserved trace ID@16+16"});
    EXPECT_EQ(c2.streams.at(4), want);
}

TEST(Deformatter, FlushResponseAndTriggerIdsAreCountedNotDelivered) {
    // Hand-made frame: ID 0x7D with one data byte, then ID 0x7B with one, then ID 1.
    Bytes f(16, 0);
    f[0] = (0x7d << 1) | 1;
    f[1] = 0xaa;
    f[2] = (0x7b << 1) | 1;
    f[3] = 0xbb;
    f[4] = (0x01 << 1) | 1;
    f[5] = 0xcc;
    for (size_t s = 6; s < 15; ++s)
        f[s] = 0x00; // more data for ID 1
    DeformatterStats st;
    const Collect c = deformat(f, 0, &st);
    EXPECT_EQ(st.special_bytes, 2u);
    EXPECT_EQ(c.streams.at(1).size(), 10u);
    EXPECT_TRUE(c.events.empty());
}

TEST(Deformatter, PartialFrameAtTheEndAndAtReset) {
    FrameEncoder enc;
    Bytes out;
    enc.write(4, seq(28), out);
    Collect c;
    Deformatter d(c);
    d.feed(out.data(), 20);
    d.reset(1000);
    EXPECT_EQ(d.position(), 1000u);
    d.feed(out.data() + 16, 16); // frame 1 again, at offset 1000, states its ID
    d.feed(out.data(), 7);
    d.finish();
    const std::vector<std::string> want = {"partial frame@16+4", "partial frame@1016+7"};
    EXPECT_EQ(c.events, want);
    EXPECT_EQ(d.stats().partial_bytes, 11u);
    Bytes got = seq(14);
    const Bytes f1 = seq(14, 14);
    got.insert(got.end(), f1.begin(), f1.end());
    EXPECT_EQ(c.streams.at(4), got);
}

TEST(Deformatter, DelayedFlagWithUnknownIdGivesUnattributedByte) {
    // After a reset the ID is unknown; a delayed ID change hands the odd byte to "unknown".
    Bytes f(16, 0);
    f[0] = 0x10; // data
    f[1] = 0x11; // data
    f[2] = (0x05 << 1) | 1;
    f[3] = 0x22;  // still the old (unknown) ID
    f[15] = 0x02; // delayed flag for slot 2
    const Collect c = deformat(f);
    EXPECT_EQ(c.unattributed, 3u);
    EXPECT_EQ(c.streams.at(5).size(), 11u); // slots 4..14
}

namespace {
// Every sink event as text, the data bytes included.
struct Trace : DeformatterSink {
    std::vector<std::string> events;
    void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t frame_pos) override {
        std::string e = "data " + std::to_string(id) + "@" + std::to_string(frame_pos) + ":";
        for (size_t i = 0; i < n; ++i)
            e += " " + std::to_string(data[i]);
        events.push_back(e);
    }
    void on_fsync(uint64_t pos, uint64_t count) override {
        events.push_back("fsync@" + std::to_string(pos) + "x" + std::to_string(count));
    }
    void on_frame_error(uint64_t pos, FrameError e, uint64_t bytes) override {
        events.push_back(std::string(to_string(e)) + "@" + std::to_string(pos) + "+" +
                         std::to_string(bytes));
    }
    void on_unattributed(uint64_t frame_pos, size_t n) override {
        events.push_back("unattributed@" + std::to_string(frame_pos) + "+" + std::to_string(n));
    }
};

// The frame rules of formatter.h applied slot by slot to whole frames (no FSYNC among them):
// the events the deformatter must give, whatever shortcut it takes for common frames.
std::vector<std::string> reference_deformat(const Bytes& b) {
    Trace t;
    int cur = -1;
    for (size_t fp = 0; fp + kFrameSize <= b.size(); fp += kFrameSize) {
        const uint8_t* f = b.data() + fp;
        std::vector<std::pair<int, Bytes>> runs;
        int id = cur;
        bool reserved = false;
        auto emit = [&](uint8_t x) {
            if (runs.empty() || runs.back().first != id) runs.emplace_back(id, Bytes{});
            runs.back().second.push_back(x);
        };
        for (size_t i = 0; i < kFrameDataSlots; i += 2) {
            const bool flag = ((f[15] >> (i / 2)) & 1) != 0;
            const bool has_odd = i + 1 < kFrameDataSlots;
            if (f[i] & 1) {
                const int new_id = f[i] >> 1;
                reserved = reserved ||
                           (new_id >= 0x70 && new_id != kFlushResponseId && new_id != kTriggerId);
                const bool delayed = has_odd && flag && new_id != id;
                if (delayed) emit(f[i + 1]); // the next byte still belongs to the old ID
                id = new_id;
                if (delayed) continue;
            } else {
                emit(static_cast<uint8_t>((f[i] & 0xfe) | (flag ? 1 : 0)));
            }
            if (has_odd) emit(f[i + 1]);
        }
        if (reserved) {
            cur = -1;
            t.on_frame_error(fp, FrameError::kReservedId, kFrameSize);
            continue;
        }
        cur = id;
        for (const auto& [rid, bytes] : runs) {
            if (rid < 0) {
                t.on_unattributed(fp, bytes.size());
            } else if (rid != kNullTraceId && rid != kFlushResponseId && rid != kTriggerId) {
                t.on_data(static_cast<uint8_t>(rid), bytes.data(), bytes.size(), fp);
            }
        }
    }
    return t.events;
}
} // namespace

// A sink taking runs of full frames whole (as the trace decoder does), telling each frame
// as on_data would (DeformatterSink's default): it must hear what Trace hears.
// A sink taking runs of full frames whole, as the trace decoder does: it reads each frame
// of the run itself, by the slot rules (ID in slot 0, data in slots 1..14, the even ones'
// bit 0 from bit k of slot 15), and tells its data as Trace's on_data would.
struct RunTrace : Trace {
    uint64_t longest = 0;
    void on_full_frames(uint8_t id, const uint8_t* f, size_t frames, uint64_t pos) override {
        longest = std::max<uint64_t>(longest, frames);
        for (size_t i = 0; i < frames; ++i, f += kFrameSize, pos += kFrameSize) {
            EXPECT_EQ(f[0], (id << 1) | 1);
            uint8_t d[kFrameDataSlots - 1];
            for (size_t slot = 1; slot < kFrameDataSlots; ++slot)
                d[slot - 1] =
                    slot % 2 ? f[slot]
                             : static_cast<uint8_t>((f[slot] & 0xfe) | ((f[15] >> (slot / 2)) & 1));
            on_data(id, d, sizeof d, pos);
        }
    }
};

std::vector<uint64_t> counters(const DeformatterStats& s) {
    return {s.frames,
            s.fsyncs,
            s.fsync_runs,
            s.barriers,
            s.source_bytes,
            s.null_bytes,
            s.special_bytes,
            s.unattributed_bytes,
            s.reserved_id_frames,
            s.reserved_id_bytes,
            s.id_bytes,
            s.partial_bytes};
}

// Frames of every kind (one-ID frames as ringsim's sink writes them, the ones it never writes,
// damaged ones; runs of one ID's) give the events of the slot-by-slot rules, under any
// chunking, to a sink of on_data alone and to one taking runs of full frames; and the same
// counters under every chunking (fed a byte at a time, no frame takes the path of runs).
TEST(Deformatter, AnyFrameMatchesTheSlotBySlotRules) {
    std::mt19937_64 rng(5);
    const int ids[] = {0x00, 0x01, 0x05, 0x6f, 0x70, 0x7b, 0x7d, 0x7e};
    uint64_t longest = 0;
    for (int round = 0; round < 300; ++round) {
        Bytes b;
        int id = ids[0];
        for (int fr = 0; fr < 20; ++fr) {
            uint8_t f[kFrameSize];
            for (auto& x : f)
                x = static_cast<uint8_t>(rng());
            if (rng() % 2 == 0) id = ids[rng() % 8]; // else the ID of the frame before
            if (rng() % 4 != 0) { // a one-ID frame: ID at once in slot 0, data in slots 1..14
                f[0] = static_cast<uint8_t>((id << 1) | 1);
                for (size_t i = 2; i < kFrameDataSlots; i += 2)
                    f[i] &= 0xfe;
                f[15] &= 0xfe;
                if (rng() % 3 == 0)
                    f[rng() % kFrameSize] ^= static_cast<uint8_t>(1u << (rng() % 8));
            }
            if (is_fsync(f)) f[0] = 0x03;
            b.insert(b.end(), f, f + kFrameSize);
        }
        const auto want = reference_deformat(b);
        std::vector<uint64_t> bytewise, whole;
        for (size_t chunk : {size_t{0}, size_t{1}, size_t{5}, size_t{16}, size_t{23}}) {
            Trace t;
            Deformatter d(t);
            const size_t step = chunk == 0 ? b.size() : chunk;
            for (size_t at = 0; at < b.size(); at += step)
                d.feed(b.data() + at, std::min(step, b.size() - at));
            d.finish();
            ASSERT_EQ(t.events, want) << round << " " << chunk;
            if (chunk == 1) bytewise = counters(d.stats());
            RunTrace r;
            Deformatter dr(r);
            for (size_t at = 0; at < b.size(); at += step)
                dr.feed(b.data() + at, std::min(step, b.size() - at));
            dr.finish();
            ASSERT_EQ(r.events, want) << round << " " << chunk << " (runs)";
            longest = std::max(longest, r.longest);
            if (chunk == 0) {
                whole = counters(d.stats());
            } else if (chunk != 1) {
                EXPECT_EQ(counters(d.stats()), bytewise) << round << " " << chunk;
            }
        }
        EXPECT_EQ(whole, bytewise) << round;
    }
    EXPECT_GE(longest, 4u); // runs were formed
}
