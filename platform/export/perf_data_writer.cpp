#include "platform/export/perf_data_writer.h"

#include "models/common/rng.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_records.h"
#include "models/user/record_parser.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace ringsim::platform {

using perf_data::Bytes;
using perf_data::Feature;
using perf_data::put;
using perf_data::put_header;

namespace {

constexpr uint64_t kAuxtraceRecordSize = 48; // struct perf_record_auxtrace

// Where the data section starts: after the header, every evsel's ids and the attrs.
uint64_t ids_bytes(const std::vector<perf_data::Evsel>& evsels) {
    uint64_t n = 0;
    for (const auto& e : evsels)
        n += e.ids.size() * 8;
    return n;
}

} // namespace

PerfDataWriter::PerfDataWriter(PerfDataSession session)
    : m_s(std::move(session)), m_rng(m_s.reference_seed) {
    for (const auto& e : m_s.evsels)
        m_n.write_backward |= e.attr.write_backward;
    // Where the time sits: in a sample after IDENTIFIER, IP and TID; in another record's
    // sample_id trailer after TID, counted from the record's end.
    if (!m_s.evsels.empty()) {
        const perf_event_attr& a = m_s.evsels.front().attr;
        const uint64_t st = a.sample_type;
        if (st & PERF_SAMPLE_TIME) {
            m_time_in_sample =
                8 + 8 * (((st & PERF_SAMPLE_IDENTIFIER) != 0) + ((st & PERF_SAMPLE_IP) != 0) +
                         ((st & PERF_SAMPLE_TID) != 0));
            if (a.sample_id_all)
                m_time_from_end =
                    models::perf::id_header_size(st) - 8 * ((st & PERF_SAMPLE_TID) != 0);
        }
    }
    m_data_offset = perf_data::kFileHeaderSize + ids_bytes(m_s.evsels) +
                    m_s.evsels.size() * perf_data::kFileAttrSize;
    // record__synthesize at start: the AUX session's AUXTRACE_INFO comes first.
    if (!m_s.auxtrace_info.empty()) write_record(m_s.auxtrace_info);
}

