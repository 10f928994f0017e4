// The AUX path end to end through `ringsim run`: each scenario closes its trace books
// exactly (produced = delivered + lost + unread + corrupted), shows the mechanism its
// description names, and the AUX barrier lessons show their violation on arm while their
// correct variants, and every shipped scenario, show none. Single seeds: exact and fast.
#include "tests/support/ringsim_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {

// stats.json's "total" of one run.
nlohmann::json total_stats(const std::string& scenario, const std::string& sets = "") {
    return ringsim::testing_support::run_ringsim(scenario, sets).stats.at("total");
}

nlohmann::json aux_stats(const std::string& scenario, const std::string& sets = "") {
    return total_stats(scenario, sets).at("aux");
}

uint64_t u(const nlohmann::json& j, const char* a, const char* b) {
    return j.at(a).at(b).get<uint64_t>();
}

void expect_books_close(const nlohmann::json& a) {
    EXPECT_EQ(u(a, "bytes", "produced"), u(a, "bytes", "delivered") + u(a, "bytes", "lost") +
                                             u(a, "bytes", "unread") + u(a, "bytes", "corrupted"));
    uint64_t by_cause = 0;
    for (const char* c : {"fifo_overflow", "sink_wrap", "aux_shortage", "memerr",
                          "snapshot_overwrite", "record_lost", "sink_stopped"})
        by_cause += u(a, "lost_by_cause", c);
    EXPECT_EQ(u(a, "bytes", "lost"), by_cause);
    EXPECT_EQ(u(a, "bytes", "untraced"),
              u(a, "lost_by_cause", "stop_window") + u(a, "lost_by_cause", "aux_disabled"));
    EXPECT_GT(u(a, "bytes", "produced"), 0u);
}

