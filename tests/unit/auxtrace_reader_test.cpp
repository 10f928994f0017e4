// AuxtraceReader on its own, driven by hand: the test stores AUX bytes and aux_head as the
// kernel would (perf_aux_output_end, A3), calls the reader from a SystemC thread as the
// consumer does after each data pass, and checks what the AuxObserver is handed and what the
// reader stores. C7: on_start writes aux_offset and aux_size into the control page and maps
// the AUX area (read-only in snapshot mode: overwrite, A7). C6: aux_head with (C), the new
// bytes in one or two chunks ending at head & mask, aux_tail = head with (D); a head that
// lapped the area shows only what the offsets see (D7). C5: each mmap index reads its own
// area, and snapshot sessions read nothing in the loop. C8: at each snapshot_at, run_due
// reads with the snapshot arithmetic (clipped to snapshot_size) without moving aux_tail; -Se
// takes a last snapshot at exit. No CsEtmEvent here (AuxMmap::event is null): no ioctl.
//
// Common numbers: 4 KiB pages, one data page per buffer, so perf maps the AUX area at file
// offset 8192 (default_aux_offset); the MMU costs nothing; the tool copies at 4 GB/s and
// writes at 1 GB/s, so a read of n bytes takes n / 4 + n ns. The AUX byte at free-running
// position p holds p % 251 (+ 100 for the second buffer), so each lap of an area differs.
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_aux.h"
#include "models/kernel/perf_mmap.h"
#include "models/memory/engine_port.h"
#include "models/memory/mmu.h"
#include "models/user/auxtrace_reader.h"

#include <gtest/gtest.h>

#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <systemc>
#include <vector>

using namespace ringsim::models;
using sc_core::SC_PS;
using sc_core::sc_time;

namespace {

using Bytes = std::vector<uint8_t>;

constexpr uint64_t kPage = 4096;
constexpr Picos kUs = 1'000'000;

Picos now() {
    return sc_core::sc_time_stamp().value();
}
void wait_until(Picos t) {
    if (t > now()) sc_core::wait(sc_time(double(t - now()), SC_PS));
}

uint8_t trace_byte(unsigned buf, uint64_t pos) {
    return uint8_t(pos % 251 + 100 * buf);
}
Bytes trace(unsigned buf, uint64_t pos, uint64_t n) {
    Bytes v;
    for (uint64_t p = pos; p < pos + n; ++p)
        v.push_back(trace_byte(buf, p));
    return v;
}

// What the tool handed on.
struct Copied {
    unsigned idx;
    uint64_t pos;
    Bytes data;
    std::vector<CopySource> sources;
    CopyContext ctx;
};
struct Observer : AuxObserver {
    std::vector<Copied> copies;
    void on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                       const std::vector<CopySource>& sources, const CopyContext& ctx) override {
        copies.push_back({idx, pos, Bytes(data, data + n), sources, ctx});
    }
};

struct Script : sc_core::sc_module {
    SC_HAS_PROCESS(Script);
    std::function<void()> body;
    Script(sc_core::sc_module_name n, std::function<void()> b) : sc_module(n), body(std::move(b)) {
        SC_THREAD(run);
    }
    void run() { body(); }
};

// One perf event's buffer as the kernel allocated it: control page, one data page, the
// AUX pages (contiguous), and its AUX core (which the mapping makes overwrite or not).
struct Buffer {
    Addr up = 0, data = 0, aux = 0;
    uint64_t aux_size = 0;
    BufferStats stats;
    MmuCounters mmu;
    std::unique_ptr<PerfAux> core;
};

