// EtrSink under SystemC with exact numbers: frames per burst, the memory after flush_and_sync
// equal to what an eager frame-by-frame writer leaves (built here from one FrameEncoder per
// frame over the source bytes), Full/RWP/RRP after a wrap, overwritten frames reported as
// sink_wrap with their source byte ranges, FIFO overflow as fifo_overflow, TMCReady at
// flush + max(latency, drain), refcnt (E3/E8), a flush on a stopped sink, sink_stopped, and an
// SG buffer with shuffled pages giving the same bytes at the translated addresses.
//
// Common numbers: one source at 1e9 B/s (1 byte per 1000 ps), so C(t) = floor(t / 8000) and a
// source started at 0 has 25 + 8 * C(t) bytes at t (the start block, no periodic sync). burst =
// 1024 bytes: one wake every 1'024'000 ps for one running source, 512'000 ps for two. Every test
// case builds its modules before sc_start and runs one simulation (one process per test under
// ctest).
#include "models/coresight/etr_sink.h"

#include "models/coresight/etm_packets.h"
#include "models/coresight/etr_sg_table.h"
#include "models/coresight/formatter.h"
#include "models/memory/engine_port.h"

#include "tests/support/trace_test_kit.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <vector>

using namespace ringsim::models;
using namespace ringsim::models::coresight;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {

using ringsim::test::Bytes;
using ringsim::test::Loss;
using ringsim::test::now;
using ringsim::test::wait_until;
using Records = ringsim::test::StoredRecords;

struct Observer : TraceObserver {
    std::vector<Loss> losses;
    unsigned commits = 0;
    void on_trace_lost(uint8_t id, uint64_t src_off, uint64_t n, TraceLoss why) override {
        losses.push_back({id, src_off, n, why});
    }
    void on_aux_commit(AuxCommit) override { ++commits; }
};

// The test's own thread: the driver side.
struct Script : sc_core::sc_module {
    SC_HAS_PROCESS(Script);
    std::function<void()> body;
    Script(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() { body(); }
};

// The frames an eager formatter writes for bytes [off, off+n) of a source: one FrameEncoder
// per frame (14 data bytes each, the last one flushed if partial).
void reference_frames(const EtmStream& s, uint64_t off, uint64_t n, Bytes& out) {
    Bytes data(n);
    s.read(off, n, data.data());
    for (uint64_t at = 0; at < n; at += kFrameSourceBytes) {
        FrameEncoder fe;
        const uint64_t m = std::min<uint64_t>(kFrameSourceBytes, n - at);
        fe.write(s.trace_id(), data.data() + at, m, out);
        fe.flush(out);
    }
}

struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    EnginePort& etr_port = mem.agent("etr");
    EnginePort& cpu = mem.agent("cpu0");
    TraceRate rate{1e9, {}};
    EtmSource a{"etm0", 0x10, rate, 0};
    EtmSource b{"etm1", 0x11, rate, 0};
    Observer obs;
    EtrSinkParams p;
    std::unique_ptr<EtrSink> sink;
    std::unique_ptr<Script> script;

    Rig(uint64_t buffer, double bw, uint64_t fifo) {
        p.buffer_bytes = buffer;
        p.mem_bandwidth = bw;
        p.fifo_bytes = fifo;
        p.flush_latency = 10'000;
        p.burst = 1024;
    }
    void flat() { p.flat_base = phys.allocate("etr.flat", p.buffer_bytes, kSgPageSize); }
    void build(std::function<void()> body, bool two = false) {
        sink = std::make_unique<EtrSink>("etr", p, etr_port, obs);
        sink->attach(&a);
        if (two) sink->attach(&b);
        script = std::make_unique<Script>("script", std::move(body));
    }
    void start(EtmSource& s) {
        s.start(now(), UntracedCause::stop_window);
        sink->source_changed(now(), &s, false);
    }
    void stop(EtmSource& s) {
        s.stop(now());
        sink->source_changed(now(), &s, true);
    }
    Bytes memory(Addr at, uint64_t n) {
        Bytes v(n);
        cpu.load_bytes(at, v.data(), n);
        return v;
    }
};

Bytes frames_of(const Bytes& all, uint64_t first, uint64_t n) {
    return Bytes(all.begin() + first * kFrameSize, all.begin() + (first + n) * kFrameSize);
}

} // namespace