bool PerfDataWriter::open(const std::string& path) {
    m_path = path;
    m_file.open(path, std::ios::binary | std::ios::trunc);
    if (!m_file) {
        m_error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    // The header is written last, when the sections are known; the ids and attrs now.
    Bytes head(perf_data::kFileHeaderSize, 0);
    perf_data::Section ids{perf_data::kFileHeaderSize, 0};
    for (const auto& e : m_s.evsels)
        for (uint64_t id : e.ids)
            put<uint64_t>(head, id);
    for (const auto& e : m_s.evsels) {
        ids.size = e.ids.size() * 8;
        perf_data::put_file_attr(head, e.attr, ids);
        ids.offset += ids.size;
    }
    m_file.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
    // What the constructor wrote before the file existed.
    if (!m_s.auxtrace_info.empty())
        m_file.write(reinterpret_cast<const char*>(m_s.auxtrace_info.data()),
                     std::streamsize(m_s.auxtrace_info.size()));
    if (!m_file) m_error = "cannot write " + path;
    return ok();
}

void PerfDataWriter::write(const uint8_t* p, uint64_t n) {
    m_n.bytes += n;
    if (m_file.is_open()) m_file.write(reinterpret_cast<const char*>(p), std::streamsize(n));
}

void PerfDataWriter::write_record(const Bytes& r) {
    count(r.data(), r.size());
    write(r.data(), r.size());
}

void PerfDataWriter::count(const uint8_t* p, uint64_t n) {
    // Walks the records' headers as perf report will (perf_session__process_events: a
    // header smaller than itself or running past the data ends the walk).
    uint64_t at = 0;
    while (n - at >= models::perf::kHeaderSize) {
        const auto h = models::perf::parse_header(p + at, n - at);
        if (!h || h->size < models::perf::kHeaderSize || h->size > n - at) break;
        if (h->type < m_n.by_type.size()) ++m_n.by_type[h->type];
        note(p + at, *h);
        ++m_n.events;
        at += h->size;
    }
    m_n.unparsed_bytes += n - at;
}

void PerfDataWriter::note(const uint8_t* p, const models::perf::Header& h) {
    using models::perf::kRecordFinishedRound;
    if (h.type == kRecordFinishedRound) m_order.finished_round();
    if (h.type == PERF_RECORD_LOST_SAMPLES && h.size >= 16) {
        uint64_t lost = 0;
        std::memcpy(&lost, p + 8, 8);
        m_n.lost_samples += lost;
    }
    if (h.type >= PERF_RECORD_MAX) return; // perf's own records carry no time
    // evlist__parse_sample_timestamp: a sample's TIME field, another record's from its
    // sample_id trailer (the trailer's fields end the record).
    if (m_time_in_sample) {
        uint64_t time = 0;
        if (h.type == PERF_RECORD_SAMPLE) {
            // A sample too short for its TIME field (a torn record): perf's
            // evsel__parse_sample_timestamp fails on it (-EFAULT) and queues nothing.
            if (h.size >= m_time_in_sample + 8) {
                std::memcpy(&time, p + m_time_in_sample, 8);
                m_order.queue(time);
            }
        } else if (m_time_from_end && h.size >= m_time_from_end + 8) {
            std::memcpy(&time, p + h.size - m_time_from_end, 8);
            m_order.queue(time);
        }
        m_n.unordered = m_order.unordered();
    }
    if (h.type != PERF_RECORD_AUX || h.size < models::perf::kAuxRecordSize) return;
    // evsel__parse_sample: pid, tid and cpu start as -1; every evsel here shares the
    // sample_type up to PERF_SAMPLE_RAW, which comes after the fields read here.
    const perf_event_attr& attr = m_s.evsels.front().attr;
    const models::perf::Record r =
        models::perf::parse_record(p, attr.sample_type, attr.sample_id_all);
    perf_data::AuxRecordSeen a;
    std::memcpy(&a.aux_offset, p + 8, 8);
    std::memcpy(&a.aux_size, p + 16, 8);
    std::memcpy(&a.flags, p + 24, 8);
    if (attr.sample_id_all && (attr.sample_type & PERF_SAMPLE_TID)) a.tid = int32_t(r.tid);
    if (attr.sample_id_all && (attr.sample_type & PERF_SAMPLE_CPU)) a.cpu = int32_t(r.cpu);
    m_aux_records.push_back(a);
    // perf_event__process_aux's tallies (session.c).
    m_n.aux_truncated += (a.flags & PERF_AUX_FLAG_TRUNCATED) != 0;
    m_n.aux_partial += (a.flags & PERF_AUX_FLAG_PARTIAL) != 0;
    m_n.aux_collision += (a.flags & PERF_AUX_FLAG_COLLISION) != 0;
}

void PerfDataWriter::on_copied(unsigned /*idx*/, uint64_t /*pos*/, const uint8_t* data, uint64_t n,
                               const std::vector<models::CopySource>& /*sources*/,
                               const models::CopyContext& /*ctx*/) {
    // record__pushfn: the chunk as copied, one or two pieces, one after the other.
    count(data, n);
    write(data, n);
}

void PerfDataWriter::on_pass_start() {
    m_bytes_at_pass_start = m_n.bytes;
}

void PerfDataWriter::on_pass_end() {
    // record__mmap_read_evlist: "Mark the round finished in case we wrote at least one
    // event."
    if (m_n.bytes == m_bytes_at_pass_start) return;
    Bytes r;
    put_header(r, models::perf::kRecordFinishedRound, models::perf::kHeaderSize);
    write_record(r);
}

void PerfDataWriter::on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                                   const std::vector<models::CopySource>& /*sources*/,
                                   const models::CopyContext& /*ctx*/) {
    // __auxtrace_mmap__read: size includes the padding to 8 bytes; the payload follows the
    // 48-byte record and is not counted in header.size. record__process_auxtrace indexes
    // the record at its file offset.
    const uint64_t padding = (8 - n % 8) % 8;
    const PerfDataSession::Mmap m =
        idx < m_s.mmaps.size() ? m_s.mmaps[idx] : PerfDataSession::Mmap{};
    Bytes r;
    put_header(r, models::perf::kRecordAuxtrace, kAuxtraceRecordSize);
    put<uint64_t>(r, n + padding);
    put<uint64_t>(r, pos);
    put<uint64_t>(r, m_rng.next()); // cs_etm_reference: two rand()s
    put<uint32_t>(r, idx);
    put<uint32_t>(r, uint32_t(m.tid));
    put<uint32_t>(r, uint32_t(m.cpu));
    put<uint32_t>(r, 0);
    // auxtrace_index__auxtrace_event indexes the record's header.size, payload not included
    // (cs_etm__queue_aux_fragment refuses an entry whose size is not the header's).
    m_aux_index.push_back({m_data_offset + m_n.bytes, kAuxtraceRecordSize});
    m_auxtraces.push_back({pos, n + padding, m.tid, m.cpu});
    ++m_n.by_type[models::perf::kRecordAuxtrace];
    ++m_n.events;
    write(r.data(), r.size());
    write(data, n);
    static const uint8_t zeros[8] = {};
    write(zeros, padding);
}

void PerfDataWriter::on_finished() {
    // record__read_lost_samples: every evsel, every instance (CPU, then thread).
    if (m_s.lost_samples_of)
        for (const auto& e : m_s.evsels)
            for (uint64_t id : e.ids) {
                const uint64_t lost = m_s.lost_samples_of(id);
                if (!lost) continue;
                models::perf::RecordContext ctx;
                ctx.sample_type = e.attr.sample_type;
                ctx.id = id;
                Bytes r;
                models::perf::encode_lost_samples(r, ctx, lost);
                write_record(r);
            }
    m_queueing = perf_data::cs_etm_queue_aux_records(m_aux_records, m_auxtraces);
    finish_file();
}

