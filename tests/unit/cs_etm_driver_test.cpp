// CsEtmDriver on its own, called by hand from test threads (no CsEtmEvent, no scheduler):
// start (etm_event_start, P1) takes the AUX room (perf_aux_output_begin, A1/A2), enables the
// sink and the ETM and writes AUX_OUTPUT_HW_ID once per CPU; stop (etm_event_stop, P2) turns
// the ETM off and, for the last user of the sink only (E5), harvests it as
// tmc_update_etr_buffer does: what is kept, the barrier packet, TRUNCATED, the copy into the
// AUX pages (one store per AUX page, at the copy bandwidth), then perf_aux_output_end (A3)
// and the sink's reference dropped (E8). MemErr (E4, D10), snapshot mode (E6, A7) and the
// shared sink's stopped window (docs/aux-path.md, "A race in the shared sink") too.
//
// Common numbers: each ETM at 1e9 B/s, so C(t) = floor(t / 8000) and a source started at t0
// has 25 + 8 * (C(t) - C(t0)) bytes at t (the ETMv4 start block, then 8-byte count packets;
// no periodic sync). The sink takes them in 16-byte frames of 14 source bytes (the last one of a
// session partial), its memory is fast (1 B/ps: everything written as it arrives) and its
// flush takes 10'000 ps, so a harvest at t sees TMCReady at t + 10'000. The driver copies at
// 1 GB/s (n bytes take n ns). Records carry no sample_id: PERF_RECORD_AUX is 32 bytes,
// AUX_OUTPUT_HW_ID 16.
#include "models/coresight/etr_sink.h"
#include "models/coresight/formatter.h"
#include "models/kernel/cpu_state.h"
#include "models/kernel/cs_etm_driver.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/kernel/perf_buffer.h"
#include "models/memory/engine_port.h"

#include "tests/support/trace_test_kit.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <ostream>
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

// The checker's seat: every loss and every commit, as told.
struct Recorder : TraceObserver {
    std::vector<Loss> losses;
    std::vector<AuxCommit> commits;
    void on_trace_lost(uint8_t id, uint64_t src_off, uint64_t n, TraceLoss why) override {
        losses.push_back({id, src_off, n, why});
    }
    void on_aux_commit(AuxCommit c) override { commits.push_back(std::move(c)); }
};

// A test's own thread.
struct Script : sc_core::sc_module {
    SC_HAS_PROCESS(Script);
    std::function<void()> body;
    Script(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() { body(); }
};

// One event's buffer: its data part (the records) and its AUX area, with the handle and
// the hw_id flag the event would keep for it.
struct Output {
    BufferStats stats;
    Records records;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<PerfAux> aux;
    AuxOutput out;
    PerfAux::Handle h;
    bool hw_id_done = false;
};

// Two CPUs, each with its ETM (0x10, 0x11) on one sink, and one output per CPU.
struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    EnginePort& etr_port = mem.agent("etr");
    EnginePort& tool = mem.agent("tool"); // reads memory afterwards, as nobody in the model
    TraceRate rate{1e9, {}};
    std::deque<CpuState> states;
    std::deque<EtmSource> etms;
    std::vector<EtmCpu> cpus;
    std::deque<Output> outs;
    Recorder obs;
    EtrSinkParams sp;
    CsEtmDriverParams dp;
    std::unique_ptr<EtrSink> sink;
    std::unique_ptr<CsEtmDriver> driver;
    std::vector<std::unique_ptr<Script>> scripts;
    perf::RecordContext ctx; // sample_type 0, no sample_id_all: bare records