// One source, 0 .. 2'000'000 ps: 25 + 2000 = 2025 bytes = 144 full frames + 1 of 9 bytes.
//  t = 0:         the start's 25 bytes: 1 frame, 11 wait (burst 1).
//  t = 1'024'000: 1049 bytes, 1035 unframed: 73 frames (1022 bytes), 13 wait (burst 2).
//  t = 2'000'000: stop: 989 bytes, flushed: 70 full + 1 partial = 71 frames (burst 3).
// A fast memory (1 B/ps) writes everything as it comes: TMCReady at 2'000'000 + 10'000.
TEST(EtrSink, FramesPerBurstAndMemoryOfAnEagerWriter) {
    Rig r(4096, 1e12, 4096);
    r.flat();
    EtrSyncState st;
    Picos ready = 0;
    uint64_t frames_at[3] = {}, bursts_at[3] = {};
    Bytes mem;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        frames_at[0] = r.sink->log().frames();
        bursts_at[0] = r.sink->bursts();
        wait_until(1'100'000);
        frames_at[1] = r.sink->log().frames();
        bursts_at[1] = r.sink->bursts();
        wait_until(2'000'000);
        r.stop(r.a);
        frames_at[2] = r.sink->log().frames();
        bursts_at[2] = r.sink->bursts();
        st = r.sink->flush_and_sync(r.cpu);
        ready = now();
        mem = r.memory(r.p.flat_base, 4096);
    });
    sc_core::sc_start();
    EXPECT_EQ(frames_at[0], 1u);
    EXPECT_EQ(bursts_at[0], 1u);
    EXPECT_EQ(frames_at[1], 74u);
    EXPECT_EQ(bursts_at[1], 2u);
    EXPECT_EQ(frames_at[2], 145u);
    EXPECT_EQ(bursts_at[2], 3u);
    EXPECT_EQ(r.sink->bursts(), 3u);
    EXPECT_EQ(ready, 2'010'000u); // latency 10'000 > drain 0
    EXPECT_EQ(st.size, 4096u);
    EXPECT_FALSE(st.full);
    EXPECT_FALSE(st.memerr);
    EXPECT_EQ(st.rwp_off, 2320u); // 145 frames
    EXPECT_EQ(st.rrp_off, 0u);
    EXPECT_EQ(r.sink->frames_written(), 145u);
    // Bursts of 64 frames: [0, 1024), [1024, 2048), [2048, 2320).
    EXPECT_EQ(r.sink->dma_stores(), 3u);
    EXPECT_EQ(r.a.stream().size(), 2025u);
    Bytes ref;
    reference_frames(r.a.stream(), 0, 2025, ref);
    ASSERT_EQ(ref.size(), 2320u);
    EXPECT_EQ(Bytes(mem.begin(), mem.begin() + 2320), ref);
    EXPECT_EQ(Bytes(mem.begin() + 2320, mem.end()), Bytes(4096 - 2320, 0)); // never written
    EXPECT_TRUE(r.obs.losses.empty());
    EXPECT_EQ(r.obs.commits, 0u);
    EXPECT_EQ(r.sink->captures(), 1u);
}

