#include "models/check/checker.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/common/time_text.h"
#include "models/kernel/perf_abi.h"
#include "models/user/record_parser.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ringsim::models {

namespace {

bool off(BarrierKind k) {
    return k == BarrierKind::none;
}

// Keeps the byte sources of the carried bytes aligned with them.
void shift_sources(std::vector<CopySource>& src, uint64_t drop) {
    std::vector<CopySource> kept;
    for (CopySource c : src) {
        if (c.offset + c.length <= drop) continue;
        if (c.offset < drop) {
            c.length -= drop - c.offset;
            c.offset = drop;
        }
        c.offset -= drop;
        kept.push_back(c);
    }
    src = std::move(kept);
}

const CopySource* source_at(const std::vector<CopySource>& src, uint64_t off) {
    for (const CopySource& c : src)
        if (off >= c.offset && off < c.offset + c.length) return &c;
    return nullptr;
}

} // namespace

struct Checker::Stream : RecordObserver {
    const OrderingEngine* engine = nullptr;
    unsigned idx = 0;
    CheckedBuffer buf;
    Ledger ledger;
    uint64_t next_pos = 0;      // where the carried bytes continue
    std::vector<uint8_t> carry; // a record split across two copies
    std::vector<CopySource> carry_src;
    CopyContext ctx;                 // the protocol operations of the latest copy
    std::vector<LedgerEntry> lapped; // on_record_stored's, kept for its capacity

    explicit Stream(CheckedBuffer b) : buf(std::move(b)), ledger(buf.data_size, buf.backward) {}

    void on_record_stored(uint64_t pos, const std::vector<uint8_t>& bytes, uint64_t lost,
                          const RecordStores& stores) override {
        LedgerEntry& e = ledger.store(pos, bytes.size(), stores, sim_now(), buf.overwrite, lapped);
        e.bytes.assign(bytes.data(), bytes.size());
        e.lost = lost;
        stores.each([&](uint64_t seq) {
            if (const OpRecord* op = engine ? engine->store_record(seq) : nullptr)
                e.performed_at_ps = std::max(e.performed_at_ps, op->perform);
        });
        for (LedgerEntry& gone : lapped) {
            if (gone.is_lost_record())
                buf.stats->lost_unreported += gone.lost;
            else
                ++buf.stats->records_overwritten;
            // Its bytes may still be in memory, or half replaced, when the consumer reads.
            gone.retired = true;
            ledger.keep_delivered(std::move(gone));
        }
    }
    void on_record_retracted(uint64_t pos) override {
        if (!ledger.find(pos)) return;
        // A squashed record overwrote nothing: forget it as an overwriter too.
        ledger.forget_overwriter(ledger.take(pos).stores.header);
    }
    void on_stores_escaped(const std::vector<uint64_t>& seqs, const LoadTicket& tail) override {
        for (uint64_t seq : seqs)
            escaped[seq] = tail;
        while (escaped.size() > kEscapedKept)
            escaped.erase(escaped.begin());
    }
    // Escaped stores (A off) by sequence number, with the data_tail load they passed: the
    // most recent ones, for explanations.
    static constexpr size_t kEscapedKept = 1 << 12;
    std::map<uint64_t, LoadTicket> escaped;
};

Checker::Checker(std::vector<CheckedBuffer> buffers, const OrderingEngine* engine,
                 size_t keep_violations)
    : m_engine(engine), m_keep(keep_violations) {
    for (auto& b : buffers) {
        m_streams.push_back(std::make_unique<Stream>(std::move(b)));
        m_streams.back()->idx = unsigned(m_streams.size() - 1);
        m_streams.back()->engine = engine;
    }
}

Checker::~Checker() = default;

RecordObserver& Checker::producer_side(unsigned idx) {
    return *m_streams.at(idx);
}

