// Frame -> source bytes log of one ETR capture (see etr_frame_log.h for the model).
#include "models/coresight/etr_frame_log.h"

#include "models/common/le.h"
#include "models/common/types.h"
#include "models/coresight/formatter.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ringsim::models::coresight {

namespace {

constexpr size_t kAux = 15;

inline uint8_t id_byte(uint8_t id) {
    return static_cast<uint8_t>((id << 1) | 1);
}

// A full frame: ID in slot 0, data in slots 1..14. Data byte j sits in slot j+1; the even
// slots 2k (k = 1..7) keep bits 7:1 and their bit 0 goes to bit k of byte 15. Built as two
// words (slots 0..7, 8..15): harvests write megabytes of these.
inline void pack_full(uint8_t idb, const uint8_t* d, uint8_t* f) {
    uint64_t lo = uint64_t{idb} | load_le64(d) << 8; // slot 0, data 0..6 in slots 1..7
    uint64_t hi = load_le64(d + 6) >> 8;             // data 7..13 in slots 8..14, slot 15 = 0
    // Bit 0 of the even data slots: 2, 4, 6 at bits 16, 32, 48 of lo; 8, 10, 12, 14 at bits
    // 0, 16, 32, 48 of hi. Multiplying by kGather moves the bit at 16i to bit 48+i (every other
    // product lands below bit 48 or past bit 63, each at a bit of its own: no carries).
    constexpr uint64_t kLoFlags = 0x0001000100010000ULL, kHiFlags = 0x0001000100010001ULL;
    constexpr uint64_t kGather =
        (uint64_t{1} << 48) | (uint64_t{1} << 33) | (uint64_t{1} << 18) | (uint64_t{1} << 3);
    const uint64_t aux = (((lo & kLoFlags) * kGather >> 48) & 0xe) |     // slots 2..6: bits 1..3
                         (((hi & kHiFlags) * kGather >> 48) & 0xf) << 4; // slots 8..14: 4..7
    lo &= ~kLoFlags;
    hi = (hi & ~kHiFlags) | aux << 56;
    store_le64(f, lo);
    store_le64(f + 8, hi);
}

uint64_t frames_for(uint64_t bytes) {
    return (bytes + kFrameSourceBytes - 1) / kFrameSourceBytes;
}

} // namespace

void pack_source_frame(uint8_t trace_id, const uint8_t* data, size_t m, uint8_t* out) {
    if (m == kFrameSourceBytes) {
        pack_full(id_byte(trace_id), data, out);
        return;
    }
    // FrameEncoder::write then flush: ID (at once) in slot 0, data in slots 1..m, then the null
    // ID in the next even slot (slot m+1 if even, else slot m with "after the next byte", the
    // data byte it displaces moving to slot m+1), then zero data to slot 14.
    uint8_t aux = 0;
    out[0] = id_byte(trace_id);
    for (size_t j = 0; j < m; ++j) {
        const size_t slot = j + 1;
        if (slot % 2 == 1) {
            out[slot] = data[j];
        } else {
            out[slot] = static_cast<uint8_t>(data[j] & 0xfe);
            aux = static_cast<uint8_t>(aux | ((data[j] & 1u) << (slot / 2)));
        }
    }
    size_t pos = m + 1;
    if (pos % 2 == 0) {
        out[pos++] = id_byte(kNullTraceId);
    } else {
        out[m] = id_byte(kNullTraceId);
        aux = static_cast<uint8_t>(aux | (1u << (m / 2)));
        out[pos++] = data[m - 1];
    }
    for (; pos < kFrameDataSlots; ++pos)
        out[pos] = 0x00;
    out[kAux] = aux;
}

uint64_t EtrFrameLog::append(uint8_t trace_id, uint64_t src_off, uint64_t n) {
    if (!is_source_trace_id(trace_id))
        throw ModelError("EtrFrameLog: append with trace ID " + std::to_string(trace_id) +
                         ", not a source ID");
    if (n == 0) return 0;
    const uint64_t added = frames_for(n);
    if (!m_runs.empty()) {
        FrameRun& last = m_runs.back();
        if (last.trace_id == trace_id && last.src_off + last.src_bytes == src_off &&
            last.src_bytes % kFrameSourceBytes == 0) {
            last.src_bytes += n;
            last.frames += added;
            m_frames += added;
            return added;
        }
    }
    m_runs.push_back(FrameRun{m_frames, added, trace_id, src_off, n});
    m_frames += added;
    return added;
}

void EtrFrameLog::drop_newest(uint64_t frames, std::vector<FrameRun>& out) {
    if (frames > m_frames - m_forgotten)
        throw ModelError("EtrFrameLog: drop of " + std::to_string(frames) + " frames, only " +
                         std::to_string(m_frames - m_forgotten) + " held");
    const size_t first_new = out.size();
    uint64_t left = frames;
    while (left > 0) {
        FrameRun& last = m_runs.back();
        if (last.frames <= left) {
            out.push_back(last);
            left -= last.frames;
            m_runs.pop_back();
            continue;
        }
        // Split: the frames kept are all full.
        const uint64_t keep = last.frames - left;
        const uint64_t kept_bytes = keep * kFrameSourceBytes;
        out.push_back(FrameRun{last.first_frame + keep, left, last.trace_id,
                               last.src_off + kept_bytes, last.src_bytes - kept_bytes});
        last.frames = keep;
        last.src_bytes = kept_bytes;
        left = 0;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first_new), out.end());
    m_frames -= frames;
}

