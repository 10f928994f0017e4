// The checker's view of CoreSight trace in an AUX stream: what `perf report` would get out of
// the AUX bytes the consumer collected, reduced to "which counts of which source are missing,
// and where". The AUX chunks (each with its AUX offset, in order) are deformatted
// (formatter.h), each trace ID's bytes are decoded as the ETM stream of etm_packets.h, and
// every count that does not follow its predecessor is reported with where it was found and
// what came before it (a barrier packet, an AUX discontinuity, a resynchronisation).
//
// Mirrors perf's cs-etm decoding through OpenCSD: formatted, frame-aligned input with reset on
// 4 x FSYNC (the barrier packet of coresight_insert_barrier_packet resets every ID's decoder,
// which must then find an A-Sync again), one packet decoder per trace ID.
// Leaves out: the per-CPU metadata (trace ID <-> CPU comes from AUX_OUTPUT_HW_ID records, not
// from here), instruction decoding, timestamps as time, unformatted (per-CPU sink) trace.
// Streaming: memory is one deformatter, at most 111 ETM decoders (one per source trace ID) and the
// capped gap list; it does not grow with the length of the trace.
#pragma once

#include "models/common/uninit_bytes.h"
#include "models/coresight/etm_packets.h"
#include "models/coresight/formatter.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace ringsim::models::coresight {

// Where one frame's bytes of a trace ID start in the source's own stream, and for how many
// frames after it the answer goes on: every frame from this one up to the AUX offset `until`
// (exclusive) holds `bytes_per_frame` bytes of the ID, each frame's following the previous
// frame's in the source (the sink's frame runs, etr_frame_log.h).
struct SourceRun {
    uint64_t offset = 0;
    uint64_t until = 0;
    uint64_t bytes_per_frame = 0;
};

struct TraceDecoderOptions {
    // Frames start at AUX offsets that are multiples of this (the ETR writes whole frames and
    // the AUX head only moves by whole frames); 0 trusts the stream and never realigns.
    uint32_t frame_align = kFrameSize;
    // When set, every ID's first count is checked against it (loss before the first packet).
    bool check_first_count = false;
    uint64_t first_count = 0;
    // Gaps kept in gaps(); later ones are only counted (gaps_dropped()).
    size_t max_gaps = 1u << 16;
    // Barrier positions kept in barrier_offsets().
    size_t max_barriers = 1u << 16;
    // Called with each run of consecutive counts decoded for a trace ID: (id, first, n); the
    // last runs come at finish(). For the checker's comparison with ground truth.
    std::function<void(uint8_t, uint64_t, uint64_t)> on_counts;
    // Splices. A sink whose FIFO overflows drops whole frames and says nothing in the trace
    // (no ETM Overflow packet is modelled), so a decoder can join the first bytes of one count
    // packet with bytes of a later packet and decode a count from them, of any value. Only
    // the bytes' origin tells: when source_offset is set it is asked, for the first frame of
    // each run of one ID's frames, where the frame's bytes of the ID start in the source's
    // own stream and how many frames after it go on from there: (id, AUX offset of the frame)
    // -> SourceRun, nullopt if unknown. A count packet whose bytes do not follow each other in
    // the source goes to on_spliced (id, the count it decoded to) and never to on_counts.
    std::function<std::optional<SourceRun>(uint8_t, uint64_t)> source_offset;
    // Feeds each ETM decoder whole runs of frames instead of frame by frame: consecutive
    // frames of one ID whose bytes follow each other in the source (by source_offset's runs,
    // or any when it is not set) go to the decoder as one piece, so that its whole-packet
    // fast path applies across frame boundaries. Every event, position and count is the same
    // either way (tests/unit/trace_decoder_test.cpp holds the two to each other); false is
    // there for that test.
    bool batch_frames = true;
    std::function<void(uint8_t, uint64_t)> on_spliced;
};

