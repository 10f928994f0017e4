// TraceBooks (models/check/trace_books.h) closed as the run goes give the same books as one
// close at the end: on random streams (sessions of random lengths, untraced windows between
// them, sync periods), accounted for in random chunks (lost for a random cause, or committed
// and then decoded, left undecoded, or tagged unread or corrupted), with close_upto called
// at random safe limits; and on the cases a review found (a walk stopping at a session's
// first byte, a gap whose first packet straddles the walk's position).
#include "models/check/trace_books.h"

#include "models/coresight/etm_source.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace {

using namespace ringsim::models;
using namespace ringsim::models::coresight;

// Everything a TraceBooks ends with.
struct Result {
    TraceBookSums sums;
    uint64_t committed = 0, reported_lost = 0, claimed_twice = 0, duplicates = 0;
    std::vector<std::string> reports;
};

void expect_same(const Result& a, const Result& b, const std::string& what) {
    EXPECT_EQ(a.sums.delivered, b.sums.delivered) << what;
    EXPECT_EQ(a.sums.lost, b.sums.lost) << what;
    EXPECT_EQ(a.sums.unread, b.sums.unread) << what;
    EXPECT_EQ(a.sums.corrupted, b.sums.corrupted) << what;
    EXPECT_EQ(a.sums.overlap, b.sums.overlap) << what;
    EXPECT_EQ(a.sums.lost_by_cause, b.sums.lost_by_cause) << what;
    EXPECT_EQ(a.sums.gaps_by_cause, b.sums.gaps_by_cause) << what;
    EXPECT_EQ(a.sums.discontinuities, b.sums.discontinuities) << what;
    EXPECT_EQ(a.committed, b.committed) << what;
    EXPECT_EQ(a.reported_lost, b.reported_lost) << what;
    EXPECT_EQ(a.claimed_twice, b.claimed_twice) << what;
    EXPECT_EQ(a.duplicates, b.duplicates) << what;
    EXPECT_EQ(a.reports.size(), b.reports.size()) << what;
}

// One source and its books; `closing` closes as the run goes, at the limits given.
struct Side {
    TraceRate rate{1e9, {}};
    EtmSource src;
    Result r;
    TraceBooks books;
    bool closing;
    Side(uint32_t period, bool closing_)
        : src("etm0", 0x10, rate, period),
          books(src,
                [this](const char* kind, uint64_t, std::string ex) {
                    r.reports.push_back(std::string(kind) + ": " + ex);
                }),
          closing(closing_) {}
    void close_upto(uint64_t safe) {
        if (closing) books.close_upto(safe);
    }
    Result finish() {
        books.close(src.stream().size());
        r.sums = books.sums();
        r.committed = books.committed_bytes();
        r.reported_lost = books.reported_lost();
        r.claimed_twice = books.claimed_twice();
        r.duplicates = books.duplicates();
        return r;
    }
};

// Both sides see the same calls.
struct Pair {
    Side at_end, going;
    explicit Pair(uint32_t period) : at_end(period, false), going(period, true) {}
    template <typename F> void both(F&& f) {
        f(at_end);
        f(going);
    }
};

