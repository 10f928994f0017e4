// The CoreSight trace formatter (TMC with FFCR.EnFt set, "formatted" mode) and a deformatter.
//
// Models the 16-byte frame of the CoreSight Architecture Specification (IHI0029, "Trace
// Formatter"), as written by a TMC-ETR into its buffer and read back by OpenCSD
// (trc_frame_deformatter.cpp, memory-aligned mode with OCSD_DFRMTR_RESET_ON_4X_FSYNC, the
// mode perf's cs-etm uses for an ETR):
//  - bytes 0..14: even bytes are an ID (bit 0 = 1, new trace ID in bits 7:1) or a data byte
//    (bit 0 = 0, bits 7:1 of the data; its bit 0 is in byte 15); odd bytes are always data;
//  - byte 15: bit k is the auxiliary bit of byte 2k. For a data byte it is the data's bit 0;
//    for an ID byte 1 means "the new ID takes effect after the next byte" (the odd byte that
//    follows still belongs to the previous ID), 0 means at once. Bit 7 for an ID in byte 14
//    has no following byte and is written 0, ignored on read;
//  - trace IDs: 0x00 null (padding, discarded), 0x01-0x6F sources, 0x7B flush response and
//    0x7D trigger (counted, not delivered), other 0x70-0x7F reserved (frame reported corrupt);
//  - FSYNC: the 32-bit word 0x7FFFFFFF (bytes FF FF FF 7F) at a frame boundary; never a valid
//    frame start since ID 0x7F is reserved. Four of them are the 16-byte barrier packet the
//    Linux driver writes over the first frame of a truncated capture (coresight-core.c
//    coresight_barrier_pkt / coresight_insert_barrier_packet); the deformatter then forgets the
//    current ID, as OpenCSD resets on 4 x FSYNC.
// Encoder choices (documented simplifications):
//  - flush() completes a partial frame as the TMC completes its last frame on a flush, with the
//    null ID the architecture reserves for padding: ID 0x00 in the next even slot (with "after
//    the next byte" when the slot before the end held data) then 0x00 data up to byte 14. The
//    exact filler bytes of a real TMC were not checked against its TRM. Until flush() a partial
//    frame stays pending inside the encoder, so write() only ever appends whole frames.
//  - FormatterOptions::id_every_frame (default on) repeats the current ID in byte 0 of every
//    frame, so that any frame can be decoded without the ones before it (after a barrier or an
//    ETR wrap). Whether a given TMC does this is not confirmed; with it off an ID is written
//    only when the source changes (and after flush()/reset()).
// Deformatter choices: a frame with a reserved ID is dropped whole and reported (OpenCSD only
// counts such bytes), since it cannot come from a formatter; an FSYNC run that is not a
// multiple of 4 is reported and framing continues after it (OpenCSD stops with an error).
// Leaves out: continuous (TPIU) mode with FSYNC/HSYNC insertion, triggers (FFCR.EnTI would
// insert ID 0x7D), flush responses, ATB byte lanes and wider ETR memory widths (32-byte
// alignment); a frame is the unit of everything here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringsim::models::coresight {

constexpr size_t kFrameSize = 16;
constexpr size_t kFrameDataSlots = 15;
constexpr size_t kFsyncSize = 4;
constexpr size_t kBarrierSize = 16; // CORESIGHT_BARRIER_PKT_SIZE
constexpr uint32_t kFsyncWord = 0x7fffffff;

constexpr uint8_t kNullTraceId = 0x00;
constexpr uint8_t kFlushResponseId = 0x7b;
constexpr uint8_t kTriggerId = 0x7d;
constexpr uint8_t kMaxSourceTraceId = 0x6f; // CORESIGHT_TRACE_ID_RES_TOP - 1

inline bool is_source_trace_id(uint8_t id) {
    return id >= 1 && id <= kMaxSourceTraceId;
}

// coresight_insert_barrier_packet: four little-endian u32 0x7fffffff at dst[0..15].
void insert_barrier_packet(uint8_t* dst);
// True when p[0..3] is an FSYNC.
bool is_fsync(const uint8_t* p);

struct FormatterOptions {
    bool id_every_frame = true;
};

// Packs (trace ID, bytes) writes from several sources into whole frames.
class FrameEncoder {
public:
    explicit FrameEncoder(FormatterOptions options = {}) : m_options(options) {}

    // Appends every frame completed by these bytes. False (nothing written) when `id` is not
    // a source trace ID (0x01-0x6F).
    bool write(uint8_t id, const uint8_t* data, size_t n, std::vector<uint8_t>& out);
    bool write(uint8_t id, const std::vector<uint8_t>& data, std::vector<uint8_t>& out) {
        return write(id, data.data(), data.size(), out);
    }
    // Completes a partial frame with the null ID and zero data; no-op at a frame boundary.
    void flush(std::vector<uint8_t>& out);
    // Formatter (re)start, e.g. TraceCaptEn set again: drops a partial frame, forgets the ID.
    void reset();