    // A flat ETR buffer of `etr_bytes`, AUX areas of `aux_bytes` (overwrite for snapshot).
    Rig(uint64_t etr_bytes, uint64_t aux_bytes, bool snapshot = false) {
        sp.buffer_bytes = etr_bytes;
        sp.flat_base = phys.allocate("etr", etr_bytes, 4096);
        sp.mem_bandwidth = 1e12;
        sp.fifo_bytes = 4096;
        sp.flush_latency = 10'000;
        sp.burst = 1024;
        dp.snapshot = snapshot;
        dp.copy_bandwidth = 1e9;
        for (unsigned c = 0; c < 2; ++c) {
            states.emplace_back(c);
            etms.emplace_back("etm" + std::to_string(c), uint8_t(0x10 + c), rate, 0);
            cpus.push_back({&states.back(), &mem.agent("cpu" + std::to_string(c)), &etms.back()});
            Output& o = outs.emplace_back();
            PerfBufferParams bp;
            bp.name = "cpu" + std::to_string(c);
            bp.page_size = 4096;
            bp.nr_pages = 1;
            bp.user_page = phys.allocate(bp.name + ".up", 4096, 4096);
            bp.data = phys.allocate(bp.name + ".data", 4096, 4096);
            o.rb = std::make_unique<PerfBuffer>(bp, o.stats);
            o.rb->set_observer(&o.records);
            PerfAuxParams ap;
            ap.name = bp.name + ".aux";
            ap.user_page = bp.user_page;
            ap.aux_size = aux_bytes;
            ap.overwrite = snapshot;
            o.aux = std::make_unique<PerfAux>(ap);
            o.out = {c, o.rb.get(), o.aux.get(), phys.allocate(ap.name, aux_bytes, 4096),
                     aux_bytes};
        }
    }
    // Builds the sink and the driver, and one thread per body.
    void build(std::vector<std::function<void()>> bodies) {
        sink = std::make_unique<EtrSink>("etr", sp, etr_port, obs);
        for (EtmSource& e : etms)
            sink->attach(&e);
        driver = std::make_unique<CsEtmDriver>(dp, obs);
        for (size_t i = 0; i < bodies.size(); ++i)
            scripts.push_back(std::make_unique<Script>(("script" + std::to_string(i)).c_str(),
                                                       std::move(bodies[i])));
    }
    bool start(unsigned c, UntracedCause why = UntracedCause::stop_window) {
        Output& o = outs[c];
        return driver->start(cpus[c], o.out, o.h, *sink, ctx, o.hw_id_done, why);
    }
    void stop(unsigned c) {
        Output& o = outs[c];
        driver->stop(cpus[c], o.out, o.h, *sink, ctx);
    }
    Bytes memory(Addr at, uint64_t n) {
        Bytes v(n);
        tool.load_bytes(at, v.data(), n);
        return v;
    }
    Bytes etr(uint64_t off, uint64_t n) { return memory(sp.flat_base + off, n); }
    Bytes aux(unsigned c, uint64_t off, uint64_t n) {
        return memory(outs[c].out.aux_base + off, n);
    }
    uint64_t aux_head(unsigned c) {
        return tool.load(outs[c].rb->params().user_page + perf::kOffAuxHead, 8);
    }
};

Bytes cat(Bytes a, const Bytes& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

Bytes barrier_packet() {
    Bytes b(kBarrierSize);
    insert_barrier_packet(b.data());
    return b;
}

uint64_t source_bytes(const AuxCommit& c, uint8_t id) {
    uint64_t n = 0;
    for (const FrameRun& r : c.runs)
        n += r.trace_id == id ? r.src_bytes : 0;
    return n;
}

} // namespace