// A count of one source that did not follow the previous count of that source by exactly 1.
struct TraceGap {
    uint8_t trace_id = 0;
    uint64_t first_missing = 0;
    uint64_t missing = 0;
    // AUX offset of the frame holding the last byte of the count packet that showed the gap.
    uint64_t aux_offset = 0;
    bool after_barrier = false;       // a barrier packet / FSYNC run came since the last count
    bool after_discontinuity = false; // the AUX stream jumped (or a frame was corrupt) since
    bool after_sync = false;          // this source's stream had an A-Sync since the last count
    uint64_t skipped_bytes = 0;       // this source's bytes skipped unsynchronised in between
};

struct TraceIdSummary {
    uint8_t trace_id = 0;
    uint64_t bytes = 0;  // deformatted bytes of this ID
    uint64_t counts = 0; // count packets decoded
    bool any_count = false;
    uint64_t first_count = 0;
    uint64_t last_count = 0;
    uint64_t gaps = 0;
    uint64_t missing_counts = 0;
    uint64_t disorders = 0; // counts that went backwards or repeated
    uint64_t syncs = 0;
    uint64_t corrupt_packets = 0;
    uint64_t skipped_bytes = 0; // bytes of this ID that could not be decoded
};

struct TraceDecodeStats {
    uint64_t chunks = 0;
    uint64_t aux_bytes = 0;
    uint64_t discontinuities = 0;   // chunks not starting where the previous one ended
    uint64_t aux_missing_bytes = 0; // sum of the forward jumps
    uint64_t misaligned_bytes = 0;  // bytes skipped to reach a frame boundary
    uint64_t corrupt_frames = 0;    // frames with a reserved ID
    uint64_t barriers = 0;          // FSYNC runs of whole frames
    uint64_t fsync_runs = 0;
    DeformatterStats frames; // the deformatter's own counters
    // Bytes that reached no source: no ID known, corrupt frames, cut-off frames, misaligned
    // starts. Padding (null ID) and FSYNCs are not counted: they carry no trace.
    uint64_t undecodable_frame_bytes() const {
        return frames.unattributed_bytes + frames.reserved_id_bytes + frames.partial_bytes +
               misaligned_bytes;
    }
};

class TraceDecoder {
public:
    explicit TraceDecoder(TraceDecoderOptions options = {});
    ~TraceDecoder();
    TraceDecoder(const TraceDecoder&) = delete;
    TraceDecoder& operator=(const TraceDecoder&) = delete;

    // One chunk of AUX data starting at AUX offset aux_offset (free-running, as in
    // PERF_RECORD_AUX / aux_head). Chunks come in order of offset; one that does not start
    // where the previous one ended (a hole, or an overlap) is a discontinuity: every source
    // resynchronises and framing restarts at the next frame boundary.
    void feed(uint64_t aux_offset, const uint8_t* data, size_t size);
    void feed(uint64_t aux_offset, const std::vector<uint8_t>& chunk) {
        feed(aux_offset, chunk.data(), chunk.size());
    }
    // End of the collected data: reports partial frames and packets, and the last count runs.
    void finish();
    // Reports the count runs decoded so far (on_counts) instead of waiting for them to end: a
    // run then comes in pieces, each continuing the last. For a reader that closes its books
    // as the run goes (the AUX checker), which must know every count decoded so far.
    void flush_counts();

    // Sources seen, by ascending trace ID.
    std::vector<TraceIdSummary> summaries() const;
    // Empty if the ID never had a data byte.
    std::optional<TraceIdSummary> summary(uint8_t trace_id) const;
    const std::vector<TraceGap>& gaps() const { return m_gaps; }
    uint64_t gaps_dropped() const { return m_gaps_dropped; }
    const std::vector<uint64_t>& barrier_offsets() const { return m_barrier_offsets; }
    TraceDecodeStats stats() const;

private:
    struct Source;
    class Sink;