void EtrFrameLog::check_range(uint64_t first, uint64_t n, const char* what) const {
    if (first < m_forgotten || first > m_frames || n > m_frames - first)
        throw ModelError(std::string("EtrFrameLog: ") + what + " of frames [" +
                         std::to_string(first) + ", +" + std::to_string(n) + ") outside [" +
                         std::to_string(m_forgotten) + ", " + std::to_string(m_frames) + ")");
}

template <typename F> void EtrFrameLog::for_each_clipped(uint64_t first, uint64_t n, F&& f) const {
    if (n == 0) return;
    const uint64_t end = first + n;
    auto it = m_runs.begin() + std::ptrdiff_t(last_run_from(first));
    for (; it != m_runs.end() && it->first_frame < end; ++it) {
        const FrameRun& r = *it;
        const uint64_t a = std::max(first, r.first_frame);
        const uint64_t b = std::min(end, r.first_frame + r.frames);
        const uint64_t skipped = (a - r.first_frame) * kFrameSourceBytes;
        f(FrameRun{a, b - a, r.trace_id, r.src_off + skipped,
                   std::min(r.src_bytes - skipped, (b - a) * kFrameSourceBytes)});
    }
}

size_t EtrFrameLog::last_run_from(uint64_t frame) const {
    // m_runs covers [first_kept(), frames()) without holes: such a run exists.
    auto is_it = [this, frame](size_t i) {
        return i < m_runs.size() && m_runs[i].first_frame <= frame &&
               (i + 1 == m_runs.size() || m_runs[i + 1].first_frame > frame);
    };
    for (const size_t i : {m_hint, m_hint + 1})
        if (is_it(i)) return m_hint = i;
    const auto it =
        std::upper_bound(m_runs.begin(), m_runs.end(), frame,
                         [](uint64_t fr, const FrameRun& r) { return fr < r.first_frame; });
    return m_hint = size_t(it - m_runs.begin()) - 1;
}

const FrameRun* EtrFrameLog::run_of(uint64_t frame, uint8_t id) const {
    uint64_t same_until = 0;
    return run_of(frame, id, same_until);
}

const FrameRun* EtrFrameLog::run_of(uint64_t frame, uint8_t id, uint64_t& same_until) const {
    check_range(frame, 1, "run_of");
    // The runs runs_in(frame, 1) visits: from the last one starting at or before it, which
    // is the only one (every run after it starts after the frame). Up to the next run's
    // first frame, it stays the last one starting at or before each frame.
    const size_t i = last_run_from(frame);
    same_until = i + 1 < m_runs.size() ? m_runs[i + 1].first_frame : m_frames;
    return m_runs[i].trace_id == id ? &m_runs[i] : nullptr;
}

void EtrFrameLog::runs_in(uint64_t first, uint64_t n, std::vector<FrameRun>& out) const {
    check_range(first, n, "runs_in");
    for_each_clipped(first, n, [&](const FrameRun& r) { out.push_back(r); });
}

void EtrFrameLog::forget_before(uint64_t frame) {
    frame = std::min(frame, m_frames);
    if (frame <= m_forgotten) return;
    m_forgotten = frame;
    while (!m_runs.empty() && m_runs.front().first_frame + m_runs.front().frames <= frame)
        m_runs.pop_front();
}

void EtrFrameLog::materialize(uint64_t first, uint64_t n,
                              const std::function<const EtmStream&(uint8_t)>& stream_of,
                              uint8_t* out) const {
    check_range(first, n, "materialize");
    constexpr uint64_t kChunkFrames = 512;
    uint8_t buf[kChunkFrames * kFrameSourceBytes];
    for_each_clipped(first, n, [&](const FrameRun& r) {
        const EtmStream& stream = stream_of(r.trace_id);
        const uint8_t idb = id_byte(r.trace_id);
        uint64_t src = r.src_off;
        uint64_t full = r.src_bytes / kFrameSourceBytes;
        while (full > 0) {
            const uint64_t k = std::min(full, kChunkFrames);
            stream.read(src, k * kFrameSourceBytes, buf);
            for (uint64_t i = 0; i < k; ++i, out += kFrameSize)
                pack_full(idb, buf + i * kFrameSourceBytes, out);
            src += k * kFrameSourceBytes;
            full -= k;
        }
        const uint64_t rem = r.src_bytes % kFrameSourceBytes;
        if (rem != 0) {
            stream.read(src, rem, buf);
            pack_source_frame(r.trace_id, buf, rem, out);
            out += kFrameSize;
        }
    });
}

void EtrFrameLog::clear() {
    m_runs.clear();
    m_frames = 0;
    m_forgotten = 0;
}

} // namespace ringsim::models::coresight
