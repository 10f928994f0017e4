// Where the trace an ETM produced can go missing between the source and perf.data, one
// cause per KERNEL-SEMANTICS §10 row, and the interface the sink, the driver and the
// consumer report through. The checker (aux_checker.h) holds the books.
#pragma once

#include "models/common/types.h"
#include "models/coresight/etr_frame_log.h"

#include <cstdint>
#include <vector>

namespace ringsim::models::coresight {

enum class TraceLoss : uint8_t {
    fifo_overflow,      // the sink's FIFO was full: input above its memory bandwidth
    sink_wrap,          // D3: overwritten in the ETR buffer before the harvest (STS.Full)
    aux_shortage,       // D2: the AUX room at begin was smaller than the ETR data (TRUNCATED)
    memerr,             // D10: STS.MemErr: the driver discarded the whole capture
    snapshot_overwrite, // D6: the free-running snapshot AUX buffer overwrote unread data
    record_lost,        // D11: AUX bytes whose PERF_RECORD_AUX never reached perf.data
    sink_stopped,       // traced while a shared sink stood stopped by another CPU's harvest
    count,
};
const char* to_string(TraceLoss c);

// The ETR driver copied a harvest into AUX bytes [aux_off, aux_off + size): frame
// first_frame of the capture is at aux_off, the next one 16 bytes on, and so on.
struct AuxCommit {
    unsigned aux = 0;     // which AUX buffer
    uint64_t aux_off = 0; // free-running AUX position of the first byte
    uint64_t size = 0;
    uint64_t first_frame = 0;
    bool barrier = false;       // the first 16 bytes are the barrier packet, not a frame
    std::vector<FrameRun> runs; // the source bytes the frames carry
    struct Store {
        uint64_t aux_off = 0, len = 0, seq = 0;
    };
    std::vector<Store> stores;  // the driver's copy stores that wrote them
    std::vector<uint8_t> bytes; // what those stores wrote, in AUX order (size bytes)
    uint64_t record_offset = 0, record_size = 0, flags = 0; // its PERF_RECORD_AUX
    bool record_written = false;                            // false: lost in the data buffer
    Picos at = 0;
};

class TraceObserver {
public:
    virtual ~TraceObserver() = default;
    // Source bytes [src_off, src_off + n) of trace ID `id` will never reach an AUX buffer.
    virtual void on_trace_lost(uint8_t id, uint64_t src_off, uint64_t n, TraceLoss why) = 0;
    virtual void on_aux_commit(AuxCommit c) = 0; // by value: it carries the copied bytes
};

} // namespace ringsim::models::coresight
