// The perf tool's reading side on its own, with exact simulated times: no record writers,
// the test stores records into a PerfBuffer itself from CPU 0's port, before the
// simulation or between two run_until calls, and a test observer hears what the consumer
// copies, skips and when it finishes. Checks perf_mmap__push's pass over [prev, head) and
// its copy in two loads when the range wraps (C4), libperf's record-by-record read with
// its tail after each record and read_done stepping over what it could not read (C3), a
// keep-up failure (C3), an overwrite buffer read newest first at exit, paused around the
// read (C5, R4, R9), and the poll() counts.
// Every consumer copies and writes at 1 GB/s: n bytes cost 2n ns before data_tail moves.
// Each test elaborates SystemC modules, so each needs a process of its own (ctest runs
// them so; by hand: --gtest_filter=PerfConsumer.<name>).
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_buffer.h"
#include "models/kernel/perf_records.h"
#include "models/kernel/perf_wakeup.h"
#include "models/kernel/sched_weight.h"
#include "models/memory/engine_port.h"
#include "models/user/perf_consumer.h"
#include "tests/support/one_buffer_rig.h" // run_until

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

using namespace ringsim::models;
using ringsim::test::run_until;

namespace {

constexpr uint64_t kDataSize = 4096;
constexpr uint64_t kSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;

Picos now() {
    return sc_core::sc_time_stamp().value();
}

// Everything the consumer tells its observers, in order ('c' copied, 's' skipped,
// 'f' finished), with the simulated time of each.
struct Log : ConsumerObserver {
    struct Copied {
        Picos at = 0;
        uint64_t pos = 0;
        std::vector<uint8_t> bytes;
        std::vector<CopySource> sources;
    };
    struct Skipped {
        Picos at = 0;
        uint64_t from = 0, to = 0;
    };
    std::vector<Copied> copies;
    std::vector<Skipped> skips;
    std::vector<Picos> finished;
    std::string order;

    void on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                   const std::vector<CopySource>& sources, const CopyContext&) override {
        EXPECT_EQ(idx, 0u);
        copies.push_back({now(), pos, {data, data + n}, sources});
        order += 'c';
    }
    void on_skipped(unsigned idx, uint64_t from, uint64_t to) override {
        EXPECT_EQ(idx, 0u);
        skips.push_back({now(), from, to});
        order += 's';
    }
    void on_finished() override {
        finished.push_back(now());
        order += 'f';
    }
};

// What the kernel stored, as its output path reports it: each record's position and bytes.
struct Stored : RecordObserver {
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> records;
    void on_record_stored(uint64_t pos, const std::vector<uint8_t>& bytes, uint64_t,
                          const RecordStores&) override {
        records.emplace_back(pos, bytes);
    }
    void on_record_retracted(uint64_t) override {}
    // The bytes of records first..last, in that order (last < first: counting down).
    std::vector<uint8_t> bytes(size_t first, size_t last) const {
        std::vector<uint8_t> out;
        for (size_t i = first;; i = last < first ? i - 1 : i + 1) {
            out.insert(out.end(), records.at(i).second.begin(), records.at(i).second.end());
            if (i == last) return out;
        }
    }
};

