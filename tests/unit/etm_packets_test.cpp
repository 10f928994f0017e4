// The simplified ETMv4 stream: exact packet bytes, sizes, and a decoder that finds every
// missing count and accounts for every byte under any chunking and any corruption.
#include "models/coresight/etm_packets.h"

#include "models/coresight/etm_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>

using namespace ringsim::models::coresight;

namespace {

using Bytes = std::vector<uint8_t>;

// Records every event as a line of text, and keeps the counts.
struct Recorder : EtmListener {
    std::vector<std::string> events;
    std::vector<uint64_t> counts;
    std::vector<EtmGap> gaps;
    uint64_t skipped = 0;

    void on_sync(uint64_t pos) override { events.push_back("sync@" + std::to_string(pos)); }
    void on_trace_info(uint64_t pos) override { events.push_back("info@" + std::to_string(pos)); }
    void on_trace_on(uint64_t pos) override { events.push_back("on@" + std::to_string(pos)); }
    void on_address(uint64_t pos, uint64_t address) override {
        char hex[32];
        std::snprintf(hex, sizeof hex, "%#llx", static_cast<unsigned long long>(address));
        events.push_back("addr@" + std::to_string(pos) + "=" + hex);
    }
    void on_count(uint64_t pos, uint64_t count) override {
        counts.push_back(count);
        events.push_back("count@" + std::to_string(pos) + "=" + std::to_string(count));
    }
    void on_gap(uint64_t pos, const EtmGap& g) override {
        gaps.push_back(g);
        events.push_back("gap@" + std::to_string(pos) + ":" + std::to_string(g.first_missing) +
                         "+" + std::to_string(g.missing) + (g.after_sync ? " sync" : "") +
                         " skipped " + std::to_string(g.skipped_bytes));
    }
    void on_disorder(uint64_t pos, uint64_t prev, uint64_t count) override {
        events.push_back("disorder@" + std::to_string(pos) + ":" + std::to_string(prev) + ">" +
                         std::to_string(count));
    }
    void on_corrupt(uint64_t pos, EtmCorruption what) override {
        events.push_back("corrupt@" + std::to_string(pos) + ":" + to_string(what));
    }
    void on_skipped(uint64_t pos, uint64_t n) override {
        skipped += n;
        events.push_back("skipped@" + std::to_string(pos) + "+" + std::to_string(n));
    }
};

Bytes stream(uint64_t first, uint64_t n, uint32_t period = 0) {
    Bytes out;
    EtmEncoder enc(5, period);
    enc.start(out);
    enc.emit(first, n, out);
    return out;
}

Recorder decode(const Bytes& b, size_t chunk = 0, EtmDecoder* keep = nullptr) {
    Recorder r;
    EtmDecoder d(&r);
    if (chunk == 0) chunk = b.size() ? b.size() : 1;
    for (size_t at = 0; at < b.size(); at += chunk)
        d.feed(b.data() + at, std::min(chunk, b.size() - at));
    d.finish();
    if (keep) *keep = d;
    return r;
}

// The Address with Context packet a Trace Info must be followed by before the first atom
// (trace ID 5's loop, as in stream()).
Bytes address_packet() {
    Bytes a(kAddressCtxSize);
    put_address_context(loop_base(5), a.data());
    return a;
}

// Every byte is in a decoded packet or was skipped: nothing is silently lost.
void expect_all_bytes_accounted(const EtmStats& s, uint64_t total) {
    EXPECT_EQ(s.syncs * kAsyncSize + s.trace_info_bytes + s.trace_ons * kTraceOnSize +
                  s.addresses * kAddressCtxSize + s.counts * kCountPacketSize + s.skipped_bytes,
              total);
}

} // namespace

