// AUX chunks -> deformatter -> one ETM decoder per trace ID -> gaps (see trace_decoder.h).
#include "models/coresight/trace_decoder.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace ringsim::models::coresight {

// One trace ID: its ETM decoder and what happened to it since its last count.
struct TraceDecoder::Source : EtmListener {
    Source(TraceDecoder& o, uint8_t trace_id) : owner(o), id(trace_id), decoder(this) {}

    void on_gap(uint64_t pos, const EtmGap& gap) override { owner.record_gap(*this, pos, gap); }
    void on_count(uint64_t pos, uint64_t count) override {
        barrier_since_count = false;
        discontinuity_since_count = false;
        if (pos < seam) { // the packet's bytes straddle a jump in the source
            if (owner.m_options.on_spliced) owner.m_options.on_spliced(id, count);
            return;
        }
        // Consecutive counts are reported as one run (per packet would cost more than the
        // decoding itself).
        if (run_n && count == run_first + run_n) {
            ++run_n;
        } else {
            flush_run();
            run_first = count;
            run_n = 1;
        }
    }
    void on_counts(uint64_t pos, uint64_t first, uint64_t n) override {
        if (pos < seam) { // a packet may be spliced: each as on_count sees it
            EtmListener::on_counts(pos, first, n);
            return;
        }
        barrier_since_count = false;
        discontinuity_since_count = false;
        if (run_n && first == run_first + run_n) {
            run_n += n;
        } else {
            flush_run();
            run_first = first;
            run_n = n;
        }
    }
    void flush_run() {
        if (run_n && owner.m_options.on_counts) owner.m_options.on_counts(id, run_first, run_n);
        run_n = 0;
    }
    uint64_t run_first = 0, run_n = 0;
    // Splice detection (TraceDecoderOptions::source_offset): the frame of the last bytes fed
    // and how many of its bytes, the source offset that must come next when a packet is open
    // (next_src_known), and the stream position of the last jump inside a packet.
    uint64_t frame = UINT64_MAX, frame_bytes = 0;
    bool next_src_known = false;
    uint64_t next_src = 0;
    uint64_t seam = 0;

    TraceDecoder& owner;
    uint8_t id;
    EtmDecoder decoder;
    uint64_t bytes = 0;
    bool barrier_since_count = false;
    bool discontinuity_since_count = false;
};

// The deformatter's events, forwarded to the decoder's private handlers.
class TraceDecoder::Sink : public DeformatterSink {
public:
    explicit Sink(TraceDecoder& owner) : m_owner(owner) {}
    void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t frame_pos) override {
        m_owner.data(id, data, n, frame_pos);
    }
    void on_full_frames(uint8_t id, const uint8_t* f, size_t frames, uint64_t frame_pos) override {
        m_owner.full_frames(id, f, frames, frame_pos);
    }
    void on_fsync(uint64_t pos, uint64_t count) override { m_owner.barrier(pos, count); }
    void on_frame_error(uint64_t /*pos*/, FrameError e, uint64_t /*bytes*/) override {
        m_owner.frame_error(e);
    }

private:
    TraceDecoder& m_owner;
};

TraceDecoder::TraceDecoder(TraceDecoderOptions options)
    : m_options(options), m_sink(std::make_unique<Sink>(*this)), m_deformatter(*m_sink) {}

TraceDecoder::~TraceDecoder() = default;

TraceDecoder::Source& TraceDecoder::source(uint8_t id) {
    auto& slot = m_sources[id & 0x7f];
    if (!slot) {
        slot = std::make_unique<Source>(*this, id);
        // "Since its last count" is "since the start" for a source not seen before.
        slot->barrier_since_count = m_any_barrier;
        slot->discontinuity_since_count = m_any_discontinuity;
        if (m_options.check_first_count) slot->decoder.expect_next(m_options.first_count);
    }
    return *slot;
}

void TraceDecoder::feed(uint64_t aux_offset, const uint8_t* data, size_t size) {
    ++m_stats.chunks;
    m_stats.aux_bytes += size;
    if (!m_started || aux_offset != m_next_offset) start_chunk(aux_offset);
    m_next_offset = aux_offset + size;
    // After a jump, bytes before the next frame boundary cannot be framed.
    const size_t skip = static_cast<size_t>(std::min<uint64_t>(m_pending_skip, size));
    m_pending_skip -= skip;
    m_stats.misaligned_bytes += skip;
    if (size > skip) m_deformatter.feed(data + skip, size - skip);
    // A batch never outlives the chunk, so that every count, gap and summary is up to date
    // when feed() returns.
    feed_batch();
}