// One 4 KiB data buffer (sc memory, no timing noise), its wakeup (irq_work after 2 us),
// and the consumer on CPU 1 reading its physical addresses directly (no MMU).
struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    MemoryPort& kernel = mem.agent("cpu0");
    BufferStats stats;
    Stored stored;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<PerfWakeup> wakeup;
    std::unique_ptr<PerfConsumer> consumer;
    Log log;

    // The watermark is the whole buffer (R6), so that filling the buffer before the
    // simulation wakes nobody; a test that wants a wakeup writes past it.
    explicit Rig(bool overwrite = false, bool backward = false) {
        PerfBufferParams p;
        p.name = "cpu0";
        p.page_size = kDataSize;
        p.nr_pages = 1;
        p.user_page = phys.allocate("up", 4096, 4096);
        p.data = phys.allocate("data", kDataSize, 4096);
        p.overwrite = overwrite;
        p.backward = backward;
        p.wakeup_watermark = kDataSize;
        rb = std::make_unique<PerfBuffer>(p, stats);
        rb->init_userpage(kernel);
        rb->set_observer(&stored);
        wakeup = std::make_unique<PerfWakeup>("wakeup", 2'000'000 /* 2 us */, stats);
        rb->set_wakeup_sink(wakeup.get());
    }
    void consume(const PerfConsumerParams& p) {
        const PerfBufferParams& b = rb->params();
        ConsumerMmap m{rb.get(), wakeup.get(), &stats,      b.user_page,
                       b.data,   kDataSize,    b.overwrite, b.backward};
        consumer = std::make_unique<PerfConsumer>("consumer", p, mem.agent("cpu1"),
                                                  std::vector<ConsumerMmap>{m});
        consumer->add_observer(&log);
    }
    // A PERF_RECORD_SAMPLE of `size` bytes through the kernel's output path, now.
    bool write(uint64_t size) {
        perf::RecordContext c;
        c.sample_type = kSampleType;
        c.sample_id_all = true;
        c.pid = c.tid = 100;
        c.time_ns = now() / 1000;
        c.id = 42;
        PerfBuffer::Handle h;
        if (!rb->output_begin(h, kernel, c, size)) return false;
        std::vector<uint8_t> bytes;
        perf::encode_sample(bytes, c, size, stats.records_produced, 1);
        rb->output_record(h, kernel, bytes);
        rb->output_end(h, kernel);
        return true;
    }
    uint64_t word(uint64_t off) { return phys.read_u64(rb->params().user_page + off); }
    uint64_t tail() { return word(perf::kOffDataTail); }
};

// perf record with its defaults (push, a batch tail, --mmap-flush 1, no handling cost),
// copying and writing at 1 GB/s.
PerfConsumerParams tool() {
    PerfConsumerParams p;
    p.copy_bandwidth = 1e9;
    p.write_bandwidth = 1e9;
    p.mmap_flush = 1;
    return p;
}

// The load of the copy each byte range came from: its [first, last) offsets per load.
std::map<uint64_t, std::pair<uint64_t, uint64_t>> loads_of(const std::vector<CopySource>& src) {
    std::map<uint64_t, std::pair<uint64_t, uint64_t>> out;
    for (const CopySource& s : src) {
        auto [it, fresh] = out.try_emplace(s.load_seq, s.offset, s.offset + s.length);
        if (!fresh) {
            it->second.first = std::min(it->second.first, s.offset);
            it->second.second = std::max(it->second.second, s.offset + s.length);
        }
    }
    return out;
}

} // namespace

// C4: records published before the tool starts are copied in one pass, [prev, head), and
// data_tail moves to head once the pass has copied (200 ns) and written (200 ns) them.
// The next pass finds nothing and polls; SIGCHLD ends that poll and the tool finishes.
TEST(PerfConsumer, PushCopiesWhatIsPublishedInOnePassThenReleasesIt) {
    Rig r;
    ASSERT_TRUE(r.write(64));
    ASSERT_TRUE(r.write(96));
    ASSERT_TRUE(r.write(40));
    r.consume(tool());

    run_until(399'999);
    EXPECT_EQ(r.tail(), 0u);
    EXPECT_TRUE(r.log.copies.empty());
    EXPECT_EQ(r.stats.consumer_bytes_copied, 200u); // the copy issued at 0
    run_until(400'000);
    EXPECT_EQ(r.tail(), 200u);
    ASSERT_EQ(r.log.copies.size(), 1u);
    EXPECT_EQ(r.log.copies[0].at, 400'000u);
    EXPECT_EQ(r.log.copies[0].pos, 0u);
    EXPECT_EQ(r.log.copies[0].bytes, r.stored.bytes(0, 2));
    EXPECT_EQ(r.consumer->polls(), 1u);

    run_until(1'000'000);
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.order, "cf");
    EXPECT_EQ(r.log.finished, std::vector<Picos>{1'000'000});
    EXPECT_EQ(r.consumer->polls(), 1u);
    EXPECT_EQ(r.stats.consumer_polls, 0u); // no POLLIN: the poll ended by SIGCHLD
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    EXPECT_EQ(r.consumer->read_position(0), 200u);
    EXPECT_EQ(r.tail(), 200u);
}

// The same pass with a competitor that leaves the consumer half of its CPU
// (consumer.competitors, sched_weight.h: two nice-0 tasks) and 500 ns of CPU per wake-up
// (consumer.wakeup_cost): the first copy takes 2 x 7.936 us; after the 1 us latency of the
// wake-up at 22 us, the wake-up's work takes 1 us, then the 192-byte copy 2 x 384 ns.
TEST(PerfConsumer, ACompetitorStretchesTheConsumersWork) {
    Rig r;
    for (int i = 0; i < 62; ++i)
        ASSERT_TRUE(r.write(64));
    PerfConsumerParams p = tool();
    p.wakeup_latency = 1'000'000;
    p.wakeup_cost = 500'000;
    p.cpu_share = fair_share(0, {0});
    EXPECT_EQ(p.cpu_share, 0.5);
    r.consume(p);

    run_until(15'871'999);
    EXPECT_EQ(r.tail(), 0u);
    run_until(15'872'000);
    EXPECT_EQ(r.tail(), 3968u);

    run_until(20'000'000);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(r.write(64));
    run_until(23'999'999);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 3968u); // running, still in its wake-up work
    run_until(24'000'000);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 4160u);
    run_until(24'767'999);
    EXPECT_EQ(r.tail(), 3968u);
    run_until(24'768'000);
    EXPECT_EQ(r.tail(), 4160u);
    // Finished, not abandoned mid-wait: a thread left waiting on its poll's event list
    // leaks that list when the kernel is torn down (LeakSanitizer).
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.finished.size(), 1u);
}