// The same input against a memory of exactly 1 B/ns, FIFO 4096:
//  arrive(0, 16): no time, queued 16.
//  arrive(1'024'000, 1168): 1024 bytes of capacity = 64 frames; 160 queued.
//  arrive(2'000'000, 1136): 976 bytes = 61 frames; 320 queued.
// The flush drains 320 bytes in 320'000 ps > latency: TMCReady at 2'320'000.
TEST(EtrSink, ReadyAfterTheDrainWhenItOutlastsTheLatency) {
    Rig r(4096, 1e9, 4096);
    r.flat();
    EtrSyncState st;
    Picos ready = 0;
    uint64_t written_at_flush = 0;
    Bytes mem;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        wait_until(2'000'000);
        r.stop(r.a);
        written_at_flush = r.sink->hw().bytes_written(now());
        st = r.sink->flush_and_sync(r.cpu);
        ready = now();
        mem = r.memory(r.p.flat_base, 2320);
    });
    sc_core::sc_start();
    EXPECT_EQ(written_at_flush, 2000u);
    EXPECT_EQ(ready, 2'320'000u);
    EXPECT_EQ(st.rwp_off, 2320u);
    EXPECT_FALSE(st.full);
    Bytes ref;
    reference_frames(r.a.stream(), 0, 2025, ref);
    EXPECT_EQ(mem, ref);
    EXPECT_TRUE(r.obs.losses.empty());
}

// A 1024-byte buffer (64 frames) takes the 145 frames: Full, RWP = RRP = 2320 % 1024 = 272.
// Frames 0..80 are overwritten: 0..9 when the write count reaches 74 frames at 1'024'000
// (source bytes [0, 140)), 10..80 at the stop (bytes [140, 1134)). Frames 81..144 survive,
// frame f at offset (f % 64) * 16; two DMA stores: [272, 1024) and [0, 272).
TEST(EtrSink, WrapKeepsTheNewestFramesAndReportsTheRestAsSinkWrap) {
    Rig r(1024, 1e12, 4096);
    r.flat();
    EtrSyncState st;
    std::vector<Loss> at_1100;
    Bytes mem;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        wait_until(1'100'000);
        at_1100 = r.obs.losses;
        wait_until(2'000'000);
        r.stop(r.a);
        st = r.sink->flush_and_sync(r.cpu);
        mem = r.memory(r.p.flat_base, 1024);
    });
    sc_core::sc_start();
    EXPECT_EQ(at_1100, (std::vector<Loss>{{0x10, 0, 140, TraceLoss::sink_wrap}}));
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 0, 140, TraceLoss::sink_wrap},
                                               {0x10, 140, 994, TraceLoss::sink_wrap}}));
    EXPECT_TRUE(st.full);
    EXPECT_EQ(st.rwp_off, 272u);
    EXPECT_EQ(st.rrp_off, 272u);
    EXPECT_TRUE(r.sink->hw().full(now()));
    EXPECT_EQ(r.sink->hw().rwp(now()), r.p.flat_base + 272);
    EXPECT_EQ(r.sink->hw().rrp(now()), r.p.flat_base + 272);
    EXPECT_EQ(r.sink->frames_written(), 145u);
    EXPECT_EQ(r.sink->log().first_kept(), 81u);
    EXPECT_EQ(r.sink->frame_at_offset(272), 81u);
    EXPECT_EQ(r.sink->frame_at_offset(1008), 127u);
    EXPECT_EQ(r.sink->frame_at_offset(0), 128u);
    EXPECT_EQ(r.sink->frame_at_offset(256), 144u);
    EXPECT_EQ(r.sink->dma_stores(), 2u);
    Bytes ref;
    reference_frames(r.a.stream(), 0, 2025, ref);
    Bytes expected(1024);
    for (uint64_t f = 81; f < 145; ++f)
        std::copy_n(ref.begin() + f * 16, 16, expected.begin() + (f % 64) * 16);
    EXPECT_EQ(mem, expected);
}