struct Rig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    EnginePort& kernel = mem.agent("cpu0"); // the driver's side
    EnginePort& cpu = mem.agent("cpu1");    // perf record's CPU
    AddressSpace space{[] {
        MmuParams mp; // a free MMU: translations cost nothing
        mp.page_size = kPage;
        mp.tlb_entries = 64;
        return mp;
    }()};
    MmuPort tool{cpu, space};
    std::deque<Buffer> bufs;
    AuxtraceReaderParams p;
    Observer obs;
    std::unique_ptr<AuxtraceReader> reader;

    Rig() {
        p.copy_bandwidth = 4e9;
        p.write_bandwidth = 1e9;
    }
    // A buffer with `aux_pages` AUX pages, mapped by the tool as perf_mmap would (the data
    // mapping now; the AUX one by the reader's on_start).
    void add_buffer(uint64_t aux_pages) {
        Buffer& b = bufs.emplace_back();
        const std::string name = "buf" + std::to_string(bufs.size() - 1);
        b.up = phys.allocate(name + ".up", kPage, kPage);
        b.data = phys.allocate(name + ".data", kPage, kPage);
        b.aux_size = aux_pages * kPage;
        b.aux = phys.allocate(name + ".aux", b.aux_size, kPage);
        PerfAuxParams ap;
        ap.name = name + ".aux";
        ap.user_page = b.up;
        ap.aux_size = b.aux_size;
        b.core = std::make_unique<PerfAux>(ap);
    }
    void build() {
        std::vector<AuxMmap> mmaps;
        for (unsigned i = 0; i < bufs.size(); ++i) {
            Buffer& b = bufs[i];
            AuxMmap m;
            m.user_page = space.mmap("buf" + std::to_string(i), {b.up, b.data}, 0, true, &b.mmu);
            m.aux_size = b.aux_size;
            m.aux_offset = perf::default_aux_offset(kPage, kPage);
            m.area.name = "buf" + std::to_string(i);
            m.area.user_page = b.up;
            for (uint64_t k = 0; k < b.aux_size / kPage; ++k)
                m.area.pages.push_back(b.aux + k * kPage);
            m.area.data_size = kPage;
            m.area.aux = b.core.get();
            m.area.mmu = &b.mmu;
            mmaps.push_back(m);
        }
        reader = std::make_unique<AuxtraceReader>(p, tool, cpu, space, std::move(mmaps), obs);
    }
    // The driver's copy of AUX positions [from, to) (wrapping at the area's end), then
    // perf_aux_output_end's aux_head = to.
    void kernel_commits(unsigned i, uint64_t from, uint64_t to) {
        Buffer& b = bufs[i];
        for (uint64_t pos = from; pos < to;) {
            const uint64_t off = pos % b.aux_size;
            const uint64_t n = std::min(to - pos, b.aux_size - off);
            const Bytes v = trace(i, pos, n);
            kernel.store_bytes(b.aux + off, v.data(), n, false, Barrier::none);
            pos += n;
        }
        kernel.store(b.up + perf::kOffAuxHead, to, 8);
    }
    uint64_t word(unsigned i, uint64_t off) { return kernel.load(bufs[i].up + off, 8); }
};

void run(std::function<void()> body) {
    Script s("script", std::move(body));
    sc_core::sc_start();
}

} // namespace