// IHI0064 encodings, as OpenCSD's trc_pkt_lister printed them for this stream:
// I_ASYNC, I_TRACE_INFO INFO=0x0, I_TRACE_ON, I_ADDR_CTXT_L_64IS0 Addr=0x410000 AArch64,EL0, NS.
TEST(EtmPackets, StartIsAsyncTraceInfoTraceOnAddressWithContext) {
    Bytes out;
    EtmEncoder enc(0x10);
    EXPECT_EQ(enc.trace_id(), 0x10);
    EXPECT_EQ(enc.address(), 0x410000u);
    enc.start(out);
    const Bytes want = {0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0x80, 0x01,
                        0x00, 0x04, 0x85, 0x00, 0x00, 0x41, 0, 0, 0, 0, 0, 0x30};
    EXPECT_EQ(out, want);
    EXPECT_EQ(kAsyncSize, 12u);
    EXPECT_EQ(kTraceInfoSize, 2u);
    EXPECT_EQ(kStartSize, 25u);
    EXPECT_EQ(kSyncSize, 24u);
    Bytes sync(kSyncSize);
    put_sync(enc.address(), sync.data());
    Bytes no_trace_on = want;
    no_trace_on.erase(no_trace_on.begin() + 14);
    EXPECT_EQ(sync, no_trace_on);
}

TEST(EtmPackets, AddressWithContextBits) {
    uint8_t p[kAddressCtxSize];
    put_address_context(0x0123456789abcdecull, p);
    // A[8:2], A[15:9] in 7 bits each, then A[63:16] a byte at a time, then EL0 SF NS.
    EXPECT_EQ(Bytes(p, p + kAddressCtxSize),
              (Bytes{0x85, 0x7b, 0x66, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01, 0x30}));
}

TEST(EtmPackets, CountPacketBytes) {
    uint8_t p[8];
    // E atom (Atom format 1), then a Timestamp with 6 value bytes.
    put_count_packet(0, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}));
    put_count_packet(1, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0x81, 0x80, 0x80, 0x80, 0x80, 0x00}));
    put_count_packet(0x7f, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0xff, 0x80, 0x80, 0x80, 0x80, 0x00}));
    put_count_packet(0x80, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0x80, 0x81, 0x80, 0x80, 0x80, 0x00}));
    put_count_packet(kCountValueMask, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}));
    // 7-bit groups, least significant first.
    put_count_packet(0x3456789abcull, p);
    uint64_t v = 0;
    for (int i = 0; i < 6; ++i)
        v |= uint64_t{static_cast<uint8_t>(p[2 + i] & 0x7f)} << (7 * i);
    EXPECT_EQ(v, 0x3456789abcull);
    // Only the low 42 bits travel.
    put_count_packet(kCountValueMask + 1, p);
    EXPECT_EQ(Bytes(p, p + 8), (Bytes{0xf7, 0x02, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}));
}

// The packet is built as one word: every byte of it, for counts with every group's bits in
// play, is the layout above (header, 7-bit groups low first, continuation on all but the
// last), bits past kCountValueBits change nothing, and the next count's word follows from
// it.
TEST(EtmPackets, CountPacketWordIsTheByteLayout) {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 10000; ++i) {
        const uint64_t c = rng() >> (rng() % 64);
        uint8_t p[8], q[8];
        put_count_packet(c, p);
        ASSERT_EQ(p[0], 0xf7);
        ASSERT_EQ(p[1], 0x02);
        for (unsigned g = 0; g < 6; ++g) {
            const auto want = static_cast<uint8_t>(((c >> (7 * g)) & 0x7f) | (g < 5 ? 0x80 : 0));
            ASSERT_EQ(p[2 + g], want) << std::hex << c << " group " << g;
        }
        put_count_packet(c & kCountValueMask, q);
        ASSERT_EQ(Bytes(p, p + 8), Bytes(q, q + 8)) << std::hex << c;
        // The next packet's word, from this one's (runs of packets are written and
        // compared so), across every carry and past 2^kCountValueBits.
        for (const uint64_t k : {c, kCountValueMask - (c & 0xff), (c | 0x7f) & kCountValueMask})
            ASSERT_EQ(next_count_packet_word(count_packet_word(k)), count_packet_word(k + 1))
                << std::hex << k;
    }
}

TEST(EtmPackets, EveryCountPacketIsEightBytes) {
    for (uint64_t first : {uint64_t{0}, uint64_t{127}, uint64_t{1} << 40, kCountValueMask - 3}) {
        Bytes out;
        EtmEncoder enc(1);
        enc.emit(first, 4, out);
        ASSERT_EQ(out.size(), 4 * kCountPacketSize);
        for (size_t i = 0; i < 4; ++i) {
            EXPECT_EQ(out[i * 8], kHeaderAtomE);
            EXPECT_EQ(out[i * 8 + 1], kHeaderTimestamp);
            for (size_t j = 2; j < 7; ++j)
                EXPECT_NE(out[i * 8 + j] & 0x80, 0);
            EXPECT_EQ(out[i * 8 + 7] & 0x80, 0);
        }
    }
}

