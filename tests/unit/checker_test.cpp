// The checker on its own, driven by hand: its producer side is told what the kernel stored
// (on_record_stored), its consumer side what the tool copied (on_copied, on_skipped), and
// finish() closes the books. Asserts the exact BufferStats counters and Violation kinds:
// delivery, C4 duplicates against a libperf re-read, stale / overrun / torn classified by
// where the wrong bytes came from, unread and skipped records, PERF_RECORD_LOST (R5) and
// the accounting identity produced = delivered + lost + unread + overwritten + corrupted +
// missing + skipped. Records are built with the project's encoders (the real ABI of
// <linux/perf_event.h>). Most tests give the checker no ordering engine: it then orders the
// store a wrong byte came from against the record's own by sequence number (a byte with no
// store, by the load that read it), so the CopySources each test builds decide the class.
// The last two write through a real PerfBuffer, for the loss still pending in rb->lost.
#include "models/check/checker.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_records.h"
#include "models/memory/engine_port.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

using namespace ringsim::models;

namespace {

constexpr uint64_t kSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;
constexpr uint64_t kDataSize = 4096;
// PERF_RECORD_LOST with the sample_id trailer of kSampleType: header, id, lost, then
// pid/tid, time, id (R5, __perf_event__output_id_sample).
constexpr uint64_t kLostSize = perf::kLostRecordSize + 24;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The writer of every record: one event (id 42) of one task. Its time moves with each
// record, so two samples of the same size differ from byte 16 on (the PERF_SAMPLE_TIME
// field), and a wrong byte is first seen there.
perf::RecordContext writer(uint64_t time_ns) {
    perf::RecordContext c;
    c.sample_type = kSampleType;
    c.sample_id_all = true;
    c.pid = 100;
    c.tid = 101;
    c.time_ns = time_ns;
    c.id = 42;
    return c;
}

std::vector<uint8_t> sample(uint64_t size, uint64_t seq) {
    EXPECT_EQ(perf::sample_size_exact(kSampleType, size), size) << "not a buildable sample";
    std::vector<uint8_t> b;
    perf::encode_sample(b, writer(1000 * seq), size, seq, 1);
    return b;
}

std::vector<uint8_t> lost_record(uint64_t lost) {
    std::vector<uint8_t> b;
    perf::encode_lost(b, writer(7), lost);
    EXPECT_EQ(b.size(), kLostSize);
    return b;
}

std::vector<uint8_t> concat(std::initializer_list<const std::vector<uint8_t>*> parts) {
    std::vector<uint8_t> out;
    for (const auto* p : parts)
        out.insert(out.end(), p->begin(), p->end());
    return out;
}

struct Stored {
    uint64_t pos = 0;
    std::vector<uint8_t> bytes;
    RecordStores stores;
};

struct Options {
    uint64_t data_size = kDataSize;
    bool overwrite = false;
    bool backward = false;
    bool push_reader = true;
    BarrierKind a = BarrierKind::ctrl, b = BarrierKind::wmb;
    BarrierKind c = BarrierKind::acquire, d = BarrierKind::release;
};

// One buffer's checker, with the kernel's counters kept by hand.
struct Books {
    BufferStats stats;
    // Only read by finish(), for the losses still pending in rb->lost: none here.
    PerfBuffer rb;
    Checker checker;
    uint64_t next_store = 1; // store sequence numbers, handed out in program order

    explicit Books(const Options& o = {})
        : rb(params(o), stats), checker({checked(o, stats, rb)}, nullptr) {}

    static PerfBufferParams params(const Options& o) {
        PerfBufferParams p;
        p.name = "cpu0";
        p.page_size = o.data_size;
        p.nr_pages = 1;
        p.overwrite = o.overwrite;
        p.backward = o.backward;
        return p;
    }
    static CheckedBuffer checked(const Options& o, BufferStats& st, const PerfBuffer& rb) {
        CheckedBuffer cb;
        cb.name = "cpu0";
        cb.data_size = o.data_size;
        cb.overwrite = o.overwrite;
        cb.backward = o.backward;
        cb.sample_type = kSampleType;
        cb.sample_id_all = true;
        cb.stats = &st;
        cb.rb = &rb;
        cb.a = o.a;
        cb.b = o.b;
        cb.c = o.c;
        cb.d = o.d;
        cb.push_reader = o.push_reader;
        cb.data = 0x80001000;
        return cb;
    }