// C7, C6, D: on_start stores aux_offset = 8192 and aux_size = 8192 in the control page and
// maps the area writable (the AUX buffer stays in normal mode). Then 1000 new bytes at
// position 0: one chunk, handed on whole at position 0 after 250 + 1000 ns of copying and
// writing; aux_tail = 1000 is stored before they are handed on. A second pass with aux_head
// unchanged reads nothing and takes no time.
TEST(AuxtraceReader, ReadsTheNewBytesInOneChunkAndHandsTheTailBack) {
    Rig r;
    r.add_buffer(2);
    r.build();
    bool got = false, again = true;
    Picos read_took = 0, again_took = 1;
    uint64_t tail_seen_by_kernel = 0;
    run([&] {
        r.reader->on_start();
        wait_until(1 * kUs);
        r.kernel_commits(0, 0, 1000);
        wait_until(2 * kUs);
        got = r.reader->after_data_read(0);
        read_took = now() - 2 * kUs;
        tail_seen_by_kernel = r.word(0, perf::kOffAuxTail);
        const Picos t = now();
        again = r.reader->after_data_read(0);
        again_took = now() - t;
    });
    EXPECT_EQ(r.word(0, perf::kOffAuxOffset), 8192u);
    EXPECT_EQ(r.word(0, perf::kOffAuxSize), 8192u);
    EXPECT_FALSE(r.bufs[0].core->overwrite());
    EXPECT_TRUE(got);
    EXPECT_EQ(read_took, 1'250'000u);
    EXPECT_EQ(tail_seen_by_kernel, 1000u);
    ASSERT_EQ(r.obs.copies.size(), 1u);
    const Copied& c = r.obs.copies[0];
    EXPECT_EQ(c.idx, 0u);
    EXPECT_EQ(c.pos, 0u);
    EXPECT_EQ(c.data, trace(0, 0, 1000));
    EXPECT_EQ(c.ctx.head_value, 1000u);
    EXPECT_NE(c.ctx.tail_store_seq, 0u); // the (D) store, made before the hand-over
    // Where each byte came from: one load (one chunk), its pieces covering the copy in order.
    uint64_t covered = 0;
    std::set<uint64_t> loads;
    for (const CopySource& s : c.sources) {
        EXPECT_EQ(s.offset, covered);
        covered += s.length;
        loads.insert(s.load_seq);
    }
    EXPECT_EQ(covered, 1000u);
    EXPECT_EQ(loads.size(), 1u);
    EXPECT_FALSE(again);
    EXPECT_EQ(again_took, 0u);
    EXPECT_EQ(r.obs.copies.size(), 1u);
    const AuxtraceReaderCounters& n = r.reader->counters();
    EXPECT_EQ(n.reads, 1u);
    EXPECT_EQ(n.bytes_copied, 1000u);
    EXPECT_EQ(n.lapped_reads, 0u);
    EXPECT_EQ(n.enables, 0u); // no event to enable
    EXPECT_EQ(n.snapshots, 0u);
}

// C6: a one-page area; after a first read of [0, 3000), the kernel commits [3000, 5000),
// which wraps: 1096 bytes at offsets [3000, 4096), then 904 at [0, 904). perf copies them
// in two chunks (two loads) and hands them on as one range at position 3000.
TEST(AuxtraceReader, AWrappedRangeIsReadInTwoChunks) {
    Rig r;
    r.add_buffer(1);
    r.build();
    run([&] {
        r.reader->on_start();
        r.kernel_commits(0, 0, 3000);
        ASSERT_TRUE(r.reader->after_data_read(0));
        r.kernel_commits(0, 3000, 5000);
        ASSERT_TRUE(r.reader->after_data_read(0));
    });
    ASSERT_EQ(r.obs.copies.size(), 2u);
    EXPECT_EQ(r.obs.copies[0].pos, 0u);
    EXPECT_EQ(r.obs.copies[0].data, trace(0, 0, 3000));
    const Copied& c = r.obs.copies[1];
    EXPECT_EQ(c.pos, 3000u);
    EXPECT_EQ(c.data, trace(0, 3000, 2000));
    // Bytes [0, 1096) of the range came from the first chunk's load, the rest from the
    // second's.
    std::set<uint64_t> first, second;
    for (const CopySource& s : c.sources) {
        if (s.offset + s.length <= 1096)
            first.insert(s.load_seq);
        else if (s.offset >= 1096)
            second.insert(s.load_seq);
        else
            ADD_FAILURE() << "a source straddles the chunks at " << s.offset;
    }
    ASSERT_EQ(first.size(), 1u);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_NE(*first.begin(), *second.begin());
    EXPECT_EQ(r.word(0, perf::kOffAuxTail), 5000u);
    EXPECT_EQ(r.reader->counters().reads, 2u);
    EXPECT_EQ(r.reader->counters().bytes_copied, 5000u);
}

