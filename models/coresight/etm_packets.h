// ETMv4 instruction trace for one trace source (one ETM, one CoreSight trace ID) tracing the
// synthetic loop of etm_program.h: the encoder a source model uses to produce bytes, and a
// streaming decoder that a checker uses to find exactly which bytes went missing.
//
// Byte-exact ETMv4 packets (Arm IHI0064 "ETMv4 Architecture Specification", chapter 6 "Descriptions
// of Trace Packets"; each encoding checked against OpenCSD 1.3.3's packet processor,
// trc_pkt_proc_etmv4i.cpp, and by tests/unit/opencsd_test.cpp through trc_pkt_lister):
//  - A-Sync: eleven 0x00 bytes then 0x80 (12 bytes).
//  - Trace Info: header 0x01 then PLCTL = 0x00 (no INFO/KEY/SPEC/CYCT sections: cycle counting,
//    conditional trace and data trace off, P0 key 0; 2 bytes). The decoder accepts any PLCTL
//    and skips the sections it says are present (iPktTraceInfo).
//  - Trace On: 0x04 (1 byte), the first packet after Trace Info when tracing (re)starts after a
//    gap: the ETM was enabled (iPktNoPayload).
//  - Long Address with Context, 64-bit, IS0: header 0x85, address bits [8:2] and [15:9] in the
//    low 7 bits of two bytes (bit 7 zero), then bits [63:16] in six bytes, then the context
//    info byte: EL in bits [1:0], SF (AArch64) bit 4, NS bit 5, no VMID (bit 6) or Context ID
//    (bit 7) bytes (10 bytes; iPktAddrCtxt, extract64BitLongAddr, extractAndSetContextInfo).
//    It gives the decoder the loop's first address after every A-Sync + Trace Info.
//  - Atom format 1, E: 0xf7 (0xf6 would be N; iAtom): one loop iteration, its closing branch
//    taken back to the loop's start.
//  - Timestamp: header 0x02 (no cycle count) then the value in 7-bit groups, least significant
//    first, bit 7 set on every byte but the last (iPktTimestamp). The encoder always writes 6
//    value bytes (42 bits), so that the count packet below has a fixed size.
// Blocks (every size fixed, so that byte offsets and counts map to each other by arithmetic):
//  - start (kStartSize = 25): A-Sync, Trace Info, Trace On, Address with Context; at every
//    trace start (the ETM enabled after a gap, or for the first time).
//  - periodic sync (kSyncSize = 24): A-Sync, Trace Info, Address with Context; every
//    `sync_period_counts` count packets (the role of TRCSYNCPR). No Trace On: the trace goes
//    on without a gap.
//  - count packet (kCountPacketSize = 8): an E atom then a Timestamp carrying the count, the
//    timestamp of that iteration's branch.
// Leaves out: every other packet (exceptions, cycle counts, events, Overflow, Discard, Q,
// conditional/data trace, speculation: the ETM commits every atom). Only the low 42 bits of a
// count travel; a decoder keeps the high bits of the value it already knows (as OpenCSD does
// for a Timestamp of fewer than 7 value bytes), and after a Trace Info they are 0, so counts must
// stay below 2^42 for the stream to be exact ETMv4 (at 3 GB/s of trace, 8 bytes a count, that is
// 3.2 hours; EtmStream refuses counts beyond).
#pragma once

#include "models/common/le.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringsim::models::coresight {

constexpr size_t kAsyncSize = 12;      // 0x00 x 11, 0x80
constexpr size_t kTraceInfoSize = 2;   // 0x01, PLCTL = 0x00
constexpr size_t kTraceOnSize = 1;     // 0x04
constexpr size_t kAddressCtxSize = 10; // 0x85, 8 address bytes, context info
constexpr size_t kAtomSize = 1;        // 0xf7
constexpr size_t kTimestampValueBytes = 6;
constexpr size_t kSyncSize = kAsyncSize + kTraceInfoSize + kAddressCtxSize;
constexpr size_t kStartSize = kAsyncSize + kTraceInfoSize + kTraceOnSize + kAddressCtxSize;
constexpr size_t kCountPacketSize = kAtomSize + 1 + kTimestampValueBytes;
constexpr unsigned kCountValueBits = 7 * kTimestampValueBytes;
constexpr uint64_t kCountValueMask = (uint64_t{1} << kCountValueBits) - 1;
static_assert(kStartSize == 25 && kSyncSize == 24 && kCountPacketSize == 8, "block sizes");