    // The kernel stored `bytes` at `pos`: its header, then its body, one store each (as
    // PerfBuffer::store_body reports a record whose body fits one cache line).
    Stored store(uint64_t pos, std::vector<uint8_t> bytes, uint64_t lost = 0) {
        Stored s{pos, std::move(bytes),
                 RecordStores{{next_store, next_store + 1, next_store + 1}, {}}};
        next_store += 2;
        // __perf_output_begin counts every record it is asked for (PERF_RECORD_LOST not
        // included); the checker's books are measured against that.
        if (lost == 0) {
            ++stats.records_produced;
            stats.bytes_produced += s.bytes.size();
        }
        checker.producer_side(0).on_record_stored(s.pos, s.bytes, lost, s.stores);
        return s;
    }
    // The kernel dropped `n` records (R5): counted produced and lost, nothing stored.
    void kernel_lost(uint64_t n) {
        stats.records_produced += n;
        stats.records_lost += n;
    }
    void copy(uint64_t pos, const std::vector<uint8_t>& bytes,
              const std::vector<CopySource>& sources = {}, const CopyContext& ctx = {}) {
        checker.on_copied(0, pos, bytes.data(), bytes.size(), sources, ctx);
    }
    uint64_t accounted() const {
        return stats.records_delivered + stats.records_lost + stats.records_unread +
               stats.records_overwritten + stats.records_corrupted + stats.records_missing +
               stats.records_skipped;
    }
};

// Where the bytes of a copy at copy offset `at` came from: the stores of record `r` (its
// header, then its body), read by load #`load`.
std::vector<CopySource> from_stores_of(const Stored& r, uint64_t at = 0, uint64_t load = 100) {
    return {{at, perf::kHeaderSize, r.stores.header, load, 0, 0},
            {at + perf::kHeaderSize, r.bytes.size() - perf::kHeaderSize, r.stores.body_first, load,
             0, 0}};
}

} // namespace

TEST(Checker, EveryRecordDeliveredOnceClosesTheBooks) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    const Stored b = k.store(64, sample(96, 2));
    const Stored c = k.store(160, sample(40, 3));
    // One push pass copies [0, 200): the checker walks it record by record.
    k.copy(0, concat({&a.bytes, &b.bytes, &c.bytes}));
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 3u);
    EXPECT_EQ(k.stats.bytes_delivered, 200u);
    EXPECT_EQ(k.stats.samples_in_perf_data, 3u);
    EXPECT_EQ(k.stats.records_unread, 0u);
    EXPECT_EQ(k.stats.records_duplicated, 0u);
    EXPECT_EQ(k.stats.records_corrupted, 0u);
    EXPECT_EQ(k.stats.violations_total, 0u);
    EXPECT_TRUE(k.checker.violations().empty());
    EXPECT_EQ(k.accounted(), k.stats.records_produced);
}

TEST(Checker, ARecordSplitAcrossTwoCopiesIsVerifiedWhenItsLastByteArrives) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    const Stored b = k.store(64, sample(96, 2));
    const std::vector<uint8_t> all = concat({&a.bytes, &b.bytes});
    // The first copy ends 36 bytes into b: a is verified, b waits for the rest.
    k.copy(0, {all.begin(), all.begin() + 100});
    EXPECT_EQ(k.stats.records_delivered, 1u);
    k.copy(100, {all.begin() + 100, all.end()});
    EXPECT_EQ(k.stats.records_delivered, 2u);
    EXPECT_EQ(k.stats.bytes_delivered, 160u);
    k.checker.finish();
    EXPECT_EQ(k.stats.violations_total, 0u);
}