TEST(EtmPackets, EmitSizeAndCountsFittingMatchTheBytes) {
    for (uint32_t period : {0u, 1u, 2u, 3u, 7u, 510u}) {
        for (uint64_t pre = 0; pre < 12; ++pre) {
            for (uint64_t n = 0; n < 40; ++n) {
                EtmEncoder enc(1, period);
                Bytes out;
                enc.start(out);
                enc.emit(0, pre, out);
                const uint64_t predicted = enc.emit_size(n);
                // counts_fitting is the inverse of emit_size.
                EXPECT_EQ(enc.counts_fitting(predicted), n) << period << " " << pre << " " << n;
                if (predicted > 0) {
                    EXPECT_LT(enc.counts_fitting(predicted - 1), n);
                }
                const size_t before = out.size();
                enc.emit(pre, n, out);
                EXPECT_EQ(out.size() - before, predicted) << period << " " << pre << " " << n;
            }
        }
    }
}

TEST(EtmPackets, PeriodicSyncEveryPeriodCounts) {
    const Bytes b = stream(0, 10, 4);
    // start, 4 counts, sync, 4 counts, sync, 2 counts.
    ASSERT_EQ(b.size(), kStartSize + 2 * kSyncSize + 10 * kCountPacketSize);
    const size_t second = kStartSize + 4 * kCountPacketSize;
    Bytes sync(kSyncSize);
    put_sync(loop_base(5), sync.data());
    EXPECT_EQ(Bytes(b.begin() + second, b.begin() + second + kSyncSize), sync);
    Recorder r = decode(b);
    ASSERT_EQ(r.counts.size(), 10u);
    for (uint64_t i = 0; i < 10; ++i)
        EXPECT_EQ(r.counts[i], i);
    EXPECT_TRUE(r.gaps.empty());
    EXPECT_EQ(r.skipped, 0u);
}

TEST(EtmDecoder, DecodesUnderEveryChunking) {
    const Bytes b = stream(1000, 300, 17);
    EtmDecoder whole;
    const Recorder ref = decode(b, 0, &whole);
    ASSERT_EQ(ref.counts.size(), 300u);
    EXPECT_EQ(ref.counts.front(), 1000u);
    EXPECT_EQ(ref.counts.back(), 1299u);
    EXPECT_EQ(whole.stats().syncs, 1u + 299 / 17);
    EXPECT_EQ(whole.stats().gaps, 0u);
    expect_all_bytes_accounted(whole.stats(), b.size());
    for (size_t chunk = 1; chunk <= 33; ++chunk) {
        EXPECT_EQ(decode(b, chunk).events, ref.events) << "chunk " << chunk;
    }
    // Random chunk sizes, including empty feeds.
    std::mt19937_64 rng(7);
    for (int round = 0; round < 50; ++round) {
        Recorder r;
        EtmDecoder d(&r);
        size_t at = 0;
        while (at < b.size()) {
            const size_t n = std::min<size_t>(rng() % 40, b.size() - at);
            d.feed(b.data() + at, n);
            at += n;
        }
        d.finish();
        EXPECT_EQ(r.events, ref.events);
    }
}

// A healthy stream's counts come as runs (EtmListener::on_counts), each saying what its
// on_count calls would: expanded, the runs are the byte-at-a-time decoder's counts and
// positions, and fed whole the stream gives one run a sync block (the first count excepted:
// nothing was expected before it).
TEST(EtmDecoder, HealthyStreamCountsComeAsRuns) {
    struct Runs : Recorder {
        uint64_t calls = 0, longest = 0;
        void on_counts(uint64_t pos, uint64_t first, uint64_t n) override {
            ++calls;
            longest = std::max(longest, n);
            EtmListener::on_counts(pos, first, n); // each count as on_count
        }
    };
    const Bytes b = stream(1000, 300, 17);
    const Recorder ref = decode(b, 1);
    Runs r;
    EtmDecoder d(&r);
    d.feed(b.data(), b.size());
    d.finish();
    EXPECT_EQ(r.events, ref.events);
    EXPECT_LE(r.calls, 18u);
    EXPECT_EQ(r.longest, 17u);
    // A run across 2^kCountValueBits: the packets' values wrap to 0, the counts go on.
    const Bytes w = stream(kCountValueMask - 5, 20);
    Runs across;
    EtmDecoder d2(&across);
    d2.feed(w.data(), w.size());
    d2.finish();
    EXPECT_EQ(across.events, decode(w, 1).events);
    EXPECT_EQ(across.counts.back(), kCountValueMask + 14);
    EXPECT_EQ(across.longest, 19u);
}