TEST(AuxPath, SystemWideSharedEtrHarvestedOnlyAtExit) {
    const auto a = aux_stats("scenarios/etr-system-wide.json");
    expect_books_close(a);
    EXPECT_EQ(a.at("driver").at("harvests").get<int>(), 1); // P3: only at the stop at exit
    EXPECT_EQ(a.at("driver").at("harvests_skipped_shared").get<int>(), 3); // E5: 3 non-last
    EXPECT_EQ(a.at("driver").at("wrapped_captures").get<int>(), 1);        // D3
    EXPECT_GT(u(a, "lost_by_cause", "sink_wrap"), 0u);
    EXPECT_EQ(a.at("truncated").get<int>(), 1);
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

TEST(AuxPath, PerThreadStopWindowsAreGapsNotLoss) {
    const auto a = aux_stats("scenarios/etr-per-thread.json");
    expect_books_close(a);
    EXPECT_EQ(u(a, "bytes", "lost"), 0u);
    EXPECT_EQ(u(a, "bytes", "delivered"), u(a, "bytes", "produced"));
    EXPECT_GT(u(a, "gaps_by_cause", "stop_window"), 0u);
    EXPECT_EQ(a.at("truncated").get<int>(), 0);
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

// Per thread, the task's code runs under one ETM at a time and under none while it is
// scheduled out (500 us in, 50 us out): produced + untraced is at most what one source
// emits while the task runs, however many CPUs it visits (3 here, migrating every 2 ms).
TEST(AuxPath, PerThreadUntracedIsOnlyWhatTheTaskRanWithItsEventOff) {
    for (const uint64_t mb_per_s : {150, 3000}) {
        const auto a = aux_stats("scenarios/etr-per-thread.json",
                                 "--set trace.rate=" + std::to_string(mb_per_s) + "MB/s");
        expect_books_close(a);
        const double emitted = double(mb_per_s) * 1e6 * 10e-3 * 500 / 550; // 10 ms, 91% in
        const uint64_t seen = u(a, "bytes", "produced") + u(a, "bytes", "untraced");
        EXPECT_LE(double(seen), emitted * 1.01) << mb_per_s; // + A-Sync and Trace Info
        EXPECT_GE(double(seen), emitted * 0.98) << mb_per_s; // - the moves between CPUs
        EXPECT_EQ(u(a, "violations", "total"), 0u);
    }
}

TEST(AuxPath, SinkWrapTruncatesWithBarrierPackets) {
    const auto a = aux_stats("scenarios/etr-wrap.json");
    expect_books_close(a);
    EXPECT_GT(u(a, "lost_by_cause", "sink_wrap"), 0u);
    EXPECT_EQ(a.at("truncated").get<uint64_t>(),
              a.at("driver").at("barrier_packets").get<uint64_t>());
    EXPECT_EQ(a.at("truncated_delivered").get<uint64_t>(), a.at("truncated").get<uint64_t>());
    EXPECT_GT(u(a, "event", "kernel_disables"), 0u); // A6
    EXPECT_GT(u(a, "event", "reenables"), 0u);       // A9
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

TEST(AuxPath, AuxShortageTruncatesAndDisablesUntilReenabled) {
    const auto a = aux_stats("scenarios/aux-full.json");
    expect_books_close(a);
    EXPECT_GT(u(a, "lost_by_cause", "aux_shortage"), 0u); // D2
    EXPECT_GT(u(a, "lost_by_cause", "aux_disabled"), 0u); // the event off meanwhile
    EXPECT_GT(u(a, "event", "kernel_disables"), 0u);      // A6
    EXPECT_GT(u(a, "event", "reenables"), 0u);            // A9
    // aux_head moves by 16-byte frames, so the room at begin is never 0 (see the scenario).
    EXPECT_EQ(u(a, "event", "begin_failures"), 0u);
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

TEST(AuxPath, SnapshotOverwritesWithoutTruncation) {
    const auto a = aux_stats("scenarios/snapshot.json");
    expect_books_close(a);
    EXPECT_GT(u(a, "lost_by_cause", "snapshot_overwrite"), 0u); // D6, E6
    EXPECT_EQ(a.at("truncated").get<int>(), 0);                 // E6: never in snapshot mode
    EXPECT_EQ(u(a, "consumer", "snapshots"), 4u);               // three SIGUSR2 + exit
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

// perf record -S takes no snapshot at exit; -Se does (record__auxtrace_snapshot_exit):
// without it, what the final stops committed after the last SIGUSR2 stays unread.
TEST(AuxPath, ALastSnapshotAtExitOnlyWithE) {
    const auto with_e = aux_stats("scenarios/snapshot.json");
    const auto plain =
        aux_stats("scenarios/snapshot.json", "--set session.aux.snapshot_on_exit=false");
    expect_books_close(plain);
    EXPECT_EQ(u(plain, "consumer", "snapshots"), 3u); // the three SIGUSR2 only
    EXPECT_EQ(u(with_e, "bytes", "unread"), 0u);
    EXPECT_GT(u(plain, "bytes", "unread"), 0u);
    EXPECT_EQ(u(plain, "bytes", "produced"), u(with_e, "bytes", "produced"));
    EXPECT_EQ(u(plain, "violations", "total"), 0u);
}

TEST(AuxPath, MemErrDiscardsTheWholeCaptureSilently) {
    // D10: the captures running at 3 ms and 7 ms end with STS.MemErr: len 0, no record.
    const auto a =
        aux_stats("scenarios/etr-per-thread.json", "--set 'etr.memerr_at=[\"3ms\",\"7ms\"]'");
    expect_books_close(a);
    EXPECT_EQ(u(a, "driver", "memerr_captures"), 2u);
    EXPECT_EQ(u(a, "gaps_by_cause", "memerr"), 2u);
    EXPECT_GT(u(a, "lost_by_cause", "memerr"), 0u);
    EXPECT_EQ(a.at("records").get<uint64_t>() + 2, u(a, "driver", "harvests"));
    EXPECT_EQ(a.at("truncated").get<int>(), 0); // no flag (E4)
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

TEST(AuxPath, TraceAboveTheMemoryBandwidthOverflowsTheFifo) {
    const auto a = aux_stats("scenarios/etr-per-thread.json",
                             "--set etr.mem_bandwidth=100MB/s --set etr.fifo_size=1KiB");
    expect_books_close(a);
    EXPECT_GT(u(a, "lost_by_cause", "fifo_overflow"), 0u);
    // What the FIFO dropped, plus what the decoder then skipped until the next A-Sync.
    EXPECT_GT(u(a, "lost_by_cause", "fifo_overflow"), u(a, "sink", "overflow_bytes"));
    EXPECT_EQ(u(a, "violations", "total"), 0u);
}

// Issue 10's reproductions. The FIFO drops whole frames, not packets (no ETM Overflow packet
// is modelled), so the decoder can join a count packet's first bytes with a later packet's
// last ones and decode the count: the dropped bytes inside stay booked lost, never decoded.
TEST(AuxPath, FifoOverflowMidPacketKeepsTheBooks) {
    for (const auto& [scenario, rate] : {std::pair{"scenarios/etr-per-thread.json", "3GB/s"},
                                         std::pair{"scenarios/etr-system-wide.json", "600MB/s"}}) {
        const auto a = aux_stats(scenario, std::string("--set trace.rate=") + rate);
        expect_books_close(a);
        EXPECT_GT(u(a, "sink", "overflow_bytes"), 0u) << scenario;
        EXPECT_GE(u(a, "lost_by_cause", "fifo_overflow"), u(a, "sink", "overflow_bytes"));
        EXPECT_GT(u(a, "decoder", "spliced_packets"), 0u) << scenario;
        EXPECT_EQ(u(a, "violations", "total"), 0u) << scenario;
    }
}

TEST(AuxPath, FlatAndScatterGatherBuffersGiveTheSameTrace) {
    // E2: the buffer mode changes where the bytes live, not which bytes reach perf.
    const auto flat = aux_stats("scenarios/etr-per-thread.json", "--set etr.mode=flat");
    const auto sg = aux_stats("scenarios/etr-per-thread.json", "--set etr.mode=sg");
    EXPECT_EQ(flat.at("bytes"), sg.at("bytes"));
    EXPECT_EQ(flat.at("gaps_by_cause"), sg.at("gaps_by_cause"));
    EXPECT_GT(u(sg, "sink", "dma_stores"), u(flat, "sink", "dma_stores")); // per 4 KiB page
}

TEST(AuxPath, AMalformedScatterGatherTableLosesEveryCaptureToMemErr) {
    // E4, D10: each enable walks the table; a broken one is STS.MemErr, the capture is
    // discarded at the harvest with no flag.
    // A 4 MiB sink: two table pages, so a link can go missing too.
    for (const char* fault : {"invalid_entry", "missing_link", "last_too_early"}) {
        const auto a = aux_stats("scenarios/etr-per-thread.json",
                                 std::string("--set etr.buffer_size=4MiB --set etr.mode=sg "
                                             "--set etr.sg_table_fault=") +
                                     fault);
        expect_books_close(a);
        EXPECT_EQ(u(a, "bytes", "delivered"), 0u) << fault;
        EXPECT_EQ(u(a, "bytes", "lost"), u(a, "lost_by_cause", "memerr")) << fault;
        EXPECT_EQ(u(a, "sink", "sg_walk_failures"), u(a, "sink", "captures")) << fault;
        EXPECT_EQ(u(a, "driver", "memerr_captures"), u(a, "driver", "harvests")) << fault;
        EXPECT_EQ(a.at("records").get<int>(), 0) << fault; // len 0: no PERF_RECORD_AUX
        EXPECT_EQ(u(a, "violations", "total"), 0u) << fault;
    }
}

struct AuxLesson {
    const char* name;
    int stale, overrun; // 1: must be seen, 0: must not, -1: either
};

class AuxLessons : public ::testing::TestWithParam<AuxLesson> {};

TEST_P(AuxLessons, ShowTheirViolation) {
    const AuxLesson l = GetParam();
    const auto t = total_stats(std::string("scenarios/teaching/") + l.name + ".json");
    const auto& a = t.at("aux");
    expect_books_close(a);
    // The total's violations.total counts the AUX path's too.
    EXPECT_EQ(u(t, "violations", "total"),
              u(a, "violations", "total") + u(t, "violations", "stale") +
                  u(t, "violations", "overrun") + u(t, "violations", "torn") +
                  u(t, "violations", "corrupt") + u(t, "violations", "missing") +
                  u(t, "violations", "duplicated") + u(t, "violations", "accounting"))
        << l.name;
    if (l.stale >= 0) {
        EXPECT_EQ(u(a, "violations", "stale") > 0, l.stale == 1) << l.name;
    }
    if (l.overrun >= 0) {
        EXPECT_EQ(u(a, "violations", "overrun") > 0, l.overrun == 1) << l.name;
    }
    if (l.stale == 0 && l.overrun == 0) {
        EXPECT_EQ(u(a, "violations", "total"), 0u) << l.name;
    }
    EXPECT_EQ(u(a, "violations", "unexplained"), 0u) << l.name;
    EXPECT_EQ(u(a, "violations", "accounting"), 0u) << l.name;
}

INSTANTIATE_TEST_SUITE_P(
    Lessons, AuxLessons,
    // (D) off overwrites, never stale: bytes a later harvest wrote long before perf's late
    // load performed come from memory, not from the engine's history, and are still newer.
    ::testing::Values(AuxLesson{"aux-no-B", 1, 0}, AuxLesson{"aux-no-B-correct", 0, 0},
                      AuxLesson{"aux-no-C", 1, 0}, AuxLesson{"aux-no-C-correct", 0, 0},
                      AuxLesson{"aux-no-D", 0, 1}, AuxLesson{"aux-no-D-correct", 0, 0},
                      AuxLesson{"aux-no-A", 0, 0}),
    [](const auto& param_info) {
        std::string n = param_info.param.name;
        for (char& c : n)
            if (c == '-') c = '_';
        return n;
    });

} // namespace