// C4: perf_mmap__push copies up to its second data_head read but consumes up to its first,
// so the next pass copies the records in between again, intact. Not a violation, not a
// second delivery, but perf report counts the sample twice.
TEST(Checker, PushReaderCopyingARecordTwiceCountsItDuplicated) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    const Stored b = k.store(64, sample(64, 2));
    k.copy(0, concat({&a.bytes, &b.bytes})); // [prev, h2) with h1 = 64, h2 = 128
    k.copy(64, b.bytes);                     // the next pass: [h1, h2) again
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 2u);
    EXPECT_EQ(k.stats.records_duplicated, 1u);
    EXPECT_EQ(k.stats.samples_in_perf_data, 3u);
    EXPECT_EQ(k.stats.violations_total, 0u);
    EXPECT_EQ(k.stats.violations_accounting, 0u);
    EXPECT_EQ(k.accounted(), 2u);
}

// C3: libperf reads each record once (prev moves past every record it reads), so the same
// copy from it is a violation of its own kind.
TEST(Checker, LibperfReaderCopyingARecordTwiceIsADuplicatedViolation) {
    Options o;
    o.push_reader = false;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1));
    const Stored b = k.store(64, sample(64, 2));
    k.copy(0, a.bytes);
    k.copy(64, b.bytes);
    k.copy(64, b.bytes);
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 2u);
    EXPECT_EQ(k.stats.records_duplicated, 0u);
    EXPECT_EQ(k.stats.samples_in_perf_data, 2u);
    EXPECT_EQ(k.stats.violations_duplicated, 1u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    ASSERT_EQ(k.checker.violations().size(), 1u);
    const Violation& v = k.checker.violations()[0];
    EXPECT_EQ(v.kind, "duplicated");
    EXPECT_EQ(v.pos, 64u);
    EXPECT_EQ(v.buffer, "cpu0");
}

// A second copy (C4) is checked against the first byte for byte: one with other bytes is
// classified like any wrong read, here newer bytes (a later record's stores).
TEST(Checker, ASecondCopyWithOtherBytesIsCheckedAgainstTheFirst) {
    Options o;
    o.d = BarrierKind::none;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1)); // stores #1, #2
    k.copy(0, a.bytes);
    const Stored y = k.store(4096, sample(64, 2)); // stores #3, #4, on a's bytes
    k.copy(0, y.bytes, from_stores_of(y));
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.records_duplicated, 0u);
    EXPECT_EQ(k.stats.records_corrupted, 0u); // a was already counted, delivered
    EXPECT_EQ(k.stats.violations_overrun, 1u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    ASSERT_EQ(k.checker.violations().size(), 1u);
    EXPECT_EQ(k.checker.violations()[0].kind, "overrun");
    EXPECT_EQ(k.checker.violations()[0].barriers, "D");
}

// Message passing broken ((B) off): the consumer trusted a data_head that covered the
// record at 4096 but read the bytes the previous lap's record left there: every wrong byte
// comes from a store older than the record's own.
TEST(Checker, BytesFromOlderStoresAreStale) {
    Options o;
    o.b = BarrierKind::none;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1)); // stores #1, #2
    k.copy(0, a.bytes);
    k.store(4096, sample(64, 2)); // stores #3, #4, on the same physical bytes
    CopyContext ctx;
    ctx.head_value = 4160;
    ctx.head_load_seq = 9;
    k.copy(4096, a.bytes, from_stores_of(a), ctx);
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.records_corrupted, 1u);
    EXPECT_EQ(k.stats.violations_stale, 1u);
    EXPECT_EQ(k.stats.violations_overrun, 0u);
    EXPECT_EQ(k.stats.violations_torn, 0u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    EXPECT_EQ(k.accounted(), k.stats.records_produced); // 2 = 1 delivered + 1 corrupted
    ASSERT_EQ(k.checker.violations().size(), 1u);
    const Violation& v = k.checker.violations()[0];
    EXPECT_EQ(v.kind, "stale");
    EXPECT_EQ(v.pos, 4096u);
    EXPECT_EQ(v.barriers, "B");
    EXPECT_TRUE(contains(v.fix, "(B) smp_wmb()")) << v.fix;
    // The headers are equal; the first wrong byte is the sample's time, from a's body store.
    EXPECT_TRUE(contains(v.explanation, "From byte 16 on it got bytes of store #2"))
        << v.explanation;
    EXPECT_TRUE(contains(v.explanation, "trusted data_head = 4160 from its load #9"))
        << v.explanation;
}