// The chunk does not continue the bytes before it (or is the first): frame state and every
// source's packet state are void; framing restarts at the next frame boundary.
void TraceDecoder::start_chunk(uint64_t aux_offset) {
    if (m_started) {
        ++m_stats.discontinuities;
        if (aux_offset > m_next_offset) m_stats.aux_missing_bytes += aux_offset - m_next_offset;
        all_sources_lose_sync(false);
    }
    m_started = true;
    uint64_t boundary = aux_offset;
    if (m_options.frame_align != 0) {
        const uint64_t rem = aux_offset % m_options.frame_align;
        if (rem != 0) boundary += m_options.frame_align - rem;
    }
    m_pending_skip = boundary - aux_offset;
    m_deformatter.reset(boundary);
}

// One frame's bytes of `id` (or part of them: the deformatter's general path may split a
// frame among IDs). Splice detection asks, for the first bytes of a batch, whether they go on
// from the open packet's bytes in the source; inside a batch they do by construction (a frame
// joins only within its first frame's SourceRun, after a frame holding exactly its bytes per
// frame), so feeding the batch at once finds the same seams as feeding frame by frame.
void TraceDecoder::data(uint8_t id, const uint8_t* p, size_t n, uint64_t frame_pos) {
    Batch& b = m_batch;
    if (joins_batch(id, frame_pos)) {
        Source& s = *b.source;
        b.add(p, n, frame_pos);
        b.next_frame = frame_pos + kFrameSize;
        s.bytes += n;
        s.frame = frame_pos;
        s.frame_bytes = n;
        return;
    }
    feed_batch();
    m_current_frame = frame_pos;
    Source& s = m_last_source && m_last_source->id == id ? *m_last_source : source(id);
    m_last_source = &s;
    s.bytes += n;
    if (frame_pos != s.frame) {
        s.frame = frame_pos;
        s.frame_bytes = 0;
    }
    const auto& where = m_options.source_offset;
    std::optional<SourceRun> run;
    if (where) run = where(id, frame_pos);
    // A packet left open by earlier bytes goes on with these: do they follow those in the
    // source?
    if (run && s.next_src_known && s.decoder.mid_packet() &&
        run->offset + s.frame_bytes != s.next_src)
        s.seam = s.decoder.position();
    s.next_src_known = false;

    b.source = &s;
    b.clear();
    b.add(p, n, frame_pos);
    b.start_pos = s.decoder.position();
    b.next_frame = frame_pos + kFrameSize;
    b.run = run;
    // Without source offsets no seam is looked for: any next frame of the ID may join.
    // With them, only frames the run covers, each after a frame holding the run's bytes per
    // frame (a run of 0 bytes per frame covers nothing).
    b.until = !m_options.batch_frames            ? 0
              : !where                           ? UINT64_MAX
              : run && run->bytes_per_frame != 0 ? run->until
                                                 : 0;
    s.frame_bytes += n;
}

// Whether the frame of `id` at frame_pos joins the batch: the next frame after the batch's,
// of its source, and before its run's end, after a frame holding the run's bytes per frame.
bool TraceDecoder::joins_batch(uint8_t id, uint64_t frame_pos) const {
    const Batch& b = m_batch;
    return b.source && b.source->id == id && frame_pos == b.next_frame && frame_pos < b.until &&
           (!b.run || b.source->frame_bytes == b.run->bytes_per_frame);
}

// Full frames of `id` from frame_pos (DeformatterSink::on_full_frames): what data() does
// with each, with the frames that join the batch unpacked straight into it.
void TraceDecoder::full_frames(uint8_t id, const uint8_t* f, size_t frames, uint64_t frame_pos) {
    while (frames > 0) {
        Batch& b = m_batch;
        if (joins_batch(id, frame_pos)) {
            // data()'s join, for as many as may: the frames before `until`, and after the
            // first only while a frame holding the run's bytes per frame is a full one.
            // Rounded up: a frame that begins before `until` joins (as in data()), and so
            // j >= 1, since joins_batch() holds frame_pos < until.
            const uint64_t left = b.until - frame_pos;
            uint64_t j = std::min<uint64_t>(frames, left / kFrameSize + (left % kFrameSize != 0));
            if (b.run && b.run->bytes_per_frame != kFullFrameData) j = 1;
            b.add_full_frames(f, j, frame_pos);
            Source& s = *b.source;
            s.bytes += j * kFullFrameData;
            s.frame = frame_pos + (j - 1) * kFrameSize;
            s.frame_bytes = kFullFrameData;
            b.next_frame = frame_pos + j * kFrameSize;
            f += j * kFrameSize;
            frame_pos += j * kFrameSize;
            frames -= j;
            continue;
        }
        uint8_t out[kFrameSize];
        unpack_full_frame(f, out);
        data(id, out, kFullFrameData, frame_pos);
        f += kFrameSize;
        frame_pos += kFrameSize;
        --frames;
    }
}