    Source& source(uint8_t id);
    void data(uint8_t id, const uint8_t* p, size_t n, uint64_t frame_pos);
    void full_frames(uint8_t id, const uint8_t* f, size_t frames, uint64_t frame_pos);
    bool joins_batch(uint8_t id, uint64_t frame_pos) const;
    void barrier(uint64_t pos, uint64_t count);
    void frame_error(FrameError e);
    void all_sources_lose_sync(bool barrier);
    void record_gap(const Source& s, uint64_t pos, const EtmGap& g);
    void start_chunk(uint64_t aux_offset);
    void feed_batch();
    uint64_t frame_of(uint64_t pos) const;

    // Consecutive frames of a batch holding the same number of bytes each: where the first
    // one's begin in the batch's bytes, and its AUX offset. (A batch is almost always one run
    // of full frames: one entry, not one a frame.)
    struct SameSizeFrames {
        uint64_t offset = 0;    // in the batch's bytes
        uint64_t frame = 0;     // the first frame's AUX offset; the next ones follow it
        uint64_t per_frame = 0; // bytes each
    };
    // Frames of one source gathered for one feed of its decoder (batch_frames): their bytes,
    // where each frame's begin in them, and which next frame may join.
    struct Batch {
        Source* source = nullptr;
        UninitBytes bytes; // [0, size) gathered; past it, room (kept, never zeroed)
        size_t size = 0;
        std::vector<SameSizeFrames> runs;
        uint64_t start_pos = 0; // the decoder's position at bytes[0]
        // A frame's bytes.
        void add(const uint8_t* p, size_t n, uint64_t frame_pos) {
            std::memcpy(room_for(n, n, frame_pos), p, n);
            size += n;
        }
        // n full frames from frame_pos (raw), their data unpacked into the batch.
        void add_full_frames(const uint8_t* f, size_t n, uint64_t frame_pos) {
            // unpack_full_frame writes 16 bytes for 14: room for the last one's 2 more.
            uint8_t* to = room_for(kFullFrameData,
                                   n * kFullFrameData + (kFrameSize - kFullFrameData), frame_pos);
            for (size_t i = 0; i < n; ++i, to += kFullFrameData, size += kFullFrameData)
                unpack_full_frame(f + i * kFrameSize, to);
        }
        // Where frames of per_frame bytes each, from frame_pos, go: `room` bytes past size,
        // in a run of their size.
        uint8_t* room_for(size_t per_frame, size_t room, uint64_t frame_pos) {
            if (runs.empty() || runs.back().per_frame != per_frame)
                runs.push_back({size, frame_pos, per_frame});
            if (size + room > bytes.size())
                bytes.resize(std::max(2 * bytes.size(), size + room + 4096));
            return bytes.data() + size;
        }
        void clear() {
            size = 0;
            runs.clear();
        }
        uint64_t next_frame = 0; // the AUX offset of the frame that may join
        uint64_t until = 0;      // frames from here on do not continue the source's bytes
        // source_offset's answer for the first frame: a frame after one holding other than
        // its bytes_per_frame does not join (without an answer, any may).
        std::optional<SourceRun> run;
    };

    TraceDecoderOptions m_options;
    std::unique_ptr<Sink> m_sink;
    Deformatter m_deformatter;
    std::array<std::unique_ptr<Source>, 128> m_sources;
    Source* m_last_source = nullptr; // the source of the last data() call (frames come in runs)
    uint64_t m_current_frame = 0;    // AUX offset of the frame being unpacked
    Batch m_batch;
    bool m_feeding_batch = false; // the decoder is reading m_batch: positions map to its frames
    bool m_started = false;
    uint64_t m_next_offset = 0;  // AUX offset the next chunk should start at
    uint64_t m_pending_skip = 0; // bytes still to skip to reach a frame boundary
    bool m_any_barrier = false;
    bool m_any_discontinuity = false;
    TraceDecodeStats m_stats;
    std::vector<TraceGap> m_gaps;
    uint64_t m_gaps_dropped = 0;
    std::vector<uint64_t> m_barrier_offsets;
};

} // namespace ringsim::models::coresight