// A byte with no store in the engine's history (store_seq 0) is older than the record's
// store exactly when the load that read it comes first in coherence order. With every
// barrier on, the checker says the reordering should be impossible.
TEST(Checker, BytesOlderThanTheEnginesHistoryAreStale) {
    Books k;
    k.next_store = 10;
    k.store(0, sample(64, 1)); // stores #10, #11
    // The consumer's load #5 read the zeroed pages before the record's stores reached them.
    const std::vector<uint8_t> zeros(64, 0);
    k.copy(0, zeros, {{0, 64, 0, 5, 0, 0}});
    EXPECT_EQ(k.stats.records_corrupted, 1u);
    EXPECT_EQ(k.stats.violations_stale, 1u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    ASSERT_EQ(k.checker.violations().size(), 1u);
    const Violation& v = k.checker.violations()[0];
    EXPECT_EQ(v.kind, "stale");
    EXPECT_EQ(v.barriers, "");
    EXPECT_TRUE(contains(v.explanation, "what the buffer held before the record's stores"))
        << v.explanation;
    EXPECT_TRUE(contains(v.explanation, "a bug in ringsim's models")) << v.explanation;
}

// Load buffering ((A) and (D) off): the producer stored the record at 4096 over the unread
// one at 0, and the consumer read the newer bytes: overrun, with the overwriter named.
TEST(Checker, BytesFromNewerStoresAreAnOverrun) {
    Options o;
    o.a = BarrierKind::none;
    o.d = BarrierKind::none;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1));    // stores #1, #2
    const Stored y = k.store(4096, sample(64, 2)); // stores #3, #4, lands on unread a
    k.copy(0, y.bytes, from_stores_of(y));
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 0u);
    EXPECT_EQ(k.stats.records_corrupted, 1u);
    EXPECT_EQ(k.stats.records_unread, 1u);      // y itself was never read
    EXPECT_EQ(k.stats.records_overwritten, 0u); // not an overwrite-mode buffer
    EXPECT_EQ(k.stats.violations_overrun, 1u);
    EXPECT_EQ(k.stats.violations_stale, 0u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    EXPECT_EQ(k.accounted(), k.stats.records_produced);
    ASSERT_EQ(k.checker.violations().size(), 1u);
    const Violation& v = k.checker.violations()[0];
    EXPECT_EQ(v.kind, "overrun");
    EXPECT_EQ(v.pos, 0u);
    EXPECT_EQ(v.barriers, "A, D");
    EXPECT_TRUE(contains(v.explanation, "The record was overwritten by store #3")) << v.explanation;
    EXPECT_TRUE(contains(v.fix, "(A) the control dependency")) << v.fix;
    EXPECT_TRUE(contains(v.fix, "(D) smp_store_release")) << v.fix;
}

// Both at once: the record at 4096 read while its first half still held the previous lap
// (older stores) and its second half already the next lap (newer stores).
TEST(Checker, BytesFromOlderAndNewerStoresAreTorn) {
    Options o;
    o.a = o.b = o.c = o.d = BarrierKind::none;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1)); // stores #1, #2
    k.copy(0, a.bytes);
    k.store(4096, sample(64, 2));                  // stores #3, #4
    const Stored y = k.store(8192, sample(64, 3)); // stores #5, #6
    std::vector<uint8_t> seen(a.bytes.begin(), a.bytes.begin() + 32);
    seen.insert(seen.end(), y.bytes.begin() + 32, y.bytes.end());
    k.copy(4096, seen,
           {{0, 8, a.stores.header, 100, 0, 0},
            {8, 24, a.stores.body_first, 100, 0, 0},
            {32, 32, y.stores.body_first, 100, 0, 0}});
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.records_corrupted, 1u);
    EXPECT_EQ(k.stats.records_unread, 1u); // y
    EXPECT_EQ(k.stats.violations_torn, 1u);
    EXPECT_EQ(k.stats.violations_stale, 0u);
    EXPECT_EQ(k.stats.violations_overrun, 0u);
    EXPECT_EQ(k.stats.violations_total, 1u);
    EXPECT_EQ(k.accounted(), k.stats.records_produced);
    ASSERT_EQ(k.checker.violations().size(), 1u);
    const Violation& v = k.checker.violations()[0];
    EXPECT_EQ(v.kind, "torn");
    EXPECT_EQ(v.pos, 4096u);
    EXPECT_EQ(v.barriers, "B, C, A, D"); // the older bytes' barriers first
}