// P1: perf_aux_output_begin first (an empty 4 KiB AUX area: CIRC_SPACE leaves 4095 bytes,
// A2), then the sink (the first user enables it: refcount 1, capture 1, E3), then the ETM,
// then PERF_RECORD_AUX_OUTPUT_HW_ID with the ETM's trace ID, once per CPU.
TEST(CsEtmDriver, StartTakesTheAuxRoomThenEnablesTheSinkAndTheEtm) {
    Rig r(4096, 4096);
    bool started = false;
    PerfAux::Handle h;
    unsigned refs = 0;
    uint64_t captures = 0;
    bool etm_on = false;
    r.build({[&] {
        wait_until(5'000);
        started = r.start(0);
        h = r.outs[0].h;
        refs = r.sink->refcnt();
        captures = r.sink->captures();
        etm_on = r.etms[0].running();
        wait_until(100'000);
        r.stop(0); // the sink process would wake forever while the ETM runs
    }});
    sc_core::sc_start();
    EXPECT_TRUE(started);
    EXPECT_TRUE(h.active);
    EXPECT_EQ(h.head, 0u);
    EXPECT_EQ(h.size, 4095u);
    EXPECT_EQ(refs, 1u);
    EXPECT_EQ(captures, 1u);
    EXPECT_TRUE(etm_on);
    EXPECT_EQ(r.etms[0].started_at(), 5'000u);
    EXPECT_TRUE(r.outs[0].hw_id_done);
    const Records& rec = r.outs[0].records;
    ASSERT_GE(rec.stored.size(), 1u);
    EXPECT_EQ(rec.type(0), uint32_t(PERF_RECORD_AUX_OUTPUT_HW_ID));
    EXPECT_EQ(rec.stored[0].size(), 16u);
    EXPECT_EQ(rec.field(0, 0), 0x10u); // the trace ID the decoder maps to CPU 0
    EXPECT_EQ(r.driver->counters().starts, 1u);
    EXPECT_EQ(r.driver->counters().begin_failures, 0u);
    EXPECT_FALSE(r.etms[1].running()); // the other CPU's ETM is not this event's
}

// P2, E5, A3, E8 with the copy's time. Start at 0, stop at 4'000'000: 25 + 8 * 500 = 4025
// bytes = 287 full frames + 1 of 7 bytes = 288 frames = 4608 bytes in an 8 KiB ETR (not
// full). The AUX area is 8 KiB (room 8191): everything fits, no barrier, no flag.
// TMCReady at 4'010'000; the copy at 1 GB/s goes one AUX page at a time, each store after
// its memcpy's time: [0, 4096) at 4'010'000 + 4'096'000, [4096, 4608) 512'000 later; then
// PERF_RECORD_AUX {0, 4608, 0} and aux_head = 4608, which crosses the 4 KiB watermark: one
// wakeup, no disable.
TEST(CsEtmDriver, StopHarvestsTheEtrIntoTheAuxPagesThenCommits) {
    Rig r(8192, 8192);
    Picos returned = 0;
    unsigned refs_after = 1;
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        wait_until(4'000'000);
        r.stop(0);
        returned = now();
        refs_after = r.sink->refcnt();
    }});
    sc_core::sc_start();
    EXPECT_EQ(r.etms[0].stream().size(), 4025u);
    EXPECT_EQ(r.etms[0].stopped_at(), 4'000'000u); // the source off first (P2)
    EXPECT_EQ(returned, 8'618'000u);
    EXPECT_EQ(refs_after, 0u); // E8
    EXPECT_TRUE(r.obs.losses.empty());
    ASSERT_EQ(r.obs.commits.size(), 1u);
    const AuxCommit& c = r.obs.commits[0];
    EXPECT_EQ(c.aux, 0u);
    EXPECT_EQ(c.aux_off, 0u);
    EXPECT_EQ(c.size, 4608u);
    EXPECT_EQ(c.first_frame, 0u);
    EXPECT_FALSE(c.barrier);
    ASSERT_EQ(c.runs.size(), 1u);
    EXPECT_EQ(c.runs[0].trace_id, 0x10);
    EXPECT_EQ(c.runs[0].src_off, 0u);
    EXPECT_EQ(c.runs[0].src_bytes, 4025u);
    EXPECT_EQ(c.runs[0].frames, 288u);
    ASSERT_EQ(c.stores.size(), 2u); // one per AUX page
    EXPECT_EQ(c.stores[0].aux_off, 0u);
    EXPECT_EQ(c.stores[0].len, 4096u);
    EXPECT_EQ(c.stores[1].aux_off, 4096u);
    EXPECT_EQ(c.stores[1].len, 512u);
    EXPECT_LT(c.stores[0].seq, c.stores[1].seq);
    EXPECT_EQ(c.record_offset, 0u);
    EXPECT_EQ(c.record_size, 4608u);
    EXPECT_EQ(c.flags, 0u);
    EXPECT_TRUE(c.record_written);
    EXPECT_EQ(c.at, 8'618'000u);
    // The AUX pages hold the ETR's bytes, and so does the commit.
    const Bytes etr = r.etr(0, 4608);
    EXPECT_EQ(r.aux(0, 0, 4608), etr);
    EXPECT_EQ(c.bytes, etr);
    // HW_ID at the start, PERF_RECORD_AUX at the stop; then aux_head.
    const Records& rec = r.outs[0].records;
    ASSERT_EQ(rec.stored.size(), 2u);
    EXPECT_EQ(rec.type(1), uint32_t(PERF_RECORD_AUX));
    EXPECT_EQ(rec.field(1, 0), 0u);    // aux_offset
    EXPECT_EQ(rec.field(1, 1), 4608u); // aux_size
    EXPECT_EQ(rec.field(1, 2), 0u);    // flags
    EXPECT_EQ(r.aux_head(0), 4608u);
    EXPECT_EQ(r.outs[0].stats.wakeups, 1u);
    EXPECT_FALSE(r.outs[0].aux->disable_requested());
    const CsEtmCounters& n = r.driver->counters();
    EXPECT_EQ(n.stops, 1u);
    EXPECT_EQ(n.harvests, 1u);
    EXPECT_EQ(n.harvested_bytes, 4608u);
    EXPECT_EQ(n.copy_stores, 2u);
    EXPECT_EQ(n.truncated, 0u);
    EXPECT_EQ(n.barrier_packets, 0u);
    EXPECT_EQ(n.harvest_skipped_shared, 0u);
}