constexpr uint8_t kHeaderExtension = 0x00; // first byte of an A-Sync
constexpr uint8_t kHeaderTraceInfo = 0x01;
constexpr uint8_t kHeaderTimestamp = 0x02;
constexpr uint8_t kHeaderTraceOn = 0x04;
constexpr uint8_t kHeaderAddrCtx64Is0 = 0x85;
constexpr uint8_t kHeaderAtomE = 0xf7;
constexpr uint8_t kAsyncLastByte = 0x80;
// Context info: EL0, SF = 1 (AArch64), NS = 1, no VMID, no Context ID.
constexpr uint8_t kContextInfo = 0x30;

// One count packet (E atom + Timestamp, kCountPacketSize bytes) for `count`, as the
// little-endian word of its bytes: the two header bytes, then the low kCountValueBits of the
// count in 7-bit groups, low group first, bit 7 (continuation) set on all but the last.
inline uint64_t count_packet_word(uint64_t count) {
    static_assert(kCountPacketSize == 8 && kTimestampValueBytes == 6, "the word layout below");
    // The value's 42 bits spread to 7 a byte (the fast decoder's gather, backwards): 28-bit
    // halves to 32-bit lanes, 14-bit quarters to 16-bit lanes, 7-bit groups to bytes.
    uint64_t x = count & kCountValueMask;
    x = (x & 0x000000000fffffffULL) | ((x & 0x000003fff0000000ULL) << 4);
    x = (x & 0x00003fff00003fffULL) | ((x & 0x0fffc0000fffc000ULL) << 2);
    x = (x & 0x007f007f007f007fULL) | ((x & 0x3f803f803f803f80ULL) << 1);
    constexpr uint64_t kContinuations = 0x0080808080800000ULL; // bytes 2..6 of the packet
    return uint64_t{kHeaderAtomE} | uint64_t{kHeaderTimestamp} << 8 | x << 16 | kContinuations;
}

// The word of the count packet after the one of word w: its value one more, in the 7-bit
// groups. The carry enters at the value's lowest bit through the header's bits and steps
// over each group's bit 7, all set for the addition; out of the top group it is dropped, as
// the count's bits past kCountValueBits are.
inline uint64_t next_count_packet_word(uint64_t w) {
    constexpr uint64_t kValueBits = 0x7f7f7f7f7f7fULL << 16;
    return (((w | ~kValueBits) + 1) & kValueBits) | (w & ~kValueBits);
}

// Writes one count packet for `count` at p (harvests write megabytes of them: one store).
inline void put_count_packet(uint64_t count, uint8_t* p) {
    store_le64(p, count_packet_word(count));
}
// Writes a Long Address with Context packet (64-bit, IS0) for `address` (4-byte aligned) at p.
void put_address_context(uint64_t address, uint8_t* p);
// Writes a start block (kStartSize bytes) at p for a source whose loop is at `address`.
void put_start(uint64_t address, uint8_t* p);
// Writes a periodic sync block (kSyncSize bytes) at p.
void put_sync(uint64_t address, uint8_t* p);

// Produces the byte stream of one ETM. The trace ID is not part of the ETM bytes (the ATB
// carries it, the formatter writes it); the encoder only keeps it for its owner.
class EtmEncoder {
public:
    // sync_period_counts > 0: a periodic sync block before every sync_period_counts-th count
    // packet after a start, as TRCSYNCPR makes a real ETM resynchronise periodically (the
    // real period is in bytes, see the header comment of etm_packets.cpp). 0: only at start().
    explicit EtmEncoder(uint8_t trace_id, uint32_t sync_period_counts = 0);

