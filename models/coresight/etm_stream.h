// The byte stream one ETM produced over a whole run, kept as a list of sessions (start ..
// stop) so that any byte range can be regenerated on demand: nothing stores the bytes. It maps
// stream offsets to counts and back, for the sink (which writes bytes only when they survive)
// and for the checker (which turns lost bytes into lost counts).
//
// Layout of a session (P = sync_period_counts), byte-identical to EtmEncoder::start followed by
// EtmEncoder::emit calls (etm_packets.h):
//     [start block: kStartSize][P count packets][sync kSyncSize][P packets][sync]...
// The periodic sync goes before packet number kP+1 (k = 1, 2, ...), so a session never ends
// with a sync (but a session with no packets is just its start). With P = 0 there is only the
// start sync.
// Counts strictly increase across the whole stream; a jump between two sessions is time the
// source was not tracing. Sessions are found by binary search, positions inside a session by
// arithmetic on the fixed-size blocks [sync][P packets].
#pragma once

#include "models/coresight/etm_packets.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

namespace ringsim::models::coresight {

struct CountRange {
    uint64_t first = 0; // counts [first, first+n)
    uint64_t n = 0;
};

class EtmStream {
public:
    // sync_period_counts: as EtmEncoder's (0 = sync only at start).
    EtmStream(uint8_t trace_id, uint32_t sync_period_counts);

    uint8_t trace_id() const { return m_trace_id; }
    uint32_t sync_period_counts() const { return m_period; }

    // ETM enabled: a start block (A-Sync, Trace Info, Trace On, address) at the current end; the
    // next count packet carries first_count, which must be >= next_count() (ModelError otherwise).
    // Starting while a session is open ends that session first (EtmEncoder::start in mid-stream
    // does the same).
    void start(uint64_t first_count);
    // n more count packets in the current session (consecutive counts), with the periodic
    // sync blocks inserted exactly where EtmEncoder::emit would insert them.
    // ModelError when no session is open, or when a count would reach 2^kCountValueBits.
    void produce(uint64_t n);
    bool running() const { return m_running; } // a session is open (start called, stop not yet)
    // ETM disabled: the session ends (the stream ends at a packet boundary). No-op if none open.
    void stop() { m_running = false; }

    uint64_t size() const { return m_size; } // bytes produced so far
    // The count the next packet of the current/last session would carry (0 before any start).
    uint64_t next_count() const;
    uint64_t counts_produced() const { return m_counts; }

    // Regenerates bytes [off, off+n) of the stream (ModelError unless within size()),
    // byte-identical to what an EtmEncoder would have emitted for the same start/emit calls.
    void read(uint64_t off, uint64_t n, uint8_t* out) const;
    // The count packets with at least one byte in [off, off+n), as ranges of counts, appended to
    // out. Ranges of consecutive counts found by this call are merged into one (also across
    // sessions whose counts continue each other); entries already in out are left alone.
    // Bytes past size() are ignored.
    void counts_touching(uint64_t off, uint64_t n, std::vector<CountRange>& out) const;
    // Byte range [first, end) of count c's packet; nullopt if c was never produced.
    std::optional<std::pair<uint64_t, uint64_t>> packet_of(uint64_t count) const;

    // Sessions, for reports: offset of the session's first byte, first count, counts produced.
    struct Session {
        uint64_t offset = 0;
        uint64_t first_count = 0;
        uint64_t counts = 0;
    };
    // The sessions kept: all of them, or those from the first kept one (forget_before).
    const std::deque<Session>& sessions() const { return m_sessions; }

    // Drops the history no reader needs any more, so that a long run's memory stays flat:
    // the sessions that end before byte `off` and whose counts all lie below `count`.
    // The newest session is always kept. Bytes, packets and syncs before the first kept
    // session cannot be asked for afterwards (read, sync_bytes_in, sync_block_at: ModelError;
    // packet_of and the lookups below: nullopt); size() and counts are unchanged.
    void forget_before(uint64_t off, uint64_t count);

    // The first packet produced whose count is >= count: (its count, its first byte).
    std::optional<std::pair<uint64_t, uint64_t>> first_packet_from(uint64_t count) const;
    // The end of the last packet produced whose count is < count (nullopt: none kept).
    std::optional<uint64_t> end_of_packets_before(uint64_t count) const;
    // The end of the last packet that ends at or before byte off (nullopt: none kept).
    std::optional<uint64_t> end_of_packets_upto(uint64_t off) const;

    // Bytes of sync overhead (start and periodic sync blocks) within [off, off+n), for byte
    // accounting. Ranges past size() are clipped to it.
    uint64_t sync_bytes_in(uint64_t off, uint64_t n) const;
    // The start or sync block holding byte off, as [first, end); nullopt if off is in no block.
    std::optional<std::pair<uint64_t, uint64_t>> sync_block_at(uint64_t off) const;

private:
    // The session holding byte off (< m_size); ModelError if it was forgotten.
    size_t session_at(uint64_t off) const;
    uint64_t last_packet_end(size_t s) const; // of session s, which has counts
    uint64_t session_end(size_t s) const;
    // Sync bytes within [0, x) of a session (x within the session).
    uint64_t sync_prefix(uint64_t x) const;
    // Sync bytes in the whole stream before byte off (off <= m_size).
    uint64_t sync_before(uint64_t off) const;
    // Session-relative byte x -> index of the packet holding it, or of the first packet after
    // it when x is in a sync.
    uint64_t packet_at_or_after(uint64_t x) const;
    // Session-relative byte x -> index + 1 of the last packet with a byte at or before x.
    uint64_t packets_through(uint64_t x) const;
    uint64_t packet_offset(uint64_t index) const; // session-relative
    uint64_t syncs_for(uint64_t counts) const;    // periodic syncs among `counts` packets
    void read_session(const Session& s, uint64_t x, uint64_t n, uint8_t* out) const;

    uint8_t m_trace_id;
    uint32_t m_period;
    uint64_t m_block; // kSyncSize + period * kCountPacketSize; 0 when period is 0
    std::array<uint8_t, kStartSize> m_start_bytes{}; // the loop_base(trace_id) address in both
    std::array<uint8_t, kSyncSize> m_sync_bytes{};
    bool m_running = false;
    uint64_t m_size = 0;
    uint64_t m_counts = 0;
    std::deque<Session> m_sessions;
    std::deque<uint64_t> m_sync_bytes_before; // per session: sync bytes in all earlier sessions
};

} // namespace ringsim::models::coresight
