// The perf ABI as it sits in shared memory: struct perf_event_mmap_page, perf_event_header
// and the record types, taken from the real <linux/perf_event.h> so that what ringsim puts
// in simulated memory is byte for byte what a real consumer would parse.
// Mirrors: include/uapi/linux/perf_event.h, include/linux/circ_buf.h (KERNEL-SEMANTICS §1, §2).
#pragma once

#include <linux/perf_event.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::models::perf {

// Control page field offsets, straight from the UAPI struct (KERNEL-SEMANTICS §1).
constexpr uint64_t kOffVersion = offsetof(perf_event_mmap_page, version);
constexpr uint64_t kOffSize = offsetof(perf_event_mmap_page, size);
constexpr uint64_t kOffDataHead = offsetof(perf_event_mmap_page, data_head);
constexpr uint64_t kOffDataTail = offsetof(perf_event_mmap_page, data_tail);
constexpr uint64_t kOffDataOffset = offsetof(perf_event_mmap_page, data_offset);
constexpr uint64_t kOffDataSize = offsetof(perf_event_mmap_page, data_size);
constexpr uint64_t kOffAuxHead = offsetof(perf_event_mmap_page, aux_head);
constexpr uint64_t kOffAuxTail = offsetof(perf_event_mmap_page, aux_tail);
constexpr uint64_t kOffAuxOffset = offsetof(perf_event_mmap_page, aux_offset);
constexpr uint64_t kOffAuxSize = offsetof(perf_event_mmap_page, aux_size);
static_assert(kOffDataHead == 0x400 && kOffDataTail == 0x408, "UAPI layout changed");
static_assert(sizeof(perf_event_mmap_page) == 1088, "UAPI layout changed");
// perf_event_init_userpage sets size to offsetof(__reserved).
constexpr uint32_t kUserPageSize = offsetof(perf_event_mmap_page, __reserved);

constexpr uint64_t kHeaderSize = sizeof(perf_event_header);
static_assert(kHeaderSize == 8, "perf_event_header is 8 bytes");

// CIRC_SPACE(head, tail, size) from include/linux/circ_buf.h: one byte always stays free (R1).
constexpr uint64_t circ_space(uint64_t head, uint64_t tail, uint64_t size) {
    return (tail - (head + 1)) & (size - 1);
}

// PERF_SAMPLE_* bits by their lower-case name without prefix ("ip", "tid", ...), for the
// subset ringsim's sample writer produces. Empty optional for an unknown name.
std::optional<uint64_t> sample_bit(const std::string& name);

// id_header_size: the sample_id trailer appended to non-sample records when sample_id_all
// is set, 8 bytes per present field (__perf_event__output_id_sample, KERNEL-SEMANTICS §2).
uint64_t id_header_size(uint64_t sample_type);

// Size of a PERF_RECORD_SAMPLE carrying only the fixed fields of sample_type (no RAW).
uint64_t sample_fixed_size(uint64_t sample_type);

// Smallest PERF_RECORD_SAMPLE of at least `wanted` bytes that ringsim can build: the fixed
// fields, plus a PERF_SAMPLE_RAW field padded to 8 bytes when wanted exceeds them.
// Returns 0 when `wanted` cannot be built exactly (not a multiple of 8, below the fixed
// part, or above the 16-bit header size).
uint64_t sample_size_exact(uint64_t sample_type, uint64_t wanted);

constexpr uint64_t kLostRecordSize = kHeaderSize + 16;     // u64 id, u64 lost
constexpr uint64_t kSwitchRecordSize = kHeaderSize;        // PERF_RECORD_SWITCH has no body
constexpr uint64_t kCommRecordSize = kHeaderSize + 8 + 16; // pid, tid, comm[16]
constexpr uint64_t kAuxRecordSize = kHeaderSize + 24;      // aux_offset, aux_size, flags

} // namespace ringsim::models::perf