// E5, D2, A6: the same 288 frames (4608 bytes) into a 4 KiB AUX area: room 4095, kept
// 4095 & ~15 = 4080 bytes = the newest 255 frames, from ETR offset 528 (frame 33). Frames
// 0..32 (source bytes [0, 462)) are lost to aux_shortage, and so is frame 33 ([462, 476)),
// under the barrier packet. PERF_RECORD_AUX {0, 4080, TRUNCATED}, the event to be disabled.
TEST(CsEtmDriver, AuxShortageKeepsTheNewestFramesBehindABarrierAndTruncates) {
    Rig r(8192, 4096);
    Bytes etr_after;
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        wait_until(4'000'000);
        r.stop(0);
        etr_after = r.etr(528, 4080);
    }});
    sc_core::sc_start();
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 0, 462, TraceLoss::aux_shortage},
                                               {0x10, 462, 14, TraceLoss::aux_shortage}}));
    ASSERT_EQ(r.obs.commits.size(), 1u);
    const AuxCommit& c = r.obs.commits[0];
    EXPECT_EQ(c.size, 4080u);
    EXPECT_EQ(c.first_frame, 33u);
    EXPECT_TRUE(c.barrier);
    ASSERT_EQ(c.runs.size(), 1u);
    EXPECT_EQ(c.runs[0].src_off, 476u); // frame 34 on
    EXPECT_EQ(c.runs[0].src_bytes, 3549u);
    EXPECT_EQ(c.flags, uint64_t(PERF_AUX_FLAG_TRUNCATED));
    // The barrier went over frame 32 in the ETR buffer, and was copied with the rest.
    const Bytes aux = r.aux(0, 0, 4080);
    EXPECT_EQ(Bytes(aux.begin(), aux.begin() + 16), barrier_packet());
    EXPECT_EQ(aux, etr_after);
    EXPECT_EQ(c.bytes, aux);
    const Records& rec = r.outs[0].records;
    ASSERT_EQ(rec.stored.size(), 2u);
    EXPECT_EQ(rec.field(1, 1), 4080u);
    EXPECT_EQ(rec.field(1, 2), uint64_t(PERF_AUX_FLAG_TRUNCATED));
    EXPECT_EQ(r.aux_head(0), 4080u);
    EXPECT_TRUE(r.outs[0].aux->disable_requested()); // A6: perf_event_disable_inatomic
    EXPECT_EQ(r.outs[0].stats.wakeups, 1u);
    EXPECT_EQ(r.driver->counters().truncated, 1u);
    EXPECT_EQ(r.driver->counters().barrier_packets, 1u);
    EXPECT_EQ(r.driver->counters().wrapped_captures, 0u);
    EXPECT_EQ(r.driver->counters().harvested_bytes, 4080u);
}