// Memory at 0.5 B/ns (5e8 units per ps), FIFO 64 bytes (4 frames):
//  arrive(0, 16): queued 16.
//  arrive(1'024'000, 73 frames): 512 bytes of capacity = 32 frames; 1184 - 512 = 672 left,
//    64 stay, 608 overflow = the newest 38 frames of the batch, i.e. frames 36..73 holding
//    source bytes [504, 1036).
//  arrive(2'000'000, 71 frames): 488 bytes = 30 frames + 8 bytes of credit; 64 + 1136 - 480 =
//    720 left, 656 overflow = the newest 41 frames: source bytes [1036 + 30*14, 2025) =
//    [1456, 2025) (40 full frames and the 9-byte last one).
//  flush: 64 queued, 8 bytes of credit: 56 bytes at 0.5 B/ns = 112'000 ps > latency.
// Written: 36 frames with [0, 504) then 30 with [1036, 1456): 66 frames, 1056 bytes.
TEST(EtrSink, FifoOverflowWhenTheInputOutrunsTheMemory) {
    Rig r(4096, 5e8, 64);
    r.flat();
    EtrSyncState st;
    Picos ready = 0;
    Bytes mem;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        wait_until(2'000'000);
        r.stop(r.a);
        st = r.sink->flush_and_sync(r.cpu);
        ready = now();
        mem = r.memory(r.p.flat_base, 4096);
    });
    sc_core::sc_start();
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 504, 532, TraceLoss::fifo_overflow},
                                               {0x10, 1456, 569, TraceLoss::fifo_overflow}}));
    EXPECT_EQ(r.sink->overflow_bytes(), 1101u);      // source bytes
    EXPECT_EQ(r.sink->hw().overflow_total(), 1264u); // frame bytes: 608 + 656
    EXPECT_EQ(ready, 2'112'000u);
    EXPECT_EQ(r.sink->frames_written(), 66u);
    EXPECT_EQ(st.rwp_off, 1056u);
    EXPECT_FALSE(st.full);
    Bytes ref;
    reference_frames(r.a.stream(), 0, 2025, ref);
    Bytes expected = frames_of(ref, 0, 36);
    const Bytes tail = frames_of(ref, 74, 30); // 1036 = 74 * 14
    expected.insert(expected.end(), tail.begin(), tail.end());
    expected.resize(4096, 0);
    EXPECT_EQ(mem, expected);
}

// Two sources at 1e9 B/s each: a wake every 512'000 ps; in each burst source A's whole frames
// then source B's.
//  t = 0:         A's start (1 frame, 11 wait), then B's start (the same): two bursts.
//  t = 512'000:   each 537 bytes, 523 unframed: 37 frames each (518), 5 wait.
//  t = 1'024'000: each 1049, 517 unframed: 36 frames each (504), 13 wait.
//  t = 1'500'000: A stops at 1521 bytes: 485 flushed = 34 full + 1 partial; B (still on) has
//                 485 unframed: 34 full frames, 9 wait; then B stops: its 9 bytes, 1 frame.
// 218 frames = 3488 bytes, 6 bursts; DMA stores of 64, 64, 64, 26 frames.
TEST(EtrSink, TwoSourcesInterleaveByBurst) {
    Rig r(4096, 1e12, 4096);
    r.flat();
    EtrSyncState st;
    Bytes mem;
    r.build(
        [&] {
            r.sink->enable_perf(0, r.cpu);
            r.start(r.a);
            r.start(r.b);
            wait_until(1'500'000);
            r.stop(r.a);
            r.stop(r.b);
            st = r.sink->flush_and_sync(r.cpu);
            mem = r.memory(r.p.flat_base, 4096);
        },
        true);
    sc_core::sc_start();
    EXPECT_EQ(r.sink->bursts(), 6u);
    EXPECT_EQ(r.sink->frames_written(), 218u);
    EXPECT_EQ(st.rwp_off, 3488u);
    EXPECT_EQ(r.sink->dma_stores(), 4u);
    EXPECT_EQ(r.a.stream().size(), 1521u);
    EXPECT_EQ(r.b.stream().size(), 1521u);
    Bytes expected;
    const struct {
        const EtmSource* s;
        uint64_t off, n;
    } order[] = {{&r.a, 0, 14},     {&r.b, 0, 14},     {&r.a, 14, 518},
                 {&r.b, 14, 518},   {&r.a, 532, 504},  {&r.b, 532, 504},
                 {&r.a, 1036, 485}, {&r.b, 1036, 476}, {&r.b, 1512, 9}};
    for (const auto& o : order)
        reference_frames(o.s->stream(), o.off, o.n, expected);
    ASSERT_EQ(expected.size(), 3488u);
    expected.resize(4096, 0);
    EXPECT_EQ(mem, expected);
    EXPECT_TRUE(r.obs.losses.empty());
}