// Feeds the batch to its source's decoder; then, if a packet is open, where its next bytes
// must start in the source (the batch's last frame's offset, by its run, plus what it held).
void TraceDecoder::feed_batch() {
    Batch& b = m_batch;
    if (!b.source) return;
    Source& s = *b.source;
    m_feeding_batch = true;
    s.decoder.feed(b.bytes.data(), b.size);
    m_feeding_batch = false;
    const uint64_t last = b.next_frame - kFrameSize; // every frame joined at next_frame
    m_current_frame = last;
    if (b.run && s.decoder.mid_packet()) {
        const uint64_t frames_after = (last - b.runs.front().frame) / kFrameSize;
        s.next_src = b.run->offset + frames_after * b.run->bytes_per_frame + s.frame_bytes;
        s.next_src_known = true;
    }
    b.source = nullptr;
}

// The AUX offset of the frame holding the byte at decoder position pos: in the batch being
// fed, the frame it came from; else the frame being unpacked.
uint64_t TraceDecoder::frame_of(uint64_t pos) const {
    const Batch& b = m_batch;
    if (!m_feeding_batch || pos < b.start_pos) return m_current_frame;
    const uint64_t at = pos - b.start_pos;
    auto it = std::upper_bound(b.runs.begin(), b.runs.end(), at,
                               [](uint64_t v, const SameSizeFrames& r) { return v < r.offset; });
    const SameSizeFrames& r = *std::prev(it);
    if (r.per_frame == 0) return r.frame;
    // Past the batch's bytes, its last frame (as the frame list this replaced gave).
    return std::min(r.frame + (at - r.offset) / r.per_frame * kFrameSize,
                    b.next_frame - kFrameSize);
}

void TraceDecoder::barrier(uint64_t pos, uint64_t count) {
    feed_batch();
    if (count % (kFrameSize / kFsyncSize) == 0 && m_barrier_offsets.size() < m_options.max_barriers)
        m_barrier_offsets.push_back(pos);
    all_sources_lose_sync(true);
}

void TraceDecoder::frame_error(FrameError e) {
    feed_batch();
    // An FSYNC run is handled by barrier(); the others lose bytes of unknown sources.
    if (e != FrameError::kFsyncRunNotFrames) all_sources_lose_sync(false);
}

void TraceDecoder::all_sources_lose_sync(bool barrier) {
    (barrier ? m_any_barrier : m_any_discontinuity) = true;
    for (auto& s : m_sources) {
        if (!s) continue;
        s->decoder.discontinuity();
        s->next_src_known = false;
        if (barrier) {
            s->barrier_since_count = true;
        } else {
            s->discontinuity_since_count = true;
        }
    }
}

// pos: where the count packet that showed the gap starts in the source's decoded stream; the
// gap is placed at the frame holding its last byte.
void TraceDecoder::record_gap(const Source& s, uint64_t pos, const EtmGap& g) {
    if (m_gaps.size() >= m_options.max_gaps) {
        ++m_gaps_dropped;
        return;
    }
    TraceGap gap;
    gap.trace_id = s.id;
    gap.first_missing = g.first_missing;
    gap.missing = g.missing;
    gap.aux_offset = frame_of(pos + kCountPacketSize - 1);
    gap.after_barrier = s.barrier_since_count;
    gap.after_discontinuity = s.discontinuity_since_count;
    gap.after_sync = g.after_sync;
    gap.skipped_bytes = g.skipped_bytes;
    m_gaps.push_back(gap);
}

void TraceDecoder::finish() {
    m_deformatter.finish();
    feed_batch();
    for (auto& s : m_sources)
        if (s) {
            s->decoder.finish();
            s->flush_run();
        }
}

void TraceDecoder::flush_counts() {
    for (auto& s : m_sources)
        if (s) s->flush_run();
}

namespace {
TraceIdSummary summarise(uint8_t id, uint64_t bytes, const EtmStats& e) {
    TraceIdSummary s;
    s.trace_id = id;
    s.bytes = bytes;
    s.counts = e.counts;
    s.any_count = e.any_count;
    s.first_count = e.first_count;
    s.last_count = e.last_count;
    s.gaps = e.gaps;
    s.missing_counts = e.missing_counts;
    s.disorders = e.disorders;
    s.syncs = e.syncs;
    s.corrupt_packets = e.corruptions;
    s.skipped_bytes = e.skipped_bytes;
    return s;
}
} // namespace

std::vector<TraceIdSummary> TraceDecoder::summaries() const {
    std::vector<TraceIdSummary> out;
    for (const auto& s : m_sources)
        if (s) out.push_back(summarise(s->id, s->bytes, s->decoder.stats()));
    return out;
}

std::optional<TraceIdSummary> TraceDecoder::summary(uint8_t trace_id) const {
    const auto& s = m_sources[trace_id & 0x7f];
    if (!s) return std::nullopt;
    return summarise(s->id, s->bytes, s->decoder.stats());
}

TraceDecodeStats TraceDecoder::stats() const {
    TraceDecodeStats s = m_stats;
    s.frames = m_deformatter.stats();
    s.corrupt_frames = s.frames.reserved_id_frames;
    s.barriers = s.frames.barriers;
    s.fsync_runs = s.frames.fsync_runs;
    return s;
}

} // namespace ringsim::models::coresight