// E4, D3: 2'000'000 ps of trace (2025 bytes = 145 frames) through a 1 KiB ETR (64 frames):
// Full, RRP = RWP = 2320 % 1024 = 272; the sink lost frames 0..80 as they were lapped
// ([0, 140) at its burst of 1'024'000, [140, 1134) at the flush). The driver keeps all 64
// frames from RRP (the AUX room is larger), puts the barrier over frame 81 ([1134, 1148),
// sink_wrap: nothing was cut for room), flags TRUNCATED and copies in two pieces: ETR
// [272, 1024) to AUX [0, 752), then ETR [0, 272) to AUX [752, 1024).
TEST(CsEtmDriver, AWrappedEtrIsCopiedFromRrpInTwoPiecesBehindABarrier) {
    Rig r(1024, 4096);
    Bytes etr_after;
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        wait_until(2'000'000);
        r.stop(0);
        etr_after = r.etr(0, 1024);
    }});
    sc_core::sc_start();
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 0, 140, TraceLoss::sink_wrap},
                                               {0x10, 140, 994, TraceLoss::sink_wrap},
                                               {0x10, 1134, 14, TraceLoss::sink_wrap}}));
    ASSERT_EQ(r.obs.commits.size(), 1u);
    const AuxCommit& c = r.obs.commits[0];
    EXPECT_EQ(c.size, 1024u);
    EXPECT_EQ(c.first_frame, 81u);
    EXPECT_TRUE(c.barrier);
    ASSERT_EQ(c.runs.size(), 1u);
    EXPECT_EQ(c.runs[0].first_frame, 82u);
    EXPECT_EQ(c.runs[0].frames, 63u);
    EXPECT_EQ(c.runs[0].src_off, 1148u);
    EXPECT_EQ(c.runs[0].src_bytes, 877u);
    ASSERT_EQ(c.stores.size(), 2u);
    EXPECT_EQ(c.stores[0].aux_off, 0u);
    EXPECT_EQ(c.stores[0].len, 752u);
    EXPECT_EQ(c.stores[1].aux_off, 752u);
    EXPECT_EQ(c.stores[1].len, 272u);
    EXPECT_EQ(c.flags, uint64_t(PERF_AUX_FLAG_TRUNCATED));
    const Bytes aux = r.aux(0, 0, 1024);
    EXPECT_EQ(Bytes(aux.begin(), aux.begin() + 16), barrier_packet());
    EXPECT_EQ(Bytes(etr_after.begin() + 272, etr_after.begin() + 288), barrier_packet());
    EXPECT_EQ(aux, cat(Bytes(etr_after.begin() + 272, etr_after.end()),
                       Bytes(etr_after.begin(), etr_after.begin() + 272)));
    EXPECT_EQ(r.aux_head(0), 1024u);
    const CsEtmCounters& n = r.driver->counters();
    EXPECT_EQ(n.wrapped_captures, 1u);
    EXPECT_EQ(n.truncated, 1u);
    EXPECT_EQ(n.barrier_packets, 1u);
    EXPECT_EQ(n.copy_stores, 2u);
}

// E4, D10: STS.MemErr (set for a capture running at 500'000): the driver discards the whole
// capture (74 frames: 25 + 8 * 125 = 1025 bytes at 1'000'000) as memerr, commits nothing,
// sets no flag; a size-0 end with no flag writes no PERF_RECORD_AUX (A3 step 3), so the
// checker is told of no commit. aux_head is stored unchanged.
TEST(CsEtmDriver, MemErrDiscardsTheWholeCaptureSilently) {
    Rig r(4096, 4096);
    r.sp.memerr_at = {500'000};
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        wait_until(1'000'000);
        r.stop(0);
    }});
    sc_core::sc_start();
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x10, 0, 1025, TraceLoss::memerr}}));
    EXPECT_TRUE(r.obs.commits.empty());
    const Records& rec = r.outs[0].records;
    EXPECT_EQ(rec.count(PERF_RECORD_AUX), 0u);
    EXPECT_EQ(rec.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
    EXPECT_EQ(r.aux_head(0), 0u);
    EXPECT_FALSE(r.outs[0].aux->disable_requested());
    EXPECT_FALSE(r.outs[0].h.active); // the handle ended all the same
    EXPECT_EQ(r.sink->refcnt(), 0u);
    const CsEtmCounters& n = r.driver->counters();
    EXPECT_EQ(n.harvests, 1u);
    EXPECT_EQ(n.memerr_captures, 1u);
    EXPECT_EQ(n.harvested_bytes, 0u);
    EXPECT_EQ(n.truncated, 0u);
    EXPECT_EQ(n.copy_stores, 0u);
}

