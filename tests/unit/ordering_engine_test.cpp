// The ordering engine on its own, with exact perform times (policy none, so every access
// performs at its issue time unless a rule raises it) and with bounds wide open.
#include "models/memory/ordering_engine.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace ringsim::models;

namespace {

struct Engine : ::testing::Test {
    PhysicalMemory mem;
    Addr x = mem.allocate("x", 64, 64), y = mem.allocate("y", 64, 64);
    std::unique_ptr<OrderingEngine> e;
    unsigned p0 = 0, p1 = 0;

    void make(MemoryModel m, TimingPolicy pol, TimingBounds b = {100, 50, 100}, uint64_t seed = 1) {
        e = std::make_unique<OrderingEngine>(mem, m, pol, seed);
        p0 = e->add_agent("cpu0", b);
        p1 = e->add_agent("cpu1", b);
    }
    uint64_t store(unsigned a, Picos t, Addr at, uint64_t v, bool release = false) {
        return e->store(a, t, at, reinterpret_cast<const uint8_t*>(&v), 8, release, Barrier::none);
    }
    uint64_t read(const LoadTicket& t, Picos now, std::vector<ByteSource>* src = nullptr) {
        uint64_t v = 0;
        e->read(t, now, reinterpret_cast<uint8_t*>(&v), src);
        return v;
    }
};

} // namespace

TEST_F(Engine, ScPerformsEverythingAtIssue) {
    make(MemoryModel::sc, TimingPolicy::random);
    store(p0, 10, x, 7);
    const LoadTicket t = e->load(p1, 10, x, 8, false, Barrier::none);
    EXPECT_EQ(t.perform, 10u);
    EXPECT_EQ(read(t, 10), 7u);
}

TEST_F(Engine, NonePolicyPerformsAtIssueOnArmToo) {
    make(MemoryModel::arm, TimingPolicy::none);
    store(p0, 10, x, 7);
    const LoadTicket t = e->load(p1, 11, x, 8, false, Barrier::none);
    EXPECT_EQ(t.perform, 11u);
    EXPECT_EQ(read(t, 11), 7u);
}

TEST_F(Engine, ReleaseWaitsForEverythingBeforeItAndAcquireOrdersWhatFollows) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {1000, 0, 1000});
    // Find when the plain store performs, then check the release is not earlier.
    const uint64_t s1 = store(p0, 0, x, 1);
    const uint64_t s2 = store(p0, 0, y, 1, true);
    EXPECT_GE(e->store_record(s2)->perform, e->store_record(s1)->perform);
    const LoadTicket a = e->load(p1, 5, y, 8, true, Barrier::C);
    const LoadTicket b = e->load(p1, 5, x, 8, false, Barrier::none);
    EXPECT_GE(b.perform, a.perform);
}

TEST_F(Engine, StoreForwardingAndHistory) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {1000, 500, 0});
    // A store still in cpu0's store buffer is seen by cpu0 at once, by cpu1 only once it
    // has performed.
    const uint64_t s = store(p0, 1000, x, 42);
    const Picos performed = e->store_record(s)->perform;
    const LoadTicket own = e->load(p0, 1000, x, 8, false, Barrier::none);
    std::vector<ByteSource> src;
    EXPECT_EQ(read(own, 1000, &src), 42u); // forwarded
    ASSERT_EQ(src.size(), 1u);
    EXPECT_EQ(src[0].store_seq, s);
    const LoadTicket other = e->load(p1, 2000, x, 8, false, Barrier::none);
    const uint64_t v = read(other, 2000);
    EXPECT_EQ(v, other.perform >= performed ? 42u : 0u);
}

TEST_F(Engine, EarlyLoadReadsThePast) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {0, 500, 0});
    // Stores perform at issue (drain 0); a load issued at 1300 may perform at 800, before
    // the store at 1000.
    store(p0, 1000, x, 5);
    for (int i = 0; i < 32; ++i) {
        const LoadTicket t = e->load(p1, 1300 + i, y + 8 * (i % 4), 8, false, Barrier::none);
        read(t, 1300 + i);
    }
    bool early_old = false, late_new = false;
    for (int i = 0; i < 32; ++i) {
        const LoadTicket t = e->load(p1, 1400 + 2 * i, x, 8, false, Barrier::none);
        const uint64_t v = read(t, 1400 + 2 * i);
        if (t.perform < 1000)
            early_old |= v == 0;
        else
            late_new |= v == 5;
        EXPECT_EQ(v, t.perform >= 1000 ? 5u : 0u);
    }
    EXPECT_TRUE(late_new);
    EXPECT_TRUE(early_old);
}

