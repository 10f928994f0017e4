// CoreSight formatter frames: encoder (what the TMC writes) and deformatter (what OpenCSD
// reads). Formats and the choices made are described in formatter.h.
#include "models/coresight/formatter.h"

#include "models/common/le.h"

#include <algorithm>
#include <cstddef>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ringsim::models::coresight {

using models::load_le64;

namespace {
constexpr size_t kAuxByte = 15;
constexpr size_t kLastSlot = 14;

uint8_t id_byte(uint8_t id) {
    return static_cast<uint8_t>((id << 1) | 1);
}

bool is_reserved_id(int id) {
    return id >= 0x70 && id != kFlushResponseId && id != kTriggerId;
}

void set_aux_bit(uint8_t* frame, size_t slot, bool value) {
    const auto bit = static_cast<uint8_t>(1u << (slot / 2));
    frame[kAuxByte] = value ? (frame[kAuxByte] | bit) : (frame[kAuxByte] & ~bit);
}

bool aux_bit(const uint8_t* frame, size_t slot) {
    return ((frame[kAuxByte] >> (slot / 2)) & 1) != 0;
}

[[maybe_unused]] void store_le64(uint64_t w, uint8_t* p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    std::memcpy(p, &w, sizeof w);
}

// Bits 0..3 of v moved to bit 0 of bytes 1, 3, 5, 7.
constexpr uint64_t spread4(unsigned v) {
    return (uint64_t{v & 1u} << 8) | (uint64_t{(v >> 1) & 1u} << 24) |
           (uint64_t{(v >> 2) & 1u} << 40) | (uint64_t{(v >> 3) & 1u} << 56);
}
[[maybe_unused]] constexpr uint64_t kSpread4[16] = {
    spread4(0),  spread4(1),  spread4(2),  spread4(3), spread4(4),  spread4(5),
    spread4(6),  spread4(7),  spread4(8),  spread4(9), spread4(10), spread4(11),
    spread4(12), spread4(13), spread4(14), spread4(15)};

// The frame ringsim's formatter model writes almost always (etr_frame_log.h): an ID that is
// not reserved in slot 0 taking effect at once, then 14 data bytes (no other ID byte). Returns
// the ID, or -1 for any other frame.
int full_frame_id(const uint8_t* f) {
    const uint64_t lo = load_le64(f);     // bytes 0..7
    const uint64_t hi = load_le64(f + 8); // bytes 8..15
    // ID flag (bit 0) of slot 0 set, of slots 2..14 clear, aux bit of slot 0 clear.
    if ((lo & 0x0001000100010001ULL) != 1 || (hi & 0x0101000100010001ULL) != 0) return -1;
    const int id = static_cast<int>((lo & 0xff) >> 1);
    return is_reserved_id(id) ? -1 : id;
}

// The same kind of frame with the same ID byte as the one before it.
bool same_full_frame(const uint8_t* f, uint8_t id_byte) {
    return (load_le64(f) & 0x00010001000100ffULL) == id_byte &&
           (load_le64(f + 8) & 0x0101000100010001ULL) == 0;
}

// unpack_full_frame, and its ID (-1: not such a frame, nothing written).
int unpack_one_id_frame(const uint8_t* f, uint8_t* out) {
    const int id = full_frame_id(f);
    if (id >= 0) unpack_full_frame(f, out);
    return id;
}
} // namespace

void unpack_full_frame(const uint8_t* f, uint8_t* out) {
#if defined(__SSE2__) && !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
    // Bit k of the aux byte (slot 15) back to bit 0 of slot 2k (k = 1..7): the aux byte in
    // every slot, each even slot 2..14 keeping its own bit, that bit made 1 or 0.
    const __m128i bit_of_slot = _mm_setr_epi8(0, 0, 2, 0, 4, 0, 8, 0, 16, 0, 32, 0, 64, 0, -128, 0);
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(f));
    const __m128i aux = _mm_set1_epi8(static_cast<char>(f[kAuxByte]));
    const __m128i flags = _mm_min_epu8(_mm_and_si128(aux, bit_of_slot), _mm_set1_epi8(1));
    // Slots 1..14 to out[0..13]; the aux byte, shifted to out[14], and out[15] zeroed.
    const __m128i keep =
        _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm_and_si128(_mm_srli_si128(_mm_or_si128(x, flags), 1), keep));