TEST(EtmDecoder, EventPositionsAreStreamOffsets) {
    const Bytes b = stream(0, 2);
    const Recorder r = decode(b);
    // A-Sync 0..11, Trace Info 12..13, Trace On 14, Address 15..24 (trace ID 5: 0x405000),
    // then the count packets, 8 bytes each.
    const std::vector<std::string> want = {"sync@0",           "info@12",    "on@14",
                                           "addr@15=0x405000", "count@25=0", "count@33=1"};
    EXPECT_EQ(r.events, want);
}

TEST(EtmDecoder, SkipsUntilTheFirstAsync) {
    Bytes b = {0x02, 0x81, 0x00, 0x80, 0x55, 0x00, 0x00};
    const size_t garbage = b.size();
    const Bytes s = stream(3, 2);
    b.insert(b.end(), s.begin(), s.end());
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    ASSERT_GE(r.events.size(), 2u);
    EXPECT_EQ(r.events[0], "skipped@0+" + std::to_string(garbage));
    EXPECT_EQ(r.events[1], "sync@" + std::to_string(garbage));
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{3, 4}));
    expect_all_bytes_accounted(d.stats(), b.size());
}

TEST(EtmDecoder, ExtraZerosBeforeAsyncAreSkippedNotSync) {
    // Unsynchronised: 20 zeros then 0x80 is an A-Sync preceded by 9 skipped zeros.
    Bytes b(20, 0x00);
    b.push_back(0x80);
    b.push_back(0x01);
    b.push_back(0x00);
    const Bytes a = address_packet();
    b.insert(b.end(), a.begin(), a.end());
    uint8_t p[8];
    put_count_packet(9, p);
    b.insert(b.end(), p, p + 8);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_EQ(r.events.front(), "skipped@0+9");
    EXPECT_EQ(r.events[1], "sync@9");
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{9}));
    expect_all_bytes_accounted(d.stats(), b.size());
}

TEST(EtmDecoder, WholePacketsMissingAreAnExactGap) {
    Bytes b = stream(0, 20);
    // Drop counts 5..11 (7 whole packets): still in sync, so no A-Sync needed.
    const size_t from = kStartSize + 5 * kCountPacketSize;
    b.erase(b.begin() + from, b.begin() + from + 7 * kCountPacketSize);
    const Recorder r = decode(b);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first_missing, 5u);
    EXPECT_EQ(r.gaps[0].missing, 7u);
    EXPECT_FALSE(r.gaps[0].after_sync);
    EXPECT_EQ(r.gaps[0].skipped_bytes, 0u);
    EXPECT_EQ(r.counts.size(), 13u);
}

TEST(EtmDecoder, CutInsideAPacketResyncsOnNextAsync) {
    const uint32_t period = 8;
    Bytes b = stream(0, 40, period);
    // Remove 13 bytes from inside count 3 onwards: packets are broken until the A-Sync that
    // precedes count 8.
    const size_t cut = kStartSize + 3 * kCountPacketSize + 2;
    b.erase(b.begin() + cut, b.begin() + cut + 13);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first_missing, 3u);
    EXPECT_EQ(r.gaps[0].missing, 5u); // 3..7 lost or undecodable, 8 follows the A-Sync
    EXPECT_TRUE(r.gaps[0].after_sync);
    // Bytes between the last good packet and the A-Sync: 40 bytes of counts 3..7 minus 13.
    EXPECT_EQ(r.gaps[0].skipped_bytes, 5 * kCountPacketSize - 13);
    EXPECT_EQ(d.stats().corruptions, 1u);
    expect_all_bytes_accounted(d.stats(), b.size());
    EXPECT_EQ(r.counts.size(), 35u);
}

