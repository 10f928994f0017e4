#include "models/check/checker.h"

#include "models/kernel/perf_abi.h"
#include "models/user/record_parser.h"

#include <algorithm>
#include <cstring>
#include <sstream>
#include <systemc>

namespace ringsim::models {

namespace {
uint64_t now_ps() { return sc_core::sc_time_stamp().value(); }

std::string describe(const LedgerEntry& e, const CheckedBuffer& b) {
    const auto r = perf::parse_record(e.bytes.data(), b.sample_type, b.sample_id_all);
    std::ostringstream o;
    o << perf::record_type_name(r.header.type) << " of " << e.bytes.size() << " bytes at "
      << e.pos << " stored at " << e.stored_at_ps << " ps";
    return o.str();
}
} // namespace

struct Checker::Stream : RecordObserver {
    Checker* checker = nullptr;
    CheckedBuffer buf;
    Ledger ledger;
    uint64_t next_pos = 0;         // where the carried bytes continue
    std::vector<uint8_t> carry;    // a record split across two copies

    Stream(Checker* c, CheckedBuffer b)
        : checker(c), buf(std::move(b)), ledger(buf.data_size, buf.backward) {}

    void on_record_stored(uint64_t pos, const std::vector<uint8_t>& bytes,
                          uint64_t lost) override {
        LedgerEntry e{pos, bytes, lost, now_ps()};
        for (LedgerEntry& gone : ledger.store(std::move(e), buf.overwrite)) {
            if (gone.is_lost_record()) buf.stats->lost_unreported += gone.lost;
            else ++buf.stats->records_overwritten;
        }
    }
};

Checker::Checker(std::vector<CheckedBuffer> buffers, size_t keep_violations)
    : m_keep(keep_violations) {
    for (auto& b : buffers) m_streams.push_back(std::make_unique<Stream>(this, std::move(b)));
}

Checker::~Checker() = default;

RecordObserver& Checker::producer_side(unsigned idx) { return *m_streams.at(idx); }

void Checker::violation(Stream& s, const char* kind, uint64_t pos, std::string explanation) {
    BufferStats& st = *s.buf.stats;
    ++st.violations_total;
    if (!std::strcmp(kind, "corrupt")) ++st.violations_corrupt;
    else if (!std::strcmp(kind, "missing")) ++st.violations_missing;
    else if (!std::strcmp(kind, "duplicated")) ++st.violations_duplicated;
    else ++st.violations_accounting;
    if (m_violations.size() < m_keep)
        m_violations.push_back({s.buf.name, kind, pos, now_ps(), std::move(explanation)});
}

void Checker::on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n) {
    Stream& s = *m_streams.at(idx);
    if (!s.carry.empty() && pos != s.next_pos) {
        violation(s, "corrupt", s.next_pos - s.carry.size(),
                  "the consumer stopped copying in the middle of a record");
        s.carry.clear();
    }
    if (s.carry.empty()) s.next_pos = pos;
    s.carry.insert(s.carry.end(), data, data + n);
    s.next_pos += n;

    // Parse whole records out of the carried bytes, as perf report parses perf.data.
    uint64_t pos0 = s.next_pos - s.carry.size();
    size_t off = 0;
    while (s.carry.size() - off >= perf::kHeaderSize) {
        const auto h = perf::parse_header(s.carry.data() + off, s.carry.size() - off);
        if (!perf::plausible(*h)) {
            std::ostringstream o;
            o << "the header at " << pos0 + off << " has size " << h->size << " and type "
              << h->type << ": not a record boundary, the rest of this copy is unparsable";
            violation(s, "corrupt", pos0 + off, o.str());
            off = s.carry.size();
            break;
        }
        if (s.carry.size() - off < h->size) break;
        verify(s, pos0 + off, s.carry.data() + off, h->size);
        off += h->size;
    }
    s.carry.erase(s.carry.begin(), s.carry.begin() + off);
}

void Checker::verify(Stream& s, uint64_t pos, const uint8_t* data, uint64_t n) {
    BufferStats& st = *s.buf.stats;
    const bool in_order = !s.buf.backward;
    const LedgerEntry* e = s.ledger.find(pos);
    if (!e) {
        std::ostringstream o;
        if (in_order && s.ledger.already_passed(pos)) {
            o << "a record at " << pos << " was delivered again after the consumer had "
              << "moved past it";
            violation(s, "duplicated", pos, o.str());
        } else {
            o << "no record was stored at " << pos << ", yet the consumer parsed a "
              << perf::record_type_name(perf::parse_header(data, n)->type) << " of " << n
              << " bytes there";
            violation(s, "corrupt", pos, o.str());
        }
        return;
    }
    if (in_order && !s.buf.overwrite) {
        // Forward, tail-honouring buffers are read in production order: anything older
        // that is still in the ledger was skipped.
        for (uint64_t skipped : s.ledger.older_than(pos)) {
            const LedgerEntry gone = s.ledger.take(skipped);
            violation(s, "missing", skipped,
                      describe(gone, s.buf) + " was never delivered; the consumer went on at " +
                          std::to_string(pos));
        }
    }
    LedgerEntry entry = s.ledger.take(pos);
    s.ledger.mark_read(pos);
    if (entry.bytes.size() != n || std::memcmp(entry.bytes.data(), data, n) != 0) {
        size_t first = 0;
        while (first < std::min<size_t>(n, entry.bytes.size()) && entry.bytes[first] == data[first])
            ++first;
        std::ostringstream o;
        o << describe(entry, s.buf) << " reached the consumer with different bytes, the first "
          << "at byte " << first;
        violation(s, "corrupt", pos, o.str());
        if (entry.is_lost_record()) st.lost_unreported += entry.lost;
        return;
    }
    if (entry.is_lost_record()) {
        ++st.lost_records;
        st.lost_reported += entry.lost;
    } else {
        ++st.records_delivered;
        st.bytes_delivered += n;
    }
}

void Checker::finish() {
    for (auto& sp : m_streams) {
        Stream& s = *sp;
        BufferStats& st = *s.buf.stats;
        for (const auto& [key, e] : s.ledger.entries()) {
            if (e.is_lost_record()) {
                st.lost_unreported += e.lost;
            } else {
                ++st.records_unread;
                st.bytes_unread += e.bytes.size();
            }
        }
        st.lost_unreported += s.buf.rb->pending_lost();

        // Every record the workload produced is accounted for exactly once; a record the
        // checker flagged (corrupt or missing) counts on the violation side.
        const uint64_t accounted = st.records_delivered + st.records_lost + st.records_unread +
                                   st.records_overwritten + st.violations_corrupt +
                                   st.violations_missing;
        if (accounted != st.records_produced) {
            std::ostringstream o;
            o << "produced " << st.records_produced << " records but delivered + lost + unread"
              << " + overwritten + corrupt + missing = " << accounted;
            violation(s, "accounting", 0, o.str());
        }
        if (st.lost_reported + st.lost_unreported != st.records_lost) {
            std::ostringstream o;
            o << "the kernel lost " << st.records_lost << " records but PERF_RECORD_LOST "
              << "reported " << st.lost_reported << " and " << st.lost_unreported
              << " remain unreported";
            violation(s, "accounting", 0, o.str());
        }
    }
}

} // namespace ringsim::models