// E3, E5, D5, E8: CPU 0 and CPU 1 share the sink (one capture, refcount 2). CPU 0 stops at
// 1'000'000 as a non-last user: its ETM's bytes stay in the sink, its event commits nothing
// and writes no record. CPU 1 stops at 2'000'000 as the last user and harvests everything
// into its own AUX area: source 0x10's 1025 bytes and 0x11's 2025 (25 + 8 * 250): 74 + 145
// frames = 3504 bytes.
TEST(CsEtmDriver, OnlyTheLastUserOfASharedSinkHarvests) {
    Rig r(4096, 4096);
    unsigned refs_both = 0, refs_after_first = 0;
    uint64_t captures = 0;
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        ASSERT_TRUE(r.start(1));
        refs_both = r.sink->refcnt();
        captures = r.sink->captures();
        wait_until(1'000'000);
        r.stop(0);
        refs_after_first = r.sink->refcnt();
        wait_until(2'000'000);
        r.stop(1);
    }});
    sc_core::sc_start();
    EXPECT_EQ(refs_both, 2u);
    EXPECT_EQ(captures, 1u);
    EXPECT_EQ(refs_after_first, 1u);
    EXPECT_EQ(r.sink->refcnt(), 0u);
    EXPECT_TRUE(r.obs.losses.empty());
    ASSERT_EQ(r.obs.commits.size(), 1u);
    const AuxCommit& c = r.obs.commits[0];
    EXPECT_EQ(c.aux, 1u);
    EXPECT_EQ(c.aux_off, 0u);
    EXPECT_EQ(c.size, 3504u);
    EXPECT_FALSE(c.barrier);
    EXPECT_EQ(source_bytes(c, 0x10), 1025u);
    EXPECT_EQ(source_bytes(c, 0x11), 2025u);
    EXPECT_EQ(r.aux(1, 0, 3504), r.etr(0, 3504));
    // CPU 0's event: its HW_ID, no PERF_RECORD_AUX, aux_head untouched.
    EXPECT_EQ(r.outs[0].records.count(PERF_RECORD_AUX), 0u);
    EXPECT_EQ(r.outs[0].records.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
    EXPECT_EQ(r.aux_head(0), 0u);
    EXPECT_FALSE(r.outs[0].h.active);
    EXPECT_EQ(r.outs[1].records.count(PERF_RECORD_AUX), 1u);
    EXPECT_EQ(r.aux_head(1), 3504u);
    const CsEtmCounters& n = r.driver->counters();
    EXPECT_EQ(n.stops, 2u);
    EXPECT_EQ(n.harvests, 1u);
    EXPECT_EQ(n.harvest_skipped_shared, 1u);
    EXPECT_EQ(n.harvested_bytes, 3504u);
}

