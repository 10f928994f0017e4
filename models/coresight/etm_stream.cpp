// An ETM's byte stream as sessions, regenerated on demand (see etm_stream.h for the layout).
// Arithmetic: a session is [kLead bytes][Y][P packets][Y][P packets]... with Y = kSyncSize:
// the start block is the first kLead bytes plus the first Y-sized unit, so every position past
// kLead falls in fixed-size blocks [Y][P packets] (m_block), as with one sync size.
#include "models/coresight/etm_stream.h"

#include "models/common/types.h"
#include "models/coresight/etm_packets.h"
#include "models/coresight/etm_program.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ringsim::models::coresight {

namespace {

constexpr uint64_t kLead = kStartSize - kSyncSize; // the Trace On byte

} // namespace

EtmStream::EtmStream(uint8_t trace_id, uint32_t sync_period_counts)
    : m_trace_id(trace_id), m_period(sync_period_counts),
      m_block(sync_period_counts == 0
                  ? 0
                  : kSyncSize + uint64_t{sync_period_counts} * kCountPacketSize) {
    put_start(loop_base(trace_id), m_start_bytes.data());
    put_sync(loop_base(trace_id), m_sync_bytes.data());
}

uint64_t EtmStream::next_count() const {
    if (m_sessions.empty()) return 0;
    return m_sessions.back().first_count + m_sessions.back().counts;
}

uint64_t EtmStream::syncs_for(uint64_t counts) const {
    if (m_period == 0 || counts == 0) return 0;
    return (counts - 1) / m_period;
}

void EtmStream::start(uint64_t first_count) {
    if (first_count < next_count())
        throw ModelError("EtmStream " + std::to_string(m_trace_id) + ": start at count " +
                         std::to_string(first_count) + " before next count " +
                         std::to_string(next_count()));
    m_running = false;
    uint64_t before = 0;
    if (!m_sessions.empty())
        before = m_sync_bytes_before.back() + kStartSize +
                 kSyncSize * syncs_for(m_sessions.back().counts);
    m_sessions.push_back(Session{m_size, first_count, 0});
    m_sync_bytes_before.push_back(before);
    m_size += kStartSize;
    m_running = true;
}

void EtmStream::produce(uint64_t n) {
    if (!m_running)
        throw ModelError("EtmStream " + std::to_string(m_trace_id) + ": produce while stopped");
    Session& s = m_sessions.back();
    if (s.first_count + s.counts + n > kCountValueMask + 1)
        throw ModelError("EtmStream " + std::to_string(m_trace_id) + ": count beyond 2^" +
                         std::to_string(kCountValueBits) + ", more than its Timestamp carries");
    m_size += n * kCountPacketSize + (syncs_for(s.counts + n) - syncs_for(s.counts)) * kSyncSize;
    s.counts += n;
    m_counts += n;
}

size_t EtmStream::session_at(uint64_t off) const {
    if (m_sessions.empty() || off < m_sessions.front().offset)
        throw ModelError("EtmStream " + std::to_string(m_trace_id) + ": byte " +
                         std::to_string(off) + " is in history already forgotten");
    auto it = std::upper_bound(m_sessions.begin(), m_sessions.end(), off,
                               [](uint64_t o, const Session& s) { return o < s.offset; });
    return static_cast<size_t>(it - m_sessions.begin()) - 1;
}

void EtmStream::forget_before(uint64_t off, uint64_t count) {
    while (m_sessions.size() > 1 && m_sessions[1].offset < off &&
           m_sessions.front().first_count + m_sessions.front().counts <= count) {
        m_sessions.pop_front();
        m_sync_bytes_before.pop_front();
    }
}

uint64_t EtmStream::last_packet_end(size_t s) const {
    return m_sessions[s].offset + packet_offset(m_sessions[s].counts - 1) + kCountPacketSize;
}

std::optional<std::pair<uint64_t, uint64_t>> EtmStream::first_packet_from(uint64_t count) const {
    // Counts increase across sessions: the first session with a count >= count holds it.
    auto it = std::partition_point(m_sessions.begin(), m_sessions.end(), [count](const Session& s) {
        return s.first_count + s.counts <= count;
    });
    for (; it != m_sessions.end(); ++it) {
        if (it->counts == 0) continue;
        const uint64_t c = std::max(count, it->first_count);
        return std::make_pair(c, it->offset + packet_offset(c - it->first_count));
    }
    return std::nullopt;
}

