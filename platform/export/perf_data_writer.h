// perf record's output file, written from what ringsim's consumer copied: a listener of the
// consumer and of its AUX reader, so it sees exactly the bytes perf record would write, in
// the order it would write them (KERNEL-SEMANTICS C4, C5, C6, C9):
//  - at start, PERF_RECORD_AUXTRACE_INFO for an AUX session (record__synthesize,
//    perf_event__synthesize_auxtrace_info);
//  - every chunk perf_mmap__push copied out of a data buffer, as copied (a record it copied
//    twice is in the file twice), or every record libperf's reader delivered;
//  - one PERF_RECORD_AUXTRACE per AUX read, its payload after it padded to 8 bytes, its
//    place in the AUXTRACE index (record__process_auxtrace, __auxtrace_mmap__read);
//  - PERF_RECORD_FINISHED_ROUND after every pass over the buffers that wrote anything
//    (record__mmap_read_evlist);
//  - at exit, one PERF_RECORD_LOST_SAMPLES per event instance whose lost count is not zero
//    (record__read_lost_samples), then the feature sections and the final header.
// Without a file it only counts, so that ringsim's prediction of perf report's output is
// the same with and without --perf-data.
// Leaves out: the records perf synthesizes about the host at start (kernel and module maps,
// thread and CPU maps, existing tasks, TIME_CONV): ringsim models no host, so the file holds
// only what the simulated tool copied plus the records above.
#pragma once

#include "models/common/rng.h"
#include "models/common/stat_registry.h"
#include "models/user/record_parser.h"
#include "models/user/tool_observers.h"
#include "platform/export/cs_etm_queue.h"
#include "platform/export/ordered_events.h"
#include "platform/export/perf_data_file.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace ringsim::platform {

// What perf record knows about its session when it writes the file.
struct PerfDataSession {
    std::vector<perf_data::Evsel> evsels;
    perf_data::Host host;
    std::vector<perf_data::PmuMapping> pmus;
    // Per consumer mmap index: the cpu and tid PERF_RECORD_AUXTRACE names (-1: none),
    // as auxtrace_mmap_params__set_idx sets them.
    struct Mmap {
        int32_t cpu = -1, tid = -1;
    };
    std::vector<Mmap> mmaps;
    perf_data::Bytes auxtrace_info; // the whole PERF_RECORD_AUXTRACE_INFO; empty: no AUX
    uint64_t reference_seed = 0;    // cs_etm_reference's rand(), seeded
    // event->lost_samples of the event instance with this id, read at exit.
    std::function<uint64_t(uint64_t id)> lost_samples_of;
};

struct PerfDataCounts {
    std::array<uint64_t, models::perf::kRecordTypeLimit> by_type{}; // records in the file, by type
    uint64_t events = 0;         // all of them: perf report's nr_events[0]
    uint64_t bytes = 0;          // the data section
    uint64_t unparsed_bytes = 0; // copied bytes no header walk could split into records
    uint64_t file_size = 0;      // the whole file, header and features included (at exit)
    uint64_t lost_samples = 0;   // the lost fields of the LOST_SAMPLES records
    uint64_t aux_truncated = 0, aux_partial = 0, aux_collision = 0; // PERF_RECORD_AUX flags
    uint64_t unordered = 0;      // records perf report will find out of order (ordered_events.h)
    bool write_backward = false; // an event writes backward: perf says nothing of order
};

class PerfDataWriter : public models::ConsumerObserver, public models::AuxObserver {
public:
    explicit PerfDataWriter(PerfDataSession session);

    // Writes the file too (before the simulation starts); false (and error()) if it
    // cannot be created.
    bool open(const std::string& path);
    const std::string& error() const { return m_error; }
    // The file's path as perf prints it ("perf.data" when none is written).
    const std::string& path() const { return m_path; }
    // perf.data's CMDLINE feature: the command that made the file.
    void set_cmdline(std::vector<std::string> argv) { m_s.host.cmdline = std::move(argv); }
    // After the run: true when the file (if any) was written whole.
    bool ok() const { return m_error.empty(); }

    void on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                   const std::vector<models::CopySource>& sources,
                   const models::CopyContext& ctx) override;
    void on_pass_start() override;
    void on_pass_end() override;
    void on_finished() override;
    void on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                       const std::vector<models::CopySource>& sources,
                       const models::CopyContext& ctx) override;

    const PerfDataCounts& counts() const { return m_n; }
    // After the run: how perf's cs-etm decoder will queue the AUX records' trace.
    const perf_data::CsEtmQueueing& cs_etm_queueing() const { return m_queueing; }
    const PerfDataSession& session() const { return m_s; }

private:
    void write(const uint8_t* p, uint64_t n);
    void write_record(const perf_data::Bytes& r);
    void count(const uint8_t* p, uint64_t n);
    void note(const uint8_t* p, const models::perf::Header& h);
    void finish_file();

    PerfDataSession m_s;
    PerfDataCounts m_n;
    std::ofstream m_file;
    std::string m_path = "perf.data", m_error;
    uint64_t m_data_offset = 0;
    uint64_t m_bytes_at_pass_start = 0;
    models::Rng m_rng;
    std::vector<perf_data::AuxIndexEntry> m_aux_index;
    std::vector<perf_data::AuxRecordSeen> m_aux_records;
    std::vector<perf_data::AuxtraceSeen> m_auxtraces;
    perf_data::CsEtmQueueing m_queueing;
    perf_data::OrderedEvents m_order;
    uint64_t m_time_in_sample = 0; // offset of a sample's time; 0: no PERF_SAMPLE_TIME
    uint64_t m_time_from_end = 0;  // a trailer's time, bytes before the end; 0: no trailer
};

// perf record's "Captured and wrote" line, then "ringsim: wrote FILE: N events, B bytes of
// data (SAMPLE n, ...)": what perf report --stats will count, type by type.
void print_perf_data_written(std::ostream& out, const PerfDataWriter& w, const std::string& path);

// perf_data.*: what the file holds (written or not).
void declare_perf_data_stats(models::StatRegistry& r);

} // namespace ringsim::platform