// A2, D1, P1: an AUX area already full (aux_head 4095, aux_tail 0: CIRC_SPACE 0) fails
// perf_aux_output_begin: start returns false and touches neither the sink nor the ETM nor
// the data buffer; the AUX core asks for the event's disable and wakes the tool. Once the
// tool has read it all (aux_tail = 4095), the next start gets the whole room again.
TEST(CsEtmDriver, NoAuxRoomAtStartStartsNothing) {
    Rig r(4096, 4096);
    bool first = true, second = false;
    bool disable = false, etm_on = true, hw_id_done = true;
    unsigned refs = 1;
    uint64_t captures = 1, wakeups = 0;
    size_t records = 0;
    uint64_t room = 0;
    r.build({[&] {
        Output& o = r.outs[0];
        // Another commit filled the area (its record goes to the data buffer).
        PerfAux::Handle fill;
        ASSERT_TRUE(o.aux->output_begin(fill, *r.cpus[0].port, *o.rb));
        o.aux->output_end(fill, *r.cpus[0].port, 4095, *o.rb, r.ctx);
        records = o.records.stored.size();
        first = r.start(0);
        disable = o.aux->disable_requested();
        etm_on = r.etms[0].running();
        refs = r.sink->refcnt();
        captures = r.sink->captures();
        wakeups = o.stats.wakeups;
        hw_id_done = o.hw_id_done;
        // The tool reads everything (aux_tail = aux_head) and re-enables the event.
        r.tool.store(o.rb->params().user_page + perf::kOffAuxTail, 4095, 8);
        o.aux->clear_disable();
        second = r.start(0);
        room = o.h.size;
        wait_until(100'000);
        r.stop(0);
    }});
    sc_core::sc_start();
    EXPECT_FALSE(first);
    EXPECT_TRUE(disable);
    EXPECT_FALSE(etm_on);
    EXPECT_EQ(refs, 0u);
    EXPECT_EQ(captures, 0u);
    EXPECT_EQ(wakeups, 2u); // the fill crossed the watermark; the failed begin woke again
    EXPECT_FALSE(hw_id_done);
    EXPECT_EQ(records, 1u);
    EXPECT_TRUE(second);
    EXPECT_EQ(room, 4095u);
    EXPECT_EQ(r.driver->counters().starts, 2u);
    EXPECT_EQ(r.driver->counters().begin_failures, 1u);
    // The HW_ID went out with the successful start only.
    EXPECT_EQ(r.outs[0].records.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
}

// E6, A7, A5: in snapshot mode the driver copies all 4608 bytes (288 frames) although the
// AUX area is 4 KiB, without barrier or flag: ETR [0, 4096) to AUX [0, 4096), then ETR
// [4096, 4608) over AUX [0, 512); it moves the head itself by everything (4608), and
// perf_aux_output_end writes PERF_RECORD_AUX {offset = the new head 4608, 4608, OVERWRITE}.
// No watermark wakeup in overwrite mode, no disable.
TEST(CsEtmDriver, SnapshotCopiesEverythingAndMovesTheHeadItself) {
    Rig r(8192, 4096, true);
    uint64_t begin_room = 1;
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        begin_room = r.outs[0].h.size;
        wait_until(4'000'000);
        r.stop(0);
    }});
    sc_core::sc_start();
    EXPECT_EQ(begin_room, 0u);         // no aux_tail, no room check (A7)
    EXPECT_TRUE(r.obs.losses.empty()); // what the AUX area lapped is the checker's to count
    ASSERT_EQ(r.obs.commits.size(), 1u);
    const AuxCommit& c = r.obs.commits[0];
    EXPECT_EQ(c.aux_off, 0u);
    EXPECT_EQ(c.size, 4608u);
    EXPECT_FALSE(c.barrier);
    EXPECT_EQ(c.flags, uint64_t(PERF_AUX_FLAG_OVERWRITE));
    EXPECT_EQ(c.record_offset, 4608u);
    ASSERT_EQ(c.stores.size(), 2u);
    EXPECT_EQ(c.stores[0].aux_off, 0u);
    EXPECT_EQ(c.stores[0].len, 4096u);
    EXPECT_EQ(c.stores[1].aux_off, 4096u);
    EXPECT_EQ(c.stores[1].len, 512u);
    EXPECT_EQ(r.outs[0].h.head, 4608u);
    EXPECT_EQ(r.aux(0, 0, 4096), cat(r.etr(4096, 512), r.etr(512, 3584)));
    const Records& rec = r.outs[0].records;
    ASSERT_EQ(rec.stored.size(), 2u);
    EXPECT_EQ(rec.type(1), uint32_t(PERF_RECORD_AUX));
    EXPECT_EQ(rec.field(1, 0), 4608u);
    EXPECT_EQ(rec.field(1, 1), 4608u);
    EXPECT_EQ(rec.field(1, 2), uint64_t(PERF_AUX_FLAG_OVERWRITE));
    EXPECT_EQ(r.aux_head(0), 4608u);
    EXPECT_EQ(r.outs[0].stats.wakeups, 0u);
    EXPECT_FALSE(r.outs[0].aux->disable_requested());
    EXPECT_EQ(r.driver->counters().truncated, 0u);
    EXPECT_EQ(r.driver->counters().barrier_packets, 0u);
}