std::optional<uint64_t> EtmStream::end_of_packets_before(uint64_t count) const {
    if (count == 0) return std::nullopt;
    auto it = std::upper_bound(m_sessions.begin(), m_sessions.end(), count - 1,
                               [](uint64_t c, const Session& s) { return c < s.first_count; });
    while (it != m_sessions.begin()) {
        --it;
        if (it->counts == 0) continue;
        const size_t s = static_cast<size_t>(it - m_sessions.begin());
        if (count - 1 - it->first_count < it->counts)
            return it->offset + packet_offset(count - 1 - it->first_count) + kCountPacketSize;
        return last_packet_end(s);
    }
    return std::nullopt;
}

std::optional<uint64_t> EtmStream::end_of_packets_upto(uint64_t off) const {
    off = std::min(off, m_size);
    if (m_sessions.empty() || off <= m_sessions.front().offset) return std::nullopt;
    for (size_t s = session_at(off - 1) + 1; s-- > 0;) {
        const Session& ses = m_sessions[s];
        if (ses.counts == 0) continue;
        const uint64_t x = std::min(off, session_end(s)) - ses.offset;
        // Packets with a byte before x, less the last one if it runs past x.
        uint64_t k = std::min(packets_through(x - 1), ses.counts);
        if (k > 0 && packet_offset(k - 1) + kCountPacketSize > x) --k;
        if (k > 0) return ses.offset + packet_offset(k - 1) + kCountPacketSize;
    }
    return std::nullopt;
}

uint64_t EtmStream::session_end(size_t s) const {
    return s + 1 < m_sessions.size() ? m_sessions[s + 1].offset : m_size;
}

uint64_t EtmStream::sync_prefix(uint64_t x) const {
    if (x < kLead) return x;
    x -= kLead;
    if (m_period == 0) return kLead + std::min<uint64_t>(x, kSyncSize);
    return kLead + (x / m_block) * kSyncSize + std::min<uint64_t>(x % m_block, kSyncSize);
}

uint64_t EtmStream::sync_before(uint64_t off) const {
    if (off == 0) return 0;
    // The first kept byte: what the forgotten sessions held.
    if (!m_sessions.empty() && off == m_sessions.front().offset) return m_sync_bytes_before.front();
    const size_t s = session_at(off - 1);
    return m_sync_bytes_before[s] + sync_prefix(off - m_sessions[s].offset);
}

uint64_t EtmStream::packet_at_or_after(uint64_t x) const {
    if (x < kStartSize) return 0;
    x -= kLead;
    if (m_period == 0) return (x - kSyncSize) / kCountPacketSize;
    const uint64_t b = x / m_block, r = x % m_block;
    return b * m_period + (r < kSyncSize ? 0 : (r - kSyncSize) / kCountPacketSize);
}

uint64_t EtmStream::packets_through(uint64_t x) const {
    if (x < kStartSize) return 0;
    x -= kLead;
    if (m_period == 0) return (x - kSyncSize) / kCountPacketSize + 1;
    const uint64_t b = x / m_block, r = x % m_block;
    return b * m_period + (r < kSyncSize ? 0 : (r - kSyncSize) / kCountPacketSize + 1);
}

uint64_t EtmStream::packet_offset(uint64_t index) const {
    const uint64_t syncs = m_period == 0 ? 0 : index / m_period;
    return kStartSize + syncs * kSyncSize + index * kCountPacketSize;
}

void EtmStream::read(uint64_t off, uint64_t n, uint8_t* out) const {
    if (off > m_size || n > m_size - off)
        throw ModelError("EtmStream " + std::to_string(m_trace_id) + ": read [" +
                         std::to_string(off) + ", +" + std::to_string(n) + ") beyond " +
                         std::to_string(m_size) + " bytes");
    if (n == 0) return;
    size_t s = session_at(off);
    while (n > 0) {
        const Session& sess = m_sessions[s];
        const uint64_t take = std::min(n, session_end(s) - off);
        read_session(sess, off - sess.offset, take, out);
        out += take;
        off += take;
        n -= take;
        ++s;
    }
}

