// ETMv4 packet encoder and streaming decoder (see etm_packets.h for the formats).
// The periodic sync of a real ETM (TRCSYNCPR) is counted in bytes of trace; here it is
// counted in count packets so that the byte size of any run of packets stays a closed
// formula (emit_size) the source model can use to turn a byte rate into counts.
#include "models/coresight/etm_packets.h"

#include "models/common/le.h"
#include "models/coresight/etm_program.h"

#include <cstddef>
#include <cstring>

namespace ringsim::models::coresight {

using models::load_le64;

namespace {
constexpr size_t kCountValueBytes = kTimestampValueBytes;
constexpr size_t kCountHeaderBytes = kCountPacketSize - kCountValueBytes; // atom, TS header
constexpr uint8_t kContinuation = 0x80;
constexpr uint8_t kContextVmidCid = 0xc0; // context info: VMID and Context ID present bits
constexpr uint8_t kPlctlMaxBytes = 2;     // PLCTL: 4 section bits, one continuation byte spare
constexpr uint8_t kSectionMaxBytes = 5;   // INFO/KEY/SPEC/CYCT: at most 32 bits in 7-bit groups
constexpr uint8_t kAsyncZeros = kAsyncSize - 1;
} // namespace

// IHI0064 "Long Address with Context packet", 64-bit IS0: A[8:2] and A[15:9] in bits [6:0] of
// the first two payload bytes (bit 7 reserved, 0), A[63:16] a byte at a time, then the context
// information byte (OpenCSD extract64BitLongAddr, extractAndSetContextInfo).
void put_address_context(uint64_t address, uint8_t* p) {
    p[0] = kHeaderAddrCtx64Is0;
    p[1] = static_cast<uint8_t>((address >> 2) & 0x7f);
    p[2] = static_cast<uint8_t>((address >> 9) & 0x7f);
    for (int i = 2; i < 8; ++i)
        p[1 + i] = static_cast<uint8_t>(address >> (8 * i));
    p[9] = kContextInfo;
}

namespace {
uint8_t* put_async_trace_info(uint8_t* p) {
    for (size_t i = 0; i < kAsyncZeros; ++i)
        p[i] = 0x00;
    p[kAsyncZeros] = kAsyncLastByte;
    p[kAsyncSize] = kHeaderTraceInfo;
    p[kAsyncSize + 1] = 0x00; // PLCTL: no sections
    return p + kAsyncSize + kTraceInfoSize;
}
} // namespace

void put_start(uint64_t address, uint8_t* p) {
    p = put_async_trace_info(p);
    *p++ = kHeaderTraceOn; // IHI0064: after Trace Info, as tracing starts after a gap
    put_address_context(address, p);
}

void put_sync(uint64_t address, uint8_t* p) {
    put_address_context(address, put_async_trace_info(p));
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
        return "atom without a well-formed Timestamp";
    case EtmCorruption::kBadAddress:
        return "bad Address with Context";
    case EtmCorruption::kMissingAddress:
        return "atom before an address";
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
    : m_trace_id(trace_id), m_address(loop_base(trace_id)), m_sync_period(sync_period_counts) {}

void EtmEncoder::start(std::vector<uint8_t>& out) {
    const size_t at = out.size();
    out.resize(at + kStartSize);
    put_start(m_address, out.data() + at);
    m_since_sync = 0;
}

// A sync goes before a packet when m_sync_period packets have followed the last one.
uint64_t EtmEncoder::syncs_before(uint64_t n) const {
    if (m_sync_period == 0 || n == 0) return 0;
    const uint64_t left = m_since_sync >= m_sync_period ? 0 : m_sync_period - m_since_sync;
    if (n <= left) return 0;
    return 1 + (n - 1 - left) / m_sync_period;
}

uint64_t EtmEncoder::emit_size(uint64_t n) const {
    return n * kCountPacketSize + syncs_before(n) * kSyncSize;
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
        if (m_sync_period != 0 && m_since_sync >= m_sync_period) {
            put_sync(m_address, p);
            p += kSyncSize;
            m_since_sync = 0;
        }
        put_count_packet(first_count + k, p);
        p += kCountPacketSize;
        ++m_since_sync;
    }
}

// ---------------------------------------------------------------------------------------
// Decoder

void EtmDecoder::expect_next(uint64_t count) {
    m_have_expected = true;
    m_expected = count;
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
// A whole count packet: E atom, Timestamp header 0x02, continuation bits 1,1,1,1,1,0 on the
// value bytes.
constexpr uint64_t kCountHeaderWord = uint64_t{kHeaderAtomE} | uint64_t{kHeaderTimestamp} << 8;
constexpr uint64_t kCountContMask = kEveryBit7 & ~uint64_t{0xffff};
constexpr uint64_t kCountContWant = kCountContMask & ~(uint64_t{0x80} << 56);
static_assert(kCountHeaderBytes == 2 && kCountPacketSize == 8, "the word layout above");

bool is_count_word(uint64_t w) {
    return (w & 0xffff) == kCountHeaderWord && (w & kCountContMask) == kCountContWant;
}

// Bit 7 of the low k bytes (k = 1..8).
uint64_t low_bit7s(size_t k) {
    return kEveryBit7 >> (8 * (8 - k));
}
} // namespace

// Inline: the fast paths of feed() call it once per count packet.
inline void EtmDecoder::count_done(uint64_t low_bits) {
    m_state = State::kIdle;
    m_pkt_len = 0;
    // As an ETMv4 decoder does, the packet replaces only the low bits of the known value.
    const uint64_t base = m_have_expected ? m_expected : 0;
    const uint64_t count = (base & ~kCountValueMask) | low_bits;
    if (m_have_expected && count != m_expected) {
        if (count > m_expected) {
            EtmGap gap;
            gap.first_missing = m_expected;
            gap.missing = count - m_expected;
            gap.after_sync = m_sync_since_count;
            gap.after_trace_on = m_trace_on_since_count;
            gap.skipped_bytes = m_skipped_since_count;
            ++m_stats.gaps;
            m_stats.missing_counts += gap.missing;
            if (m_listener) m_listener->on_gap(m_pkt_pos, gap);
        } else {
            ++m_stats.disorders;
            if (m_listener) m_listener->on_disorder(m_pkt_pos, m_expected - 1, count);
        }
    }
    ++m_stats.counts;
    if (!m_stats.any_count) m_stats.first_count = count;
    m_stats.any_count = true;
    m_stats.last_count = count;
    m_have_expected = true;
    m_expected = count + 1;
    m_sync_since_count = false;
    m_trace_on_since_count = false;
    m_skipped_since_count = 0;
    if (m_listener) m_listener->on_count(m_pkt_pos, count);
}

// The fast paths below only ever take bytes the per-byte state machine (step) would accept
// without an event other than a count; anything else is left to step(), so events, positions
// and statistics are exactly those of the byte-by-byte decoder.
void EtmDecoder::feed(const uint8_t* data, size_t n) {
    const uint8_t* p = data;
    const uint8_t* const end = data + n;
    while (p < end) {
        if (m_state == State::kIdle) {
            // Most of a healthy stream is whole count packets: take them 8 bytes at a time.
            p = take_count_packets(p, end);
            if (p == end) break;
            // A count packet cut by the end of this chunk (every 14-byte frame cuts one) after
            // its Timestamp header: keep its value bits so far when their continuation bits
            // are all set, as they must be.
            const auto k = static_cast<size_t>(end - p);
            if (k >= kCountHeaderBytes && k < kCountPacketSize && p[0] == kHeaderAtomE &&
                p[1] == kHeaderTimestamp) {
                const uint64_t w = load_le_upto8(p, data, end) >> 16; // the k-2 value bytes
                const uint64_t cont = k > kCountHeaderBytes ? low_bit7s(k - kCountHeaderBytes) : 0;
                if ((w & cont) == cont) {
                    m_state = State::kCount;
                    m_pkt_pos = m_pos;
                    m_pkt_len = static_cast<uint8_t>(k);
                    m_pkt_zero_tail = 0; // 0xf7, 0x02 and bytes with bit 7 set are not 0x00
                    m_value = gather7(w);
                    m_pos += k;
                    break;
                }
            }
        } else if (m_state == State::kCount && m_pkt_len >= kCountHeaderBytes) {
            // The rest of a count packet cut by the previous chunk after its Timestamp header.
            const size_t need = kCountPacketSize - m_pkt_len; // value bytes still to come, 1..6
            if (static_cast<size_t>(end - p) >= need) {
                const uint64_t w = load_le_upto8(p, data, end) & (~uint64_t{0} >> (8 * (8 - need)));
                const uint64_t cont = low_bit7s(need);
                const uint64_t want = cont & ~(uint64_t{0x80} << (8 * (need - 1)));
                if ((w & cont) == want) {
                    m_pos += need;
                    p += need;
                    count_done(m_value | (gather7(w) << (7 * (m_pkt_len - kCountHeaderBytes))));
                    continue;
                }
            }
        }
        step(*p);
        ++m_pos;
        ++p;
    }
    m_stats.bytes = m_pos;
}

// Whole, well-formed count packets from p (the first other bytes are left to the slow path):
// a run of them, each the count expected next, is taken as one (counts_done); any other
// count packet is count_done's, which reports its gap or disorder. Returns where they end.
const uint8_t* EtmDecoder::take_count_packets(const uint8_t* p, const uint8_t* end) {
    constexpr auto kSize = static_cast<std::ptrdiff_t>(kCountPacketSize);
    while (end - p >= kSize) {
        const uint64_t w = load_le64(p);
        if (!is_count_word(w)) break;
        const uint64_t low = gather7(w >> 16);
        if (m_have_expected && low == (m_expected & kCountValueMask)) {
            // The count expected next (count_done's high bits are m_expected's): so long as
            // each packet after it holds the next count, nothing but the run's length changes.
            // A packet is all header, continuation and value bits: the next one's word is
            // known.
            const uint64_t first = m_expected;
            uint64_t n = 1;
            uint64_t want = w;
            const uint8_t* q = p + kSize;
            for (; end - q >= kSize; q += kSize, ++n) {
                want = next_count_packet_word(want);
                if (load_le64(q) != want) break;
            }
            counts_done(m_pos, first, n);
            p = q;
            continue;
        }
        m_pkt_pos = m_pos;
        m_pos += kCountPacketSize;
        count_done(low);
        p += kSize;
    }
    return p;
}

// n count packets from pos holding first .. first+n-1, first == m_expected: count_done's
// work for each of them (none is a gap or a disorder), done once.
void EtmDecoder::counts_done(uint64_t pos, uint64_t first, uint64_t n) {
    m_state = State::kIdle;
    m_pkt_len = 0;
    m_pkt_pos = pos + (n - 1) * kCountPacketSize;
    m_pos = pos + n * kCountPacketSize;
    m_stats.counts += n;
    if (!m_stats.any_count) m_stats.first_count = first;
    m_stats.any_count = true;
    m_stats.last_count = first + n - 1;
    m_expected = first + n;
    m_sync_since_count = false;
    m_trace_on_since_count = false;
    m_skipped_since_count = 0;
    if (m_listener) m_listener->on_counts(pos, first, n);
}

void EtmDecoder::step(uint8_t b) {
    switch (m_state) {
    case State::kUnsynced:
        scan_unsynced(b);
        return;
    case State::kAfterSync:
    case State::kNeedAddress:
    case State::kIdle:
        start_packet(b);
        return;
    case State::kAsync:
        continue_async(b);
        return;
    case State::kTraceInfo:
        continue_trace_info(b);
        return;
    case State::kAddress:
        continue_address(b);
        return;
    case State::kCount:
        continue_count(b);
        return;
    }
}

void EtmDecoder::scan_unsynced(uint8_t b) {
    if (m_skip_len == 0) m_skip_pos = m_pos;
    ++m_skip_len;
    if (b == 0x00) {
        ++m_zero_run;
        return;
    }
    if (b == kAsyncLastByte && m_zero_run >= kAsyncZeros) {
        // The A-Sync is the last 12 bytes of the run; anything before it was skipped.
        const uint64_t skipped = m_skip_len - kAsyncSize;
        if (skipped != 0) report_skipped(m_skip_pos, skipped);
        m_skip_len = 0;
        m_zero_run = 0;
        m_pkt_pos = m_pos - kAsyncZeros;
        sync_found();
        return;
    }
    m_zero_run = 0;
}

void EtmDecoder::start_packet(uint8_t b) {
    m_pkt_pos = m_pos;
    m_pkt_len = 0;
    m_pkt_zero_tail = 0;
    const bool after_sync = m_state == State::kAfterSync;
    if (b == kHeaderExtension) {
        m_state = State::kAsync;
    } else if (b == kHeaderTraceInfo) {
        m_state = State::kTraceInfo;
        m_plctl_done = false;
        m_sections = 0;
        m_field_len = 0;
    } else if (after_sync) {
        corrupt(EtmCorruption::kMissingTraceInfo, b);
        return;
    } else if (b == kHeaderTraceOn) {
        // IHI0064: Trace On says trace resumes after a gap; the address comes next.
        ++m_stats.trace_ons;
        m_trace_on_since_count = true;
        m_state = State::kNeedAddress;
        if (m_listener) m_listener->on_trace_on(m_pos);
        return;
    } else if (b == kHeaderAddrCtx64Is0) {
        m_state = State::kAddress;
        m_value = 0;
    } else if (b == kHeaderAtomE) {
        if (m_state == State::kNeedAddress) {
            corrupt(EtmCorruption::kMissingAddress, b);
            return;
        }
        m_state = State::kCount;
        m_value = 0;
    } else {
        corrupt(EtmCorruption::kUnknownHeader, b);
        return;
    }
    m_pkt_len = 1;
    m_pkt_zero_tail = b == 0x00 ? 1 : 0;
}

void EtmDecoder::continue_async(uint8_t b) {
    if (b == 0x00 && m_pkt_len < kAsyncZeros) {
        ++m_pkt_len;
        ++m_pkt_zero_tail;
    } else if (b == kAsyncLastByte && m_pkt_len == kAsyncZeros) {
        sync_found();
    } else {
        corrupt(EtmCorruption::kBadAsync, b);
    }
}

void EtmDecoder::continue_trace_info(uint8_t b) {
    const bool more = (b & kContinuation) != 0;
    const auto len = static_cast<uint8_t>(m_field_len + 1);
    if (more && len >= (m_plctl_done ? kSectionMaxBytes : kPlctlMaxBytes)) {
        corrupt(EtmCorruption::kBadTraceInfo, b);
        return;
    }
    ++m_pkt_len;
    m_pkt_zero_tail = b == 0x00 ? m_pkt_zero_tail + 1 : 0;
    m_field_len = len;
    if (!m_plctl_done && len == 1) m_sections = b & 0x0f; // INFO, KEY, SPEC, CYCT present bits
    if (more) return;
    if (!m_plctl_done) {
        m_plctl_done = true;
    } else {
        m_sections &= static_cast<uint8_t>(m_sections - 1); // this section is complete
    }
    m_field_len = 0;
    if (m_sections == 0) trace_info_done();
}

// Payload byte m_pkt_len - 1 (0..8) of an Address with Context packet (see put_address_context).
void EtmDecoder::continue_address(uint8_t b) {
    const size_t i = m_pkt_len - 1;
    if ((i < 2 && (b & kContinuation) != 0) || (i == 8 && (b & kContextVmidCid) != 0)) {
        corrupt(EtmCorruption::kBadAddress, b);
        return;
    }
    ++m_pkt_len;
    m_pkt_zero_tail = b == 0x00 ? m_pkt_zero_tail + 1 : 0;
    if (i < 2) {
        m_value |= uint64_t{b} << (2 + 7 * i);
    } else if (i < 8) {
        m_value |= uint64_t{b} << (8 * i);
    }
    if (m_pkt_len < kAddressCtxSize) return;
    ++m_stats.addresses;
    m_state = State::kIdle;
    m_pkt_len = 0;
    if (m_listener) m_listener->on_address(m_pkt_pos, m_value);
}

void EtmDecoder::continue_count(uint8_t b) {
    if (m_pkt_len == 1) { // the byte after the E atom: a Timestamp header
        if (b != kHeaderTimestamp) {
            corrupt(EtmCorruption::kBadCount, b);
            return;
        }
        ++m_pkt_len;
        m_pkt_zero_tail = 0;
        return;
    }
    const size_t i = m_pkt_len - kCountHeaderBytes; // value byte index
    const bool last = i + 1 == kCountValueBytes;
    if (((b & kContinuation) != 0) == last) {
        corrupt(EtmCorruption::kBadCount, b);
        return;
    }
    ++m_pkt_len;
    m_pkt_zero_tail = b == 0x00 ? m_pkt_zero_tail + 1 : 0;
    m_value |= uint64_t{static_cast<uint8_t>(b & 0x7f)} << (7 * i);
    if (last) count_done(m_value);
}

void EtmDecoder::sync_found() {
    ++m_stats.syncs;
    m_sync_since_count = true;
    m_state = State::kAfterSync;
    m_pkt_len = 0;
    if (m_listener) m_listener->on_sync(m_pkt_pos);
}

void EtmDecoder::trace_info_done() {
    ++m_stats.trace_infos;
    m_stats.trace_info_bytes += m_pkt_len;
    m_state = State::kNeedAddress; // IHI0064: Trace Info resets the address
    m_pkt_len = 0;
    if (m_listener) m_listener->on_trace_info(m_pkt_pos);
}

// The packet in progress is broken at byte b: its bytes so far are skipped, and b itself is
// looked at again as a possible start of the next A-Sync.
void EtmDecoder::corrupt(EtmCorruption what, uint8_t b) {
    ++m_stats.corruptions;
    if (m_listener) m_listener->on_corrupt(m_pkt_pos, what);
    lose_sync(m_pkt_zero_tail);
    scan_unsynced(b);
}

void EtmDecoder::lose_sync(uint64_t zero_tail) {
    m_state = State::kUnsynced;
    if (m_pkt_len != 0) {
        m_skip_pos = m_pkt_pos;
        m_skip_len = m_pkt_len;
    } else {
        m_skip_len = 0;
    }
    m_zero_run = zero_tail;
    m_pkt_len = 0;
    m_pkt_zero_tail = 0;
}

bool EtmDecoder::in_packet() const {
    return m_state == State::kAsync || m_state == State::kTraceInfo || m_state == State::kAddress ||
           m_state == State::kCount;
}

void EtmDecoder::discontinuity() {
    if (m_state == State::kUnsynced) {
        m_zero_run = 0; // an A-Sync cannot straddle missing bytes
        return;
    }
    if (in_packet()) {
        ++m_stats.corruptions;
        if (m_listener) m_listener->on_corrupt(m_pkt_pos, EtmCorruption::kTruncated);
    }
    lose_sync(0);
}

void EtmDecoder::finish() {
    if (in_packet()) {
        ++m_stats.corruptions;
        if (m_listener) m_listener->on_corrupt(m_pkt_pos, EtmCorruption::kTruncated);
        lose_sync(0);
    }
    if (m_state == State::kUnsynced && m_skip_len != 0) {
        report_skipped(m_skip_pos, m_skip_len);
        m_skip_len = 0;
    }
    m_zero_run = 0;
}

void EtmDecoder::report_skipped(uint64_t pos, uint64_t n) {
    m_stats.skipped_bytes += n;
    m_skipped_since_count += n;
    if (m_listener) m_listener->on_skipped(pos, n);
}

} // namespace ringsim::models::coresight