TEST(EtmDecoder, WithoutPeriodicSyncEverythingAfterACutIsSkipped) {
    Bytes b = stream(0, 30);
    b.erase(b.begin() + kStartSize + 4, b.begin() + kStartSize + 7);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_TRUE(r.gaps.empty());
    EXPECT_EQ(r.counts.size(), 0u);
    EXPECT_EQ(d.stats().skipped_bytes, b.size() - kStartSize);
    EXPECT_FALSE(d.synced());
    expect_all_bytes_accounted(d.stats(), b.size());
}

TEST(EtmDecoder, RestartWithNewStartReportsGapAfterSync) {
    Bytes b = stream(0, 5);
    EtmEncoder enc(1);
    enc.start(b);
    enc.emit(100, 3, b);
    const Recorder r = decode(b);
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first_missing, 5u);
    EXPECT_EQ(r.gaps[0].missing, 95u);
    EXPECT_TRUE(r.gaps[0].after_sync);
    EXPECT_EQ(r.gaps[0].skipped_bytes, 0u);
    // A restart that continues the counts is no gap.
    Bytes c = stream(0, 5);
    enc.start(c);
    enc.emit(5, 3, c);
    EXPECT_TRUE(decode(c).gaps.empty());
}

TEST(EtmDecoder, CountsGoingBackwardsAreDisorder) {
    Bytes b = stream(10, 3); // start 0..24, counts 10, 11, 12 at 25, 33, 41
    EtmEncoder enc(1);
    enc.emit(11, 2, b); // 10 11 12 11 12: the second 11 at 49
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_EQ(d.stats().disorders, 1u);
    EXPECT_EQ(d.stats().gaps, 0u);
    EXPECT_NE(std::find(r.events.begin(), r.events.end(), "disorder@49:12>11"), r.events.end());
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{10, 11, 12, 11, 12}));
}

TEST(EtmDecoder, ExpectNextChecksTheFirstCount) {
    const Bytes b = stream(7, 2);
    Recorder r;
    EtmDecoder d(&r);
    d.expect_next(0);
    d.feed(b);
    d.finish();
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first_missing, 0u);
    EXPECT_EQ(r.gaps[0].missing, 7u);
    EXPECT_TRUE(r.gaps[0].after_sync);
}

TEST(EtmDecoder, HighBitsComeFromTheExpectedCount) {
    // Counts across a 2^42 boundary: only low bits travel, the decoder carries the rest.
    const uint64_t first = (uint64_t{3} << kCountValueBits) - 2;
    const Bytes b = stream(first, 5);
    Recorder r;
    EtmDecoder d(&r);
    d.expect_next(first);
    d.feed(b);
    d.finish();
    ASSERT_EQ(r.counts.size(), 5u);
    for (uint64_t i = 0; i < 5; ++i)
        EXPECT_EQ(r.counts[i], first + i);
    EXPECT_TRUE(r.gaps.empty());
    EXPECT_EQ(d.stats().disorders, 0u);
}

