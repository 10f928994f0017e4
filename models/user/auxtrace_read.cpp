#include "models/user/auxtrace_read.h"

namespace ringsim::models::perf {

namespace {
constexpr uint64_t kAuxtraceRecordAlignment = 8; // PERF_AUXTRACE_RECORD_ALIGNMENT
}

AuxtraceRead auxtrace_read(uint64_t old, uint64_t head, uint64_t len, bool snapshot,
                           uint64_t snapshot_size, uint64_t alignment) {
    AuxtraceRead r;
    if (old == head) return r;
    const uint64_t mask = len - 1; // mm->mask: AUX sizes are powers of two
    const uint64_t head_off = head & mask, old_off = old & mask;
    // A head that lapped the buffer any number of times is seen through offsets alone.
    uint64_t size = head_off > old_off ? head_off - old_off : len - (old_off - head_off);
    if (snapshot && size > snapshot_size) size = snapshot_size;
    // With a mask, offset = head - size always (the non-power-of-two branch never runs).
    r.offset = head - size;
    if (size > head_off) {
        r.len1 = size - head_off;
        r.off1 = len - r.len1;
        r.len2 = head_off;
    } else {
        r.len1 = size;
        r.off1 = head_off - size;
        r.len2 = 0;
    }
    if (alignment) {
        const uint64_t unwanted = r.len1 % alignment;
        r.len1 -= unwanted;
        size -= unwanted;
    }
    r.size = size;
    const uint64_t rem = size & (kAuxtraceRecordAlignment - 1);
    r.padding = rem ? kAuxtraceRecordAlignment - rem : 0;
    return r;
}

} // namespace ringsim::models::perf