void Checker::add(Stream& s, Violation v) {
    BufferStats& st = *s.buf.stats;
    ++st.violations_total;
    if (v.kind == "stale")
        ++st.violations_stale;
    else if (v.kind == "overrun")
        ++st.violations_overrun;
    else if (v.kind == "torn")
        ++st.violations_torn;
    else if (v.kind == "corrupt")
        ++st.violations_corrupt;
    else if (v.kind == "missing")
        ++st.violations_missing;
    else if (v.kind == "duplicated")
        ++st.violations_duplicated;
    else
        ++st.violations_accounting;
    if (m_violations.size() >= m_keep) return;
    v.buffer = s.buf.name;
    v.at_ps = sim_now();
    m_violations.push_back(std::move(v));
}

std::string Checker::describe_store(uint64_t seq) const {
    std::ostringstream o;
    const OpRecord* op = (m_engine && seq) ? m_engine->store_record(seq) : nullptr;
    if (!seq) return "no store since the buffer was set up";
    if (!op) return "store #" + std::to_string(seq);
    o << "store #" << seq << " by " << m_engine->agent_name(op->agent) << " (issued at "
      << us_text(op->issue) << ", performed at " << us_text(op->perform) << ")";
    return o.str();
}

void Checker::on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                        const std::vector<CopySource>& sources, const CopyContext& ctx) {
    Stream& s = *m_streams.at(idx);
    s.ctx = ctx;
    if (!s.carry.empty() && pos != s.next_pos) {
        add(s, {"", "corrupt", s.next_pos - s.carry.size(), 0, "",
                "the consumer stopped copying in the middle of a record", ""});
        s.carry.clear();
        s.carry_src.clear();
    }
    if (s.carry.empty()) s.next_pos = pos;
    const bool forward = !s.buf.backward && !s.buf.overwrite;
    // A forward, tail-honouring reader copies from its own tail, which only moves on: what
    // was delivered before this copy's start cannot be delivered again.
    if (forward) s.ledger.reader_starts_at(s.next_pos - s.carry.size());
    s.next_pos += n;
    if (s.carry.empty()) {
        // Nothing carried: the records are checked where they lie, and only a record cut
        // by the copy's end is kept for the next copy.
        const uint64_t used = walk(s, pos, data, n, sources);
        s.carry.assign(data + used, data + n);
        if (!s.carry.empty()) {
            s.carry_src = sources;
            shift_sources(s.carry_src, used);
        }
    } else {
        for (CopySource c : sources) {
            c.offset += s.carry.size();
            s.carry_src.push_back(c);
        }
        s.carry.insert(s.carry.end(), data, data + n);
        const uint64_t used =
            walk(s, s.next_pos - s.carry.size(), s.carry.data(), s.carry.size(), s.carry_src);
        s.carry.erase(s.carry.begin(), s.carry.begin() + used);
        shift_sources(s.carry_src, used);
    }
    // The reader's next copy begins where this pass left its read position: only what lies
    // past it (perf_mmap__push's copy beyond its first data_head read, C4) can come again.
    if (forward && ctx.next_start_known) s.ledger.reader_starts_at(ctx.next_start);
}

uint64_t Checker::walk(Stream& s, uint64_t base, const uint8_t* data, uint64_t n,
                       const std::vector<CopySource>& src) {
    // Record by record, as perf report walks perf.data, but keep to the true record
    // boundaries where a record was stored, so one bad record does not misalign everything
    // after it.
    uint64_t off = 0;
    while (n - off >= perf::kHeaderSize) {
        const uint64_t at = base + off;
        uint64_t need;
        if (const LedgerEntry* e = s.ledger.find(at)) {
            need = e->bytes.size();
        } else if (const LedgerEntry* again = s.ledger.find_delivered(at)) {
            need = again->bytes.size(); // a second copy (C4): check it against the first
        } else {
            const auto h = perf::parse_header(data + off, n - off);
            if (!perf::plausible(*h)) {
                std::ostringstream o;
                o << "the consumer copied a header of size " << h->size << " and type " << h->type
                  << " at " << at << ", where no record was stored: the rest of "
                  << "this copy cannot be parsed";
                add(s, {"", "corrupt", at, 0, "", o.str(), ""});
                return n;
            }
            need = h->size;
        }
        if (n - off < need) break;
        verify(s, at, data + off, need, src, off);
        off += need;
    }
    return off;
}