// Bytes [x, x+n) of one session (all within it): a partial unit (sync or packet) at either
// end goes through a small buffer, whole packets are written straight to out.
void EtmStream::read_session(const Session& s, uint64_t x, uint64_t n, uint8_t* out) const {
    while (n > 0) {
        if (x < kStartSize) {
            const uint64_t k = std::min<uint64_t>(n, kStartSize - x);
            std::memcpy(out, m_start_bytes.data() + x, k);
            out += k;
            x += k;
            n -= k;
            continue;
        }
        uint64_t r = x - kLead, b = 0;
        if (m_period != 0) {
            b = r / m_block;
            r = r % m_block;
        }
        if (r < kSyncSize) {
            const uint64_t k = std::min<uint64_t>(n, kSyncSize - r);
            std::memcpy(out, m_sync_bytes.data() + r, k);
            out += k;
            x += k;
            n -= k;
            continue;
        }
        const uint64_t in_block = (r - kSyncSize) / kCountPacketSize;
        const uint64_t within = (r - kSyncSize) % kCountPacketSize;
        uint64_t count = s.first_count + b * m_period + in_block;
        if (within != 0 || n < kCountPacketSize) {
            uint8_t tmp[kCountPacketSize];
            put_count_packet(count, tmp);
            const uint64_t k = std::min<uint64_t>(n, kCountPacketSize - within);
            std::memcpy(out, tmp + within, k);
            out += k;
            x += k;
            n -= k;
            continue;
        }
        uint64_t whole = n / kCountPacketSize;
        if (m_period != 0) whole = std::min<uint64_t>(whole, m_period - in_block);
        uint64_t word = count_packet_word(count);
        for (uint64_t i = 0; i < whole; ++i, out += kCountPacketSize) {
            store_le64(out, word);
            word = next_count_packet_word(word);
        }
        x += whole * kCountPacketSize;
        n -= whole * kCountPacketSize;
    }
}

void EtmStream::counts_touching(uint64_t off, uint64_t n, std::vector<CountRange>& out) const {
    if (off >= m_size || n == 0) return;
    const uint64_t end = off + std::min(n, m_size - off);
    const size_t first_new = out.size();
    for (size_t s = session_at(off); s < m_sessions.size() && m_sessions[s].offset < end; ++s) {
        const Session& sess = m_sessions[s];
        const uint64_t a = std::max(off, sess.offset) - sess.offset;
        const uint64_t e = std::min(end, session_end(s)) - sess.offset;
        const uint64_t first = packet_at_or_after(a);
        const uint64_t last = std::min(packets_through(e - 1), sess.counts);
        if (last <= first) continue;
        const CountRange cr{sess.first_count + first, last - first};
        if (out.size() > first_new && out.back().first + out.back().n == cr.first) {
            out.back().n += cr.n;
        } else {
            out.push_back(cr);
        }
    }
}

std::optional<std::pair<uint64_t, uint64_t>> EtmStream::packet_of(uint64_t count) const {
    // The last session starting at or before count is the only one that may hold it.
    auto it = std::upper_bound(m_sessions.begin(), m_sessions.end(), count,
                               [](uint64_t c, const Session& s) { return c < s.first_count; });
    if (it == m_sessions.begin()) return std::nullopt;
    const Session& s = *(it - 1);
    if (count - s.first_count >= s.counts) return std::nullopt;
    const uint64_t at = s.offset + packet_offset(count - s.first_count);
    return std::make_pair(at, at + kCountPacketSize);
}

std::optional<std::pair<uint64_t, uint64_t>> EtmStream::sync_block_at(uint64_t off) const {
    if (off >= m_size) return std::nullopt;
    const Session& s = m_sessions[session_at(off)];
    const uint64_t x = off - s.offset;
    if (x < kStartSize) return std::make_pair(s.offset, s.offset + kStartSize);
    if (m_period == 0) return std::nullopt;
    const uint64_t r = x - kLead;
    if (r % m_block >= kSyncSize) return std::nullopt;
    const uint64_t first = s.offset + kLead + (r / m_block) * m_block;
    return std::make_pair(first, first + kSyncSize);
}

uint64_t EtmStream::sync_bytes_in(uint64_t off, uint64_t n) const {
    const uint64_t a = std::min(off, m_size);
    const uint64_t e = a + std::min(n, m_size - a);
    return sync_before(e) - sync_before(a);
}

} // namespace ringsim::models::coresight
