#include "models/common/aux_stats.h"

#include <string>

namespace ringsim::models {

const char* to_string(GapCause c) {
    switch (c) {
    case GapCause::fifo_overflow: return "fifo_overflow";
    case GapCause::sink_wrap: return "sink_wrap";
    case GapCause::aux_shortage: return "aux_shortage";
    case GapCause::memerr: return "memerr";
    case GapCause::snapshot_overwrite: return "snapshot_overwrite";
    case GapCause::record_lost: return "record_lost";
    case GapCause::sink_stopped: return "sink_stopped";
    case GapCause::stop_window: return "stop_window";
    case GapCause::aux_disabled: return "aux_disabled";
    case GapCause::count: break;
    }
    return "?";
}

namespace {

const char* kCauseText[kGapCauses] = {
    "the sink's FIFO was full: trace arrived faster than its memory bandwidth",
    "overwritten in the ETR buffer before the harvest: the sink wrapped, STS.Full (D3)",
    "the AUX room at perf_aux_output_begin was smaller than the ETR data: the oldest bytes "
    "were dropped, TRUNCATED (D2)",
    "STS.MemErr: the driver discarded the whole capture (D10)",
    "the snapshot AUX buffer overwrote it before a snapshot read it (D6)",
    "its PERF_RECORD_AUX never reached perf.data, so perf's cs-etm decoder skips it (D11)",
    "traced while the shared sink stood stopped: another CPU's harvest had flushed and "
    "stopped it, and a CPU starting meanwhile only takes a reference (E3), so the sink "
    "restarts only once every user has stopped",
    "the event was stopped (sched out, migration, snapshot, exit): nothing traced (D4)",
    "the event was disabled because the AUX buffer was full, until the tool re-enabled it "
    "(A2, A6; D1): nothing traced",
};

std::vector<AuxStatDef> build() {
    using S = AuxStats;
    std::vector<AuxStatDef> d = {
        {"bytes.produced", "bytes", "trace bytes the ETMs produced; the checker gives each one "
         "fate, so produced = delivered + lost + unread + corrupted", &S::bytes_produced},
        {"bytes.delivered", "bytes", "trace bytes ringsim's decoder decoded from what the tool "
         "copied out of the AUX buffers", &S::bytes_delivered},
        {"bytes.lost", "bytes", "trace bytes produced and lost, all causes (lost_by_cause.*, "
         "the first seven)", &S::bytes_lost},
        {"bytes.unread", "bytes", "trace bytes still in an AUX buffer when the run ended",
         &S::bytes_unread},
        {"bytes.corrupted", "bytes", "trace bytes the tool read wrong (each range is also a "
         "stale or overwritten violation)", &S::bytes_corrupted},
        {"bytes.untraced", "bytes", "trace the ETMs would have produced while their event was "
         "off (stop_window + aux_disabled); not part of produced", &S::bytes_untraced},
    };
    static std::vector<std::string> names; // stable storage for the generated paths
    names.reserve(2 * kGapCauses);
    for (size_t c = 0; c < kGapCauses; ++c) {
        names.push_back(std::string("lost_by_cause.") + to_string(GapCause(c)));
        d.push_back({names.back().c_str(), "bytes", kCauseText[c], nullptr, int(c), false});
    }
    for (size_t c = 0; c < kGapCauses; ++c) {
        names.push_back(std::string("gaps_by_cause.") + to_string(GapCause(c)));
        d.push_back({names.back().c_str(), "gaps",
                     "gaps in a source's decoded counts whose cause is this one", nullptr,
                     int(c), true});
    }
    const std::vector<AuxStatDef> rest = {
        {"records", "records", "PERF_RECORD_AUX records written into the data buffers (A3)",
         &S::records},
        {"records_lost", "records", "PERF_RECORD_AUX records dropped because the data buffer "
         "was full; their AUX bytes stay (A5, D11)", &S::records_lost},
        {"truncated", "records", "harvests flagged PERF_AUX_FLAG_TRUNCATED (D2, D3)",
         &S::truncated},
        {"records_delivered", "records", "PERF_RECORD_AUX records perf.data received (M in "
         "\"AUX data lost N times out of M!\")", &S::records_delivered},
        {"truncated_delivered", "records", "of those, flagged TRUNCATED (N, C9)",
         &S::truncated_delivered},
        {"event.starts", "calls", "pmu::start calls (etm_event_start, P1)", &S::starts},
        {"event.begin_failures", "calls", "starts that found no AUX room: no trace, event "
         "disabled (A2, D1)", &S::begin_failures},
        {"event.stops", "calls", "pmu::stop calls (etm_event_stop, P2)", &S::stops},
        {"event.kernel_disables", "events", "perf_event_disable_inatomic taking effect (A2, A6)",
         &S::kernel_disables},
        {"event.reenables", "events", "the tool's PERF_EVENT_IOC_ENABLE turning a disabled "
         "event back on (A9)", &S::reenables},
        {"driver.harvests", "harvests", "update_buffer calls that flushed and copied the sink "
         "(E5)", &S::harvests},
        {"driver.harvests_skipped_shared", "calls", "update_buffer calls by a non-last user of "
         "the shared sink: nothing committed (E5, D5)", &S::harvests_skipped_shared},
        {"driver.harvested_bytes", "bytes", "bytes copied into AUX buffers (frames, barriers "
         "and padding included)", &S::harvested_bytes},
        {"driver.barrier_packets", "packets", "16-byte barrier packets written over a kept "
         "frame (E5)", &S::barrier_packets},
        {"driver.memerr_captures", "captures", "harvests that found STS.MemErr (D10)",
         &S::memerr_captures},
        {"driver.wrapped_captures", "captures", "harvests that found STS.Full (D3)",
         &S::wrapped_captures},
        {"sink.captures", "captures", "times the sink was enabled at its base (E3)",
         &S::sink_captures},
        {"sink.bursts", "bursts", "input bursts the sink model processed", &S::sink_bursts},
        {"sink.dma_stores", "stores", "DMA stores the sink issued through its own agent",
         &S::sink_dma_stores},
        {"sink.overflow_bytes", "bytes", "trace bytes its FIFO dropped", &S::sink_overflow_bytes},
        {"sink.sg_walk_failures", "walks", "ETR_SG table walks at an enable that found a table "
         "the driver could not have built: STS.MemErr for that capture (E4, D10)",
         &S::sink_sg_walk_failures},
        {"sink.sg_walk_time", "ps", "time the sink spent walking its SG table at enables",
         &S::sink_sg_walk_time},
        {"consumer.reads", "reads", "AUX reads that found new data (C6, C8)",
         &S::consumer_reads},
        {"consumer.bytes_copied", "bytes", "bytes the tool copied out of AUX buffers",
         &S::consumer_bytes_copied},
        {"consumer.snapshots", "snapshots", "snapshots taken (C8)", &S::consumer_snapshots},
        {"consumer.lapped_reads", "reads", "reads where aux_head had moved more than the "
         "buffer: older data invisible (D7)", &S::consumer_lapped_reads},
        {"decoder.packets", "packets", "count packets decoded", &S::decoded_packets},
        {"violations.total", "violations", "AUX violations of every kind",
         &S::violations_total},
        {"violations.stale", "violations", "AUX ranges read before the driver's copy reached "
         "them: (B) or (C) for AUX missing", &S::violations_stale},
        {"violations.overwritten", "violations", "AUX ranges overwritten by a later harvest "
         "before the tool read them: (A) or (D) for AUX missing", &S::violations_overwritten},
        {"violations.unexplained", "violations", "gaps or undecodable trace no cause explains",
         &S::violations_unexplained},
        {"violations.duplicated", "violations", "counts decoded twice", &S::violations_duplicated},
        {"violations.accounting", "violations", "the books disagree: a source's bytes committed "
         "by the driver plus those the sink and driver reported lost differ from what it "
         "produced, a byte is reported lost twice, decoded bytes were reported lost or unread, "
         "or perf.data holds a PERF_RECORD_AUX the driver never wrote", &S::violations_accounting},
    };
    d.insert(d.end(), rest.begin(), rest.end());
    return d;
}

} // namespace

const std::vector<AuxStatDef>& aux_stat_defs() {
    static const std::vector<AuxStatDef> defs = build();
    return defs;
}

uint64_t aux_stat_value(const AuxStats& s, const AuxStatDef& d) {
    if (d.field) return s.*d.field;
    return d.gaps ? s.gaps_by_cause[d.cause] : s.lost_by_cause[d.cause];
}

} // namespace ringsim::models