void Checker::on_skipped(unsigned idx, uint64_t from, uint64_t to) {
    // The tool's own choice, counted apart from violations: the records it stepped over.
    Stream& s = *m_streams.at(idx);
    BufferStats& st = *s.buf.stats;
    for (uint64_t pos : s.ledger.older_than(to)) {
        if (pos - from >= to - from) continue; // not in [from, to)
        const LedgerEntry gone = s.ledger.take(pos);
        if (gone.is_lost_record())
            st.lost_unreported += gone.lost;
        else
            ++st.records_skipped;
    }
    s.ledger.mark_read(to - 1);
    s.carry.clear();
    s.carry_src.clear();
}

void Checker::verify(Stream& s, uint64_t pos, const uint8_t* data, uint64_t n,
                     const std::vector<CopySource>& src, uint64_t src_base) {
    BufferStats& st = *s.buf.stats;
    const bool in_order = !s.buf.backward;
    if (!s.ledger.find(pos)) {
        std::ostringstream o;
        if (const LedgerEntry* again = s.ledger.find_delivered(pos)) {
            if (again->retired) {
                // Overwrite mode: the tool copied a record that a newer one was landing on.
                ++st.consumer_overwrite_races;
                return;
            }
            if (again->bytes.size() == n && std::memcmp(again->bytes.data(), data, n) == 0) {
                if (s.buf.push_reader) {
                    // perf_mmap__push copies up to its second data_head read but consumes
                    // only up to its first (C4): the next pass copies the difference again.
                    ++st.records_duplicated;
                    if (perf::parse_header(data, n)->type == PERF_RECORD_SAMPLE)
                        ++st.samples_in_perf_data; // perf report counts the copy again
                    return;
                }
                o << "the record at " << pos << " was delivered a second time by a reader "
                  << "that never re-reads";
                add(s, {"", "duplicated", pos, 0, "", o.str(), ""});
                return;
            }
            const LedgerEntry copy = *again;
            mismatch(s, copy, data, src, src_base);
            return;
        }
        o << "no record was stored at " << pos << ", yet the consumer parsed a "
          << perf::record_type_name(perf::parse_header(data, n)->type) << " of " << n
          << " bytes there";
        add(s, {"", "corrupt", pos, 0, "", o.str(), ""});
        return;
    }
    if (in_order && !s.buf.overwrite) {
        // Forward, tail-honouring buffers are read in production order: anything older
        // that is still in the ledger was skipped.
        for (uint64_t skipped : s.ledger.older_than(pos)) {
            const LedgerEntry gone = s.ledger.take(skipped);
            if (gone.is_lost_record())
                st.lost_unreported += gone.lost;
            else
                ++st.records_missing;
            std::ostringstream o;
            o << perf::record_type_name(perf::parse_header(gone.bytes.data(), 8)->type) << " of "
              << gone.bytes.size() << " bytes at " << skipped << " was never delivered; the "
              << "consumer went on at " << pos;
            add(s, {"", "missing", skipped, 0, "", o.str(), ""});
        }
    }
    // Delivered either way: a second copy (C4) is checked against it.
    const LedgerEntry& entry = s.ledger.deliver(pos);
    s.ledger.mark_read(pos);
    if (entry.bytes.size() == n && std::memcmp(entry.bytes.data(), data, n) == 0) {
        if (entry.is_lost_record()) {
            ++st.lost_records;
            st.lost_reported += entry.lost;
        } else {
            ++st.records_delivered;
            st.bytes_delivered += n;
            const auto type = perf::parse_header(data, n)->type;
            if (type == PERF_RECORD_SAMPLE) ++st.samples_in_perf_data;
            if (m_on_aux_record && n >= perf::kAuxRecordSize && type == PERF_RECORD_AUX) {
                uint64_t f[3];
                std::memcpy(f, data + perf::kHeaderSize, sizeof f);
                m_on_aux_record(s.idx, f[0], f[1], f[2]);
            }
        }
        return;
    }
    if (entry.is_lost_record())
        st.lost_unreported += entry.lost;
    else
        ++st.records_corrupted;
    // Its bytes are in perf.data all the same, and perf report counts a sample by its
    // header, whatever its body: a stale body under a header already written is one.
    if (const auto h = perf::parse_header(data, n);
        h && h->type == PERF_RECORD_SAMPLE && h->size == n)
        ++st.samples_in_perf_data;
    mismatch(s, entry, data, src, src_base);
}