TEST(EtrSink, RefcntOneCapturePerSessionAndTheLastUserStops) {
    Rig r(4096, 1e12, 4096);
    r.flat();
    unsigned refs[4] = {};
    uint64_t captures[2] = {};
    bool ready_mid = true, ready_end = false;
    bool threw = false, unharvested_threw = false;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.sink->enable_perf(0, r.cpu); // the same session's second user: a reference only
        refs[0] = r.sink->refcnt();
        captures[0] = r.sink->captures();
        wait_until(100'000);
        r.sink->disable_perf(now());
        refs[1] = r.sink->refcnt();
        ready_mid = r.sink->hw().ready(now()); // still capturing
        // The last user harvests (E5) before it drops its reference (E8); dropping it with
        // the capture still running would leave trace unaccounted: a model error.
        try {
            r.sink->disable_perf(now());
        } catch (const ModelError&) {
            unharvested_threw = true;
        }
        r.sink->flush_and_sync(r.cpu);
        r.sink->disable_perf(now());
        refs[2] = r.sink->refcnt();
        captures[1] = r.sink->captures();
        ready_end = r.sink->hw().ready(now() + 10'000); // TMCReady after the latency
        try {
            r.sink->disable_perf(now());
        } catch (const ModelError&) {
            threw = true;
        }
    });
    sc_core::sc_start();
    EXPECT_EQ(refs[0], 2u);
    EXPECT_EQ(captures[0], 1u);
    EXPECT_EQ(refs[1], 1u);
    EXPECT_FALSE(ready_mid);
    EXPECT_EQ(refs[2], 0u);
    EXPECT_EQ(captures[1], 1u);
    EXPECT_TRUE(ready_end);
    EXPECT_TRUE(threw);
    EXPECT_TRUE(unharvested_threw);
}

// A harvests alone (refcnt 1) at 1'000'000: flush, TMCReady at 1'010'000. Meanwhile-style, B
// then joins the stopped sink (refcnt 2, no hardware touch) and traces into it until
// 2'010'000: C(1'010'000) = 126, C(2'010'000) = 251: 25 + 125 * 8 = 1025 bytes, all
// sink_stopped: the start's 25 at once, the other 1000 when B stops (nothing wakes the
// stopped sink in between). B's flush then finds the sink stopped: no wait, an empty
// capture, nothing new reported.
TEST(EtrSink, StoppedSinkReportsSinkStoppedAndAFlushAddsNothing) {
    Rig r(4096, 1e12, 4096);
    r.flat();
    EtrSyncState first, second;
    Picos t_first = 0, t_second = 0;
    std::vector<Loss> before_second;
    uint64_t frames_first = 0, frames_second = 0;
    unsigned refs = 0;
    r.build(
        [&] {
            r.sink->enable_perf(0, r.cpu);
            r.start(r.a);
            wait_until(1'000'000);
            r.stop(r.a);
            first = r.sink->flush_and_sync(r.cpu);
            t_first = now();
            frames_first = r.sink->frames_written();
            r.sink->enable_perf(now(), r.cpu); // B's start, before A's disable
            r.start(r.b);
            r.sink->disable_perf(now()); // A's E8
            refs = r.sink->refcnt();
            wait_until(2'010'000);
            r.stop(r.b);
            before_second = r.obs.losses;
            second = r.sink->flush_and_sync(r.cpu);
            t_second = now();
            frames_second = r.sink->frames_written();
            r.sink->disable_perf(now());
        },
        true);
    sc_core::sc_start();
    // A: 25 + 125 * 8 = 1025 bytes = 73 full frames + 3 bytes: 74 frames.
    EXPECT_EQ(r.a.stream().size(), 1025u);
    EXPECT_EQ(t_first, 1'010'000u);
    EXPECT_EQ(frames_first, 74u);
    EXPECT_EQ(first.rwp_off, 74u * 16);
    EXPECT_EQ(refs, 1u);
    EXPECT_EQ(r.sink->captures(), 1u);
    EXPECT_EQ(r.b.stream().size(), 1025u);
    EXPECT_EQ(before_second, (std::vector<Loss>{{0x11, 0, 25, TraceLoss::sink_stopped},
                                                {0x11, 25, 1000, TraceLoss::sink_stopped}}));
    EXPECT_EQ(r.obs.losses, before_second); // the flush reported nothing new
    EXPECT_EQ(t_second, 2'010'000u);        // and did not wait
    EXPECT_FALSE(second.full);
    EXPECT_FALSE(second.memerr);
    EXPECT_EQ(second.rwp_off, 0u);
    EXPECT_EQ(second.rrp_off, 0u);
    EXPECT_EQ(frames_second, 74u);
    EXPECT_EQ(r.sink->refcnt(), 0u);
}

