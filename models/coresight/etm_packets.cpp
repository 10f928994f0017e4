// Simplified ETMv4 packet encoder and streaming decoder (see etm_packets.h for the formats).
// The periodic sync of a real ETM (TRCSYNCPR) is counted in bytes of trace; here it is
// counted in count packets so that the byte size of any run of packets stays a closed
// formula (emit_size) the source model can use to turn a byte rate into counts.
#include "models/coresight/etm_packets.h"

#include "models/common/le.h"

#include <cstddef>
#include <cstring>

namespace ringsim::models::coresight {

using models::load_le64;

namespace {
constexpr size_t kCountValueBytes = kCountPacketSize - 1;
constexpr uint8_t kContinuation = 0x80;
constexpr uint8_t kPlctlMaxBytes = 2;   // PLCTL: 4 section bits, one continuation byte spare
constexpr uint8_t kSectionMaxBytes = 5; // INFO/KEY/SPEC/CYCT: at most 32 bits in 7-bit groups
constexpr uint8_t kAsyncZeros = kAsyncSize - 1;
} // namespace

void put_count_packet(uint64_t count, uint8_t* p) {
    p[0] = kHeaderTimestamp;
    for (size_t i = 0; i < kCountValueBytes; ++i) {
        const auto group = static_cast<uint8_t>((count >> (7 * i)) & 0x7f);
        p[1 + i] = (i + 1 < kCountValueBytes) ? (group | kContinuation) : group;
    }
}

void put_start(uint8_t* p) {
    for (size_t i = 0; i < kAsyncZeros; ++i)
        p[i] = 0x00;
    p[kAsyncZeros] = kAsyncLastByte;
    p[kAsyncSize] = kHeaderTraceInfo;
    p[kAsyncSize + 1] = 0x00; // PLCTL: no sections
}

const char* to_string(EtmCorruption c) {
    switch (c) {
    case EtmCorruption::kBadAsync:
        return "bad A-Sync";
    case EtmCorruption::kMissingTraceInfo:
        return "A-Sync without Trace Info";
    case EtmCorruption::kBadTraceInfo:
        return "bad Trace Info";
    case EtmCorruption::kBadCount:
        return "bad Timestamp continuation bits";
    case EtmCorruption::kUnknownHeader:
        return "unknown packet header";
    case EtmCorruption::kTruncated:
        return "truncated packet";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------
// Encoder

EtmEncoder::EtmEncoder(uint8_t trace_id, uint32_t sync_period_counts)
    : trace_id_(trace_id), sync_period_(sync_period_counts) {}

void EtmEncoder::start(std::vector<uint8_t>& out) {
    const size_t at = out.size();
    out.resize(at + kStartSize);
    put_start(out.data() + at);
    since_sync_ = 0;
}

// A sync goes before a packet when sync_period_ packets have followed the last one.
uint64_t EtmEncoder::syncs_before(uint64_t n) const {
    if (sync_period_ == 0 || n == 0) return 0;
    const uint64_t left = since_sync_ >= sync_period_ ? 0 : sync_period_ - since_sync_;
    if (n <= left) return 0;
    return 1 + (n - 1 - left) / sync_period_;
}

uint64_t EtmEncoder::emit_size(uint64_t n) const {
    return n * kCountPacketSize + syncs_before(n) * kStartSize;
}

uint64_t EtmEncoder::counts_fitting(uint64_t bytes) const {
    uint64_t lo = 0, hi = bytes / kCountPacketSize; // emit_size is monotonic in n
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo + 1) / 2;
        if (emit_size(mid) <= bytes) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

void EtmEncoder::emit(uint64_t first_count, uint64_t n, std::vector<uint8_t>& out) {
    size_t at = out.size();
    out.resize(at + emit_size(n));
    uint8_t* p = out.data() + at;
    for (uint64_t k = 0; k < n; ++k) {
        if (sync_period_ != 0 && since_sync_ >= sync_period_) {
            put_start(p);
            p += kStartSize;
            since_sync_ = 0;
        }
        put_count_packet(first_count + k, p);
        p += kCountPacketSize;
        ++since_sync_;
    }
}

// ---------------------------------------------------------------------------------------
// Decoder

void EtmDecoder::expect_next(uint64_t count) {
    have_expected_ = true;
    expected_ = count;
}

namespace {
// Count packets are checked and decoded a 64-bit word at a time: byte i of the packet is bits
// 8i..8i+7 of the word (load_le64, models/common/le.h).
// The k = end - p bytes at p (k >= 1) in the low bytes of a word, the other bytes 0. Reads
// only within [begin, end).
uint64_t load_le_upto8(const uint8_t* p, const uint8_t* begin, const uint8_t* end) {
    const auto k = static_cast<size_t>(end - p);
    if (k >= 8) return load_le64(p);
    if (end - begin >= 8) return load_le64(end - 8) >> (8 * (8 - k));
    uint64_t w = 0;
    for (size_t i = 0; i < k; ++i)
        w |= uint64_t{p[i]} << (8 * i);
    return w;
}

// The low 7 bits of each byte of w, concatenated (byte 0 lowest): 56 bits.
uint64_t gather7(uint64_t w) {
    uint64_t x = w & 0x7f7f7f7f7f7f7f7fULL;
    x = (x & 0x007f007f007f007fULL) | ((x & 0x7f007f007f007f00ULL) >> 1);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x3fff00003fff0000ULL) >> 2);
    x = (x & 0x000000000fffffffULL) | ((x & 0x0fffffff00000000ULL) >> 4);
    return x;
}

constexpr uint64_t kEveryBit7 = 0x8080808080808080ULL;
// A whole count packet: header 0x02, continuation bits 1,1,1,1,1,1,0 on the value bytes.
constexpr uint64_t kCountContMask = kEveryBit7 & ~uint64_t{0xff};
constexpr uint64_t kCountContWant = kCountContMask & ~(uint64_t{0x80} << 56);

bool is_count_word(uint64_t w) {
    return (w & 0xff) == kHeaderTimestamp && (w & kCountContMask) == kCountContWant;
}

// Bit 7 of the low k bytes (k = 1..8).
uint64_t low_bit7s(size_t k) {
    return kEveryBit7 >> (8 * (8 - k));
}
} // namespace

// Inline: the fast paths of feed() call it once per count packet.
inline void EtmDecoder::count_done(uint64_t low_bits) {
    state_ = State::kIdle;
    pkt_len_ = 0;
    // As an ETMv4 decoder does, the packet replaces only the low bits of the known value.
    const uint64_t base = have_expected_ ? expected_ : 0;
    const uint64_t count = (base & ~kCountValueMask) | low_bits;
    if (have_expected_ && count != expected_) {
        if (count > expected_) {
            EtmGap gap;
            gap.first_missing = expected_;
            gap.missing = count - expected_;
            gap.after_sync = sync_since_count_;
            gap.skipped_bytes = skipped_since_count_;
            ++stats_.gaps;
            stats_.missing_counts += gap.missing;
            if (listener_) listener_->on_gap(pkt_pos_, gap);
        } else {
            ++stats_.disorders;
            if (listener_) listener_->on_disorder(pkt_pos_, expected_ - 1, count);
        }
    }
    ++stats_.counts;
    if (!stats_.any_count) stats_.first_count = count;
    stats_.any_count = true;
    stats_.last_count = count;
    have_expected_ = true;
    expected_ = count + 1;
    sync_since_count_ = false;
    skipped_since_count_ = 0;
    if (listener_) listener_->on_count(pkt_pos_, count);
}

// The fast paths below only ever take bytes the per-byte state machine (step) would accept
// without an event other than a count; anything else is left to step(), so events, positions
// and statistics are exactly those of the byte-by-byte decoder.
void EtmDecoder::feed(const uint8_t* data, size_t n) {
    const uint8_t* p = data;
    const uint8_t* const end = data + n;
    while (p < end) {
        if (state_ == State::kIdle) {
            // Most of a healthy stream is whole count packets: take them 8 bytes at a time.
            while (end - p >= static_cast<std::ptrdiff_t>(kCountPacketSize) && try_fast_count(p))
                p += kCountPacketSize;
            if (p == end) break;
            // A count packet cut by the end of this chunk (every 14-byte frame cuts one): keep
            // its value bits so far when its continuation bits are all set, as they must be.
            if (*p == kHeaderTimestamp && end - p < static_cast<std::ptrdiff_t>(kCountPacketSize)) {
                const auto k = static_cast<size_t>(end - p);
                const uint64_t w = load_le_upto8(p, data, end) >> 8; // the k-1 value bytes
                const uint64_t cont = k > 1 ? low_bit7s(k - 1) : 0;
                if ((w & cont) == cont) {
                    state_ = State::kCount;
                    pkt_pos_ = pos_;
                    pkt_len_ = static_cast<uint8_t>(k);
                    pkt_zero_tail_ = 0; // 0x02 and bytes with bit 7 set are not 0x00
                    value_ = gather7(w);
                    pos_ += k;
                    break;
                }
            }
        } else if (state_ == State::kCount) {
            // The rest of a count packet cut by the previous chunk.
            const size_t need = kCountPacketSize - pkt_len_; // value bytes still to come, 1..7
            if (static_cast<size_t>(end - p) >= need) {
                const uint64_t w = load_le_upto8(p, data, end) & (~uint64_t{0} >> (8 * (8 - need)));
                const uint64_t cont = low_bit7s(need);
                const uint64_t want = cont & ~(uint64_t{0x80} << (8 * (need - 1)));
                if ((w & cont) == want) {
                    pos_ += need;
                    p += need;
                    count_done(value_ | (gather7(w) << (7 * (pkt_len_ - 1))));
                    continue;
                }
            }
        }
        step(*p);
        ++pos_;
        ++p;
    }
    stats_.bytes = pos_;
}

// A whole count packet at p[0..7] when it is well formed (else the slow path reports it).
bool EtmDecoder::try_fast_count(const uint8_t* p) {
    const uint64_t w = load_le64(p);
    if (!is_count_word(w)) return false;
    pkt_pos_ = pos_;
    pos_ += kCountPacketSize;
    count_done(gather7(w >> 8));
    return true;
}

void EtmDecoder::step(uint8_t b) {
    switch (state_) {
    case State::kUnsynced:
        scan_unsynced(b);
        return;
    case State::kAfterSync:
    case State::kIdle:
        start_packet(b);
        return;
    case State::kAsync:
        continue_async(b);
        return;
    case State::kTraceInfo:
        continue_trace_info(b);
        return;
    case State::kCount:
        continue_count(b);
        return;
    }
}

void EtmDecoder::scan_unsynced(uint8_t b) {
    if (skip_len_ == 0) skip_pos_ = pos_;
    ++skip_len_;
    if (b == 0x00) {
        ++zero_run_;
        return;
    }
    if (b == kAsyncLastByte && zero_run_ >= kAsyncZeros) {
        // The A-Sync is the last 12 bytes of the run; anything before it was skipped.
        const uint64_t skipped = skip_len_ - kAsyncSize;
        if (skipped != 0) report_skipped(skip_pos_, skipped);
        skip_len_ = 0;
        zero_run_ = 0;
        pkt_pos_ = pos_ - kAsyncZeros;
        sync_found();
        return;
    }
    zero_run_ = 0;
}

void EtmDecoder::start_packet(uint8_t b) {
    pkt_pos_ = pos_;
    pkt_len_ = 0;
    pkt_zero_tail_ = 0;
    const bool after_sync = state_ == State::kAfterSync;
    if (b == kHeaderExtension) {
        state_ = State::kAsync;
    } else if (b == kHeaderTraceInfo) {
        state_ = State::kTraceInfo;
        plctl_done_ = false;
        sections_ = 0;
        field_len_ = 0;
    } else if (b == kHeaderTimestamp && !after_sync) {
        state_ = State::kCount;
        value_ = 0;
    } else {
        corrupt(after_sync ? EtmCorruption::kMissingTraceInfo : EtmCorruption::kUnknownHeader, b);
        return;
    }
    pkt_len_ = 1;
    pkt_zero_tail_ = b == 0x00 ? 1 : 0;
}

void EtmDecoder::continue_async(uint8_t b) {
    if (b == 0x00 && pkt_len_ < kAsyncZeros) {
        ++pkt_len_;
        ++pkt_zero_tail_;
    } else if (b == kAsyncLastByte && pkt_len_ == kAsyncZeros) {
        sync_found();
    } else {
        corrupt(EtmCorruption::kBadAsync, b);
    }
}

void EtmDecoder::continue_trace_info(uint8_t b) {
    const bool more = (b & kContinuation) != 0;
    const auto len = static_cast<uint8_t>(field_len_ + 1);
    if (more && len >= (plctl_done_ ? kSectionMaxBytes : kPlctlMaxBytes)) {
        corrupt(EtmCorruption::kBadTraceInfo, b);
        return;
    }
    ++pkt_len_;
    pkt_zero_tail_ = b == 0x00 ? pkt_zero_tail_ + 1 : 0;
    field_len_ = len;
    if (!plctl_done_ && len == 1) sections_ = b & 0x0f; // INFO, KEY, SPEC, CYCT present bits
    if (more) return;
    if (!plctl_done_) {
        plctl_done_ = true;
    } else {
        sections_ &= static_cast<uint8_t>(sections_ - 1); // this section is complete
    }
    field_len_ = 0;
    if (sections_ == 0) trace_info_done();
}

void EtmDecoder::continue_count(uint8_t b) {
    const size_t i = pkt_len_ - 1; // value byte index
    const bool last = i + 1 == kCountValueBytes;
    if (((b & kContinuation) != 0) == last) {
        corrupt(EtmCorruption::kBadCount, b);
        return;
    }
    ++pkt_len_;
    pkt_zero_tail_ = b == 0x00 ? pkt_zero_tail_ + 1 : 0;
    value_ |= uint64_t{static_cast<uint8_t>(b & 0x7f)} << (7 * i);
    if (last) count_done(value_);
}

void EtmDecoder::sync_found() {
    ++stats_.syncs;
    sync_since_count_ = true;
    state_ = State::kAfterSync;
    pkt_len_ = 0;
    if (listener_) listener_->on_sync(pkt_pos_);
}

void EtmDecoder::trace_info_done() {
    ++stats_.trace_infos;
    stats_.trace_info_bytes += pkt_len_;
    state_ = State::kIdle;
    pkt_len_ = 0;
    if (listener_) listener_->on_trace_info(pkt_pos_);
}

// The packet in progress is broken at byte b: its bytes so far are skipped, and b itself is
// looked at again as a possible start of the next A-Sync.
void EtmDecoder::corrupt(EtmCorruption what, uint8_t b) {
    ++stats_.corruptions;
    if (listener_) listener_->on_corrupt(pkt_pos_, what);
    lose_sync(pkt_zero_tail_);
    scan_unsynced(b);
}

void EtmDecoder::lose_sync(uint64_t zero_tail) {
    state_ = State::kUnsynced;
    if (pkt_len_ != 0) {
        skip_pos_ = pkt_pos_;
        skip_len_ = pkt_len_;
    } else {
        skip_len_ = 0;
    }
    zero_run_ = zero_tail;
    pkt_len_ = 0;
    pkt_zero_tail_ = 0;
}

bool EtmDecoder::in_packet() const {
    return state_ == State::kAsync || state_ == State::kTraceInfo || state_ == State::kCount;
}

void EtmDecoder::discontinuity() {
    if (state_ == State::kUnsynced) {
        zero_run_ = 0; // an A-Sync cannot straddle missing bytes
        return;
    }
    if (in_packet()) {
        ++stats_.corruptions;
        if (listener_) listener_->on_corrupt(pkt_pos_, EtmCorruption::kTruncated);
    }
    lose_sync(0);
}

void EtmDecoder::finish() {
    if (in_packet()) {
        ++stats_.corruptions;
        if (listener_) listener_->on_corrupt(pkt_pos_, EtmCorruption::kTruncated);
        lose_sync(0);
    }
    if (state_ == State::kUnsynced && skip_len_ != 0) {
        report_skipped(skip_pos_, skip_len_);
        skip_len_ = 0;
    }
    zero_run_ = 0;
}

void EtmDecoder::report_skipped(uint64_t pos, uint64_t n) {
    stats_.skipped_bytes += n;
    skipped_since_count_ += n;
    if (listener_) listener_->on_skipped(pos, n);
}

} // namespace ringsim::models::coresight