// D7: aux_head moved 4196 past the last read in a 4 KiB area: the offsets (100 vs 0) show
// only 100 bytes, [4096, 4196); the older lap is invisible, and the tail goes to the head
// all the same. A move of exactly one area (4196 -> 8292) reads as one full area, not
// nothing, and is not a lapped read.
TEST(AuxtraceReader, ALappedHeadShowsOnlyWhatTheOffsetsSee) {
    Rig r;
    r.add_buffer(1);
    r.build();
    uint64_t lapped_after_first = 0, tail_after_first = 0;
    run([&] {
        r.reader->on_start();
        r.kernel_commits(0, 0, 4196);
        ASSERT_TRUE(r.reader->after_data_read(0));
        lapped_after_first = r.reader->counters().lapped_reads;
        tail_after_first = r.word(0, perf::kOffAuxTail);
        r.kernel_commits(0, 4196, 8292);
        ASSERT_TRUE(r.reader->after_data_read(0));
    });
    EXPECT_EQ(lapped_after_first, 1u);
    EXPECT_EQ(tail_after_first, 4196u);
    ASSERT_EQ(r.obs.copies.size(), 2u);
    EXPECT_EQ(r.obs.copies[0].pos, 4096u);
    EXPECT_EQ(r.obs.copies[0].data, trace(0, 4096, 100));
    EXPECT_EQ(r.obs.copies[1].pos, 4196u);
    EXPECT_EQ(r.obs.copies[1].data, trace(0, 4196, 4096));
    EXPECT_EQ(r.word(0, perf::kOffAuxTail), 8292u);
    EXPECT_EQ(r.reader->counters().lapped_reads, 1u);
    EXPECT_EQ(r.reader->counters().bytes_copied, 4196u);
}

// C5: after_data_read(idx) reads only mmap idx's AUX area, and moves only its tail.
TEST(AuxtraceReader, EachMmapIndexReadsItsOwnArea) {
    Rig r;
    r.add_buffer(1);
    r.add_buffer(2);
    r.build();
    uint64_t tail0_after_1 = 1, tail1_after_1 = 0;
    run([&] {
        r.reader->on_start();
        r.kernel_commits(0, 0, 500);
        r.kernel_commits(1, 0, 700);
        ASSERT_TRUE(r.reader->after_data_read(1));
        tail0_after_1 = r.word(0, perf::kOffAuxTail);
        tail1_after_1 = r.word(1, perf::kOffAuxTail);
        ASSERT_TRUE(r.reader->after_data_read(0));
    });
    EXPECT_EQ(r.word(1, perf::kOffAuxOffset), 8192u);
    EXPECT_EQ(r.word(1, perf::kOffAuxSize), 8192u);
    EXPECT_EQ(tail0_after_1, 0u);
    EXPECT_EQ(tail1_after_1, 700u);
    ASSERT_EQ(r.obs.copies.size(), 2u);
    EXPECT_EQ(r.obs.copies[0].idx, 1u);
    EXPECT_EQ(r.obs.copies[0].data, trace(1, 0, 700));
    EXPECT_EQ(r.obs.copies[1].idx, 0u);
    EXPECT_EQ(r.obs.copies[1].data, trace(0, 0, 500));
    EXPECT_EQ(r.word(0, perf::kOffAuxTail), 500u);
    EXPECT_EQ(r.reader->counters().reads, 2u);
}