// A distributed wake-up latency is drawn at each wake-up from the consumer's own stream
// (seed consumer.wakeup_latency): the pass above, with the wake-up of 12 us followed by the
// stream's first exponential draw of mean 3 us instead of a fixed 1 us.
TEST(PerfConsumer, WakeupLatencyIsDrawnFromItsOwnStream) {
    Rig r;
    for (int i = 0; i < 62; ++i)
        ASSERT_TRUE(r.write(64));
    PerfConsumerParams p = tool();
    p.wakeup_latency.kind = TimeDistribution::Kind::exponential;
    p.wakeup_latency.value = 3'000'000;
    p.wakeup_seed = derive_seed(7, "consumer.wakeup_latency");
    r.consume(p);
    Rng rng(p.wakeup_seed);
    bool capped = true;
    const Picos first = p.wakeup_latency.draw(rng, capped);
    EXPECT_FALSE(capped);
    EXPECT_NE(first, 3'000'000u);

    run_until(10'000'000);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(r.write(64));
    run_until(12'000'000 + first - 1);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 3968u);
    run_until(12'000'000 + first);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 4160u);
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.finished.size(), 1u);
}

// R6, R8, C4: 62 records of 64 bytes fill [0, 3968) before the start, copied in 7.936 us.
// At 10 us three more land at 3968, 4032 and 4096 (the last wraps to page 0) and cross the
// 4 KiB watermark: the irq_work wakes the poll at 12 us, the tool runs 1 us later and
// copies [3968, 4160) as two loads, 128 bytes up to the buffer's end then 64 from its
// start, delivered as one chunk after 384 ns.
TEST(PerfConsumer, PushCopiesAWrappingRangeInTwoLoadsAfterAWakeup) {
    Rig r;
    for (int i = 0; i < 62; ++i)
        ASSERT_TRUE(r.write(64));
    PerfConsumerParams p = tool();
    p.wakeup_latency = 1'000'000;
    r.consume(p);

    run_until(7'936'000);
    EXPECT_EQ(r.tail(), 3968u);
    ASSERT_EQ(r.log.copies.size(), 1u);
    EXPECT_EQ(r.log.copies[0].bytes.size(), 3968u);

    run_until(10'000'000);
    for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(r.write(64));
    EXPECT_EQ(r.stored.records[64].first, 4096u);
    EXPECT_EQ(r.stats.wakeups, 1u);
    run_until(12'999'999);
    EXPECT_EQ(r.stats.wakeups_delivered, 1u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 3968u); // woken, still in its 1 us latency
    run_until(13'000'000);
    EXPECT_EQ(r.stats.consumer_polls, 1u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 4160u);
    run_until(13'383'999);
    EXPECT_EQ(r.tail(), 3968u);
    run_until(13'384'000);
    EXPECT_EQ(r.tail(), 4160u);
    ASSERT_EQ(r.log.copies.size(), 2u);
    const Log::Copied& c = r.log.copies[1];
    EXPECT_EQ(c.at, 13'384'000u);
    EXPECT_EQ(c.pos, 3968u);
    EXPECT_EQ(c.bytes, r.stored.bytes(62, 64));
    const auto loads = loads_of(c.sources);
    ASSERT_EQ(loads.size(), 2u);
    EXPECT_EQ(loads.begin()->second, std::make_pair(uint64_t{0}, uint64_t{128}));
    EXPECT_EQ(loads.rbegin()->second, std::make_pair(uint64_t{128}, uint64_t{192}));

    run_until(20'000'000);
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.order, "ccf");
    EXPECT_EQ(r.log.finished, std::vector<Picos>{21'000'000}); // SIGCHLD + 1 us latency
    EXPECT_EQ(r.consumer->polls(), 2u);
    EXPECT_EQ(r.stats.consumer_polls, 1u);
    EXPECT_EQ(r.stats.consumer_passes, 2u);
}