void Checker::mismatch(Stream& s, const LedgerEntry& e, const uint8_t* data,
                       const std::vector<CopySource>& src, uint64_t src_base) {
    // Where did each wrong byte come from: a store older than the record's store of that
    // byte, or newer? Coherence order is (perform time, seq); bytes from plain memory are
    // older exactly when the load (the piece of the copy) performed before that store did.
    const Addr base = s.buf.data;
    const uint64_t mask = s.buf.data_size - 1;
    std::vector<const OpRecord*> stores; // the record's stores: header, then body lines
    if (m_engine)
        e.stores.each([&](uint64_t seq) {
            if (const OpRecord* op = m_engine->store_record(seq)) stores.push_back(op);
        });
    auto record_store_of = [&](size_t i) -> const OpRecord* {
        const Addr at = base + ((e.pos + i) & mask);
        for (const OpRecord* op : stores)
            if (op->addr <= at && at < op->addr + op->size) return op;
        return nullptr;
    };
    // The first wrong byte of each kind, with the store it came from and the load that read it.
    struct Wrong {
        size_t index = SIZE_MAX;
        uint64_t culprit = 0;
        const CopySource* load = nullptr;
    };
    Wrong old_bytes, new_bytes;
    for (size_t i = 0; i < e.bytes.size(); ++i) {
        if (e.bytes[i] == data[i]) continue;
        const CopySource* c = source_at(src, src_base + i);
        const uint64_t seq = c ? c->store_seq : 0;
        const OpRecord* from = (m_engine && seq) ? m_engine->store_record(seq) : nullptr;
        const OpRecord* mine = record_store_of(i);
        const Picos wrote_at = mine ? mine->perform : e.performed_at_ps;
        const uint64_t wrote_seq = mine ? mine->seq : e.stores.header;
        bool is_older;
        if (from)
            is_older = std::make_pair(from->perform, seq) < std::make_pair(wrote_at, wrote_seq);
        else if (seq)
            is_older = seq < wrote_seq;
        else // coherence order, as the engine breaks a tie: (perform time, seq)
            is_older = c && std::make_pair(c->load_perform, c->load_seq) <
                                std::make_pair(wrote_at, wrote_seq);
        Wrong& w = is_older ? old_bytes : new_bytes;
        if (w.index == SIZE_MAX) w = {i, seq, c};
    }
    const bool older = old_bytes.index != SIZE_MAX, newer = new_bytes.index != SIZE_MAX;
    const uint64_t culprit = new_bytes.culprit; // what overran the record, if anything did
    Violation v;
    v.pos = e.pos;
    v.kind = older && newer ? "torn" : older ? "stale" : "overrun";
    const CheckedBuffer& b = s.buf;

    std::ostringstream o;
    const auto type = perf::parse_header(e.bytes.data(), 8)->type;
    const Addr at = b.data + (e.pos & (b.data_size - 1));
    o << v.kind << " record at position " << e.pos << " of " << b.name << " (address 0x" << std::hex
      << at << std::dec << "): a " << perf::record_type_name(type) << " of " << e.bytes.size()
      << " bytes, written by ";
    if (stores.size() > 1)
        o << "store #" << e.stores.header << " (its header) and #"
          << (e.stores.body_first == e.stores.body_last
                  ? ""
                  : std::to_string(e.stores.body_first) + " to #")
          << e.stores.body_last << " by " << m_engine->agent_name(stores.front()->agent)
          << ", issued from " << us_text(stores.front()->issue) << ", the last performing at "
          << us_text(e.performed_at_ps) << ".\n";
    else
        o << describe_store(e.stores.header) << ".\n";
    // Each kind of wrong bytes, older first: which load read the first of them, what the
    // 8-byte word holding it had and showed, and what wrote what was seen.
    for (const Wrong* w : {&old_bytes, &new_bytes}) {
        if (w->index == SIZE_MAX) continue;
        const bool is_old = w == &old_bytes;
        if (w->load)
            o << "The consumer read byte " << w->index << " with load #" << w->load->load_seq
              << ", the cache line of its copy that holds it issued at "
              << us_text(w->load->load_issue) << " and performed at "
              << us_text(w->load->load_perform) << ".\n";
        const size_t word = w->index & ~size_t{7};
        uint64_t want = 0, got = 0;
        std::memcpy(&want, e.bytes.data() + word, std::min<size_t>(8, e.bytes.size() - word));
        std::memcpy(&got, data + word, std::min<size_t>(8, e.bytes.size() - word));
        // Bytes read from memory rather than from a store still in the ordering engine:
        // name what wrote them as the kernel would, the record's overwriter or what it
        // replaced.
        std::string got_from = describe_store(w->culprit);
        if (!w->culprit)
            got_from = !is_old && e.overwrite ? describe_store(e.overwrite->by.header)
                       : is_old ? "what the buffer held before the record's stores reached it"
                                : "a later record's stores";
        o << "From byte " << w->index << " on";
        if (const OpRecord* mine = stores.size() > 1 ? record_store_of(w->index) : nullptr)
            o << " (the record's store #" << mine->seq << ", performed at "
              << us_text(mine->perform) << ")";
        o << " it got bytes of " << got_from << " instead: at 0x" << std::hex
          << b.data + ((e.pos + word) & mask) << " it saw 0x" << got << " where the record has 0x"
          << want << std::dec << ".\n";
    }

    std::vector<std::string> why, fix;
    const CopyContext& c = s.ctx;
    if (older) {
        o << "The consumer trusted data_head = " << c.head_value << " from its load #"
          << c.head_load_seq << " (performed at " << us_text(c.head_load_perform)
          << "), which read " << describe_store(c.head_store_seq) << ".\n";
        o << "So the record's bytes were not yet visible when the consumer read them, although "
             "the data_head it had read already covered the record (message passing).\n";
        if (off(b.b)) {
            why.push_back("B");
            o << "(B) is off: the kernel's data_head store may perform before the record "
                 "stores it publishes.\n";
            fix.push_back("(B) smp_wmb() before WRITE_ONCE(data_head) in "
                          "perf_output_put_handle, paired with (C)");
        }
        if (off(b.c)) {
            why.push_back("C");
            o << "(C) is off: the consumer's record loads may perform before its data_head "
                 "load.\n";
            fix.push_back(b.c_fix.empty() ? "(C) smp_load_acquire(&data_head) in "
                                            "ring_buffer_read_head, paired with (B)"
                                          : b.c_fix);
        }
    }
    if (newer) {
        o << "So newer data had replaced the record before the consumer's load performed: the "
             "producer reused space the consumer had not finished reading (load buffering).\n";
        if (e.overwrite)
            o << "The record was overwritten by " << describe_store(e.overwrite->by.header)
              << ", stored at " << us_text(e.overwrite->at_ps) << ".\n";
        if (c.tail_store_seq)
            o << "The consumer's data_tail store was " << describe_store(c.tail_store_seq) << ".\n";
        if (off(b.a)) {
            why.push_back("A");
            // The data_tail load the overwriting store should have waited for.
            const auto esc = s.escaped.find(culprit);
            // The store that put the first newer byte there, when it is one of the overwriting
            // record's (its header, or a line of its body); else that record's header.
            bool of_overwriter = false;
            const RecordStores& overwriter = e.overwriter();
            overwriter.each([&](uint64_t seq) { of_overwriter |= seq == culprit; });
            const bool escaped = esc != s.escaped.end();
            const LoadTicket tail = escaped ? esc->second : overwriter.tail;
            const uint64_t by = escaped || of_overwriter ? culprit : overwriter.header;
            const OpRecord* store = (m_engine && by) ? m_engine->store_record(by) : nullptr;
            if (tail.seq && store) {
                o << "The producer's data_tail load #" << tail.seq << " issued at "
                  << us_text(tail.issue) << " and performed at " << us_text(tail.perform)
                  << "; its store #" << by << " performed at " << us_text(store->perform)
                  << (store->perform < tail.perform ? ", before that load had returned" : "")
                  << (escaped ? ", and stayed although the load then found no room" : "") << ".\n";
            }
            o << "(A) is off: the producer's record stores may perform before its data_tail "
                 "load, so it can write where the consumer has not released the space.\n";
            fix.push_back("(A) the control dependency in __perf_output_begin: no store before "
                          "the data_tail load decides there is room, paired with (D)");
        }
        if (off(b.d) || b.d == BarrierKind::wmb) {
            why.push_back("D");
            o << "(D) is " << barrier_kind_name(b.d) << ": the consumer's data_tail store may "
              << "perform before its record loads, releasing space it is still reading.\n";
            fix.push_back(b.d_fix.empty() ? "(D) smp_store_release(&data_tail) (or smp_mb() "
                                            "before it) in ring_buffer_write_tail, paired with (A)"
                                          : b.d_fix);
        }
    }
    if (why.empty())
        o << "No barrier of this buffer is off: this reordering should be impossible, so it is "
             "a bug in ringsim's models, please report it.\n";
    for (size_t i = 0; i < why.size(); ++i)
        v.barriers += (i ? ", " : "") + why[i];
    for (size_t i = 0; i < fix.size(); ++i)
        v.fix += (i ? "; " : "") + fix[i];
    v.explanation = o.str();
    add(s, std::move(v));
}