// C7, C5, C8, A7: in snapshot mode the AUX area is mapped read-only (overwrite mode), the
// data passes read no AUX, and each snapshot_at (10 us, 20 us) reads with the snapshot
// arithmetic and stores no aux_tail. First snapshot: [0, 1000). Second: the head moved from
// 1000 to 7000 (a harvest larger than the area, E6): the offsets show 2904 - 1000 = 1904
// bytes, clipped to snapshot_size 1024: [5976, 7000), read from offset 1880.
TEST(AuxtraceReader, SnapshotsReadOnlyAtTheSignalAndLeaveTheTail) {
    Rig r;
    r.p.snapshot = true;
    r.p.snapshot_size = 1024;
    r.p.snapshot_at = {10 * kUs, 20 * kUs};
    r.add_buffer(1);
    r.build();
    bool in_loop = true;
    Picos due_first = 0, due_second = 0, due_after = 1;
    uint64_t reads_before = 1, snapshots_after_first = 0;
    run([&] {
        r.reader->on_start();
        r.kernel_commits(0, 0, 1000);
        wait_until(2 * kUs);
        in_loop = r.reader->after_data_read(0);
        reads_before = r.reader->counters().reads;
        due_first = r.reader->next_due();
        r.reader->run_due(); // not due yet: nothing
        wait_until(due_first);
        r.reader->run_due();
        snapshots_after_first = r.reader->counters().snapshots;
        due_second = r.reader->next_due();
        r.kernel_commits(0, 1000, 7000);
        wait_until(due_second);
        r.reader->run_due();
        due_after = r.reader->next_due();
    });
    EXPECT_TRUE(r.bufs[0].core->overwrite());
    EXPECT_FALSE(in_loop);
    EXPECT_EQ(reads_before, 0u);
    EXPECT_EQ(due_first, 10 * kUs);
    EXPECT_EQ(snapshots_after_first, 1u);
    EXPECT_EQ(due_second, 20 * kUs);
    EXPECT_EQ(due_after, 0u);
    ASSERT_EQ(r.obs.copies.size(), 2u);
    EXPECT_EQ(r.obs.copies[0].pos, 0u);
    EXPECT_EQ(r.obs.copies[0].data, trace(0, 0, 1000));
    EXPECT_EQ(r.obs.copies[0].ctx.tail_store_seq, 0u);
    EXPECT_EQ(r.obs.copies[1].pos, 5976u);
    EXPECT_EQ(r.obs.copies[1].data, trace(0, 5976, 1024));
    EXPECT_EQ(r.obs.copies[1].ctx.head_value, 7000u);
    EXPECT_EQ(r.word(0, perf::kOffAuxTail), 0u);
    const AuxtraceReaderCounters& n = r.reader->counters();
    EXPECT_EQ(n.snapshots, 2u);
    EXPECT_EQ(n.reads, 2u);
    EXPECT_EQ(n.bytes_copied, 2024u);
    EXPECT_EQ(n.lapped_reads, 1u); // 6000 > 4096 (D7)
    EXPECT_EQ(n.enables, 0u);
}

// perf record -Se (record__auxtrace_snapshot_exit) takes one last snapshot at exit of what
// the final stops committed; plain -S leaves it unread. Two tools side by side, each with
// its own memory: 1000 bytes committed, no SIGUSR2, then the exit.
TEST(AuxtraceReader, ALastSnapshotAtExitOnlyWithE) {
    Rig with_e, plain;
    for (Rig* r : {&with_e, &plain}) {
        r->p.snapshot = true;
        r->add_buffer(1);
    }
    with_e.p.snapshot_on_exit = true;
    with_e.build();
    plain.build();
    run([&] {
        for (Rig* r : {&with_e, &plain}) {
            r->reader->on_start();
            r->kernel_commits(0, 0, 1000);
            r->reader->on_exit();
        }
    });
    EXPECT_EQ(with_e.reader->counters().snapshots, 1u);
    EXPECT_EQ(with_e.reader->counters().reads, 1u);
    ASSERT_EQ(with_e.obs.copies.size(), 1u);
    EXPECT_EQ(with_e.obs.copies[0].data, trace(0, 0, 1000));
    EXPECT_EQ(plain.reader->counters().snapshots, 0u);
    EXPECT_EQ(plain.reader->counters().reads, 0u);
    EXPECT_TRUE(plain.obs.copies.empty());
}