// C3: libperf reads one record per perf_mmap__read_event and, with a per-record tail,
// consumes each right after handling it: 1 us per record plus its copy and write time.
// Records of 64, 96 and 40 bytes: tail 64 at 1.128 us, 160 at 2.320 us, 200 at 3.400 us.
TEST(PerfConsumer, LibperfReadsAndReleasesOneRecordAtATime) {
    Rig r;
    ASSERT_TRUE(r.write(64));
    ASSERT_TRUE(r.write(96));
    ASSERT_TRUE(r.write(40));
    PerfConsumerParams p = tool();
    p.reader = ReaderKind::libperf;
    p.tail_update = TailUpdate::per_record;
    p.per_record_cost = 1'000'000;
    r.consume(p);

    const std::vector<std::pair<Picos, uint64_t>> steps = {
        {1'128'000, 64}, {2'320'000, 160}, {3'400'000, 200}};
    uint64_t tail = 0;
    for (const auto& [at, to] : steps) {
        run_until(at - 1);
        EXPECT_EQ(r.tail(), tail) << "just before " << at << " ps";
        run_until(at);
        EXPECT_EQ(r.tail(), to) << "at " << at << " ps";
        tail = to;
    }
    ASSERT_EQ(r.log.copies.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(r.log.copies[i].at, steps[i].first);
        EXPECT_EQ(r.log.copies[i].pos, r.stored.records[i].first);
        EXPECT_EQ(r.log.copies[i].bytes, r.stored.records[i].second);
    }

    run_until(5'000'000);
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.order, "cccf"); // read_done found data_head where the last record ended
    EXPECT_EQ(r.log.finished, std::vector<Picos>{5'000'000});
    EXPECT_EQ(r.consumer->polls(), 1u);
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 200u);
}