TEST(EtmDecoder, TraceInfoSectionsAreSkipped) {
    Bytes b(11, 0x00);
    b.push_back(0x80);
    // PLCTL = INFO|KEY|SPEC|CYCT, then the four fields, some with continuation bytes.
    const Bytes info = {0x01, 0x0f, 0x00, 0x81, 0x01, 0x85, 0x80, 0x00, 0x7f};
    b.insert(b.end(), info.begin(), info.end());
    const Bytes a = address_packet();
    b.insert(b.end(), a.begin(), a.end());
    uint8_t p[8];
    put_count_packet(42, p);
    b.insert(b.end(), p, p + 8);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{42}));
    EXPECT_EQ(d.stats().trace_infos, 1u);
    EXPECT_EQ(d.stats().corruptions, 0u);
    // PLCTL with one continuation byte is fine; with two it is not.
    Bytes ok(11, 0x00);
    ok.push_back(0x80);
    ok.insert(ok.end(), {0x01, 0x80, 0x00});
    ok.insert(ok.end(), a.begin(), a.end());
    ok.insert(ok.end(), p, p + 8);
    EXPECT_EQ(decode(ok).counts, (std::vector<uint64_t>{42}));
    Bytes bad(11, 0x00);
    bad.push_back(0x80);
    bad.insert(bad.end(), {0x01, 0x80, 0x80, 0x00});
    bad.insert(bad.end(), a.begin(), a.end());
    bad.insert(bad.end(), p, p + 8);
    EtmDecoder db;
    const Recorder rb = decode(bad, 0, &db);
    EXPECT_TRUE(rb.counts.empty());
    EXPECT_EQ(db.stats().corruptions, 1u);
    expect_all_bytes_accounted(db.stats(), bad.size());
    // A section of five bytes is the longest accepted.
    Bytes five(11, 0x00);
    five.push_back(0x80);
    five.insert(five.end(), {0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x00});
    five.insert(five.end(), a.begin(), a.end());
    five.insert(five.end(), p, p + 8);
    EXPECT_EQ(decode(five).counts, (std::vector<uint64_t>{42}));
    Bytes six(11, 0x00);
    six.push_back(0x80);
    six.insert(six.end(), {0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
    six.insert(six.end(), a.begin(), a.end());
    six.insert(six.end(), p, p + 8);
    EXPECT_TRUE(decode(six).counts.empty());
}

TEST(EtmDecoder, AsyncWithoutTraceInfoIsCorrupt) {
    Bytes b(11, 0x00);
    b.push_back(0x80);
    uint8_t p[8];
    put_count_packet(1, p);
    b.insert(b.end(), p, p + 8);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_TRUE(r.counts.empty());
    EXPECT_EQ(r.events[1], "corrupt@12:A-Sync without Trace Info");
    expect_all_bytes_accounted(d.stats(), b.size());
}

TEST(EtmDecoder, SyncedAsyncWithTwelveZerosResyncs) {
    Bytes b = stream(0, 2);
    b.insert(b.end(), 12, 0x00);
    b.insert(b.end(), {0x80, 0x01, 0x00});
    const Bytes a = address_packet();
    b.insert(b.end(), a.begin(), a.end());
    uint8_t p[8];
    put_count_packet(2, p);
    b.insert(b.end(), p, p + 8);
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_EQ(d.stats().corruptions, 1u);
    EXPECT_EQ(d.stats().skipped_bytes, 1u);
    EXPECT_TRUE(r.gaps.empty());
    expect_all_bytes_accounted(d.stats(), b.size());
}

TEST(EtmDecoder, UnknownHeaderIsCorrupt) {
    Bytes b = stream(0, 2);
    b.push_back(0x42); // at 25 + 2 * 8 = 41
    const Bytes more = stream(2, 1);
    b.insert(b.end(), more.begin(), more.end());
    EtmDecoder d;
    const Recorder r = decode(b, 0, &d);
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{0, 1, 2}));
    EXPECT_NE(std::find(r.events.begin(), r.events.end(), "corrupt@41:unknown packet header"),
              r.events.end());
    EXPECT_EQ(d.stats().skipped_bytes, 1u);
}

TEST(EtmDecoder, DiscontinuityDropsThePacketInProgress) {
    const Bytes b = stream(0, 10, 4);
    Recorder r;
    EtmDecoder d(&r);
    // Stop 3 bytes into count 2, lose the rest of it, continue from count 3's packet.
    const size_t cut = kStartSize + 2 * kCountPacketSize + 3;
    d.feed(b.data(), cut);
    d.discontinuity();
    const size_t resume = kStartSize + 3 * kCountPacketSize;
    d.feed(b.data() + resume, b.size() - resume);
    d.finish();
    // Count 3 is not decoded (no sync yet); the A-Sync before count 4 resyncs.
    ASSERT_EQ(r.gaps.size(), 1u);
    EXPECT_EQ(r.gaps[0].first_missing, 2u);
    EXPECT_EQ(r.gaps[0].missing, 2u);
    EXPECT_TRUE(r.gaps[0].after_sync);
    EXPECT_EQ(r.gaps[0].skipped_bytes, 3 + kCountPacketSize);
    EXPECT_EQ(d.stats().corruptions, 1u); // the truncated packet
    expect_all_bytes_accounted(d.stats(), d.position());
}

