// How perf 6.1's cs-etm decoder finds the trace of each PERF_RECORD_AUX in perf.data, and
// what it prints when it cannot: tools/perf/util/cs-etm.c : cs_etm__queue_aux_records,
// cs_etm__queue_aux_records_cb and cs_etm__queue_aux_fragment, replayed on the records the
// file holds, so that ringsim can say beforehand what perf report will print.
// perf 6.1 matches an AUX record to an AUXTRACE buffer when
// !((buf.cpu == -1 && buf.tid != aux.tid) || buf.cpu != aux.cpu): a per-thread buffer
// (cpu -1) matches only records without a CPU (PERF_SAMPLE_CPU not sampled), so a
// per-thread session that samples the CPU finds none ("Couldn't find auxtrace buffer"), and
// with nothing queued perf falls back to decoding the buffers whole, as in pipe mode.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::platform::perf_data {

struct AuxRecordSeen { // a PERF_RECORD_AUX and its sample_id (-1 where not sampled)
    uint64_t aux_offset = 0, aux_size = 0, flags = 0;
    int32_t tid = -1, cpu = -1;
};

struct AuxtraceSeen { // a PERF_RECORD_AUXTRACE, in file order
    uint64_t offset = 0, size = 0;
    int32_t tid = -1, cpu = -1;
};

struct CsEtmQueueing {
    uint64_t queued = 0;             // AUX records whose trace was found and queued
    std::vector<std::string> errors; // perf's pr_err lines, in order
    bool piped_fallback = false;     // nothing queued: "requires random file access"
};

CsEtmQueueing cs_etm_queue_aux_records(const std::vector<AuxRecordSeen>& aux,
                                       const std::vector<AuxtraceSeen>& buffers);

// cs_etm__process_auxtrace_info's warning when nothing was queued, as perf prints it.
extern const char* const kCsEtmPipedWarning[2];

} // namespace ringsim::platform::perf_data