    uint8_t trace_id() const { return m_trace_id; }
    uint32_t sync_period_counts() const { return m_sync_period; }

    uint64_t address() const { return m_address; } // loop_base(trace_id), etm_program.h

    // Trace start (ETM enabled): the start block.
    void start(std::vector<uint8_t>& out);
    // n count packets carrying first_count, first_count+1, ..., with periodic syncs inserted.
    void emit(uint64_t first_count, uint64_t n, std::vector<uint8_t>& out);
    // Bytes emit(_, n, _) would append now (depends on the position in the sync period).
    uint64_t emit_size(uint64_t n) const;
    // Whole count packets (with their periodic syncs) that fit in `bytes` bytes now.
    uint64_t counts_fitting(uint64_t bytes) const;

private:
    uint64_t syncs_before(uint64_t n) const;

    uint8_t m_trace_id;
    uint64_t m_address;
    uint32_t m_sync_period;
    uint64_t m_since_sync = 0; // count packets since the last A-Sync
};

enum class EtmCorruption : uint8_t {
    kBadAsync,         // 0x00 header not followed by ten 0x00 and 0x80
    kMissingTraceInfo, // A-Sync followed by something other than Trace Info or A-Sync
    kBadTraceInfo,     // PLCTL or a section longer than the architecture allows
    kBadCount,         // E atom not followed by a Timestamp with continuation bits 1,1,1,1,1,0
    kBadAddress,       // Address with Context: bit 7 set in an IS0 low byte, or VMID/CID bytes
    kMissingAddress,   // an atom after Trace Info or Trace On before an Address with Context
    kUnknownHeader,    // a header byte this model never produces
    kTruncated,        // the stream ended (or lost bytes) inside a packet
};
const char* to_string(EtmCorruption c);

// A count that does not follow the previous one by exactly 1.
struct EtmGap {
    uint64_t first_missing = 0;
    uint64_t missing = 0;
    bool after_sync = false;     // an A-Sync came between the two counts (restart or resync)
    bool after_trace_on = false; // a Trace On came between them: the source restarted
    uint64_t skipped_bytes = 0;  // bytes skipped unsynchronised between the two counts
};

// Receives the decoder's events. Positions are offsets in the decoder's own byte stream
// (bytes fed so far). Default implementations ignore the event.
class EtmListener {
public:
    virtual ~EtmListener() = default;
    virtual void on_sync(uint64_t pos) {}
    virtual void on_trace_info(uint64_t pos) {}
    virtual void on_trace_on(uint64_t pos) {}
    virtual void on_address(uint64_t pos, uint64_t address) {}
    virtual void on_count(uint64_t pos, uint64_t count) {}
    // Counts first .. first+n-1 in n count packets one after another from pos: what n calls
    // of on_count would say, in one (the decoder's fast path takes a healthy stream's runs of
    // counts, each the one expected next, whole). By default, those n calls.
    virtual void on_counts(uint64_t pos, uint64_t first, uint64_t n) {
        for (uint64_t k = 0; k < n; ++k)
            on_count(pos + k * kCountPacketSize, first + k);
    }
    virtual void on_gap(uint64_t pos, const EtmGap& gap) {}
    // count <= previous: reordering or corruption the continuation bits did not catch.
    virtual void on_disorder(uint64_t pos, uint64_t previous, uint64_t count) {}
    virtual void on_corrupt(uint64_t pos, EtmCorruption what) {}
    // n bytes from pos were skipped while unsynchronised; reported when sync is regained,
    // and by finish() for a trailing run.
    virtual void on_skipped(uint64_t pos, uint64_t n) {}
};

struct EtmStats {
    uint64_t bytes = 0;
    uint64_t syncs = 0;
    uint64_t trace_infos = 0;
    uint64_t trace_info_bytes = 0; // 2 each from our encoder, more with sections
    uint64_t trace_ons = 0;
    uint64_t addresses = 0; // Address with Context packets (kAddressCtxSize bytes each)
    uint64_t counts = 0;
    uint64_t gaps = 0;
    uint64_t missing_counts = 0;
    uint64_t disorders = 0;
    uint64_t corruptions = 0;
    uint64_t skipped_bytes = 0;
    bool any_count = false;
    uint64_t first_count = 0;
    uint64_t last_count = 0;
};