// finish() counts what is still in the ledger: records unread, and the loss a never-read
// PERF_RECORD_LOST carried as unreported (R5).
TEST(Checker, RecordsNeverReadAreUnreadAtFinish) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    k.kernel_lost(4);
    k.store(64, lost_record(4), 4);
    k.store(64 + kLostSize, sample(96, 2));
    k.store(160 + kLostSize, sample(40, 3));
    k.copy(0, a.bytes);
    k.checker.finish();
    EXPECT_EQ(k.stats.records_produced, 7u); // 3 stored + 4 lost
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.records_unread, 2u);
    EXPECT_EQ(k.stats.bytes_unread, 136u);
    EXPECT_EQ(k.stats.lost_records, 0u);
    EXPECT_EQ(k.stats.lost_reported, 0u);
    EXPECT_EQ(k.stats.lost_unreported, 4u);
    EXPECT_EQ(k.stats.violations_total, 0u); // 7 = 1 + 4 + 2, and 4 = 0 + 4
}

// R5, C9: a delivered PERF_RECORD_LOST is perf's "lost N chunks": one lost record whose
// lost field says how many records the kernel dropped. It is not a delivered record.
TEST(Checker, ADeliveredLostRecordReportsItsLoss) {
    Books k;
    k.kernel_lost(3);
    const Stored lost = k.store(0, lost_record(3), 3);
    const Stored s = k.store(kLostSize, sample(64, 1));
    k.copy(0, concat({&lost.bytes, &s.bytes}));
    k.checker.finish();
    EXPECT_EQ(k.stats.lost_records, 1u);
    EXPECT_EQ(k.stats.lost_reported, 3u);
    EXPECT_EQ(k.stats.lost_unreported, 0u);
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.bytes_delivered, 64u);
    EXPECT_EQ(k.stats.samples_in_perf_data, 1u);
    EXPECT_EQ(k.stats.violations_total, 0u); // produced 4 = 1 delivered + 3 lost
}

// C3: libperf's read_done (or a keep-up failure) steps over [from, to): the records there
// are skipped, not missing, and a PERF_RECORD_LOST among them leaves its loss unreported.
TEST(Checker, SkippedRangesAreTheToolsChoiceNotViolations) {
    Options o;
    o.push_reader = false;
    Books k(o);
    const Stored a = k.store(0, sample(64, 1));
    k.store(64, sample(64, 2));
    k.kernel_lost(2);
    k.store(128, lost_record(2), 2);
    k.store(128 + kLostSize, sample(64, 3));
    const Stored e = k.store(192 + kLostSize, sample(64, 4));
    k.copy(0, a.bytes);
    k.checker.on_skipped(0, 64, 192 + kLostSize); // over b, the LOST record and d
    k.copy(192 + kLostSize, e.bytes);
    k.checker.finish();
    EXPECT_EQ(k.stats.records_skipped, 2u);
    EXPECT_EQ(k.stats.records_missing, 0u);
    EXPECT_EQ(k.stats.records_delivered, 2u);
    EXPECT_EQ(k.stats.lost_records, 0u);
    EXPECT_EQ(k.stats.lost_unreported, 2u);
    EXPECT_EQ(k.stats.violations_total, 0u); // produced 6 = 2 + 2 lost + 2 skipped
    EXPECT_EQ(k.accounted(), 6u);
}

