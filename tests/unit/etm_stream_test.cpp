// EtmStream: the session list regenerates exactly the bytes an EtmEncoder emits for the same
// start/emit calls, and maps offsets to counts (and back) and sync overhead exactly.
#include "models/coresight/etm_stream.h"

#include "models/common/types.h"
#include "models/coresight/etm_packets.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

using namespace ringsim::models::coresight;
using ringsim::models::ModelError;

namespace {

using Bytes = std::vector<uint8_t>;
constexpr int64_t kSync = -1;

// The reference: an EtmEncoder fed the same calls, and per byte the count of its packet (or
// kSync for the bytes of start and sync blocks), and the blocks as [first, end).
struct Reference {
    EtmEncoder enc;
    Bytes bytes;
    std::vector<int64_t> owner;
    std::vector<std::pair<uint64_t, uint64_t>> blocks;
    explicit Reference(uint32_t period) : enc(7, period) {}

    void start() {
        blocks.emplace_back(bytes.size(), bytes.size() + kStartSize);
        enc.start(bytes);
        owner.resize(bytes.size(), kSync);
    }
    void emit(uint64_t first, uint64_t n) {
        // One packet at a time so that every byte's owner is known.
        for (uint64_t k = 0; k < n; ++k) {
            const size_t at = bytes.size();
            enc.emit(first + k, 1, bytes);
            const size_t sync = bytes.size() - at - kCountPacketSize;
            if (sync != 0) blocks.emplace_back(at, at + sync);
            owner.resize(at + sync, kSync);
            owner.resize(bytes.size(), static_cast<int64_t>(first + k));
        }
    }
};

// Both built by the same random sequence of start/produce/stop.
struct Pair {
    EtmStream stream;
    Reference ref;
    Pair(uint32_t period) : stream(7, period), ref(period) {}
};

void random_run(Pair& p, std::mt19937_64& rng, int ops) {
    for (int i = 0; i < ops; ++i) {
        const auto r = rng() % 10;
        if (!p.stream.running() || r == 0) {
            const uint64_t jump = (rng() % 3 == 0) ? 0 : rng() % 1000;
            const uint64_t first = p.stream.next_count() + jump;
            p.stream.start(first);
            p.ref.start();
        } else if (r == 1) {
            p.stream.stop();
        } else {
            const uint64_t n = (rng() % 4 == 0) ? 0 : rng() % ((rng() % 5 == 0) ? 300 : 12);
            const uint64_t first = p.stream.next_count();
            p.stream.produce(n);
            p.ref.emit(first, n);
        }
    }
}

std::vector<CountRange> brute_counts(const Reference& ref, uint64_t off, uint64_t n) {
    std::vector<CountRange> out;
    int64_t last = kSync;
    for (uint64_t i = off; i < off + n && i < ref.bytes.size(); ++i) {
        const int64_t c = ref.owner[i];
        if (c == kSync || c == last) continue;
        const auto cu = static_cast<uint64_t>(c);
        if (!out.empty() && out.back().first + out.back().n == cu) {
            ++out.back().n;
        } else {
            out.push_back(CountRange{cu, 1});
        }
        last = c;
    }
    return out;
}

std::string brute_block(const Reference& ref, uint64_t off) {
    for (const auto& b : ref.blocks)
        if (b.first <= off && off < b.second)
            return std::to_string(b.first) + ".." + std::to_string(b.second);
    return "none";
}

std::string block(const EtmStream& s, uint64_t off) {
    const auto b = s.sync_block_at(off);
    return b ? std::to_string(b->first) + ".." + std::to_string(b->second) : "none";
}

uint64_t brute_sync(const Reference& ref, uint64_t off, uint64_t n) {
    uint64_t s = 0;
    for (uint64_t i = off; i < off + n && i < ref.bytes.size(); ++i)
        s += ref.owner[i] == kSync;
    return s;
}

std::string str(const std::vector<CountRange>& v) {
    std::string s;
    for (const auto& r : v)
        s += "[" + std::to_string(r.first) + "+" + std::to_string(r.n) + "]";
    return s;
}

Bytes read_all(const EtmStream& s, uint64_t off, uint64_t n) {
    Bytes b(n, 0xee);
    s.read(off, n, b.data());
    return b;
}

} // namespace