#else
    const uint64_t lo = load_le64(f);
    const uint64_t hi = load_le64(f + 8);
    // Data: slots 1..14, each even slot's bit 0 from the aux byte (bit k for slot 2k).
    const auto aux = static_cast<unsigned>(hi >> 56);
    const uint64_t w0 = (lo >> 8) | (hi << 56) | kSpread4[(aux >> 1) & 15];         // slots 1..8
    const uint64_t w1 = ((hi >> 8) & 0xffffffffffffULL) | kSpread4[(aux >> 5) & 7]; // slots 9..14
    store_le64(w0, out);
    store_le64(w1, out + 8);
#endif
}

void DeformatterSink::on_full_frames(uint8_t id, const uint8_t* f, size_t frames,
                                     uint64_t frame_pos) {
    uint8_t out[kFrameSize];
    for (size_t i = 0; i < frames; ++i, f += kFrameSize, frame_pos += kFrameSize) {
        unpack_full_frame(f, out);
        on_data(id, out, kFullFrameData, frame_pos);
    }
}

void insert_barrier_packet(uint8_t* dst) {
    for (size_t i = 0; i < kBarrierSize; i += kFsyncSize) {
        dst[i] = 0xff; // little-endian u32 0x7fffffff
        dst[i + 1] = 0xff;
        dst[i + 2] = 0xff;
        dst[i + 3] = 0x7f;
    }
}

bool is_fsync(const uint8_t* p) {
    return p[0] == 0xff && p[1] == 0xff && p[2] == 0xff && p[3] == 0x7f;
}