// The consumer went on past records it never copied, with no loss or skip to explain it.
TEST(Checker, RecordsJumpedOverInAForwardBufferAreMissing) {
    Books k;
    k.store(0, sample(64, 1));
    k.store(64, sample(64, 2));
    const Stored c = k.store(128, sample(64, 3));
    k.copy(128, c.bytes);
    k.checker.finish();
    EXPECT_EQ(k.stats.records_missing, 2u);
    EXPECT_EQ(k.stats.violations_missing, 2u);
    EXPECT_EQ(k.stats.violations_total, 2u);
    EXPECT_EQ(k.stats.records_delivered, 1u);
    ASSERT_EQ(k.checker.violations().size(), 2u);
    EXPECT_EQ(k.checker.violations()[0].kind, "missing");
    EXPECT_EQ(k.checker.violations()[0].pos, 0u);
    EXPECT_EQ(k.checker.violations()[1].pos, 64u);
}

// A copy that ends inside a record followed by one that does not continue it.
TEST(Checker, ACopyThatStopsInsideARecordIsCorrupt) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    const Stored b = k.store(64, sample(64, 2));
    k.copy(0, {a.bytes.begin(), a.bytes.begin() + 32});
    k.copy(64, b.bytes);
    k.checker.finish();
    EXPECT_EQ(k.stats.violations_corrupt, 1u);
    EXPECT_EQ(k.stats.violations_missing, 1u); // a, never whole
    EXPECT_EQ(k.stats.violations_total, 2u);
    EXPECT_EQ(k.stats.records_missing, 1u);
    EXPECT_EQ(k.stats.records_delivered, 1u);
    ASSERT_EQ(k.checker.violations().size(), 2u);
    EXPECT_EQ(k.checker.violations()[0].kind, "corrupt");
    EXPECT_EQ(k.checker.violations()[0].pos, 0u);
}

// Every fate in one forward buffer, and the identity that closes the books.
TEST(Checker, AccountingIdentityHoldsOverEveryFate) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));   // delivered
    const Stored b = k.store(64, sample(64, 2));  // corrupted (stale)
    k.store(128, sample(64, 3));                  // missing
    const Stored d = k.store(192, sample(64, 4)); // delivered
    k.kernel_lost(3);
    const Stored l = k.store(256, lost_record(3), 3); // reports the 3 lost
    k.store(256 + kLostSize, sample(64, 5));          // skipped
    k.store(320 + kLostSize, sample(64, 6));          // unread
    // b's body read as the zeroes of memory before its stores (load #1 before its header
    // store #3 in coherence order).
    std::vector<uint8_t> first = concat({&a.bytes, &b.bytes});
    std::fill(first.begin() + 72, first.end(), 0);
    k.copy(0, first, {{72, 56, 0, 1, 0, 0}});
    k.copy(192, concat({&d.bytes, &l.bytes}));
    k.checker.on_skipped(0, 256 + kLostSize, 320 + kLostSize);
    k.checker.finish();

    EXPECT_EQ(k.stats.records_produced, 9u);
    EXPECT_EQ(k.stats.records_delivered, 2u);
    EXPECT_EQ(k.stats.records_lost, 3u);
    EXPECT_EQ(k.stats.records_unread, 1u);
    EXPECT_EQ(k.stats.records_overwritten, 0u);
    EXPECT_EQ(k.stats.records_corrupted, 1u);
    EXPECT_EQ(k.stats.records_missing, 1u);
    EXPECT_EQ(k.stats.records_skipped, 1u);
    EXPECT_EQ(k.accounted(), k.stats.records_produced);
    EXPECT_EQ(k.stats.lost_reported + k.stats.lost_unreported, k.stats.records_lost);
    EXPECT_EQ(k.stats.violations_stale, 1u);
    EXPECT_EQ(k.stats.violations_missing, 1u);
    EXPECT_EQ(k.stats.violations_accounting, 0u);
    EXPECT_EQ(k.stats.violations_total, 2u);
    ASSERT_EQ(k.checker.violations().size(), 2u);
    EXPECT_EQ(k.checker.violations()[0].kind, "stale");
    EXPECT_EQ(k.checker.violations()[0].pos, 64u);
    EXPECT_EQ(k.checker.violations()[1].kind, "missing");
    EXPECT_EQ(k.checker.violations()[1].pos, 128u);
}