// C3: perf_mmap__read_event gives up at a header whose record data_head does not cover
// (here a header written by hand at 64 and data_head set to 96, half of that record);
// perf_mmap__read_done then sets prev to data_head, stepping over [64, 96) unread. The
// batch consume before it stores the tail where the last record read ended.
TEST(PerfConsumer, LibperfReadDoneStepsOverWhatItCouldNotRead) {
    Rig r;
    ASSERT_TRUE(r.write(64));
    const PerfBufferParams& b = r.rb->params();
    const perf_event_header half{PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, 64};
    r.kernel.store_bytes(b.data + 64, reinterpret_cast<const uint8_t*>(&half), sizeof half, false,
                         Barrier::none);
    r.kernel.store(b.user_page + perf::kOffDataHead, 96, 8);
    PerfConsumerParams p = tool();
    p.reader = ReaderKind::libperf;
    r.consume(p);

    run_until(127'999);
    EXPECT_TRUE(r.log.order.empty());
    run_until(128'000);
    EXPECT_EQ(r.log.order, "cs");
    ASSERT_EQ(r.log.copies.size(), 1u);
    EXPECT_EQ(r.log.copies[0].at, 128'000u);
    EXPECT_EQ(r.log.copies[0].pos, 0u);
    EXPECT_EQ(r.log.copies[0].bytes, r.stored.records[0].second);
    ASSERT_EQ(r.log.skips.size(), 1u);
    EXPECT_EQ(r.log.skips[0].at, 128'000u);
    EXPECT_EQ(r.log.skips[0].from, 64u);
    EXPECT_EQ(r.log.skips[0].to, 96u);
    EXPECT_EQ(r.tail(), 64u);
    EXPECT_EQ(r.consumer->read_position(0), 96u);

    run_until(1'000'000);
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.order, "csf");
    EXPECT_EQ(r.log.finished, std::vector<Picos>{1'000'000});
    EXPECT_EQ(r.tail(), 64u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 64u);
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    EXPECT_EQ(r.consumer->polls(), 1u);
}

// C3: a read-only forward mapping (R11: the kernel ignores data_tail) is filled with 65
// records, 4160 bytes, while the tool sleeps: its pass finds data_head more than a buffer
// ahead, warns "failed to keep up with mmap data" and drops everything, copying nothing
// and storing no tail. The wakeup of the 65th record never ends the poll: overwrite maps
// are polled with no events (the tool wakes at SIGCHLD).
TEST(PerfConsumer, PushMoreThanABufferBehindDropsEverything) {
    Rig r(/*overwrite=*/true);
    r.consume(tool());
    run_until(1'000'000);
    EXPECT_EQ(r.consumer->polls(), 1u);
    for (int i = 0; i < 65; ++i)
        ASSERT_TRUE(r.write(64));
    EXPECT_EQ(r.stats.wakeups, 1u);
    r.consumer->workload_exited();
    sc_core::sc_start();

    EXPECT_EQ(r.log.order, "sf");
    ASSERT_EQ(r.log.skips.size(), 1u);
    EXPECT_EQ(r.log.skips[0].at, 1'000'000u);
    EXPECT_EQ(r.log.skips[0].from, 0u);
    EXPECT_EQ(r.log.skips[0].to, 4160u);
    EXPECT_EQ(r.log.finished, std::vector<Picos>{1'000'000});
    EXPECT_EQ(r.consumer->keep_up_warnings(), 1u);
    EXPECT_EQ(r.stats.consumer_keep_up_failures, 1u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 0u);
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    EXPECT_EQ(r.consumer->read_position(0), 4160u);
    EXPECT_EQ(r.tail(), 0u);
    EXPECT_EQ(r.stats.wakeups_delivered, 1u); // the irq_work ran at 3 us, nobody listened
    EXPECT_EQ(r.stats.consumer_polls, 0u);
    EXPECT_EQ(r.consumer->polls(), 1u);
}

// C5, R4, R9: an overwrite, write_backward buffer is read once, at exit, after the data
// maps: perf pauses it, copies from data_head (the newest record) up to prev, and resumes.
// Records of 64, 96 and 40 bytes sit at -64, -160 and -200; the copy of [-200, 0) takes
// 400 ns, during which a record is lost to the pause; after the resume one gets in again,
// its PERF_RECORD_LOST first (R5). No data_tail is ever stored.
TEST(PerfConsumer, OverwriteBufferIsReadNewestFirstAtExitWhilePaused) {
    Rig r(/*overwrite=*/true, /*backward=*/true);
    ASSERT_TRUE(r.write(64));
    ASSERT_TRUE(r.write(96));
    ASSERT_TRUE(r.write(40));
    EXPECT_EQ(r.word(perf::kOffDataHead), uint64_t(0) - 200);
    r.consume(tool());

    run_until(5'000'000);
    EXPECT_EQ(r.consumer->polls(), 1u);
    EXPECT_TRUE(r.log.order.empty());
    r.consumer->workload_exited();
    run_until(5'000'000); // the SIGCHLD delta: the read starts
    EXPECT_EQ(r.stats.paused_intervals, 1u);
    EXPECT_EQ(r.stats.consumer_bytes_copied, 200u);

    run_until(5'200'000);
    EXPECT_FALSE(r.write(64)); // R9: paused
    EXPECT_EQ(r.stats.records_lost, 1u);
    EXPECT_EQ(r.rb->pending_lost(), 1u);

    run_until(5'400'000);
    EXPECT_EQ(r.log.order, "cf");
    ASSERT_EQ(r.log.copies.size(), 1u);
    EXPECT_EQ(r.log.copies[0].at, 5'400'000u);
    EXPECT_EQ(r.log.copies[0].pos, uint64_t(0) - 200);
    EXPECT_EQ(r.log.copies[0].bytes, r.stored.bytes(2, 0)); // newest first
    EXPECT_EQ(r.log.finished, std::vector<Picos>{5'400'000});
    EXPECT_EQ(r.consumer->read_position(0), uint64_t(0) - 200);
    EXPECT_EQ(r.stats.consumer_passes, 1u);
    EXPECT_EQ(r.consumer->polls(), 1u);
    EXPECT_EQ(r.stats.consumer_polls, 0u);

    run_until(6'000'000);
    EXPECT_TRUE(r.write(64)); // resumed
    EXPECT_EQ(r.rb->pending_lost(), 0u);
    EXPECT_EQ(r.stats.lost_records_written, 1u);
    EXPECT_EQ(r.tail(), 0u);
    EXPECT_EQ(r.log.order, "cf");
}

// C3 overwrite_rb_find_range: 45 records of 96 bytes (4320) written backward into 4 KiB.
// Walking headers from the newest, the 43rd would end 4128 bytes on, past one buffer
// length, so the walk backs off to 4032: the tool copies the 42 newest records whole,
// not the oldest ones their successors have partly overwritten. 4032 bytes: 8.064 us.
TEST(PerfConsumer, FullOverwriteBufferIsReadBackToTheLastWholeRecord) {
    Rig r(/*overwrite=*/true, /*backward=*/true);
    r.consume(tool());
    run_until(1'000'000);
    for (int i = 0; i < 45; ++i)
        ASSERT_TRUE(r.write(96));
    EXPECT_EQ(r.word(perf::kOffDataHead), uint64_t(0) - 4320);
    r.consumer->workload_exited();
    sc_core::sc_start();

    EXPECT_EQ(r.log.order, "cf");
    ASSERT_EQ(r.log.copies.size(), 1u);
    const Log::Copied& c = r.log.copies[0];
    EXPECT_EQ(c.at, 9'064'000u);
    EXPECT_EQ(c.pos, uint64_t(0) - 4320);
    EXPECT_EQ(c.bytes.size(), 4032u);
    EXPECT_EQ(c.bytes, r.stored.bytes(44, 3)); // records 45 down to 4
    EXPECT_EQ(r.log.finished, std::vector<Picos>{9'064'000});
    EXPECT_EQ(r.consumer->read_position(0), uint64_t(0) - 4320);
}

// perf record's exit pass (builtin-record.c : __cmd_record, out_child:
// record__mmap_read_all(rec, true)) forces each map's flush threshold to 1, so what sits
// below --mmap-flush is still written to perf.data: these 200 bytes are copied after the
// loop's last pass (which found nothing at or above mmap_flush) has ended.
TEST(PerfConsumer, ExitPassReadsWhatIsBelowTheFlushThreshold) {
    Rig r;
    ASSERT_TRUE(r.write(64));
    ASSERT_TRUE(r.write(96));
    ASSERT_TRUE(r.write(40));
    PerfConsumerParams p = tool();
    p.mmap_flush = 256;
    r.consume(p);
    run_until(1'000'000);
    EXPECT_TRUE(r.log.copies.empty()); // 200 < 256: -EAGAIN while the workload runs
    r.consumer->workload_exited();
    sc_core::sc_start();
    EXPECT_EQ(r.log.order, "cf");
    ASSERT_EQ(r.log.copies.size(), 1u);
    EXPECT_EQ(r.log.copies[0].at, 1'400'000u);
    EXPECT_EQ(r.log.copies[0].bytes, r.stored.bytes(0, 2));
    EXPECT_EQ(r.tail(), 200u);
}