TEST(EtmStream, SessionLayoutAndSizes) {
    EtmStream s(3, 2);
    EXPECT_EQ(s.trace_id(), 3);
    EXPECT_FALSE(s.running());
    EXPECT_EQ(s.size(), 0u);
    EXPECT_EQ(s.next_count(), 0u);
    s.start(100);
    EXPECT_TRUE(s.running());
    EXPECT_EQ(s.size(), kStartSize);
    s.produce(2); // no sync yet: the third packet brings it
    EXPECT_EQ(s.size(), kStartSize + 2 * kCountPacketSize);
    s.produce(1); // a periodic sync, then the packet
    EXPECT_EQ(s.size(), kStartSize + kSyncSize + 3 * kCountPacketSize);
    s.produce(2); // a packet, a sync, a packet
    EXPECT_EQ(s.size(), kStartSize + 2 * kSyncSize + 5 * kCountPacketSize);
    EXPECT_EQ(s.next_count(), 105u);
    s.stop();
    EXPECT_FALSE(s.running());
    EXPECT_EQ(s.next_count(), 105u);
    s.start(200);
    s.produce(1);
    EXPECT_EQ(s.counts_produced(), 6u);
    ASSERT_EQ(s.sessions().size(), 2u);
    EXPECT_EQ(s.sessions()[0].offset, 0u);
    EXPECT_EQ(s.sessions()[0].first_count, 100u);
    EXPECT_EQ(s.sessions()[0].counts, 5u);
    EXPECT_EQ(s.sessions()[1].offset, kStartSize + 2 * kSyncSize + 5 * kCountPacketSize);
    EXPECT_EQ(s.sessions()[1].first_count, 200u);
    EXPECT_EQ(s.sessions()[1].counts, 1u);
    EXPECT_EQ(s.size(), 2 * kStartSize + 2 * kSyncSize + 6 * kCountPacketSize);
}

TEST(EtmStream, PreconditionsAreModelErrors) {
    EtmStream s(3, 0);
    EXPECT_THROW(s.produce(1), ModelError);
    s.start(10);
    s.produce(5);
    EXPECT_THROW(s.start(14), ModelError); // counts must not go back
    s.start(15);                           // a restart at the next count is fine
    s.stop();
    EXPECT_THROW(s.produce(1), ModelError);
    uint8_t b[4];
    EXPECT_THROW(s.read(s.size() - 2, 3, b), ModelError);
    EXPECT_NO_THROW(s.read(s.size() - 2, 2, b));
    EXPECT_NO_THROW(s.read(s.size(), 0, b));
}

TEST(EtmStream, MatchesEtmEncoderOnRandomRuns) {
    std::mt19937_64 rng(12345);
    for (uint32_t period : {0u, 1u, 2u, 3u, 5u, 16u, 500u}) {
        for (int rep = 0; rep < 20; ++rep) {
            SCOPED_TRACE("period " + std::to_string(period) + " rep " + std::to_string(rep));
            Pair p(period);
            random_run(p, rng, 60);
            ASSERT_EQ(p.stream.size(), p.ref.bytes.size());
            ASSERT_EQ(read_all(p.stream, 0, p.stream.size()), p.ref.bytes);
            const uint64_t size = p.stream.size();
            for (int k = 0; k < 200; ++k) {
                const uint64_t off = rng() % (size + 1);
                const uint64_t n =
                    rng() %
                    (rng() % 4 == 0 ? size - off + 1 : std::min<uint64_t>(size - off, 40) + 1);
                const Bytes got = read_all(p.stream, off, n);
                ASSERT_TRUE(std::equal(got.begin(), got.end(), p.ref.bytes.begin() + off))
                    << "read [" << off << ", +" << n << ")";
                std::vector<CountRange> ranges;
                p.stream.counts_touching(off, n, ranges);
                const auto want = brute_counts(p.ref, off, n);
                ASSERT_EQ(str(ranges), str(want))
                    << "counts_touching [" << off << ", +" << n << ")";
                ASSERT_EQ(p.stream.sync_bytes_in(off, n), brute_sync(p.ref, off, n))
                    << "sync_bytes_in [" << off << ", +" << n << ")";
                ASSERT_EQ(block(p.stream, off), brute_block(p.ref, off)) << "sync_block_at " << off;
            }
        }
    }
}