// The identity can fail: a record produced and never stored, and a loss no
// PERF_RECORD_LOST reported nor rb->lost holds, are two accounting violations.
TEST(Checker, BooksThatDoNotCloseAreAccountingViolations) {
    Books k;
    const Stored a = k.store(0, sample(64, 1));
    k.copy(0, a.bytes);
    ++k.stats.records_produced; // a record the checker never heard of
    k.stats.records_lost = 2;   // losses nobody accounts for
    k.checker.finish();
    EXPECT_EQ(k.stats.violations_accounting, 2u);
    EXPECT_EQ(k.stats.violations_total, 2u);
    ASSERT_EQ(k.checker.violations().size(), 2u);
    EXPECT_EQ(k.checker.violations()[0].kind, "accounting");
    EXPECT_EQ(k.checker.violations()[0].explanation,
              "produced 2 records but delivered + lost + unread + overwritten + corrupted + "
              "missing + skipped + in flight = 3");
    EXPECT_EQ(k.checker.violations()[1].explanation,
              "the kernel lost 2 records but PERF_RECORD_LOST reported 0 and 0 remain unreported");
}

// An overwrite-mode, write_backward buffer of 256 bytes (R4, R11): the head moves down and
// each record laps the oldest once four are in. The kernel's fifth and sixth records
// overwrite the first two (records.overwritten). perf read [-320, -64) (records 5, 4, 3, 2)
// while record 6 was landing on record 2 (a writer past the paused check, R9): record 2 is
// an overwrite race, neither delivered nor a violation.
TEST(Checker, OverwriteBufferCountsLappedRecordsOverwrittenAndRacesApart) {
    Options o;
    o.data_size = 256;
    o.overwrite = o.backward = true;
    Books k(o);
    std::vector<Stored> r;
    for (uint64_t i = 1; i <= 6; ++i)
        r.push_back(k.store(uint64_t(0) - 64 * i, sample(64, i)));
    EXPECT_EQ(k.stats.records_overwritten, 2u); // records 1 and 2, by records 5 and 6
    k.copy(uint64_t(0) - 320, concat({&r[4].bytes, &r[3].bytes, &r[2].bytes, &r[1].bytes}));
    k.checker.finish();
    EXPECT_EQ(k.stats.records_delivered, 3u);
    EXPECT_EQ(k.stats.consumer_overwrite_races, 1u);
    EXPECT_EQ(k.stats.records_unread, 1u); // record 6
    EXPECT_EQ(k.stats.records_missing, 0u);
    EXPECT_EQ(k.stats.violations_total, 0u);
    EXPECT_EQ(k.accounted(), 6u); // 3 delivered + 2 overwritten + 1 unread
}

// Every intact PERF_RECORD_AUX delivered reaches the AUX checker's sink (A3).
TEST(Checker, ADeliveredAuxRecordReachesTheAuxSink) {
    Books k;
    std::vector<std::vector<uint64_t>> seen;
    k.checker.set_aux_record_sink([&](unsigned idx, uint64_t off, uint64_t size, uint64_t flags) {
        seen.push_back({idx, off, size, flags});
    });
    std::vector<uint8_t> aux;
    perf::encode_aux(aux, writer(5), 0x3000, 0x800, PERF_AUX_FLAG_TRUNCATED);
    ASSERT_EQ(aux.size(), perf::kAuxRecordSize + 24);
    const Stored s = k.store(0, aux);
    k.copy(0, s.bytes);
    k.checker.finish();
    EXPECT_EQ(seen,
              (std::vector<std::vector<uint64_t>>{{0, 0x3000, 0x800, PERF_AUX_FLAG_TRUNCATED}}));
    EXPECT_EQ(k.stats.records_delivered, 1u);
    EXPECT_EQ(k.stats.samples_in_perf_data, 0u);
    EXPECT_EQ(k.stats.violations_total, 0u);
}