// P1 (HW_ID once per CPU), E3 (each enable restarts the ETR at its base), and the reason a
// start is given for the time its ETM was off. Session 1: 0 .. 1'000'000, 74 frames (1184
// bytes) at AUX 0. Session 2: 3'000'000 .. 4'000'000, counts 375 .. 500: 25 + 8 * 125 =
// 1025 more bytes, again 74 frames from frame 0 of the new capture, at AUX 1184. The ETM
// books counts [125, 375) as not traced, for the cause the second start named.
TEST(CsEtmDriver, ARestartIsANewCaptureAndWritesNoSecondHwId) {
    Rig r(4096, 4096);
    r.build({[&] {
        ASSERT_TRUE(r.start(0));
        wait_until(1'000'000);
        r.stop(0);
        wait_until(3'000'000);
        ASSERT_TRUE(r.start(0, UntracedCause::aux_disabled));
        wait_until(4'000'000);
        r.stop(0);
    }});
    sc_core::sc_start();
    EXPECT_EQ(r.sink->captures(), 2u);
    EXPECT_EQ(r.outs[0].records.count(PERF_RECORD_AUX_OUTPUT_HW_ID), 1u);
    EXPECT_EQ(r.outs[0].records.count(PERF_RECORD_AUX), 2u);
    ASSERT_EQ(r.obs.commits.size(), 2u);
    EXPECT_EQ(r.obs.commits[0].aux_off, 0u);
    EXPECT_EQ(r.obs.commits[0].size, 1184u);
    const AuxCommit& c = r.obs.commits[1];
    EXPECT_EQ(c.aux_off, 1184u);
    EXPECT_EQ(c.size, 1184u);
    EXPECT_EQ(c.first_frame, 0u);
    ASSERT_EQ(c.runs.size(), 1u);
    EXPECT_EQ(c.runs[0].src_off, 1025u);
    EXPECT_EQ(c.runs[0].src_bytes, 1025u);
    EXPECT_EQ(c.record_offset, 1184u);
    EXPECT_EQ(r.aux(0, 1184, 1184), r.etr(0, 1184));
    EXPECT_EQ(r.aux_head(0), 2368u);
    ASSERT_EQ(r.etms[0].untraced().size(), 1u);
    EXPECT_EQ(r.etms[0].untraced()[0].first_count, 125u);
    EXPECT_EQ(r.etms[0].untraced()[0].counts, 250u);
    EXPECT_EQ(r.etms[0].untraced()[0].cause, UntracedCause::aux_disabled);
    EXPECT_EQ(r.driver->counters().harvests, 2u);
    EXPECT_EQ(r.driver->counters().harvested_bytes, 2368u);
}

// The race of docs/aux-path.md ("A race in the shared sink"): CPU 0 harvests alone from
// 1'000'000 (TMCReady 1'010'000, then 1184 bytes at 1 GB/s: done at 2'194'000) and drops
// its reference only then (E8). CPU 1 starts at 1'500'000, in between: the same session's
// sink only gains a reference (E3), stays stopped, and CPU 1's ETM (counts 187 .. 312 until
// its stop at 2'500'000: 1025 bytes) has nowhere to go: sink_stopped, its start's 25 bytes
// at once and the other 1000 at its stop. CPU 1 is then the last user: its harvest finds
// the stopped sink, commits nothing and writes no record.
TEST(CsEtmDriver, AStartDuringAnotherCpusHarvestFindsTheSinkStopped) {
    Rig r(4096, 4096);
    Picos cpu0_done = 0;
    unsigned refs_at_cpu1_start = 0;
    uint64_t captures_at_cpu1_start = 0;
    r.build({[&] {
                 ASSERT_TRUE(r.start(0));
                 wait_until(1'000'000);
                 r.stop(0);
                 cpu0_done = now();
             },
             [&] {
                 wait_until(1'500'000);
                 ASSERT_TRUE(r.start(1));
                 refs_at_cpu1_start = r.sink->refcnt();
                 captures_at_cpu1_start = r.sink->captures();
                 wait_until(2'500'000);
                 r.stop(1);
             }});
    sc_core::sc_start();
    EXPECT_EQ(cpu0_done, 2'194'000u);
    EXPECT_EQ(refs_at_cpu1_start, 2u);
    EXPECT_EQ(captures_at_cpu1_start, 1u);
    EXPECT_EQ(r.etms[1].stream().size(), 1025u);
    EXPECT_EQ(r.obs.losses, (std::vector<Loss>{{0x11, 0, 25, TraceLoss::sink_stopped},
                                               {0x11, 25, 1000, TraceLoss::sink_stopped}}));
    ASSERT_EQ(r.obs.commits.size(), 1u);
    EXPECT_EQ(r.obs.commits[0].aux, 0u);
    EXPECT_EQ(r.obs.commits[0].size, 1184u);
    EXPECT_EQ(source_bytes(r.obs.commits[0], 0x11), 0u);
    EXPECT_EQ(r.outs[1].records.count(PERF_RECORD_AUX), 0u);
    EXPECT_EQ(r.aux_head(1), 0u);
    EXPECT_EQ(r.sink->refcnt(), 0u);
    EXPECT_EQ(r.driver->counters().harvests, 2u);
    EXPECT_EQ(r.driver->counters().harvest_skipped_shared, 0u);
    EXPECT_EQ(r.driver->counters().harvested_bytes, 1184u);
}