// A random run of `steps` sessions. Bytes are accounted for in order up to `accounted`;
// each committed chunk's whole packets are decoded (or not) at once, so no count whose
// packet lies below the accounted prefix is decoded later, which is what makes a limit of
// accounted - 8 safe (the checker's margin for a packet a decoder still holds).
void random_run(std::mt19937_64& rng, uint32_t period, int steps) {
    Pair p(period);
    Picos t = 0;
    uint64_t accounted = 0;
    uint64_t next_count = 0; // the next count whose packet may still be decoded
    uint64_t last_decoded = 0;
    bool decoded_any = false, resync = false, continue_decoding = false;
    const GapCause causes[] = {GapCause::fifo_overflow, GapCause::sink_wrap, GapCause::aux_shortage,
                               GapCause::sink_stopped};
    for (int step = 0; step < steps; ++step) {
        // A session of 0 to 40 counts, after an untraced window or none.
        t += Picos(rng() % 3) * 8000 * (rng() % 10);
        p.both([t](Side& s) { s.src.start(t, UntracedCause::stop_window); });
        t += Picos(rng() % 41) * 8000;
        p.both([t](Side& s) { s.src.stop(t); });
        const uint64_t size = p.at_end.src.stream().size();
        // Account for what was produced, in chunks.
        while (accounted < size) {
            const uint64_t n = std::min<uint64_t>(size - accounted, 1 + rng() % 120);
            const uint64_t off = accounted;
            const unsigned what = rng() % 6;
            if (what < 2) {
                const FateTag why{TraceFate::lost, causes[rng() % 4]};
                p.both([&](Side& s) { s.books.lost(off, n, why); });
            } else {
                p.both([&](Side& s) { s.books.committed(off, n); });
                if (what == 2) {
                    const FateTag tag{rng() % 2 ? TraceFate::unread : TraceFate::corrupted,
                                      GapCause::count};
                    p.both([&](Side& s) { s.books.tag(off, n, tag); });
                } else if (what < 5) {
                    // Decode the counts whose packets lie wholly in [off, off + n).
                    const auto& st = p.at_end.src.stream();
                    while (const auto pk = st.first_packet_from(next_count)) {
                        if (pk->second + kCountPacketSize > off + n) break;
                        // After bytes it did not decode, a decoder resynchronises: it never
                        // continues a run across them (only a FIFO drop, which it cannot
                        // see, lets it; both ways of closing book that alike).
                        const bool continues = decoded_any && pk->first == last_decoded + 1;
                        if (pk->second >= off && !(resync && continues)) {
                            const uint64_t c = pk->first;
                            p.both([c](Side& s) { s.books.add_counts(c, 1); });
                            decoded_any = true;
                            last_decoded = c;
                            resync = false;
                        }
                        next_count = pk->first + 1;
                    }
                    continue_decoding = true;
                }
            }
            if (!continue_decoding) resync = true;
            continue_decoding = false;
            accounted += n;
            if (rng() % 3 == 0) {
                const uint64_t slack = rng() % 16;
                const uint64_t safe = accounted > 8 + slack ? accounted - 8 - slack : 0;
                p.going.close_upto(safe);
            }
        }
    }
    const Result a = p.at_end.finish(), b = p.going.finish();
    expect_same(a, b, "period " + std::to_string(period));
}

TEST(TraceBooks, ClosingAsTheRunGoesGivesTheBooksOfOneCloseAtTheEnd) {
    std::mt19937_64 rng(2026);
    for (int run = 0; run < 60; ++run)
        for (uint32_t period : {0u, 1u, 4u, 37u}) {
            random_run(rng, period, 30);
            if (::testing::Test::HasFailure()) return;
        }
}