namespace {

// The checker behind a real PerfBuffer (no SystemC: time stays 0 under `sc`), the kernel
// on cpu0's port; what the consumer copies is read straight out of physical memory.
struct KernelRig {
    PhysicalMemory phys;
    MemorySystem mem{phys, MemoryModel::sc, TimingPolicy::none, 1};
    MemoryPort& kernel = mem.agent("cpu0");
    MemoryPort& user = mem.agent("cpu1"); // the consumer's data_tail stores
    BufferStats stats;
    std::unique_ptr<PerfBuffer> rb;
    std::unique_ptr<Checker> checker;

    KernelRig() {
        PerfBufferParams p;
        p.name = "cpu0";
        p.page_size = kDataSize;
        p.nr_pages = 1;
        p.user_page = phys.allocate("up", 4096, 4096);
        p.data = phys.allocate("data", kDataSize, 4096);
        rb = std::make_unique<PerfBuffer>(p, stats);
        rb->init_userpage(kernel);
        Options o;
        CheckedBuffer cb = Books::checked(o, stats, *rb);
        cb.data = p.data;
        checker = std::make_unique<Checker>(std::vector<CheckedBuffer>{cb}, &mem.engine());
        rb->set_observer(&checker->producer_side(0));
    }
    bool write(uint64_t size) {
        PerfBuffer::Handle h;
        if (!rb->output_begin(h, kernel, writer(stats.records_produced), size)) return false;
        rb->output_record(h, kernel, sample(size, stats.records_produced));
        rb->output_end(h, kernel);
        return true;
    }
    // [pos, pos + n) of the buffer, wrapping at its end.
    std::vector<uint8_t> bytes(uint64_t pos, uint64_t n) {
        std::vector<uint8_t> out(n);
        const uint64_t off = pos % kDataSize, first = std::min(n, kDataSize - off);
        phys.read(rb->params().data + off, out.data(), first);
        if (n > first) phys.read(rb->params().data, out.data() + first, n - first);
        return out;
    }
};

} // namespace

// R1, R5: 63 records of 64 bytes fill an empty 4 KiB buffer; the 64th is lost and stays in
// rb->lost. finish() counts that pending loss as unreported.
TEST(Checker, APendingLossOfTheKernelIsUnreportedAtFinish) {
    KernelRig r;
    for (int i = 0; i < 63; ++i)
        ASSERT_TRUE(r.write(64));
    EXPECT_FALSE(r.write(64));
    ASSERT_EQ(r.rb->pending_lost(), 1u);
    r.checker->finish();
    EXPECT_EQ(r.stats.records_produced, 64u);
    EXPECT_EQ(r.stats.records_unread, 63u);
    EXPECT_EQ(r.stats.bytes_unread, 63u * 64);
    EXPECT_EQ(r.stats.lost_unreported, 1u);
    EXPECT_EQ(r.stats.violations_total, 0u);
}

// The same, read: once the consumer releases the space, the next record brings the
// PERF_RECORD_LOST in front of it (R5), straddling the buffer end with it, and the loss is
// reported.
TEST(Checker, RealKernelRecordsWithALostRecordCloseTheBooks) {
    KernelRig r;
    for (int i = 0; i < 63; ++i)
        ASSERT_TRUE(r.write(64));
    EXPECT_FALSE(r.write(64));
    r.checker->on_copied(0, 0, r.bytes(0, 4032).data(), 4032, {}, {});
    r.user.store(r.rb->params().user_page + perf::kOffDataTail, 4032, 8);
    ASSERT_TRUE(r.write(64)); // LOST at 4032 (48 bytes), the sample at 4080..4144
    const std::vector<uint8_t> tail = r.bytes(4032, kLostSize + 64);
    r.checker->on_copied(0, 4032, tail.data(), tail.size(), {}, {});
    r.checker->finish();
    EXPECT_EQ(r.stats.records_produced, 65u);
    EXPECT_EQ(r.stats.records_delivered, 64u);
    EXPECT_EQ(r.stats.lost_records, 1u);
    EXPECT_EQ(r.stats.lost_reported, 1u);
    EXPECT_EQ(r.stats.lost_unreported, 0u);
    EXPECT_EQ(r.stats.records_unread, 0u);
    EXPECT_EQ(r.stats.violations_total, 0u);
}
