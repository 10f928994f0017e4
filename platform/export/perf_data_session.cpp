#include "platform/export/perf_data_session.h"

#include "models/kernel/perf_abi.h"
#include "models/user/record_parser.h"

namespace ringsim::platform {

using perf_data::put;
using perf_data::put_header;

namespace {

constexpr uint64_t kEtmV4Magic = 0x4040404040404040ull; // __perf_cs_etmv4_magic
constexpr uint64_t kCsHeaderVersion = 1;                // CS_HEADER_CURRENT_VERSION
constexpr uint64_t kEtmV4TrcParams = 7;                 // TRCCONFIGR .. TRCAUTHSTATUS
constexpr unsigned kEtmOptTs = 28;                      // ETM_OPT_TS in attr.config

perf_event_attr base_attr(const PerfDataInputs& in) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.sample_type = in.sample_type;
    a.sample_id_all = in.sample_id_all;
    // perf record reads every event's id and, from perf 6.0, its lost count.
    a.read_format = PERF_FORMAT_ID | PERF_FORMAT_LOST;
    a.write_backward = in.write_backward;
    return a;
}

// perf_record_auxtrace_info for CoreSight: the header block, then one ETMv4 block per CPU.
perf_data::Bytes auxtrace_info(const PerfDataInputs& in) {
    perf_data::Bytes priv;
    put<uint64_t>(priv, kCsHeaderVersion);
    put<uint64_t>(priv, uint64_t{kCsEtmPmuType} << 32 | in.etms.size()); // CS_PMU_TYPE_CPUS
    put<uint64_t>(priv, in.snapshot);                                    // CS_ETM_SNAPSHOT
    for (const PerfDataInputs::Etm& e : in.etms) {
        put<uint64_t>(priv, kEtmV4Magic); // CS_ETM_MAGIC
        put<uint64_t>(priv, e.cpu);       // CS_ETM_CPU
        put<uint64_t>(priv, kEtmV4TrcParams);
        put<uint64_t>(priv, kTrcConfigTs); // CS_ETMV4_TRCCONFIGR (cs_etmv4_get_config)
        put<uint64_t>(priv, e.trace_id);   // CS_ETMV4_TRCTRACEIDR
        put<uint64_t>(priv, kTrcIdr0);
        put<uint64_t>(priv, kTrcIdr1);
        put<uint64_t>(priv, kTrcIdr2);
        put<uint64_t>(priv, kTrcIdr8);
        put<uint64_t>(priv, kTrcAuthStatus);
    }
    perf_data::Bytes r;
    const uint64_t size = 8 + 8 + priv.size(); // header, u32 type, u32 reserved, priv[]
    put_header(r, models::perf::kRecordAuxtraceInfo, size);
    put<uint32_t>(r, kAuxtraceCsEtm);
    put<uint32_t>(r, 0);
    r.insert(r.end(), priv.begin(), priv.end());
    return r;
}

} // namespace

PerfDataSession make_perf_data_session(const PerfDataInputs& in) {
    PerfDataSession s;
    if (!in.cs_etm_ids.empty()) {
        perf_data::Evsel e;
        e.name = "cs_etm//";
        e.attr = base_attr(in);
        e.attr.type = kCsEtmPmuType;
        e.attr.config = uint64_t{1} << kEtmOptTs;
        e.attr.sample_period = 1;
        e.ids = in.cs_etm_ids;
        s.evsels.push_back(e);
        s.pmus.push_back({kCsEtmPmuType, "cs_etm"});
        s.auxtrace_info = auxtrace_info(in);
    }
    for (const PerfDataInputs::Event& w : in.events) {
        perf_data::Evsel e;
        e.name = w.name;
        e.attr = base_attr(in);
        e.ids = w.ids;
        if (w.record == models::RecordKind::sample && w.cpu_clock) {
            e.attr.type = PERF_TYPE_SOFTWARE;
            e.attr.config = PERF_COUNT_SW_CPU_CLOCK;
            e.attr.sample_period = w.cpu_clock_period;
            if (w.raw) e.attr.sample_type |= PERF_SAMPLE_RAW;
        } else if (w.record == models::RecordKind::sample) {
            e.attr.type = PERF_TYPE_HARDWARE;
            e.attr.config = PERF_COUNT_HW_CPU_CYCLES;
            e.attr.sample_period = kSamplePeriod;
            if (w.raw) e.attr.sample_type |= PERF_SAMPLE_RAW;
        } else {
            // --switch-events and the tracking of tasks go on a dummy event.
            e.attr.type = PERF_TYPE_SOFTWARE;
            e.attr.config = PERF_COUNT_SW_DUMMY;
            e.attr.sample_period = 1;
            e.attr.context_switch = w.record == models::RecordKind::switch_;
            e.attr.comm = w.record == models::RecordKind::comm;
        }
        s.evsels.push_back(e);
    }
    s.mmaps = in.mmaps;
    s.host.hostname = "ringsim";
    s.host.osrelease = "ringsim";
    s.host.version = "ringsim " RINGSIM_VERSION;
    s.host.arch = "aarch64";
    s.host.nr_cpus_avail = in.nr_cpus;
    s.host.nr_cpus_online = in.nr_cpus;
    s.reference_seed = in.seed;
    return s;
}

std::string perf_data_refusal(const PerfDataSession& s) {
    if (s.evsels.size() < 2) return "";
    const uint64_t st = s.evsels.front().attr.sample_type;
    if (st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER)) return "";
    std::string names, fields;
    for (const auto& e : s.evsels)
        names += (names.empty() ? "" : ", ") + e.name;
    for (const char* f : {"identifier", "ip", "tid", "time", "id", "stream_id", "cpu", "period"})
        if (st & models::perf::sample_bit(f).value_or(0))
            fields += (fields.empty() ? "\"" : ", \"") + std::string(f) + "\"";
    return "/session/sample_type: expected \"id\" or \"identifier\" among the fields when perf "
           "record opens several events (here " +
           std::to_string(s.evsels.size()) + ": " + names +
           "): perf report refuses the file without it (non matching sample_type), found [" +
           fields + "]";
}

} // namespace ringsim::platform
