// Reading perf records out of bytes, the way perf's session code does: a perf_event_header,
// then the body of the types ringsim writes. Pure C++, no SystemC.
// Mirrors tools/perf/util/session.c : perf_session__process_event and
// tools/perf/util/evsel.c : evsel__parse_sample for the fields ringsim emits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ringsim::models::perf {

// The perf tool's own record types (tools/lib/perf/include/perf/event.h :
// perf_user_event_type), which only perf.data holds.
constexpr uint32_t kRecordFinishedRound = 68;
constexpr uint32_t kRecordAuxtraceInfo = 70;
constexpr uint32_t kRecordAuxtrace = 71;
constexpr uint32_t kRecordTypeLimit = 83; // PERF_RECORD_HEADER_MAX in perf 6.1

struct Header {
    uint32_t type = 0;
    uint16_t misc = 0;
    uint16_t size = 0;
};

// The header at `p`, when at least 8 bytes are there.
std::optional<Header> parse_header(const uint8_t* p, uint64_t n);

// A well-formed record has a size that is a multiple of 8 and at least a header.
inline bool plausible(const Header& h) {
    return h.size >= 8 && h.size % 8 == 0;
}

struct Record {
    Header header;
    uint64_t id = 0;   // sample / LOST id
    uint64_t lost = 0; // PERF_RECORD_LOST
    uint64_t time_ns = 0;
    uint32_t pid = 0, tid = 0, cpu = 0;
};

// Decodes a whole record (header.size bytes at p); fields absent from sample_type stay 0, and
// so do fields a record too short for its type and sample_type cannot hold: nothing past
// p + header.size is read.
Record parse_record(const uint8_t* p, uint64_t sample_type, bool sample_id_all);

// "PERF_RECORD_SAMPLE", "PERF_RECORD_LOST", ... or "type N".
std::string record_type_name(uint32_t type);

} // namespace ringsim::models::perf