TEST_F(Engine, LateLoadCannotBeReadBeforeItPerforms) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {0, 0, 1000});
    LoadTicket late{};
    for (Picos t = 0; t < 64 && late.perform == 0; ++t) {
        const LoadTicket l = e->load(p1, t, x, 8, false, Barrier::none);
        if (l.perform > t)
            late = l;
        else
            read(l, t);
    }
    ASSERT_GT(late.perform, late.issue);
    EXPECT_THROW(read(late, late.issue), ModelError);
    store(p0, late.issue + 1, x, 9); // performs before the load does: the load sees it
    EXPECT_EQ(read(late, late.perform), 9u);
}

TEST_F(Engine, CancelledStoreIsNeverSeen) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {1000, 0, 0});
    uint64_t s = 0, value = 0;
    for (Picos t = 0; t < 64; ++t) {
        value = 100 + t; // each store its own value
        s = store(p0, t * 10, x, value);
        if (e->store_record(s)->perform > t * 10) break;
    }
    const Picos now = e->store_record(s)->issue;
    ASSERT_GT(e->store_record(s)->perform, now);
    EXPECT_TRUE(e->cancel_store(s, now));
    const LoadTicket t = e->load(p1, now + 2000, x, 8, false, Barrier::none);
    EXPECT_NE(read(t, now + 2000), value); // the earlier store's value, never the squashed one
}

