// Which source bytes each 16-byte frame of one ETR capture carries, so that the sink writes the
// bytes that survive in its buffer only when they are needed ("lazy materialisation"), and the
// checker can tell which source bytes a lost frame held.
//
// Model: the funnel + formatter work at frame granularity. Every frame carries bytes of exactly
// one source:
//  - slot 0 holds the source's trace ID (taking effect at once), slots 1..14 up to 14 data
//    bytes, in order (formatter.h for the slot and byte-15 bit layout);
//  - a frame with fewer than 14 data bytes (m = 1..13) is completed the way FrameEncoder::flush
//    completes a partial frame: the null ID in the next even slot, then zero data.
// So a frame's 16 bytes equal what `FrameEncoder fe; fe.write(id, data, m, out); fe.flush(out);`
// produces (id_every_frame, the default). A real formatter packs the bytes of whichever IDs
// the funnel passes on into the same frame (an ID change mid-frame) and completes a partial
// frame only on a flush; this model gives up that interleaving for frames that each name one
// source, which keeps the frame -> source bytes map a short list of runs. A partial frame
// appears only where a source flushes (e.g. when it stops).
//
// Frames are numbered from 0 at the last clear() (the ETR restarting at its base). The log is a
// deque of runs; each run is consecutive frames carrying consecutive bytes of one source, every
// frame full (14 bytes) but possibly the last. Lookups are O(log runs); forget_before() drops
// runs that the circular buffer has overwritten, so memory stays bounded.
#pragma once

#include "models/coresight/etm_stream.h"
#include "models/coresight/formatter.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

namespace ringsim::models::coresight {

constexpr size_t kFrameSourceBytes = kFullFrameData; // data bytes of a full one-source frame

struct FrameRun {
    uint64_t first_frame = 0;
    uint64_t frames = 0;
    uint8_t trace_id = 0;
    uint64_t src_off = 0;   // offset of the first byte in the source's stream
    uint64_t src_bytes = 0; // bytes carried: (frames - 1) * 14 < src_bytes <= frames * 14
};

class EtrFrameLog {
public:
    // Appends frames carrying bytes [src_off, src_off+n) of the source with this trace ID:
    // n/14 full frames, plus one partial frame for a remainder (n % 14 != 0 only when the source
    // flushes, e.g. when it stops). Consecutive appends of the same source continuing its bytes
    // merge into one run when the run's last frame is full. Returns the number of frames
    // appended. ModelError when trace_id is not a source trace ID (0x01-0x6F).
    uint64_t append(uint8_t trace_id, uint64_t src_off, uint64_t n);
    // Removes the newest `frames` frames (they overflowed the sink's FIFO), returning the source
    // byte ranges they held, oldest first, appended to out. ModelError if frames is more than
    // frames() - first_kept() (a forgotten frame was written, it cannot overflow the FIFO).
    void drop_newest(uint64_t frames, std::vector<FrameRun>& out);
    // Frames appended (and not dropped) since the last clear(); the next frame's number.
    uint64_t frames() const { return m_frames; }
    // The oldest frame not forgotten.
    uint64_t first_kept() const { return m_forgotten; }
    // The source byte ranges held by frames [first, first+n), as runs clipped to that frame
    // range (a clipped partial last frame keeps its partial byte count), oldest first, appended
    // to out. ModelError unless first_kept() <= first and first+n <= frames().
    void runs_in(uint64_t first, uint64_t n, std::vector<FrameRun>& out) const;
    // The first run of trace ID `id` that runs_in(frame, 1) gives, whole (not clipped to
    // the frame); null when none. Same range rule.
    const FrameRun* run_of(uint64_t frame, uint8_t id) const;
    // The same, and in `same_until` the frame before which every frame from `frame` on gets
    // this same answer (the next run's first frame, or frames()): a caller asking frame
    // after frame may reuse the answer up to it.
    const FrameRun* run_of(uint64_t frame, uint8_t id, uint64_t& same_until) const;
    // Forgets frames before `frame` (overwritten in the circular buffer); runs_in/materialize
    // before it are then invalid. frame is clipped to frames().
    void forget_before(uint64_t frame);
    // The 16*n bytes of frames [first, first+n) (same range rule as runs_in), regenerating each
    // source's bytes from its stream. `stream_of(trace_id)` returns the EtmStream holding that
    // ID's bytes.
    void materialize(uint64_t first, uint64_t n,
                     const std::function<const EtmStream&(uint8_t)>& stream_of, uint8_t* out) const;
    void clear(); // a new capture (the ETR restarted at its base)

    // Runs currently held (for tests and memory checks).
    size_t runs() const { return m_runs.size(); }

private:
    void check_range(uint64_t first, uint64_t n, const char* what) const;
    // Calls f(clipped run) for every run overlapping frames [first, first+n).
    template <typename F> void for_each_clipped(uint64_t first, uint64_t n, F&& f) const;

    std::deque<FrameRun> m_runs;
    // The run the last lookup found: decoding asks frame after frame, so the next answer is
    // almost always it or the one after (a hint only: every use checks it).
    mutable size_t m_hint = 0;
    size_t last_run_from(uint64_t frame) const; // the last run starting at or before frame
    uint64_t m_frames = 0;
    uint64_t m_forgotten = 0;
};

// Frame bytes of one source frame: ID in slot 0 then m data bytes (1..14), completed as
// FrameEncoder::flush does when m < 14. Writes 16 bytes at out.
void pack_source_frame(uint8_t trace_id, const uint8_t* data, size_t m, uint8_t* out);

} // namespace ringsim::models::coresight