void Checker::finish() {
    for (auto& sp : m_streams) {
        Stream& s = *sp;
        BufferStats& st = *s.buf.stats;
        s.ledger.for_each_unread([&st](const LedgerEntry& e) {
            if (e.is_lost_record()) {
                st.lost_unreported += e.lost;
            } else {
                ++st.records_unread;
                st.bytes_unread += e.bytes.size();
            }
        });
        st.lost_unreported += s.buf.rb->pending_lost();

        // Every record the workload produced is accounted for exactly once.
        // In flight: reserved and not yet stored by a writer that an interrupt stopped.
        const uint64_t accounted = st.records_delivered + st.records_lost + st.records_unread +
                                   st.records_overwritten + st.records_corrupted +
                                   st.records_missing + st.records_skipped + st.records_in_flight;
        if (accounted != st.records_produced) {
            std::ostringstream o;
            o << "produced " << st.records_produced << " records but delivered + lost + unread"
              << " + overwritten + corrupted + missing + skipped + in flight = " << accounted;
            add(s, {"", "accounting", 0, 0, "", o.str(), ""});
        }
        if (st.lost_reported + st.lost_unreported != st.records_lost) {
            std::ostringstream o;
            o << "the kernel lost " << st.records_lost << " records but PERF_RECORD_LOST "
              << "reported " << st.lost_reported << " and " << st.lost_unreported
              << " remain unreported";
            add(s, {"", "accounting", 0, 0, "", o.str(), ""});
        }
    }
}

} // namespace ringsim::models

