// Fuzz target: the perf record parser (models/user/record_parser.h), walking bytes the way
// perf's session code does (perf_session__process_events): a header, a size that must be
// plausible and fit what is left, then the record decoded for the session's sample_type.
// Input: u8 flags (bit 0: sample_id_all), u64 sample_type, then the records. Each record is
// copied into a buffer of exactly its size, so that a read past its end is caught by ASan.
#include "models/user/record_parser.h"
#include "tests/fuzz/input.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ringsim::models::perf;
    ringsim::fuzz::Input in(data, size);
    const bool sample_id_all = in.u8() & 1;
    const uint64_t sample_type = in.u64();
    size_t n = 0;
    const uint8_t* p = in.bytes(in.left(), n);
    uint64_t sum = 0;
    for (size_t at = 0; at < n;) {
        const auto h = parse_header(p + at, n - at);
        if (!h || !plausible(*h) || h->size > n - at) break;
        const std::vector<uint8_t> record(p + at, p + at + h->size);
        const Record r = parse_record(record.data(), sample_type, sample_id_all);
        sum += r.id + r.lost + r.time_ns + r.pid + r.tid + r.cpu + r.header.size;
        sum += record_type_name(h->type).size();
        at += h->size;
    }
    ringsim::fuzz::g_sink = sum; // keeps the work from being optimised away
    return 0;
}