// ETR_SG: 2 data pages given in reverse order (buffer offset 0 is the higher page) plus one
// table page, built before the run. burst 16384: no wake before the stop.
// 0 .. 9'000'000: 25 + 9000 = 9025 bytes = 644 full + 1 partial = 645 frames, 10320 bytes:
// Full, RWP = RRP = 10320 - 8192 = 2128; frames 0..132 overwritten (bytes [0, 1862)). The
// writes: [2128, 4096) in page 0, [4096, 8192) page 1, [0, 2128) page 0 again: 3 stores.
TEST(EtrSink, ScatterGatherBufferHoldsTheSameBytesAtTranslatedAddresses) {
    Rig r(8192, 1e12, 4096);
    r.p.burst = 16384;
    const Addr pool = r.phys.allocate("etr.sg_pages", 8192, kSgPageSize);
    const Addr table = r.phys.allocate("etr.sg_table", kSgPageSize, kSgPageSize);
    r.p.sg = true;
    r.p.sg_pages = {pool + kSgPageSize, pool};
    r.p.sg_table = {table};
    EtrSyncState st;
    Bytes page0, page1;
    uint32_t entries[2] = {};
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        wait_until(9'000'000);
        r.stop(r.a);
        st = r.sink->flush_and_sync(r.cpu);
        page0 = r.memory(pool + kSgPageSize, kSgPageSize); // buffer [0, 4096)
        page1 = r.memory(pool, kSgPageSize);               // buffer [4096, 8192)
        entries[0] = uint32_t(r.cpu.load(table, 4));
        entries[1] = uint32_t(r.cpu.load(table + 4, 4));
    });
    r.sink->build_table();
    sc_core::sc_start();
    EXPECT_EQ(entries[0], sg_entry(pool + kSgPageSize, SgEntryType::normal));
    EXPECT_EQ(entries[1], sg_entry(pool, SgEntryType::last));
    EXPECT_FALSE(r.sink->hw().memerr());
    EXPECT_TRUE(st.full);
    EXPECT_EQ(st.rwp_off, 2128u);
    EXPECT_EQ(st.rrp_off, 2128u);
    EXPECT_EQ(r.sink->hw().rwp(now()), pool + kSgPageSize + 2128);
    EXPECT_EQ(r.sink->address_of(2128), pool + kSgPageSize + 2128);
    EXPECT_EQ(r.sink->address_of(4096), pool);
    EXPECT_EQ(r.sink->contiguous_from(4000), 96u);
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 0, 1862, TraceLoss::sink_wrap}}));
    EXPECT_EQ(r.sink->frames_written(), 645u);
    EXPECT_EQ(r.sink->dma_stores(), 3u);
    Bytes ref;
    reference_frames(r.a.stream(), 0, 9025, ref);
    ASSERT_EQ(ref.size(), 645u * 16);
    Bytes expected(8192);
    for (uint64_t f = 133; f < 645; ++f)
        std::copy_n(ref.begin() + f * 16, 16, expected.begin() + (f % 512) * 16);
    EXPECT_EQ(page0, Bytes(expected.begin(), expected.begin() + 4096));
    EXPECT_EQ(page1, Bytes(expected.begin() + 4096, expected.end()));
}