namespace ringsim::models {

// The checker's books of each buffer: ground truth against what the consumer parsed.
void declare_checker_stats(StatRegistry& r) {
    using S = BufferStats;
    r.counter("records.delivered", "records",
              "records the consumer parsed and the checker "
              "verified byte for byte",
              &S::records_delivered);
    r.counter("records.unread", "records",
              "records still in the buffer, unread, when the run "
              "ended",
              &S::records_unread);
    r.counter("records.overwritten", "records",
              "records of an overwrite-mode buffer replaced "
              "by newer ones before the consumer read them",
              &S::records_overwritten);
    r.counter("records.corrupted", "records",
              "records that reached the consumer with bytes "
              "other than the producer stored (each is also a stale, overrun or torn "
              "violation)",
              &S::records_corrupted);
    r.counter("records.missing", "records",
              "records the consumer skipped with no loss or "
              "overwrite to explain it (each is also a missing violation)",
              &S::records_missing);
    r.counter("records.duplicated", "records",
              "records perf_mmap__push copied a second time, "
              "intact: data_head moved between its two reads (C4); not counted in "
              "records.delivered",
              &S::records_duplicated);
    r.counter("records.samples_in_perf_data", "records",
              "PERF_RECORD_SAMPLE records in "
              "perf.data: those delivered and those copied twice (perf report's "
              "nr_events[PERF_RECORD_SAMPLE])",
              &S::samples_in_perf_data);
    r.counter("records.skipped", "records",
              "records the tool stepped over without reading: "
              "libperf's perf_mmap__read_done moves prev to a data_head read taken after the "
              "last event, and a keep-up failure drops everything unread (C3)",
              &S::records_skipped);
    r.counter("lost_records", "records",
              "PERF_RECORD_LOST records delivered: perf's \"lost N "
              "chunks\"",
              &S::lost_records);
    r.counter("lost_reported", "records",
              "sum of the lost fields of the delivered "
              "PERF_RECORD_LOST records",
              &S::lost_reported);
    r.counter("lost_unreported", "records",
              "losses no delivered PERF_RECORD_LOST reported by "
              "the end (pending in rb->lost, or in an unread or overwritten LOST record)",
              &S::lost_unreported);
    r.counter("bytes.delivered", "bytes", "bytes of the records counted in records.delivered",
              &S::bytes_delivered);
    r.counter("bytes.unread", "bytes", "bytes of the records counted in records.unread",
              &S::bytes_unread);
    r.counter("consumer.overwrite_races", "records",
              "overwrite buffers: records copied while a "
              "newer record was landing on them (a writer already past the paused check when "
              "the tool paused output, R9); they are counted in records.overwritten, not "
              "delivered",
              &S::consumer_overwrite_races);
    r.counter("violations.total", "violations",
              "every violation below; in the total, every "
              "AUX violation too (aux.violations.total)",
              &S::violations_total);
    r.counter("violations.stale", "violations",
              "records read with bytes older than the record "
              "the data_head promised (message-passing shape: (B) or (C) missing)",
              &S::violations_stale);
    r.counter("violations.overrun", "violations",
              "records read after newer data replaced "
              "them (load-buffering shape: (A) or (D) missing)",
              &S::violations_overrun);
    r.counter("violations.torn", "violations",
              "records read with both older and newer bytes "
              "than their own",
              &S::violations_torn);
    r.counter("violations.corrupt", "violations",
              "copies the checker could not parse into "
              "records at all (a header at a place no record starts)",
              &S::violations_corrupt);
    r.counter("violations.missing", "violations",
              "records the consumer skipped without a loss "
              "or an overwrite to explain it",
              &S::violations_missing);
    r.counter("violations.duplicated", "violations",
              "records delivered more than once, with the same bytes, by a reader that "
              "never re-reads (libperf); a copy again with changed bytes is a stale, overrun "
              "or torn violation instead",
              &S::violations_duplicated);
    r.counter("violations.accounting", "violations",
              "buffers where produced != delivered + "
              "lost + unread + overwritten + corrupted + missing + skipped, or LOST reports do "
              "not add up",
              &S::violations_accounting);
}

} // namespace ringsim::models