TEST(EtmStream, PacketOfEveryCount) {
    std::mt19937_64 rng(99);
    for (uint32_t period : {0u, 1u, 4u, 37u}) {
        Pair p(period);
        random_run(p, rng, 80);
        std::vector<int64_t> first_byte; // per count seen: offset of its first byte
        uint64_t seen = 0;
        for (size_t i = 0; i < p.ref.owner.size(); ++i) {
            const int64_t c = p.ref.owner[i];
            if (c == kSync || (i > 0 && p.ref.owner[i - 1] == c)) continue;
            const auto at = p.stream.packet_of(static_cast<uint64_t>(c));
            ASSERT_TRUE(at.has_value()) << "count " << c;
            EXPECT_EQ(at->first, i);
            EXPECT_EQ(at->second, i + kCountPacketSize);
            ++seen;
        }
        EXPECT_EQ(seen, p.stream.counts_produced());
        // Counts in the jumps between sessions, and past the end, were never produced.
        const auto& ss = p.stream.sessions();
        for (size_t s = 0; s + 1 < ss.size(); ++s) {
            for (uint64_t c = ss[s].first_count + ss[s].counts; c < ss[s + 1].first_count; ++c)
                EXPECT_FALSE(p.stream.packet_of(c).has_value()) << "count " << c;
        }
        EXPECT_FALSE(p.stream.packet_of(p.stream.next_count()).has_value());
        if (ss.front().first_count > 0) {
            EXPECT_FALSE(p.stream.packet_of(0).has_value());
        }
    }
}

TEST(EtmStream, CountsTouchingSplitsPacketsAndSyncs) {
    // period 2: [start 0..24][c10 25..32][c11 33..40][sync 41..64][c12 65..72][c13 73..80]
    // stop, start(20): [start 81..105][c20 106..113]
    EtmStream s(1, 2);
    s.start(10);
    s.produce(4);
    s.stop();
    s.start(20);
    s.produce(1);
    ASSERT_EQ(s.size(), 114u);
    auto touch = [&](uint64_t off, uint64_t n) {
        std::vector<CountRange> v;
        s.counts_touching(off, n, v);
        return str(v);
    };
    EXPECT_EQ(touch(0, 25), "");               // the start only
    EXPECT_EQ(touch(24, 2), "[10+1]");         // last start byte + first packet byte
    EXPECT_EQ(touch(32, 2), "[10+2]");         // the boundary between two packets
    EXPECT_EQ(touch(40, 26), "[11+2]");        // last byte of c11, the sync, first byte of c12
    EXPECT_EQ(touch(41, 24), "");              // exactly the periodic sync
    EXPECT_EQ(touch(42, 5), "");               // inside it
    EXPECT_EQ(touch(80, 27), "[13+1][20+1]");  // across the session gap: two ranges
    EXPECT_EQ(touch(0, 1000), "[10+4][20+1]"); // clipped to size()
    EXPECT_EQ(touch(114, 5), "");
    EXPECT_EQ(touch(17, 0), "");
    EXPECT_EQ(s.sync_bytes_in(0, 114), 2 * kStartSize + kSyncSize);
    EXPECT_EQ(s.sync_bytes_in(36, 10), 5u);       // 5 bytes of c11, 5 of the sync
    EXPECT_EQ(s.sync_bytes_in(61, 30), 4u + 10u); // the sync's last 4, c12, c13, 10 of the start
    EXPECT_EQ(s.sync_bytes_in(106, 100), 0u);
    EXPECT_EQ(s.packet_of(12)->first, 65u);
    EXPECT_EQ(s.packet_of(20)->first, 106u);
    // The block holding a byte: start, periodic sync, none in a packet.
    EXPECT_EQ(block(s, 0), "0..25");
    EXPECT_EQ(block(s, 24), "0..25");
    EXPECT_EQ(block(s, 25), "none");
    EXPECT_EQ(block(s, 40), "none");
    EXPECT_EQ(block(s, 41), "41..65");
    EXPECT_EQ(block(s, 64), "41..65");
    EXPECT_EQ(block(s, 65), "none");
    EXPECT_EQ(block(s, 81), "81..106");
    EXPECT_EQ(block(s, 113), "none");
    EXPECT_EQ(block(s, 114), "none");
    EXPECT_FALSE(s.packet_of(14).has_value());
    EXPECT_FALSE(s.packet_of(9).has_value());

    // Existing entries of out are not merged into; contiguous sessions merge.
    EtmStream c(1, 0);
    c.start(0);
    c.produce(3);
    c.start(3); // continues the counts
    c.produce(2);
    std::vector<CountRange> v{CountRange{0, 0}};
    c.counts_touching(0, c.size(), v);
    EXPECT_EQ(str(v), "[0+0][0+5]");
}