// An SG buffer of 1100 pages needs two table pages (1023 data entries and a link in the
// first, E2): the ETR walks both at the enable, 100 ns each, before it writes anything; a
// table the driver could not have built is STS.MemErr for the capture (E4, D10).
struct SgRig : Rig {
    Addr pool = 0;
    SgRig(uint64_t pages, SgTableFault fault) : Rig(pages * kSgPageSize, 1e12, 4096) {
        pool = phys.allocate("etr.sg_pages", pages * kSgPageSize, kSgPageSize);
        const Addr table = phys.allocate("etr.sg_table", 2 * kSgPageSize, kSgPageSize);
        p.sg = true;
        for (uint64_t i = 0; i < pages; ++i)
            p.sg_pages.push_back(pool + i * kSgPageSize);
        p.sg_table = {table, table + kSgPageSize};
        p.sg_walk = 100'000;
        p.sg_table_fault = fault;
    }
};

TEST(EtrSink, AnSgWalkOverTwoTablePagesCostsTwoWalksAndDelaysTheFirstWrite) {
    SgRig r(1100, SgTableFault::none);
    bool memerr = true;
    uint64_t written_at_150ns = 1, written_at_1us = 0;
    uint64_t written_at_200ns = 1, written_at_200ns_16ps = 0;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        r.start(r.a);
        wait_until(150'000);
        r.sink->source_changed(now(), &r.a, false);
        written_at_150ns = r.sink->hw().bytes_written(now());
        // The walk ends at 200 ns; then the FIFO drains at 1e12 B/s: 16 bytes in 16 ps.
        wait_until(200'000);
        written_at_200ns = r.sink->hw().bytes_written(now());
        wait_until(200'016);
        written_at_200ns_16ps = r.sink->hw().bytes_written(now());
        wait_until(1'000'000);
        r.sink->source_changed(now(), &r.a, false);
        written_at_1us = r.sink->hw().bytes_written(now());
        memerr = r.sink->hw().memerr();
        r.stop(r.a);
        r.sink->flush_and_sync(r.cpu); // the sink process then waits for nothing: the run ends
    });
    r.sink->build_table();
    sc_core::sc_start();
    EXPECT_EQ(r.sink->sg_walk_time(), 200'000u); // two table pages
    EXPECT_EQ(r.sink->sg_walk_failures(), 0u);
    EXPECT_FALSE(memerr);
    EXPECT_EQ(written_at_150ns, 0u); // still walking: the frames wait in the FIFO
    EXPECT_EQ(written_at_200ns, 0u);
    EXPECT_EQ(written_at_200ns_16ps, 16u);
    EXPECT_GT(written_at_1us, 0u);
}

// One enable of a broken 1100-page SG table: the walk fails on the first table page (a
// type-0 entry in its first slot, or a data entry where its link belongs), 100 ns, and the
// capture has STS.MemErr. One elaboration per process: the other breaks run end to end in
// aux_path_test.
void expect_memerr_at_enable(SgTableFault fault) {
    SgRig r(1100, fault);
    bool memerr = false;
    r.build([&] {
        r.sink->enable_perf(0, r.cpu);
        memerr = r.sink->hw().memerr();
        r.sink->flush_and_sync(r.cpu);
    });
    r.sink->build_table();
    sc_core::sc_start();
    EXPECT_TRUE(memerr);
    EXPECT_EQ(r.sink->sg_walk_failures(), 1u);
    EXPECT_EQ(r.sink->sg_walk_time(), 100'000u);
}

TEST(EtrSink, AMissingLinkBetweenTableSegmentsIsMemErrForTheCapture) {
    expect_memerr_at_enable(SgTableFault::missing_link);
}

TEST(EtrSink, AnInvalidEntryIsMemErrOnTheFirstTablePage) {
    expect_memerr_at_enable(SgTableFault::invalid_entry);
}