const char* to_string(FrameError e) {
    switch (e) {
    case FrameError::kReservedId:
        return "reserved trace ID";
    case FrameError::kFsyncRunNotFrames:
        return "FSYNC run not a whole number of frames";
    case FrameError::kPartialFrame:
        return "partial frame";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------
// Encoder

bool FrameEncoder::write(uint8_t id, const uint8_t* data, size_t n, std::vector<uint8_t>& out) {
    if (!is_source_trace_id(id)) return false;
    for (size_t i = 0; i < n; ++i)
        put(id, data[i], out);
    return true;
}

void FrameEncoder::put(uint8_t id, uint8_t b, std::vector<uint8_t>& out) {
    for (;;) {
        if (m_pos == 0 && m_options.id_every_frame) {
            change_id(id); // byte 0 is an even slot: takes effect at once
        } else if (m_cur_id != id) {
            change_id(id);
            // An ID in byte 14 fills the frame; the data goes to the next one.
            if (m_pos == kFrameDataSlots) {
                end_frame_if_full(out);
                continue;
            }
        }
        put_data(b);
        end_frame_if_full(out);
        return;
    }
}

// An ID can only sit in an even slot. In an odd slot the even slot before holds a data byte
// of the old ID: the ID takes that slot with "effect after the next byte" and the data byte
// moves to the odd slot, which is exactly what that auxiliary bit exists for.
void FrameEncoder::change_id(uint8_t id) {
    if (m_pos % 2 == 0) {
        m_frame[m_pos] = id_byte(id);
        set_aux_bit(m_frame, m_pos, false);
    } else {
        const size_t even = m_pos - 1;
        const auto moved =
            static_cast<uint8_t>((m_frame[even] & 0xfe) | (aux_bit(m_frame, even) ? 1 : 0));
        m_frame[even] = id_byte(id);
        set_aux_bit(m_frame, even, true);
        m_frame[m_pos] = moved;
    }
    ++m_pos;
    m_cur_id = id;
}

void FrameEncoder::put_data(uint8_t b) {
    if (m_pos % 2 == 0) {
        m_frame[m_pos] = static_cast<uint8_t>(b & 0xfe);
        set_aux_bit(m_frame, m_pos, (b & 1) != 0);
    } else {
        m_frame[m_pos] = b;
    }
    ++m_pos;
}

void FrameEncoder::end_frame_if_full(std::vector<uint8_t>& out) {
    if (m_pos < kFrameDataSlots) return;
    out.insert(out.end(), m_frame, m_frame + kFrameSize);
    ++m_frames;
    m_pos = 0;
    m_frame[kAuxByte] = 0;
}

void FrameEncoder::flush(std::vector<uint8_t>& out) {
    if (m_pos == 0) return;
    const size_t before = m_pos;
    if (m_cur_id != kNullTraceId) change_id(kNullTraceId);
    while (m_pos < kFrameDataSlots)
        put_data(0x00);
    m_padding += kFrameDataSlots - before;
    end_frame_if_full(out);
}

void FrameEncoder::reset() {
    m_pos = 0;
    m_frame[kAuxByte] = 0;
    m_cur_id = -1;
}

// ---------------------------------------------------------------------------------------
// Deformatter

void Deformatter::feed(const uint8_t* data, size_t n) {
    const uint8_t* p = data;
    const uint8_t* const end = data + n;
    while (p < end) {
        if (m_have == 0) {
            // Whole frames straight from the input: no copy.
            constexpr auto kFrame = static_cast<std::ptrdiff_t>(kFrameSize);
            const int id = end - p >= kFrame ? full_frame_id(p) : -1;
            if (id >= 0) { // what unpack() makes of it, without its generality
                // This frame and the frames of its kind and ID right after it, as one.
                size_t k = 1;
                while (end - p >= static_cast<std::ptrdiff_t>(k + 1) * kFrame &&
                       same_full_frame(p + k * kFrameSize, p[0]))
                    ++k;
                if (m_fsync_run != 0) close_fsync_run();
                m_stats.frames += k;
                m_stats.id_bytes += k;
                m_cur_id = id;
                if (id == kNullTraceId) {
                    m_stats.null_bytes += k * kFullFrameData;
                } else if (id == kFlushResponseId || id == kTriggerId) {
                    m_stats.special_bytes += k * kFullFrameData;
                } else {
                    m_stats.source_bytes += k * kFullFrameData;
                    m_sink.on_full_frames(static_cast<uint8_t>(id), p, k, m_pos);
                }
                p += k * kFrameSize;
                m_pos += k * kFrameSize;
                continue;
            }
            const size_t avail = static_cast<size_t>(end - p);
            if (avail >= kFsyncSize && is_fsync(p)) {
                const size_t used = take_fsyncs(p, avail);
                p += used;
                m_pos += used;
                continue;
            }
            if (avail >= kFrameSize) {
                close_fsync_run();
                unpack(p, m_pos);
                p += kFrameSize;
                m_pos += kFrameSize;
                continue;
            }
        }
        // A frame split across feed() calls: gather it.
        const size_t take = std::min(kFrameSize - m_have, static_cast<size_t>(end - p));
        std::memcpy(m_buf + m_have, p, take);
        m_have += take;
        p += take;
        m_pos += take;
        while (m_have >= kFsyncSize && is_fsync(m_buf)) {
            const uint64_t at = m_pos - m_have;
            if (m_fsync_run == 0) m_fsync_run_pos = at;
            ++m_fsync_run;
            ++m_stats.fsyncs;
            m_cur_id = -1;
            m_have -= kFsyncSize;
            std::memmove(m_buf, m_buf + kFsyncSize, m_have);
        }
        if (m_have == kFrameSize) {
            close_fsync_run();
            unpack(m_buf, m_pos - kFrameSize);
            m_have = 0;
        }
    }
}

// FSYNCs at p (a frame boundary); returns the bytes they take.
size_t Deformatter::take_fsyncs(const uint8_t* p, size_t n) {
    size_t used = 0;
    if (m_fsync_run == 0) m_fsync_run_pos = m_pos;
    while (n - used >= kFsyncSize && is_fsync(p + used)) {
        used += kFsyncSize;
        ++m_fsync_run;
        ++m_stats.fsyncs;
    }
    m_cur_id = -1; // OpenCSD resets the ID on a 4 x FSYNC reset pattern
    return used;
}

void Deformatter::close_fsync_run() {
    if (m_fsync_run == 0) return;
    const uint64_t run = m_fsync_run;
    m_fsync_run = 0;
    ++m_stats.fsync_runs;
    const bool whole_frames = run % (kFrameSize / kFsyncSize) == 0;
    if (whole_frames) ++m_stats.barriers;
    m_sink.on_fsync(m_fsync_run_pos, run);
    if (!whole_frames)
        m_sink.on_frame_error(m_fsync_run_pos, FrameError::kFsyncRunNotFrames, run * kFsyncSize);
}

void Deformatter::drop_partial() {
    if (m_have == 0) return;
    const uint64_t at = m_pos - m_have;
    const size_t n = m_have;
    m_have = 0;
    m_stats.partial_bytes += n;
    m_sink.on_frame_error(at, FrameError::kPartialFrame, n);
}

void Deformatter::reset(uint64_t pos) {
    close_fsync_run();
    drop_partial();
    m_cur_id = -1;
    m_pos = pos;
}

void Deformatter::finish() {
    close_fsync_run();
    drop_partial();
}

void Deformatter::unpack(const uint8_t* f, uint64_t frame_pos) {
    struct Run {
        int id;
        uint8_t begin;
        uint8_t len;
    };
    uint8_t out[kFrameSize];      // kFrameDataSlots used; unpack_one_id_frame writes 16
    Run runs[kFrameSize / 2 + 1]; // one per ID byte, plus the ID in effect at the start
    size_t nruns = 0;
    uint8_t nout = 0;
    int id = m_cur_id;
    bool reserved = false;
    auto emit = [&](uint8_t b) {
        if (nruns == 0 || runs[nruns - 1].id != id) runs[nruns++] = Run{id, nout, 0};
        out[nout++] = b;
        ++runs[nruns - 1].len;
    };

    ++m_stats.frames;
    // Fast path, the frame ringsim's formatter model writes almost always (feed() takes it
    // without coming here unless the frame was split across feed() calls).
    const int fast_id = unpack_one_id_frame(f, out);
    if (fast_id >= 0) {
        ++m_stats.id_bytes;
        nout = kFullFrameData;
        runs[0] = Run{fast_id, 0, nout};
        nruns = 1;
        id = fast_id;
    } else {
        for (size_t i = 0; i <= kLastSlot; i += 2) {
            const uint8_t b = f[i];
            const bool flag = aux_bit(f, i);
            const bool has_odd = i < kLastSlot;
            if (b & 1) {
                ++m_stats.id_bytes;
                const int new_id = b >> 1;
                reserved = reserved || is_reserved_id(new_id);
                if (has_odd && flag && new_id != id) {
                    emit(f[i + 1]); // the byte after the ID still belongs to the old ID
                    id = new_id;
                    continue;
                }
                id = new_id;
            } else {
                emit(static_cast<uint8_t>((b & 0xfe) | (flag ? 1 : 0)));
            }
            if (has_odd) emit(f[i + 1]);
        }
    }

    if (reserved) {
        // Not a frame the formatter could have written: trust none of it.
        ++m_stats.reserved_id_frames;
        m_stats.reserved_id_bytes += nout;
        m_cur_id = -1;
        m_sink.on_frame_error(frame_pos, FrameError::kReservedId, kFrameSize);
        return;
    }
    m_cur_id = id;
    for (size_t r = 0; r < nruns; ++r) {
        const Run& run = runs[r];
        if (run.id < 0) {
            m_stats.unattributed_bytes += run.len;
            m_sink.on_unattributed(frame_pos, run.len);
        } else if (run.id == kNullTraceId) {
            m_stats.null_bytes += run.len;
        } else if (run.id == kFlushResponseId || run.id == kTriggerId) {
            m_stats.special_bytes += run.len;
        } else {
            m_stats.source_bytes += run.len;
            m_sink.on_data(static_cast<uint8_t>(run.id), out + run.begin, run.len, frame_pos);
        }
    }
}

} // namespace ringsim::models::coresight
