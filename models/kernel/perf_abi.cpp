// Sample layout helpers over the real PERF_SAMPLE_* bits (KERNEL-SEMANTICS §2).
#include "models/kernel/perf_abi.h"

#include <bitset>
#include <utility>

namespace ringsim::models::perf {

namespace {
// The sample fields ringsim's writer can emit, in the kernel's output order
// (perf_output_sample): IDENTIFIER, IP, TID, TIME, ID, STREAM_ID, CPU, PERIOD, then RAW.
const std::pair<const char*, uint64_t> kSampleBits[] = {
    {"identifier", PERF_SAMPLE_IDENTIFIER},
    {"ip", PERF_SAMPLE_IP},
    {"tid", PERF_SAMPLE_TID},
    {"time", PERF_SAMPLE_TIME},
    {"id", PERF_SAMPLE_ID},
    {"stream_id", PERF_SAMPLE_STREAM_ID},
    {"cpu", PERF_SAMPLE_CPU},
    {"period", PERF_SAMPLE_PERIOD},
};
constexpr uint64_t kIdBits = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                             PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
// Each of the fields above is one u64 in the record (TID and CPU: two u32).
constexpr uint64_t kFixedBits = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                                PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                                PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
constexpr uint64_t kMaxRecordSize = 65535 & ~uint64_t{7}; // u16 header.size, 8-aligned
} // namespace

std::optional<uint64_t> sample_bit(const std::string& name) {
    for (const auto& [n, bit] : kSampleBits)
        if (name == n) return bit;
    return std::nullopt;
}

uint64_t id_header_size(uint64_t sample_type) {
    return 8 * std::bitset<64>(sample_type & kIdBits).count();
}

uint64_t sample_fixed_size(uint64_t sample_type) {
    // Asked for every sample written: a popcount, not a walk of the table.
    return kHeaderSize + 8 * std::bitset<64>(sample_type & kFixedBits).count();
}

uint64_t sample_size_exact(uint64_t sample_type, uint64_t wanted) {
    const uint64_t fixed = sample_fixed_size(sample_type);
    if (wanted == fixed) return wanted;
    // A RAW field is a u32 size and its data, padded so the record stays 8-aligned: 8+ bytes.
    if (wanted >= fixed + 8 && wanted % 8 == 0 && wanted <= kMaxRecordSize) return wanted;
    return 0;
}

} // namespace ringsim::models::perf