TEST(EtmDecoder, DiscontinuityBreaksAZeroRun) {
    // Six zeros, a hole, six zeros and 0x80 is not an A-Sync.
    Recorder r;
    EtmDecoder d(&r);
    const Bytes zeros(6, 0x00);
    d.feed(zeros);
    d.discontinuity();
    Bytes tail(6, 0x00);
    tail.push_back(0x80);
    d.feed(tail);
    d.finish();
    EXPECT_EQ(d.stats().syncs, 0u);
    EXPECT_EQ(d.stats().skipped_bytes, 13u);
}

TEST(EtmDecoder, FinishReportsTruncatedPacketAndTrailingBytes) {
    const Bytes b = stream(0, 3);
    EtmDecoder d;
    Recorder r = decode(Bytes(b.begin(), b.end() - 3), 0, &d);
    EXPECT_EQ(r.counts, (std::vector<uint64_t>{0, 1}));
    // Count 2's packet is at 25 + 2 * 8 = 41; 5 of its 8 bytes remain.
    EXPECT_EQ(r.events.back(), "skipped@41+5");
    EXPECT_NE(std::find(r.events.begin(), r.events.end(), "corrupt@41:truncated packet"),
              r.events.end());
    expect_all_bytes_accounted(d.stats(), b.size() - 3);
}

// Every single-byte corruption of a stream, with several replacement values: the decoder
// never loses track of a byte, decodes every count packet before the corrupted byte, and
// recovers by the next A-Sync: every count after the first sync block that starts past the
// corrupted byte decodes. The same events under chunks of 5 as one byte at a time.
TEST(EtmDecoder, EverySingleByteCorruptionIsAccountedFor) {
    const uint32_t period = 3;
    const uint64_t counts = 12;
    const Bytes clean = stream(0, counts, period);
    // [start 25][c0 c1 c2][sync 24][c3 c4 c5][sync 24][c6 c7 c8][sync 24][c9 c10 c11]
    ASSERT_EQ(clean.size(), kStartSize + 3 * kSyncSize + counts * kCountPacketSize);
    const auto packet_at = [](uint64_t c) {
        return kStartSize + c * kCountPacketSize + c / period * kSyncSize;
    };
    const uint8_t values[] = {0x00, 0x01, 0x02, 0x7f, 0x80, 0xff};
    for (size_t at = 0; at < clean.size(); ++at) {
        // The first count after the first sync block starting past `at` (none past the last).
        uint64_t resync = counts;
        for (uint64_t c = period; c < counts; c += period) {
            if (packet_at(c) - kSyncSize > at) {
                resync = c;
                break;
            }
        }
        for (uint8_t v : values) {
            for (int flip = 0; flip < 2; ++flip) {
                Bytes b = clean;
                b[at] = flip ? static_cast<uint8_t>(b[at] ^ (1u << (v % 8))) : v;
                if (b == clean) continue;
                EtmDecoder d;
                const Recorder r = decode(b, 5, &d);
                expect_all_bytes_accounted(d.stats(), b.size());
                EXPECT_EQ(decode(b, 1).events, r.events) << at << " " << int(v);
                for (uint64_t c = 0; c < counts; ++c) {
                    if (packet_at(c) + kCountPacketSize <= at || c >= resync) {
                        EXPECT_NE(std::find(r.counts.begin(), r.counts.end(), c), r.counts.end())
                            << "count " << c << " lost, byte " << at << " = " << int(b[at]);
                    }
                }
            }
        }
    }
}

TEST(EtmDecoder, RandomGarbageNeverBreaksTheAccounting) {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 200; ++round) {
        Bytes b(rng() % 300);
        for (auto& x : b) {
            const uint64_t r = rng() % 8;
            x = r < 3 ? 0x00 : r < 4 ? 0x80 : static_cast<uint8_t>(rng());
        }
        if (round % 3 == 0) {
            const Bytes s = stream(rng() % 1000, rng() % 20, 2);
            b.insert(b.begin() + static_cast<long>(rng() % (b.size() + 1)), s.begin(), s.end());
        }
        EtmDecoder d;
        decode(b, 1 + rng() % 17, &d);
        expect_all_bytes_accounted(d.stats(), b.size());
    }
}