    size_t pending_slots() const { return m_pos; } // bytes 0..14 used by the partial frame
    uint64_t frames() const { return m_frames; }
    // Slots flush() filled: the null ID and its zero data.
    uint64_t padding_bytes() const { return m_padding; }

private:
    void put(uint8_t id, uint8_t b, std::vector<uint8_t>& out);
    void change_id(uint8_t id);
    void put_data(uint8_t b);
    void end_frame_if_full(std::vector<uint8_t>& out);

    FormatterOptions m_options;
    uint8_t m_frame[kFrameSize] = {};
    size_t m_pos = 0;  // next slot, 0..14
    int m_cur_id = -1; // ID in effect for the next data byte; -1 none yet
    uint64_t m_frames = 0;
    uint64_t m_padding = 0;
};

enum class FrameError : uint8_t {
    kReservedId,        // an ID byte with a reserved ID (0x70-0x7F but 0x7B, 0x7D)
    kFsyncRunNotFrames, // a run of FSYNCs that is not a whole number of frames
    kPartialFrame,      // bytes that end (or are cut off) before a whole frame
};
const char* to_string(FrameError e);

// Data bytes of a frame of one ID given in slot 0: the other 14 slots but the flag byte.
constexpr size_t kFullFrameData = kFrameDataSlots - 1;

// A frame with its ID in slot 0, taking effect at once, and data in slots 1..14: its data
// bytes to out[0..13], out[14..15] zeroed (16 bytes written). The frame must be of that kind
// (DeformatterSink::on_full_frames hands only those).
void unpack_full_frame(const uint8_t* f, uint8_t* out);

// Receives what the deformatter finds. Positions are stream offsets (see Deformatter).
class DeformatterSink {
public:
    virtual ~DeformatterSink() = default;
    // Data bytes of source `id` from the frame at frame_pos, in order. A frame gives one call
    // per run of bytes of the same ID.
    virtual void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t frame_pos) = 0;
    // `frames` frames one after another from frame_pos (raw, kFrameSize bytes each), each
    // of the kind ringsim's formatter writes almost always: source `id` in slot 0 taking
    // effect at once and kFullFrameData data bytes (unpack_full_frame). By default, each
    // unpacked and handed to on_data; a sink may take the run at once.
    virtual void on_full_frames(uint8_t id, const uint8_t* f, size_t frames, uint64_t frame_pos);
    // `count` consecutive FSYNCs starting at pos; count % 4 == 0 is a (run of) barrier(s).
    virtual void on_fsync(uint64_t pos, uint64_t count) {}
    virtual void on_frame_error(uint64_t pos, FrameError e, uint64_t bytes) {}
    // Data bytes whose ID is unknown (no ID since the start, a reset or a barrier).
    virtual void on_unattributed(uint64_t frame_pos, size_t n) {}
};

struct DeformatterStats {
    uint64_t frames = 0;
    uint64_t fsyncs = 0;
    uint64_t fsync_runs = 0;
    uint64_t barriers = 0; // FSYNC runs that are whole frames
    uint64_t source_bytes = 0;
    uint64_t null_bytes = 0;
    uint64_t special_bytes = 0; // flush response / trigger
    uint64_t unattributed_bytes = 0;
    uint64_t reserved_id_frames = 0;
    uint64_t reserved_id_bytes = 0;
    uint64_t partial_bytes = 0;
    uint64_t id_bytes = 0;
};

// Turns frames back into per-ID byte streams. Frames start at stream offset 0 and every 16
// bytes after, except that an FSYNC at a frame boundary takes 4 bytes. feed() accepts any
// chunking; reset() marks a discontinuity.
class Deformatter {
public:
    explicit Deformatter(DeformatterSink& sink) : m_sink(sink) {}

    void feed(const uint8_t* data, size_t n);
    void feed(const std::vector<uint8_t>& data) { feed(data.data(), data.size()); }
    // The next byte fed is at stream offset pos and does not continue the previous bytes: a
    // partial frame is dropped (reported) and the current ID is forgotten.
    void reset(uint64_t pos);
    // End of stream: reports a partial frame and closes an FSYNC run.
    void finish();

    uint64_t position() const { return m_pos; }
    const DeformatterStats& stats() const { return m_stats; }

private:
    size_t take_fsyncs(const uint8_t* p, size_t n);
    void close_fsync_run();
    void drop_partial();
    void unpack(const uint8_t* f, uint64_t frame_pos);

    DeformatterSink& m_sink;
    uint64_t m_pos = 0; // stream offset of the next byte fed
    int m_cur_id = -1;  // -1: unknown
    uint8_t m_buf[kFrameSize] = {};
    size_t m_have = 0; // bytes of a frame (or FSYNC) gathered across feed() calls
    uint64_t m_fsync_run = 0;
    uint64_t m_fsync_run_pos = 0;
    DeformatterStats m_stats;
};

} // namespace ringsim::models::coresight
