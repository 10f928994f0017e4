// A simplified ETMv4 instruction-trace packet stream for one trace source (one ETM, one
// CoreSight trace ID): the encoder a source model uses to produce bytes, and a streaming
// decoder that a checker uses to find exactly which bytes went missing.
//
// Models (byte-exact ETMv4 encodings, Arm IHI0064 "ETMv4 Architecture Specification",
// chapter "Trace packets"; the decoder's sync rules follow OpenCSD trc_pkt_proc_etmv4i.cpp):
//  - A-Sync: eleven 0x00 bytes then 0x80 (12 bytes), at every trace start and, if asked, every
//    `sync_period_counts` count packets (the role of TRCSYNCPR).
//  - Trace Info: header 0x01 followed by the PLCTL field; the encoder emits PLCTL = 0x00 (no
//    INFO/KEY/SPEC/CYCT sections: 2 bytes). The decoder accepts any PLCTL and skips the
//    sections PLCTL says are present.
//  - Timestamp: header 0x02 then the value in 7-bit groups, least significant first, bit 7 set
//    on every byte but the last. Every count packet carries exactly 7 value bytes (49 bits)
//    so that every count packet is 8 bytes long and byte offsets map to counts exactly.
// Leaves out: every packet that describes program flow (atoms, addresses, context, exceptions,
// cycle counts, events, Overflow, Discard, conditional/data trace). Those are not needed to
// account for lost bytes. Only the low 49 bits of a count travel; as in ETMv4 a decoder keeps
// the high bits of the value it already knows, so counts must stay below 2^49 (at 1 GB/s of
// trace that is 52 days) or at least keep their high bits between two received packets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringsim::models::coresight {

constexpr size_t kAsyncSize = 12;    // 0x00 x 11, 0x80
constexpr size_t kTraceInfoSize = 2; // 0x01, PLCTL = 0x00
constexpr size_t kStartSize = kAsyncSize + kTraceInfoSize;
constexpr size_t kCountPacketSize = 8; // header 0x02 + 7 value bytes
constexpr unsigned kCountValueBits = 49;
constexpr uint64_t kCountValueMask = (uint64_t{1} << kCountValueBits) - 1;

constexpr uint8_t kHeaderExtension = 0x00; // first byte of an A-Sync
constexpr uint8_t kHeaderTraceInfo = 0x01;
constexpr uint8_t kHeaderTimestamp = 0x02;
constexpr uint8_t kAsyncLastByte = 0x80;

// Writes one 8-byte count packet for `count` at p[0..7].
void put_count_packet(uint64_t count, uint8_t* p);
// Writes A-Sync + Trace Info (kStartSize bytes) at p.
void put_start(uint8_t* p);

// Produces the byte stream of one ETM. The trace ID is not part of the ETM bytes (the ATB
// carries it, the formatter writes it); the encoder only keeps it for its owner.
class EtmEncoder {
public:
    // sync_period_counts > 0: an A-Sync + Trace Info before every sync_period_counts-th count
    // packet after a start, as TRCSYNCPR makes a real ETM resynchronise periodically (the
    // real period is in bytes, see the header comment of etm_packets.cpp). 0: only at start().
    explicit EtmEncoder(uint8_t trace_id, uint32_t sync_period_counts = 0);

    uint8_t trace_id() const { return m_trace_id; }
    uint32_t sync_period_counts() const { return m_sync_period; }

    // Trace start (ETM enabled): A-Sync then Trace Info.
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
    uint32_t m_sync_period;
    uint64_t m_since_sync = 0; // count packets since the last A-Sync
};

enum class EtmCorruption : uint8_t {
    kBadAsync,         // 0x00 header not followed by ten 0x00 and 0x80
    kMissingTraceInfo, // A-Sync followed by something other than Trace Info or A-Sync
    kBadTraceInfo,     // PLCTL or a section longer than the architecture allows
    kBadCount,         // Timestamp continuation bits not 1,1,1,1,1,1,0
    kUnknownHeader,    // a header byte this model never produces
    kTruncated,        // the stream ended (or lost bytes) inside a packet
};
const char* to_string(EtmCorruption c);

// A count that does not follow the previous one by exactly 1.
struct EtmGap {
    uint64_t first_missing = 0;
    uint64_t missing = 0;
    bool after_sync = false;    // an A-Sync came between the two counts (restart or resync)
    uint64_t skipped_bytes = 0; // bytes skipped unsynchronised between the two counts
};

// Receives the decoder's events. Positions are offsets in the decoder's own byte stream
// (bytes fed so far). Default implementations ignore the event.
class EtmListener {
public:
    virtual ~EtmListener() = default;
    virtual void on_sync(uint64_t pos) {}
    virtual void on_trace_info(uint64_t pos) {}
    virtual void on_count(uint64_t pos, uint64_t count) {}
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
    uint64_t position() const { return m_pos; }
    const EtmStats& stats() const { return m_stats; }

private:
    enum class State : uint8_t {
        kUnsynced,  // searching for an A-Sync
        kAfterSync, // A-Sync seen, Trace Info must come next
        kIdle,      // at a packet boundary
        kAsync,     // inside an A-Sync
        kTraceInfo, // inside a Trace Info
        kCount,     // inside a Timestamp
    };

    void step(uint8_t b);
    void scan_unsynced(uint8_t b);
    void start_packet(uint8_t b);
    void continue_async(uint8_t b);
    void continue_trace_info(uint8_t b);
    void continue_count(uint8_t b);
    bool try_fast_count(const uint8_t* p);
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
    uint64_t m_value = 0;      // Timestamp bits gathered so far
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
    uint64_t m_skipped_since_count = 0;
};

} // namespace ringsim::models::coresight