// A loss claim continuing the one before it (same cause) is held and booked with it
// (TraceBooks::lost): the books end as when every claim is booked as it comes (the second
// side forces that by asking claimed_twice() after each). Claims here overlap earlier ones
// (claimed twice), change cause, and meet commits, tags and closes between them.
TEST(TraceBooks, HeldLossClaimsBookAsEachClaimAlone) {
    std::mt19937_64 rng(7);
    const FateTag wrap{TraceFate::lost, GapCause::sink_wrap};
    const FateTag overflow{TraceFate::lost, GapCause::fifo_overflow};
    uint64_t twice = 0; // the runs claim some bytes twice, or the case tests less than it says
    for (int run = 0; run < 80; ++run) {
        Pair p(4); // at_end: held claims; going: each claim booked at once
        Picos t = 0;
        for (int i = 0; i < 10; ++i) {
            t += Picos(rng() % 3) * 8000;
            p.both([t](Side& s) { s.src.start(t, UntracedCause::stop_window); });
            t += Picos(1 + rng() % 40) * 8000;
            p.both([t](Side& s) { s.src.stop(t); });
        }
        const uint64_t size = p.at_end.src.stream().size();
        uint64_t at = 0;
        while (at < size) {
            const uint64_t n = std::min<uint64_t>(size - at, 1 + rng() % 60);
            // Mostly where the last claim ended; sometimes over bytes claimed already.
            const uint64_t back = rng() % 5 == 0 ? std::min<uint64_t>(at, rng() % 30) : 0;
            const uint64_t off = at - back;
            const unsigned what = rng() % 8;
            if (what < 5) {
                const FateTag why = what < 4 ? wrap : overflow;
                p.both([&](Side& s) { s.books.lost(off, n, why); });
                (void)p.going.books.claimed_twice();
            } else if (what == 5) {
                p.both([&](Side& s) { s.books.committed(off, n); });
            } else if (what == 6) {
                const FateTag unread{TraceFate::unread, GapCause::count};
                p.both([&](Side& s) { s.books.tag(off, n, unread); });
            } else {
                const uint64_t safe = at > 8 ? at - 8 : 0;
                p.both([&](Side& s) { s.books.close_upto(safe); });
            }
            at = std::max(at, off + n);
        }
        const Result a = p.at_end.finish(), b = p.going.finish();
        expect_same(a, b, "run " + std::to_string(run));
        EXPECT_EQ(a.reports, b.reports) << "run " << run;
        if (::testing::Test::HasFailure()) return;
        twice += a.claimed_twice;
    }
    EXPECT_GT(twice, 0u);
}

// The walk stops at the first byte of a session whose start block it cannot finish yet:
// the session before it is forgotten, and the sync bytes before the kept one still count.
TEST(TraceBooks, AWalkStoppingAtASessionsFirstByte) {
    Pair p(4);
    p.both([](Side& s) {
        s.src.start(0, UntracedCause::stop_window);
        s.src.stop(80'000);
    });
    const uint64_t s0 = p.at_end.src.stream().size();
    p.both([s0](Side& s) { s.books.lost(0, s0, {TraceFate::lost, GapCause::sink_wrap}); });
    p.both([](Side& s) {
        s.src.start(100'000, UntracedCause::stop_window);
        s.src.produce_until(103'000);
    });
    const uint64_t s1 = p.at_end.src.stream().size();
    p.both([&](Side& s) { s.books.committed(s0, s1 - s0); });
    p.going.close_upto(s1 - 8);
    p.going.close_upto(s1 - 8);
    p.both([](Side& s) { s.src.stop(280'000); });
    const uint64_t s2 = p.at_end.src.stream().size();
    const auto& last = p.at_end.src.stream().sessions().back();
    p.both([&](Side& s) {
        s.books.committed(s1, s2 - s1);
        s.books.add_counts(last.first_count, last.counts);
    });
    p.going.close_upto(s2 - 8);
    expect_same(p.at_end.finish(), p.going.finish(), "stop at a session start");
}

// The open gap's first packet begins before the walk's position and ends after it: the
// fates under it decide the gap's cause and must survive the forgetting.
TEST(TraceBooks, AGapsFirstPacketAcrossTheWalksPosition) {
    for (const bool second_loss : {true, false}) {
        Pair p(4);
        p.both([](Side& s) {
            s.src.start(0, UntracedCause::stop_window);
            s.src.stop(80'000);
        });
        const uint64_t s0 = p.at_end.src.stream().size();
        p.both([&](Side& s) {
            s.books.lost(0, 28, {TraceFate::lost, GapCause::sink_stopped});
            if (second_loss) s.books.lost(28, 12, {TraceFate::lost, GapCause::sink_wrap});
            s.books.committed(second_loss ? 40 : 28, s0 - (second_loss ? 40 : 28));
        });
        p.going.close_upto(30);
        p.both([](Side& s) { s.books.add_counts(4, 6); });
        p.going.close_upto(s0 - 8);
        const Result a = p.at_end.finish(), b = p.going.finish();
        expect_same(a, b, second_loss ? "two losses" : "one loss");
        EXPECT_EQ(a.sums.gaps_by_cause[size_t(GapCause::sink_stopped)], 1u);
    }
}

} // namespace