TEST(EtmStream, EmptySessions) {
    EtmStream s(7, 3); // the trace ID of Reference's encoder: the address in the blocks
    s.start(5);
    s.start(5); // the first session has no packets
    s.stop();
    s.start(5);
    s.produce(4);
    Reference ref(3);
    ref.start();
    ref.start();
    ref.start();
    ref.emit(5, 4);
    EXPECT_EQ(read_all(s, 0, s.size()), ref.bytes);
    EXPECT_EQ(s.packet_of(5)->first, 3 * kStartSize);
    // Three starts, then c5 c6 c7, a periodic sync, c8.
    EXPECT_EQ(s.size(), 3 * kStartSize + kSyncSize + 4 * kCountPacketSize);
    EXPECT_EQ(s.sync_bytes_in(0, s.size()), 3 * kStartSize + kSyncSize);
    EXPECT_EQ(block(s, kStartSize), "25..50"); // two adjacent start blocks
    EXPECT_EQ(block(s, kStartSize - 1), "0..25");
    std::vector<CountRange> v;
    s.counts_touching(0, 2 * kStartSize + 1, v);
    EXPECT_TRUE(v.empty());
}

TEST(EtmStream, ReadThirtyTwoMegabytes) {
    EtmStream s(1, 500);
    s.start(0);
    s.produce((32u << 20) / kCountPacketSize);
    Bytes b(s.size());
    const auto t0 = std::chrono::steady_clock::now();
    s.read(0, b.size(), b.data());
    const auto t1 = std::chrono::steady_clock::now();
    Bytes ref;
    EtmEncoder enc(1, 500);
    enc.start(ref);
    enc.emit(0, s.counts_produced(), ref);
    EXPECT_TRUE(b == ref);
    const double mb = static_cast<double>(b.size()) / (1 << 20);
    std::printf("[ bench    ] EtmStream::read %.0f MB/s (%.0f MB)\n",
                mb / std::chrono::duration<double>(t1 - t0).count(), mb);
}