// Streaming decoder: feed() takes the bytes in any chunking; state carries across calls.
// Starts unsynchronised, so the first A-Sync is needed before anything is decoded, as in a
// real ETMv4 decoder. After a corrupt packet or a discontinuity() it drops back to
// unsynchronised and searches for the next A-Sync, counting the bytes it skips.
class EtmDecoder {
public:
    explicit EtmDecoder(EtmListener* listener = nullptr) : m_listener(listener) {}

    void feed(const uint8_t* data, size_t n);
    void feed(const std::vector<uint8_t>& data) { feed(data.data(), data.size()); }
    // Bytes are missing before the next feed(): a packet in progress is lost and packet
    // boundaries are unknown, so resynchronise (what OpenCSD does on a decoder reset).
    void discontinuity();
    // End of stream: reports a packet left incomplete and a trailing unsynchronised run.
    void finish();
    // The next count expected, so that loss before the first received count is reported too.
    void expect_next(uint64_t count);

    bool synced() const { return m_state != State::kUnsynced; }
    // Inside a packet: the bytes fed so far end before its last byte.
    bool mid_packet() const { return in_packet(); }
    uint64_t position() const { return m_pos; }
    const EtmStats& stats() const { return m_stats; }

private:
    enum class State : uint8_t {
        kUnsynced,    // searching for an A-Sync
        kAfterSync,   // A-Sync seen, Trace Info must come next
        kNeedAddress, // Trace Info or Trace On seen: no atom before an Address with Context
        kIdle,        // at a packet boundary, the address known
        kAsync,       // inside an A-Sync
        kTraceInfo,   // inside a Trace Info
        kAddress,     // inside an Address with Context
        kCount,       // inside a count packet (E atom + Timestamp)
    };

    void step(uint8_t b);
    void scan_unsynced(uint8_t b);
    void start_packet(uint8_t b);
    void continue_async(uint8_t b);
    void continue_trace_info(uint8_t b);
    void continue_address(uint8_t b);
    void continue_count(uint8_t b);
    const uint8_t* take_count_packets(const uint8_t* p, const uint8_t* end);
    void counts_done(uint64_t pos, uint64_t first, uint64_t n);
    void sync_found();
    void trace_info_done();
    void count_done(uint64_t low_bits);
    void corrupt(EtmCorruption what, uint8_t b);
    void lose_sync(uint64_t zero_tail);
    bool in_packet() const;
    void report_skipped(uint64_t pos, uint64_t n);

    EtmListener* m_listener;
    State m_state = State::kUnsynced;
    uint64_t m_pos = 0; // stream offset of the next byte
    EtmStats m_stats;

    // The packet in progress. Only its length and its trailing 0x00 bytes matter once it
    // turns out corrupt (they may be the start of the next A-Sync), so it is not stored.
    uint8_t m_pkt_len = 0;
    uint8_t m_pkt_zero_tail = 0;
    uint64_t m_pkt_pos = 0;
    uint64_t m_value = 0;      // Timestamp or address bits gathered so far
    bool m_plctl_done = false; // Trace Info: PLCTL read, now in the sections
    uint8_t m_sections = 0;    // Trace Info: sections still to skip (PLCTL bits)
    uint8_t m_field_len = 0;   // Trace Info: bytes of the current field so far

    // Unsynchronised search.
    uint64_t m_zero_run = 0;
    uint64_t m_skip_len = 0;
    uint64_t m_skip_pos = 0;

    // Gap bookkeeping since the last count.
    bool m_have_expected = false;
    uint64_t m_expected = 0;
    bool m_sync_since_count = false;
    bool m_trace_on_since_count = false;
    uint64_t m_skipped_since_count = 0;
};

} // namespace ringsim::models::coresight