// A branch on a late load resolves when the load performs: a store issued under it that
// performs from then on is squashed, however late the squash comes (an interrupt may delay
// the software that squashes it past the history window), and no store passes its load on
// tso, so there every one is squashable.
TEST_F(Engine, StoresPerformingAfterTheirBranchResolvedAreSquashedEvenLate) {
    for (const MemoryModel m : {MemoryModel::tso, MemoryModel::arm}) {
        make(m, TimingPolicy::adversarial, {1000, 0, 1000});
        LoadTicket branch{};
        for (Picos t = 0; t < 64'000; t += 1000) {
            branch = e->load(p0, t, y, 8, false, Barrier::A);
            if (branch.perform > t) break;
            read(branch, t);
        }
        ASSERT_GT(branch.perform, branch.issue);
        std::vector<uint64_t> stores;
        for (Picos t = branch.issue; t < branch.issue + 5; ++t)
            stores.push_back(store(p0, t, x, 100 + t));
        // Another agent's traffic long after: the window has passed for all of them.
        const Picos late = branch.perform + 100'000;
        store(p1, late - 10, y + 8, 1);
        read(branch, late);
        for (const uint64_t s : stores) {
            const bool before = e->store_record(s)->perform < branch.perform;
            EXPECT_FALSE(m == MemoryModel::tso && before) << "a tso store passed its load";
            EXPECT_EQ(e->cancel_store(s, branch.perform), !before);
        }
        const LoadTicket t = e->load(p1, late + 10'000, x, 8, false, Barrier::none);
        const uint64_t seen = read(t, std::max(t.perform, late + 10'000));
        bool escaped = seen == 0; // x as it was before any of them
        for (const uint64_t s : stores)
            escaped |=
                e->store_record(s)->perform < branch.perform && seen == e->store_record(s)->value;
        EXPECT_TRUE(escaped) << "saw " << seen << ", a squashed store's value";
    }
}

TEST_F(Engine, WmbOrdersStoresOnArm) {
    make(MemoryModel::arm, TimingPolicy::adversarial, {1000, 0, 0});
    for (int i = 0; i < 50; ++i) {
        const uint64_t a = store(p0, i * 3000, x, i);
        e->fence(p0, i * 3000, Fence::wmb, Barrier::B);
        const uint64_t b = store(p0, i * 3000, y, i);
        EXPECT_LE(e->store_record(a)->perform, e->store_record(b)->perform);
    }
}

TEST_F(Engine, TsoKeepsStoresInOrder) {
    make(MemoryModel::tso, TimingPolicy::adversarial, {1000, 0, 0});
    Picos last = 0;
    for (int i = 0; i < 50; ++i) {
        const uint64_t s = store(p0, i * 10, (i % 2) ? x : y, i);
        EXPECT_GE(e->store_record(s)->perform, last);
        last = e->store_record(s)->perform;
    }
}

TEST_F(Engine, AccessesToTheSameBytesKeepTheirOrderWhateverTheDraws) {
    // Coherence, arm's "same bytes" rule: an agent's later access to bytes it loaded performs
    // after that load, and its later store to bytes it stored after that store. Random
    // accesses of one agent to two words, each drawn anew: whatever the engine skips to find
    // this floor (it skips the scan when no remembered access can raise it), the rule holds
    // between every pair, not just the neighbours.
    for (MemoryModel m : {MemoryModel::tso, MemoryModel::arm})
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            make(m, TimingPolicy::random, {300, 200, 300}, seed);
            Rng draw(seed);
            struct Access {
                Addr at;
                bool is_store;
                Picos perform;
            };
            std::vector<Access> done;
            Picos now = 1000;
            for (int i = 0; i < 200; ++i) {
                now += draw.below(120);
                const Addr at = draw.below(2) ? x : y;
                if (draw.below(2)) {
                    const uint64_t s = store(p0, now, at, uint64_t(i));
                    done.push_back({at, true, e->store_record(s)->perform});
                } else {
                    const LoadTicket t = e->load(p0, now, at, 8, false, Barrier::none);
                    done.push_back({at, false, t.perform});
                }
            }
            for (size_t j = 0; j < done.size(); ++j)
                for (size_t i = 0; i < j; ++i) {
                    if (done[i].at != done[j].at || (done[i].is_store && !done[j].is_store))
                        continue; // other bytes, or a load forwarded an earlier store
                    ASSERT_GE(done[j].perform, done[i].perform)
                        << "model " << int(m) << " seed " << seed << ": access " << j << " after "
                        << i;
                }
        }
}

// Copies in pieces (MEMORY-MODEL.md "Copies and records in pieces"): a copy of 256 bytes
// over 256 ns is four cache-line loads issued at 0, 64, 128 and 192 ns.
namespace {
struct Copy : Engine {
    Addr buf = mem.allocate("buf", 256, 64);
    void store_line(unsigned a, Picos t, uint64_t line, uint8_t v) {
        std::vector<uint8_t> bytes(64, v);
        e->store(a, t, buf + line * 64, bytes.data(), 64, false, Barrier::none);
    }
    std::vector<uint8_t> read_copy(const LoadTicket& t, Picos now,
                                   std::vector<ByteSource>* src = nullptr) {
        std::vector<uint8_t> out(t.size);
        e->read(t, now, out.data(), src);
        return out;
    }
};
} // namespace

TEST_F(Copy, ScSeesAStoreInTheLinesItReachesAfterTheStoreNotBefore) {
    make(MemoryModel::sc, TimingPolicy::none);
    const LoadTicket c = e->load_copy(p1, 0, buf, 256, 0, 256'000);
    EXPECT_EQ(c.perform, 192'000u); // the last line's issue time
    store_line(p0, 100'000, 0, 1);  // line 0 was read at 0: not seen
    store_line(p0, 100'000, 3, 3);  // line 3 is read at 192 ns: seen
    std::vector<ByteSource> src;
    const auto bytes = read_copy(c, 192'000, &src);
    EXPECT_EQ(bytes[0], 0);
    EXPECT_EQ(bytes[3 * 64], 3);
    // One range per line, each with its own times; line 3's names the store.
    ASSERT_EQ(src.size(), 4u);
    for (unsigned k = 0; k < 4; ++k) {
        EXPECT_EQ(src[k].offset, k * 64u);
        EXPECT_EQ(src[k].load_issue, k * 64'000u);
        EXPECT_EQ(src[k].load_perform, k * 64'000u);
    }
    EXPECT_EQ(src[0].store_seq, 0u);
    EXPECT_NE(src[3].store_seq, 0u);
}

TEST_F(Copy, ScStoresBesideAPendingCopyGoStraightToMemory) {
    make(MemoryModel::sc, TimingPolicy::none);
    const LoadTicket c = e->load_copy(p1, 0, buf, 128, 0, 128'000);
    store(p0, 10'000, x, 5); // not a byte of the copy: in memory at once
    uint64_t v = 0;
    mem.read(x, reinterpret_cast<uint8_t*>(&v), 8);
    EXPECT_EQ(v, 5u);
    store_line(p0, 10'000, 1, 9); // a byte of the copy: kept until the copy has read it
    uint8_t b = 0;
    mem.read(buf + 64, &b, 1);
    EXPECT_EQ(b, 0);
    EXPECT_EQ(read_copy(c, 64'000)[64], 9);
}

TEST_F(Copy, TsoLinesPerformInOrderAndArmLinesEachWithinTheirBounds) {
    for (MemoryModel m : {MemoryModel::tso, MemoryModel::arm}) {
        make(m, TimingPolicy::random, {0, 50'000, 100'000});
        const LoadTicket c = e->load_copy(p1, 1'000'000, buf, 256, 0, 256'000);
        std::vector<ByteSource> src;
        read_copy(c, c.perform, &src);
        ASSERT_EQ(src.size(), 4u);
        Picos last = 0;
        for (const ByteSource& r : src) {
            EXPECT_GE(r.load_perform + 50'000, r.load_issue);
            if (m == MemoryModel::tso)
                EXPECT_GE(r.load_perform, last); // loads stay in order
            else
                EXPECT_LE(r.load_perform, r.load_issue + 100'000);
            last = std::max(last, r.load_perform);
        }
        EXPECT_EQ(c.perform, last);
    }
}

TEST_F(Copy, AnEarlyFirstLineKeepsTheHistoryItMayRead) {
    // A store performing at 950 ns, a copy issued at 1000 ns whose first line performs at
    // 900 or 1000 ns. Later stores move the history's horizon past 950 ns, but the store
    // must stay out of memory until the copy is read: its first line may predate it.
    bool early = false, late = false;
    for (uint64_t seed = 1; seed <= 16; ++seed) {
        mem.write(buf, std::vector<uint8_t>(256, 0).data(), 256);
        make(MemoryModel::arm, TimingPolicy::adversarial, {0, 100'000, 0}, seed);
        store_line(p0, 950'000, 0, 7);
        const LoadTicket c = e->load_copy(p1, 1'000'000, buf, 256, 0, 256'000);
        store(p0, 1'300'000, x, 1); // retires what no pending load can need
        std::vector<ByteSource> src;
        const auto bytes = read_copy(c, std::max<Picos>(c.perform, 1'300'000), &src);
        const bool saw = src[0].load_perform > 950'000;
        (saw ? late : early) = true;
        EXPECT_EQ(bytes[0], saw ? 7 : 0) << "seed " << seed;
    }
    EXPECT_TRUE(early && late) << "both orders should occur in 16 seeds";
}

namespace {
struct Sources : OpObserver {
    std::vector<OpRecord> ops;
    void on_op(const OpRecord& op) override { ops.push_back(op); }
};
} // namespace

TEST_F(Engine, AnObservedLoadNamesTheStoreWhoseBytesMemoryHolds) {
    // Under sc every store goes straight to memory, under arm old ones are merged into it:
    // either way an observer (the timeline) still learns which store a load read.
    for (MemoryModel m : {MemoryModel::sc, MemoryModel::arm}) {
        make(m, TimingPolicy::none, {0, 0, 0});
        Sources seen;
        e->add_observer(&seen);
        const uint64_t a = store(p0, 10, x, 1);
        const uint64_t b = store(p0, 20, x + 4, 2); // overwrites the upper half of a
        store(p0, 5'000'000, y, 3);                 // retires both under arm
        read(e->load(p1, 5'000'000, x, 8, false, Barrier::none), 5'000'000);
        read(e->load(p1, 5'000'000, x, 4, false, Barrier::none), 5'000'000);
        std::vector<uint64_t> sources;
        for (const OpRecord& op : seen.ops)
            if (op.kind == OpKind::load) sources.push_back(op.source);
        EXPECT_EQ(sources, (std::vector<uint64_t>{b, a})) << int(m);
    }
}

TEST_F(Engine, ReadModifyWritesAreAtomicUnderEveryModelAndPolicy) {
    // Three agents exchange and store unique values into one location at random instants.
    // An exchange is atomic when the value it read is the one its store part follows
    // directly in coherence order (perform time, then sequence number), which keeps every
    // plain store out of the pair, and so no value is read by two exchanges.
    for (MemoryModel m : {MemoryModel::sc, MemoryModel::tso, MemoryModel::arm})
        for (TimingPolicy pol : {TimingPolicy::random, TimingPolicy::adversarial})
            for (uint64_t seed = 1; seed <= 40; ++seed) {
                make(m, pol, {100, 50, 100}, seed);
                const uint64_t zero = 0; // the initial value, before every store
                mem.write(x, reinterpret_cast<const uint8_t*>(&zero), 8);
                const unsigned p2 = e->add_agent("cpu2", {100, 50, 100});
                const unsigned agents[] = {p0, p1, p2};
                Rng rng(seed);
                struct Exchange {
                    LoadTicket load;
                    uint64_t store_seq;
                    uint64_t read = 0;
                };
                std::vector<Exchange> exchanges;
                std::map<uint64_t, uint64_t> value_of; // store seq -> the value it stored
                std::vector<size_t> pending;
                auto settle = [&](Picos now) {
                    for (auto it = pending.begin(); it != pending.end();)
                        if (exchanges[*it].load.perform <= now) {
                            exchanges[*it].read = read(exchanges[*it].load, now);
                            it = pending.erase(it);
                        } else {
                            ++it;
                        }
                };
                Picos now = 0;
                for (uint64_t value = 1; value <= 60; ++value) {
                    now += rng.below(40);
                    settle(now);
                    const unsigned a = agents[rng.below(3)];
                    if (rng.below(10) < 7) {
                        const bool acquire = rng.below(2), release = rng.below(2);
                        const RmwTicket t =
                            e->rmw(a, now, x, reinterpret_cast<const uint8_t*>(&value), 8, acquire,
                                   release, Barrier::none);
                        exchanges.push_back({t.load, t.store_seq});
                        pending.push_back(exchanges.size() - 1);
                        value_of[t.store_seq] = value;
                    } else {
                        value_of[store(a, now, x, value)] = value;
                    }
                }
                settle(~Picos(0) >> 1);
                // Coherence order of every store, and what precedes each.
                std::vector<std::pair<Picos, uint64_t>> order;
                for (const auto& [seq, v] : value_of) {
                    const OpRecord* op = e->store_record(seq);
                    ASSERT_TRUE(op);
                    order.push_back({op->perform, seq});
                }
                std::sort(order.begin(), order.end());
                std::map<uint64_t, uint64_t> before; // store seq -> the value just before it
                for (size_t i = 0; i < order.size(); ++i)
                    before[order[i].second] = i ? value_of[order[i - 1].second] : 0;
                std::map<uint64_t, int> readers;
                for (const Exchange& ex : exchanges) {
                    EXPECT_EQ(ex.read, before[ex.store_seq])
                        << "exchange #" << ex.load.seq << ", model " << int(m) << " policy "
                        << int(pol) << " seed " << seed;
                    ++readers[ex.read];
                }
                for (const auto& [v, n] : readers)
                    EXPECT_EQ(n, 1) << "value " << v << " read by " << n << " exchanges";
            }
}

TEST_F(Engine, ArmRmwStorePartMayPerformAfterItsLoadPartButNotBeforeAnIssuedStore) {
    // The load part reads the newest value (after every store already issued to the
    // location); under arm the store part may drain later, and a plain store issued meanwhile
    // is moved after it; sc and tso perform both parts at one instant.
    const uint64_t one = 1;
    bool later = false;
    for (uint64_t seed = 1; seed <= 16 && !later; ++seed) {
        make(MemoryModel::arm, TimingPolicy::adversarial, {100, 50, 100}, seed);
        const uint64_t s = store(p1, 0, x, 5); // performs in [0, 100]
        const RmwTicket t = e->rmw(p0, 10, x, reinterpret_cast<const uint8_t*>(&one), 8, false,
                                   false, Barrier::none);
        // Perform times copied out: a record points into a ring that the next store may grow.
        ASSERT_TRUE(e->store_record(s) && e->store_record(t.store_seq));
        const Picos before = e->store_record(s)->perform;
        const Picos part = e->store_record(t.store_seq)->perform;
        EXPECT_GE(t.load.perform, before) << seed;
        EXPECT_GE(part, t.load.perform) << seed;
        // A store issued inside the window lands after the store part.
        const Picos inside = e->store_record(store(p1, 20, x, 9))->perform;
        EXPECT_TRUE(inside < t.load.perform || inside >= part) << seed;
        EXPECT_EQ(read(t.load, 1000), 5u) << seed;
        later = later || part > t.load.perform;
    }
    EXPECT_TRUE(later) << "under adversarial timing the store part should drain late sometimes";
    for (MemoryModel m : {MemoryModel::sc, MemoryModel::tso}) {
        make(m, TimingPolicy::adversarial, {100, 50, 100}, 2);
        const RmwTicket t = e->rmw(p0, 10, x, reinterpret_cast<const uint8_t*>(&one), 8, false,
                                   false, Barrier::none);
        EXPECT_EQ(e->store_record(t.store_seq)->perform, t.load.perform) << int(m);
    }
}

TEST_F(Engine, ArmAcquireReadingItsOwnExchangeWaitsForTheStorePart) {
    // ARMv8 orders a load-acquire that reads its own thread's read-modify-write after that
    // write (aob: [range(rmw)]; lrs; [A|Q]), though its value is forwarded; a plain load of
    // the bytes need not wait, and does perform before the store part in some of these runs.
    const uint64_t one = 1;
    bool plain_before = false;
    for (uint64_t seed = 1; seed <= 64; ++seed)
        for (bool acquire : {true, false}) {
            make(MemoryModel::arm, TimingPolicy::random, {100, 50, 100}, seed);
            const RmwTicket t = e->rmw(p0, 10, x, reinterpret_cast<const uint8_t*>(&one), 8, false,
                                       false, Barrier::none);
            const Picos part = e->store_record(t.store_seq)->perform;
            const LoadTicket l = e->load(p0, 11, x, 8, acquire, Barrier::none);
            if (acquire)
                EXPECT_GE(l.perform, part) << seed;
            else
                plain_before = plain_before || l.perform < part;
            EXPECT_EQ(read(l, 1000), 1u) << seed;
        }
    EXPECT_TRUE(plain_before);
}

// The ring of store records (for explanations) grows in two steps, a first block and then the
// whole ring, and keeps the last kStoreRecordsKept operations' stores: every store in it is
// found whatever the step it landed in (those of the first block survive the second), and
// one the ring has since gone round is forgotten, not misreported. An engine whose first
// store lies past the first block (loads before it) takes the whole ring at once.
TEST_F(Engine, TheStoreRecordsKeepTheLastStoresAcrossTheRingsGrowth) {
    const size_t first = OrderingEngine::kStoreRecordsFirst,
                 kept = OrderingEngine::kStoreRecordsKept;
    make(MemoryModel::sc, TimingPolicy::none);
    for (size_t i = 0; i < first + 100; ++i) // a load per operation: no store yet
        read(e->load(p1, 1, y, 8, false, Barrier::none), 1);
    const uint64_t past_the_block = store(p0, 2, x, 42);
    ASSERT_GE(past_the_block % kept, first);
    ASSERT_NE(e->store_record(past_the_block), nullptr);
    EXPECT_EQ(e->store_record(past_the_block)->value, 42u);

    make(MemoryModel::sc, TimingPolicy::none);
    std::vector<uint64_t> seqs;
    for (uint64_t i = 0; i < 2 * first; ++i) { // the first block, then past it
        seqs.push_back(store(p0, 2, x, i));
        if (i % 16 == 0) read(e->load(p1, 2, y, 8, false, Barrier::none), 2);
    }
    ASSERT_LT(seqs.front() % kept, first);
    ASSERT_GE(seqs.back() % kept, first);
    for (uint64_t i = 0; i < seqs.size(); ++i) {
        const OpRecord* op = e->store_record(seqs[i]);
        ASSERT_NE(op, nullptr) << i;
        EXPECT_EQ(op->seq, seqs[i]);
        EXPECT_EQ(op->value, i);
    }
    EXPECT_EQ(e->store_record(seqs.back() + 1), nullptr); // no such operation yet

    // Round the ring: the first stores' slots now hold newer operations.
    uint64_t last = 0;
    for (size_t i = 0; i < kept; ++i)
        last = store(p0, 3, x, 1000000 + i);
    EXPECT_EQ(e->store_record(seqs.front()), nullptr);
    EXPECT_EQ(e->store_record(seqs.back()), nullptr);
    ASSERT_NE(e->store_record(last), nullptr);
    EXPECT_EQ(e->store_record(last)->value, 1000000 + kept - 1);
    EXPECT_NE(e->store_record(last - kept + 1), nullptr); // the oldest still kept
}
