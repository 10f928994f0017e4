#include "platform/export/cs_etm_queue.h"

#include <linux/perf_event.h>

#include <algorithm>
#include <cstdio>

namespace ringsim::platform::perf_data {

const char* const kCsEtmPipedWarning[2] = {
    "CS ETM warning: Coresight decode and TRBE support requires random file access.",
    "Continuing with best effort decoding in piped mode."};

namespace {

// cs_etm__queue_aux_fragment: true when `b` holds the AUX record's data.
bool holds(const AuxtraceSeen& b, const AuxRecordSeen& a) {
    // The comparison as perf 6.1 writes it (see the header comment).
    if ((b.cpu == -1 && b.tid != a.tid) || b.cpu != a.cpu) return false;
    uint64_t size = a.aux_size, offset = a.aux_offset;
    if (a.flags & PERF_AUX_FLAG_OVERWRITE) {
        // Snapshot mode: the record's offset is the head, its size clamped to the buffer.
        size = std::min(a.aux_size, b.size);
        offset = a.aux_offset - size;
    }
    return offset >= b.offset && offset + size <= b.offset + b.size;
}

} // namespace

CsEtmQueueing cs_etm_queue_aux_records(const std::vector<AuxRecordSeen>& aux,
                                       const std::vector<AuxtraceSeen>& buffers) {
    CsEtmQueueing q;
    if (buffers.empty()) return q; // no index: nothing is tried (nor warned about)
    for (const AuxRecordSeen& a : aux) {
        if (!a.aux_size) continue; // a truncated record with no data queues nothing
        const bool found = std::any_of(buffers.begin(), buffers.end(),
                                       [&a](const AuxtraceSeen& b) { return holds(b, a); });
        if (found) {
            ++q.queued;
            continue;
        }
        char line[160];
        std::snprintf(line, sizeof line,
                      "CS ETM: Couldn't find auxtrace buffer for aux_offset: %#llx tid: %d cpu: %d",
                      static_cast<unsigned long long>(a.aux_offset), a.tid, a.cpu);
        q.errors.push_back(line);
    }
    q.piped_fallback = q.queued == 0;
    return q;
}

} // namespace ringsim::platform::perf_data