// first_packet_from, end_of_packets_before and end_of_packets_upto against the packets read
// off the bytes, before and after forget_before: what is kept answers the same, what is
// forgotten cannot be read.
TEST(EtmStream, PacketLookupsAgreeWithTheBytesAndSurviveForgetting) {
    std::mt19937_64 rng(7);
    for (uint32_t period : {0u, 1u, 4u, 37u}) {
        Pair p(period);
        random_run(p, rng, 80);
        struct Packet {
            uint64_t count, first, end;
        };
        std::vector<Packet> packets;
        const auto& owner = p.ref.owner;
        for (size_t i = 0; i < owner.size(); ++i)
            if (owner[i] != kSync && (i == 0 || owner[i - 1] != owner[i]))
                packets.push_back({uint64_t(owner[i]), i, i + kCountPacketSize});
        ASSERT_EQ(packets.size(), p.stream.counts_produced());
        const uint64_t last = p.stream.next_count() + 3;
        // Answers from the byte layout alone, for queries at or past `from_count`/`from_byte`.
        auto check = [&](uint64_t from_count, uint64_t from_byte) {
            for (uint64_t c = from_count; c <= last; ++c) {
                const auto first = p.stream.first_packet_from(c);
                auto it = std::find_if(packets.begin(), packets.end(),
                                       [c](const Packet& k) { return k.count >= c; });
                if (it == packets.end()) {
                    EXPECT_FALSE(first.has_value()) << "count " << c;
                } else {
                    ASSERT_TRUE(first.has_value()) << "count " << c;
                    EXPECT_EQ(first->first, it->count);
                    EXPECT_EQ(first->second, it->first);
                }
                const auto before = p.stream.end_of_packets_before(c);
                auto jt = std::find_if(packets.rbegin(), packets.rend(),
                                       [c](const Packet& k) { return k.count < c; });
                if (jt == packets.rend() || jt->first < from_byte) {
                    EXPECT_TRUE(!before.has_value() || *before == jt->end) << "count " << c;
                } else {
                    ASSERT_TRUE(before.has_value()) << "count " << c;
                    EXPECT_EQ(*before, jt->end);
                }
            }
            for (uint64_t off = from_byte; off <= p.stream.size(); ++off) {
                const auto upto = p.stream.end_of_packets_upto(off);
                auto jt = std::find_if(packets.rbegin(), packets.rend(),
                                       [off](const Packet& k) { return k.end <= off; });
                if (jt == packets.rend() || jt->first < from_byte) {
                    EXPECT_TRUE(!upto.has_value() || *upto == jt->end) << "byte " << off;
                } else {
                    ASSERT_TRUE(upto.has_value()) << "byte " << off;
                    EXPECT_EQ(*upto, jt->end);
                }
            }
        };
        check(0, 0);
        // Forget up to the middle of the stream: the session holding it stays.
        const uint64_t mid = p.stream.size() / 2;
        const size_t sessions = p.stream.sessions().size();
        p.stream.forget_before(mid, UINT64_MAX);
        ASSERT_GE(p.stream.sessions().size(), 1u);
        EXPECT_LE(p.stream.sessions().size(), sessions);
        const auto& kept = p.stream.sessions().front();
        EXPECT_LE(kept.offset, mid);
        check(kept.first_count, kept.offset);
        EXPECT_EQ(read_all(p.stream, kept.offset, p.stream.size() - kept.offset),
                  Bytes(p.ref.bytes.begin() + kept.offset, p.ref.bytes.end()));
        if (kept.offset > 0) {
            uint8_t b;
            EXPECT_THROW(p.stream.read(kept.offset - 1, 1, &b), ModelError);
            if (packets.front().first < kept.offset) {
                EXPECT_FALSE(p.stream.packet_of(packets.front().count).has_value());
            }
        }
        // A count bound keeps the sessions holding counts at or past it.
        Pair q(period);
        std::mt19937_64 again(7);
        random_run(q, again, 80);
        const std::deque<EtmStream::Session> all = q.stream.sessions();
        const uint64_t bound = all[all.size() / 2].first_count;
        size_t drop = 0; // leading sessions wholly below the bound, never the newest
        while (drop + 1 < all.size() && all[drop].first_count + all[drop].counts <= bound)
            ++drop;
        q.stream.forget_before(q.stream.size(), bound);
        ASSERT_EQ(q.stream.sessions().size(), all.size() - drop);
        EXPECT_EQ(q.stream.sessions().front().offset, all[drop].offset);
    }
}
