#include "models/user/record_parser.h"

#include "models/kernel/perf_abi.h"

#include <cstring>

namespace ringsim::models::perf {

namespace {
template <typename T> T get(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// The field at offset `at` of a record of n bytes at p; 0 when the record is too short to hold
// it (torn or corrupt bytes whose size is smaller than their type and sample_type say), so
// that nothing past the record is ever read.
template <typename T> T field(const uint8_t* p, uint64_t n, uint64_t at) {
    return at <= n && n - at >= sizeof(T) ? get<T>(p + at) : T{};
}

// Reads the sample_id trailer that ends a non-sample record, if the record can hold one.
void parse_sample_id(Record& r, const uint8_t* p, uint64_t n, uint64_t st) {
    if (n < kHeaderSize + id_header_size(st)) return;
    const uint8_t* q = p + n - id_header_size(st);
    if (st & PERF_SAMPLE_TID) {
        r.pid = get<uint32_t>(q);
        r.tid = get<uint32_t>(q + 4);
        q += 8;
    }
    if (st & PERF_SAMPLE_TIME) {
        r.time_ns = get<uint64_t>(q);
        q += 8;
    }
    if (st & PERF_SAMPLE_ID) {
        r.id = get<uint64_t>(q);
        q += 8;
    }
    if (st & PERF_SAMPLE_STREAM_ID) q += 8;
    if (st & PERF_SAMPLE_CPU) {
        r.cpu = get<uint32_t>(q);
        q += 8;
    }
    if (st & PERF_SAMPLE_IDENTIFIER) r.id = get<uint64_t>(q);
}
} // namespace

std::optional<Header> parse_header(const uint8_t* p, uint64_t n) {
    if (n < kHeaderSize) return std::nullopt;
    return Header{get<uint32_t>(p), get<uint16_t>(p + 4), get<uint16_t>(p + 6)};
}

Record parse_record(const uint8_t* p, uint64_t st, bool sample_id_all) {
    Record r;
    r.header = *parse_header(p, kHeaderSize);
    const uint64_t n = r.header.size;
    uint64_t q = kHeaderSize;
    switch (r.header.type) {
    case PERF_RECORD_SAMPLE:
        if (st & PERF_SAMPLE_IDENTIFIER) {
            r.id = field<uint64_t>(p, n, q);
            q += 8;
        }
        if (st & PERF_SAMPLE_IP) q += 8;
        if (st & PERF_SAMPLE_TID) {
            r.pid = field<uint32_t>(p, n, q);
            r.tid = field<uint32_t>(p, n, q + 4);
            q += 8;
        }
        if (st & PERF_SAMPLE_TIME) {
            r.time_ns = field<uint64_t>(p, n, q);
            q += 8;
        }
        if (st & PERF_SAMPLE_ID) {
            r.id = field<uint64_t>(p, n, q);
            q += 8;
        }
        if (st & PERF_SAMPLE_STREAM_ID) q += 8;
        if (st & PERF_SAMPLE_CPU) r.cpu = field<uint32_t>(p, n, q);
        break;
    case PERF_RECORD_LOST:
        r.id = field<uint64_t>(p, n, q);
        r.lost = field<uint64_t>(p, n, q + 8);
        if (sample_id_all) parse_sample_id(r, p, n, st);
        break;
    default:
        if (sample_id_all) parse_sample_id(r, p, n, st);
        break;
    }
    return r;
}

std::string record_type_name(uint32_t type) {
    switch (type) {
    case PERF_RECORD_SAMPLE:
        return "PERF_RECORD_SAMPLE";
    case PERF_RECORD_LOST:
        return "PERF_RECORD_LOST";
    case PERF_RECORD_SWITCH:
        return "PERF_RECORD_SWITCH";
    case PERF_RECORD_COMM:
        return "PERF_RECORD_COMM";
    case PERF_RECORD_AUX:
        return "PERF_RECORD_AUX";
    case PERF_RECORD_ITRACE_START:
        return "PERF_RECORD_ITRACE_START";
    case PERF_RECORD_LOST_SAMPLES:
        return "PERF_RECORD_LOST_SAMPLES";
    case PERF_RECORD_AUX_OUTPUT_HW_ID:
        return "PERF_RECORD_AUX_OUTPUT_HW_ID";
    // The perf tool's own records (tools/lib/perf/include/perf/event.h).
    case kRecordFinishedRound:
        return "PERF_RECORD_FINISHED_ROUND";
    case kRecordAuxtraceInfo:
        return "PERF_RECORD_AUXTRACE_INFO";
    case kRecordAuxtrace:
        return "PERF_RECORD_AUXTRACE";
    default:
        return "type " + std::to_string(type);
    }
}

} // namespace ringsim::models::perf