// The decoder takes whole count packets, and count packets cut by a chunk boundary, on fast
// paths: a damaged stream must give exactly the same events, positions and statistics under
// any chunking as fed one byte at a time (almost only the per-byte state machine).
TEST(EtmDecoder, FastPathsMatchBytewiseDecodingOnDamagedStreams) {
    std::mt19937_64 rng(29);
    for (int round = 0; round < 400; ++round) {
        Bytes b = stream(rng() % 5000 + (round % 4 == 0 ? kCountValueMask - 20 : 0), rng() % 60,
                         1 + rng() % 6);
        const int edits = static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !b.empty(); ++e) {
            const size_t at = rng() % b.size();
            switch (rng() % 5) {
            case 0:
                b[at] ^= 0x80;
                break; // a continuation bit
            case 1:
                b[at] = static_cast<uint8_t>(rng());
                break;
            case 2:
                b[at] = (rng() & 1) ? 0x02 : 0x00;
                break;
            case 3:
                b.erase(b.begin() + static_cast<long>(at));
                break;
            default:
                b.insert(b.begin() + static_cast<long>(at), static_cast<uint8_t>(rng()));
                break;
            }
        }
        // Discontinuities at a few fixed stream offsets, the same for every chunking.
        std::vector<size_t> cuts;
        for (size_t k = rng() % 3; k > 0; --k)
            cuts.push_back(rng() % (b.size() + 1));
        std::sort(cuts.begin(), cuts.end());
        const bool expect = rng() % 2 == 0;
        auto run = [&](size_t max_chunk, uint64_t seed) {
            std::mt19937_64 r2(seed);
            Recorder rec;
            EtmDecoder d(&rec);
            if (expect) d.expect_next(3);
            size_t at = 0, c = 0;
            while (at < b.size() || c < cuts.size()) {
                if (c < cuts.size() && cuts[c] == at) {
                    d.discontinuity();
                    ++c;
                    continue;
                }
                size_t n = std::min<size_t>(1 + r2() % max_chunk, b.size() - at);
                if (c < cuts.size()) n = std::min(n, cuts[c] - at);
                d.feed(b.data() + at, n);
                at += n;
            }
            d.finish();
            const EtmStats& s = d.stats();
            rec.events.push_back(
                "stats " + std::to_string(s.bytes) + " " + std::to_string(s.syncs) + " " +
                std::to_string(s.trace_infos) + " " + std::to_string(s.trace_info_bytes) + " " +
                std::to_string(s.counts) + " " + std::to_string(s.gaps) + " " +
                std::to_string(s.missing_counts) + " " + std::to_string(s.disorders) + " " +
                std::to_string(s.corruptions) + " " + std::to_string(s.skipped_bytes) + " " +
                std::to_string(s.any_count) + " " + std::to_string(s.first_count) + " " +
                std::to_string(s.last_count) + " " + std::to_string(d.position()));
            return rec.events;
        };
        const auto ref = run(1, 0);
        for (size_t max_chunk :
             {size_t{2}, size_t{7}, size_t{9}, size_t{14}, size_t{20}, b.size() + 1})
            ASSERT_EQ(run(max_chunk, round * 31 + max_chunk), ref) << round << " " << max_chunk;
    }
}

// Benchmark-style: reports throughput, asserts only the results.
TEST(EtmDecoder, HundredMegabytes) {
    const uint64_t n = (100u << 20) / kCountPacketSize;
    Bytes b;
    b.reserve(n * kCountPacketSize + (n / 500 + 1) * kStartSize + kStartSize);
    EtmEncoder enc(1, 500);
    const auto t0 = std::chrono::steady_clock::now();
    enc.start(b);
    enc.emit(0, n, b);
    const auto t1 = std::chrono::steady_clock::now();
    EtmDecoder d;
    d.feed(b);
    d.finish();
    const auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(d.stats().counts, n);
    EXPECT_EQ(d.stats().gaps, 0u);
    EXPECT_EQ(d.stats().last_count, n - 1);
    const double mb = static_cast<double>(b.size()) / (1 << 20);
    std::printf("[ bench    ] encode %.0f MB/s, decode %.0f MB/s (%.0f MB)\n",
                mb / std::chrono::duration<double>(t1 - t0).count(),
                mb / std::chrono::duration<double>(t2 - t1).count(), mb);
}