void PerfDataWriter::finish_file() {
    // perf_header__adds_write: the table of sections, then each feature's payload.
    std::vector<Feature> features = {Feature::hostname,  Feature::osrelease, Feature::version,
                                     Feature::arch,      Feature::nrcpus,    Feature::cmdline,
                                     Feature::event_desc};
    if (!m_s.pmus.empty()) features.push_back(Feature::pmu_mappings);
    if (!m_s.auxtrace_info.empty()) features.push_back(Feature::auxtrace);
    const perf_data::FeatureInputs in{&m_s.host, &m_s.evsels, &m_s.pmus, &m_aux_index};
    const uint64_t table_at = m_data_offset + m_n.bytes;
    Bytes table, payload;
    uint64_t at = table_at + features.size() * perf_data::kFileSectionSize;
    for (Feature f : features) {
        const size_t before = payload.size();
        perf_data::put_feature(payload, f, in);
        put<uint64_t>(table, at);
        put<uint64_t>(table, payload.size() - before);
        at += payload.size() - before;
    }
    m_n.file_size = at;
    if (!m_file.is_open()) return;
    m_file.write(reinterpret_cast<const char*>(table.data()), std::streamsize(table.size()));
    m_file.write(reinterpret_cast<const char*>(payload.data()), std::streamsize(payload.size()));

    perf_data::FileHeader h;
    h.attrs = {perf_data::kFileHeaderSize + ids_bytes(m_s.evsels),
               m_s.evsels.size() * perf_data::kFileAttrSize};
    h.data = {m_data_offset, m_n.bytes};
    h.features = features;
    Bytes head;
    perf_data::put_file_header(head, h);
    m_file.seekp(0);
    m_file.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
    m_file.close();
    if (!m_file) m_error = "cannot write " + m_path;
}

} // namespace ringsim::platform

namespace ringsim::platform {

void print_perf_data_written(std::ostream& out, const PerfDataWriter& w, const std::string& path) {
    const PerfDataCounts& n = w.counts();
    // __cmd_record's last line: the file's size once written, and the samples
    // process_buildids counted in it (not said for an AUX session).
    char mb[32];
    std::snprintf(mb, sizeof mb, "%.3f", double(n.file_size) / 1024.0 / 1024.0);
    out << "perf: [ perf record: Captured and wrote " << mb << " MB " << path;
    if (n.by_type[PERF_RECORD_SAMPLE] && w.session().auxtrace_info.empty())
        out << " (" << n.by_type[PERF_RECORD_SAMPLE] << " samples)";
    out << " ]\n";
    out << "ringsim: wrote " << path << ": " << n.events << " events, " << n.bytes
        << " bytes of data";
    const char* sep = " (";
    for (uint32_t t = 0; t < n.by_type.size(); ++t) {
        if (!n.by_type[t]) continue;
        // perf report --stats names a type without the PERF_RECORD_ prefix.
        out << sep << models::perf::record_type_name(t).substr(12) << " " << n.by_type[t];
        sep = ", ";
    }
    out << (n.events ? ")" : "") << "\n";
    if (n.unparsed_bytes)
        out << "ringsim: " << n.unparsed_bytes
            << " bytes of it are no records (corrupt copies): perf report stops at them\n";
}

void declare_perf_data_stats(models::StatRegistry& r) {
    using W = PerfDataWriter;
    auto count = [&r](const char* path, const char* unit, const char* what,
                      std::function<uint64_t(const W&)> get) {
        r.counter<W>(path, unit, what, get, models::StatScope::total);
    };
    count("perf_data.events", "records",
          "records in perf.data, perf's own included: what perf report counts as events "
          "(nr_events[0], C9)",
          [](const W& w) { return w.counts().events; });
    count("perf_data.finished_rounds", "records",
          "PERF_RECORD_FINISHED_ROUND: passes over the buffers that wrote anything (C5)",
          [](const W& w) { return w.counts().by_type[models::perf::kRecordFinishedRound]; });
    count("perf_data.auxtrace_records", "records",
          "PERF_RECORD_AUXTRACE: one per AUX read, its payload after it (C6)",
          [](const W& w) { return w.counts().by_type[models::perf::kRecordAuxtrace]; });
    count("perf_data.unordered_events", "records",
          "records perf report will deliver out of time order: older than one it already "
          "delivered at a FINISHED_ROUND (ordered_events__queue)",
          [](const W& w) { return w.counts().unordered; });
    count("perf_data.bytes", "bytes", "the data section of perf.data, AUX payloads included",
          [](const W& w) { return w.counts().bytes; });
    count("perf_data.unparsed_bytes", "bytes",
          "copied bytes no walk of record headers could split into records (a copy a "
          "reordering corrupted): perf report stops reading at them",
          [](const W& w) { return w.counts().unparsed_bytes; });
}

} // namespace ringsim::platform
