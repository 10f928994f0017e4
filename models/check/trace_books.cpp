// One source's trace books, closed as the run goes (see trace_books.h).
#include "models/check/trace_books.h"

#include "models/common/types.h"

#include <algorithm>
#include <sstream>

namespace ringsim::models {

using coresight::EtmStream;
using coresight::UntracedWindow;

namespace {
GapCause cause_of(coresight::UntracedCause u) {
    return u == coresight::UntracedCause::aux_disabled ? GapCause::aux_disabled
                                                       : GapCause::stop_window;
}
uint64_t end_of(const UntracedWindow& w) {
    return w.first_count + w.counts;
}
} // namespace

TraceBooks::TraceBooks(coresight::EtmSource& src, Report report)
    : m_src(src), m_report(std::move(report)) {}

void TraceBooks::lost(uint64_t off, uint64_t n, FateTag why) {
    m_reported_lost += n;
    if (m_held.n && m_held.off + m_held.n == off && m_held.why == why) {
        m_held.n += n;
        return;
    }
    apply_held();
    m_held = {off, n, why};
}

void TraceBooks::apply_held() {
    if (!m_held.n) return;
    const uint64_t off = m_held.off, n = m_held.n;
    const FateTag why = m_held.why;
    m_held.n = 0;
    // Bytes whose books are closed were all accounted for: a second claim on them. (Booked
    // as one claim or as the contiguous claims it merges, with nothing in between, the
    // same bytes are added and the same are claimed twice: m_forgotten only moves in
    // advance(), which books the held claim first.)
    const uint64_t from = std::max(off, std::min(off + n, m_forgotten));
    const uint64_t added = m_fates.insert(from, off + n, why);
    m_accounted.insert(from, off + n, true);
    m_claimed_twice += n - added;
}

void TraceBooks::committed(uint64_t off, uint64_t n) {
    apply_held();
    m_committed += n;
    m_accounted.insert(std::max(off, std::min(off + n, m_forgotten)), off + n, true);
}

uint64_t TraceBooks::accounted_prefix() {
    apply_held();
    const auto* f = m_accounted.find(m_forgotten);
    return f ? f->second.end : m_forgotten;
}

void TraceBooks::add_counts(uint64_t c, uint64_t n) {
    if (c < m_closed_counts) { // closed runs took these counts already
        const uint64_t d = std::min(n, m_closed_counts - c);
        m_duplicates += d;
        c += d;
        n -= d;
        if (n == 0) return;
    }
    uint64_t end = c + n;
    auto it = m_decoded.upper_bound(c);
    if (it != m_decoded.begin()) {
        auto prev = std::prev(it);
        if (prev->second > c) {
            const uint64_t overlap = std::min(prev->second, end) - c;
            m_duplicates += overlap;
            c += overlap;
            if (c >= end) return;
        }
    }
    // Overlaps with later runs are duplicates too.
    while (it != m_decoded.end() && it->first < end) {
        m_duplicates += std::min(end, it->second) - it->first;
        end = std::max(end, it->second);
        it = m_decoded.erase(it);
    }
    it = m_decoded.emplace_hint(it, c, end);
    if (it != m_decoded.begin()) {
        auto prev = std::prev(it);
        if (prev->second == c) {
            prev->second = it->second;
            m_decoded.erase(it);
            it = prev;
        }
    }
    auto next = std::next(it);
    if (next != m_decoded.end() && next->first == it->second) {
        it->second = next->second;
        m_decoded.erase(next);
    }
}

void TraceBooks::advance(uint64_t limit, bool final) {
    apply_held();
    const EtmStream& st = m_src.stream();
    if (st.sessions().empty()) return; // nothing produced yet
    if (!m_started) {
        m_gap_at = st.sessions().front().first_count;
        m_started = true;
    }
    walk(limit, final);
    close_gaps(limit, final);
    if (!final) forget(m_decoded.empty() ? UINT64_MAX : m_decoded.begin()->first);
}

// Every byte delivered, lost (a cause), unread or corrupted, walked in order. A range whose
// end is not final yet (it reaches `limit`) waits for a later call, unless this is the last.
void TraceBooks::walk(uint64_t limit, bool final) {
    const EtmStream& st = m_src.stream();
    // Decoded spans in source bytes (the syncs between decoded packets included).
    IntervalMap<bool> dspans;
    for (const auto& [c0, c1] : m_decoded) {
        const auto a = st.packet_of(c0);
        const auto b = st.packet_of(c1 - 1);
        if (!a || !b) {
            // Reported once, when the books close (the run stays until then).
            if (final) m_report("unexplained", c0, "decoded counts that were never produced\n");
            continue;
        }
        dspans.insert(a->first, b->second, true);
    }
    // The first sync byte in [a, b) (b: none), and the end of the last one (a: none).
    auto first_sync_in = [&st](uint64_t a, uint64_t b) {
        if (!st.sync_bytes_in(a, b - a)) return b;
        uint64_t lo = a, hi = b - 1;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (st.sync_bytes_in(a, mid - a + 1))
                hi = mid;
            else
                lo = mid + 1;
        }
        return lo;
    };
    auto last_sync_end_in = [&st](uint64_t a, uint64_t b) {
        if (!st.sync_bytes_in(a, b - a)) return a;
        uint64_t lo = a + 1, hi = b;
        while (lo < hi) {
            const uint64_t mid = lo + (hi - lo) / 2;
            if (st.sync_bytes_in(mid, b - mid))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    };
    TraceBookSums& r = m_sums;
    auto next_dspan = [&dspans](uint64_t p) {
        auto it = dspans.spans().lower_bound(p);
        return it == dspans.spans().end() ? UINT64_MAX : it->first;
    };
    uint64_t pos = m_walked;
    while (pos < limit) {
        if (const auto* d = dspans.find(pos)) {
            const uint64_t e = std::min(limit, d->second.end);
            // A decoded packet's bytes are contiguous in the source: one decoded across a
            // FIFO drop is a splice, never delivered (AuxChecker's on_spliced), so its bytes
            // are walked below as bytes a decoder skipped. Dropped bytes can still lie under a
            // decoded span between two packets (inside the syncs between them); they stay
            // lost, as the sink said. Any other fate under decoded bytes is a contradiction
            // in the books.
            uint64_t dropped = 0;
            m_fates.for_each_in(pos, e, [&](uint64_t a, uint64_t b, const FateTag& t) {
                if (t.fate == TraceFate::lost && t.cause == GapCause::fifo_overflow) {
                    dropped += b - a;
                } else {
                    r.overlap += b - a;
                }
            });
            r.lost += dropped;
            r.lost_by_cause[size_t(GapCause::fifo_overflow)] += dropped;
            r.delivered += e - pos - dropped;
            pos = e;
            m_last_cause = GapCause::count;
            m_after_corrupt = false;
            continue;
        }
        if (const auto* f = m_fates.find(pos)) {
            const uint64_t e = std::min({limit, f->second.end, next_dspan(pos)});
            const FateTag& t = f->second.tag;
            if (t.fate == TraceFate::lost) {
                r.lost += e - pos;
                r.lost_by_cause[size_t(t.cause)] += e - pos;
                m_last_cause = t.cause;
                m_after_corrupt = false;
            } else if (t.fate == TraceFate::unread) {
                r.unread += e - pos;
            } else {
                r.corrupted += e - pos;
                m_last_cause = GapCause::count;
                m_after_corrupt = true;
            }
            pos = e;
            continue;
        }
        // Neither decoded nor accounted for: a sync before decoded trace, or bytes the
        // decoder skipped while it looked for sync after a discontinuity.
        uint64_t e = std::min(limit, next_dspan(pos));
        if (auto it = m_fates.spans().upper_bound(pos); it != m_fates.spans().end())
            e = std::min(e, it->first);
        // What follows the range decides its bytes: wait until that is known.
        if (!final && e >= limit) break;
        // Bytes that reached the decoder (or would have) but were not decoded. Whole start and
        // sync blocks were decoded: a decoder that lost sync looks for exactly those,
        // and they need no count after them. The bytes before the first sync are what a
        // decoder skips after a discontinuity (the cause just before), or the start of a
        // packet cut off by what follows; after the last sync, only a packet cut off by what
        // follows. Anything else is unexplained.
        const uint64_t segment_end = e;
        // A sync the segment starts inside of (its start was lost) is no sync to a decoder.
        uint64_t whole_from = pos;
        if (const auto blk = st.sync_block_at(pos); blk && blk->first < pos)
            whole_from = std::min(e, blk->second);
        const uint64_t first_sync = first_sync_in(whole_from, e);
        const uint64_t sync_total = st.sync_bytes_in(first_sync, e - first_sync);
        // Whole blocks: all of sync_total but a block the segment's end cuts.
        uint64_t syncs = sync_total;
        if (sync_total != 0)
            if (const auto blk = st.sync_block_at(e - 1); blk && blk->second > e)
                syncs -= e - std::max(blk->first, first_sync);
        r.delivered += syncs;
        const uint64_t sync_end = last_sync_end_in(first_sync, e);
        const uint64_t head = first_sync - pos;
        // After the last sync: a packet cut off, or a sync cut off (the remainder).
        const uint64_t tail = (sync_total ? e - sync_end : 0) + (sync_total - syncs);
        const uint64_t middle = (e - first_sync) - sync_total - (sync_total ? e - sync_end : 0);
        const FateTag* next = segment_end < limit && m_fates.find(segment_end)
                                  ? &m_fates.find(segment_end)->second.tag
                                  : nullptr;
        auto charge = [&r](uint64_t n, const FateTag& t) {
            if (t.fate == TraceFate::lost) {
                r.lost += n;
                r.lost_by_cause[size_t(t.cause)] += n;
            } else if (t.fate == TraceFate::unread) {
                r.unread += n;
            } else {
                r.corrupted += n;
            }
        };
        uint64_t unexplained = middle;
        if (head) {
            if (m_last_cause != GapCause::count)
                charge(head, {TraceFate::lost, m_last_cause});
            else if (m_after_corrupt)
                charge(head, {TraceFate::corrupted, GapCause::count});
            else if (!sync_total && next)
                charge(head, *next);
            else
                unexplained += head;
        }
        if (tail) {
            if (next)
                charge(tail, *next);
            else
                unexplained += tail;
        }
        if (unexplained) {
            r.corrupted += unexplained;
            std::ostringstream ex;
            ex << unexplained << " trace bytes of " << m_src.name() << " in [" << pos << ", " << e
               << ") reached the decoder but were not decoded, with no loss before them "
               << "that a decoder would still be resynchronising from.\n";
            m_report("unexplained", pos, ex.str());
        }
        pos = segment_end;
    }
    m_walked = pos;
}

// Gaps: counts missing between decoded runs, each with one cause. A run is closed once its
// first packet lies below `limit` (no count before it can still be decoded); the gap before
// it then ends.
void TraceBooks::close_gaps(uint64_t limit, bool final) {
    const EtmStream& st = m_src.stream();
    for (const auto& [c0, c1] : m_decoded) {
        if (!final) {
            const auto p = st.packet_of(c0);
            if (!p || p->first >= limit) break;
        }
        if (c0 > m_gap_at) {
            end_gap(c0);
            if (m_decoded_any) ++m_sums.discontinuities;
        }
        m_decoded_any = true;
        if (c1 > m_gap_at) {
            m_gap_at = c1;
            m_gap_b0_known = false;
        }
    }
    if (final) {
        if (st.next_count() > m_gap_at) end_gap(st.next_count());
    } else if (const auto upto = st.end_of_packets_upto(m_walked)) {
        // The open gap holds every packet walked past since its start: no count whose packet
        // lies below `limit` is decoded after it.
        fold_gap(*upto);
    }
}

void TraceBooks::fold_gap(uint64_t to) {
    if (!m_gap_b0_known) {
        const auto p = m_src.stream().first_packet_from(m_gap_at);
        if (!p) return;
        m_gap_b0_known = true;
        m_gap_b0 = p->second;
        m_gap_b0_count = p->first;
        m_gap_folded = m_gap_b0;
        m_gap_cause = GapCause::count;
        m_gap_not_only_unread = m_gap_corrupt = false;
    }
    if (to <= m_gap_folded) return;
    m_fates.for_each_in(m_gap_folded, to, [this](uint64_t, uint64_t, const FateTag& t) {
        if (t.fate != TraceFate::unread) m_gap_not_only_unread = true;
        if (m_gap_cause == GapCause::count && t.fate == TraceFate::lost) m_gap_cause = t.cause;
        m_gap_corrupt |= t.fate == TraceFate::corrupted;
    });
    m_gap_folded = to;
}

void TraceBooks::end_gap(uint64_t g1) {
    const uint64_t g0 = m_gap_at;
    const EtmStream& st = m_src.stream();
    // The gap's produced packets: from the first at or after g0 through the last before g1.
    if (!m_gap_b0_known) {
        const auto p = st.first_packet_from(g0);
        if (p && p->first < g1) fold_gap(p->second);
    }
    const bool bytes = m_gap_b0_known && m_gap_b0_count < g1;
    if (bytes)
        if (const auto b1 = st.end_of_packets_before(g1)) fold_gap(*b1);
    // Its cause: the first loss of produced trace in it; when nothing produced was lost
    // there, the first window in which nothing was traced.
    GapCause cause = bytes ? m_gap_cause : GapCause::count;
    if (cause == GapCause::count) {
        const auto& ws = m_src.untraced();
        const auto w = std::partition_point(
            ws.begin(), ws.end(), [g0](const UntracedWindow& x) { return end_of(x) <= g0; });
        if (w != ws.end() && w->first_count < g1) cause = cause_of(w->cause);
    }
    const bool only_unread = bytes && !m_gap_not_only_unread;
    if (cause != GapCause::count) {
        ++m_sums.gaps_by_cause[size_t(cause)];
    } else if (!only_unread && !(bytes && m_gap_corrupt)) {
        std::ostringstream ex;
        ex << "Counts [" << g0 << ", " << g1 << ") of " << m_src.name()
           << " are missing from the decoded trace with no cause to explain it.\n";
        m_report("unexplained", g0, ex.str());
    }
    m_gap_b0_known = false;
}

// What the books closed so far no longer need: sessions, untraced windows, fates and runs
// wholly behind the walk and the open gap.
void TraceBooks::forget(uint64_t first_run) {
    EtmStream& st = m_src.stream();
    // The open gap still needs its first packet found, and every run its first packet.
    const uint64_t counts_needed = std::min(m_gap_b0_known ? UINT64_MAX : m_gap_at, first_run);
    // The walk needs its bytes from m_walked on; the open gap the fates of its packets from
    // the first it has not folded (its first packet, when not yet folded at all, which may
    // begin before the walk's position).
    uint64_t bytes_needed = m_walked;
    if (m_gap_b0_known) {
        bytes_needed = std::min(bytes_needed, m_gap_folded);
    } else if (const auto p = st.first_packet_from(m_gap_at)) {
        bytes_needed = std::min(bytes_needed, p->second);
    }
    st.forget_before(bytes_needed, counts_needed);
    // Runs closed and walked past.
    while (!m_decoded.empty()) {
        const auto [c0, c1] = *m_decoded.begin();
        const auto p = st.packet_of(c1 - 1);
        if (c1 > m_gap_at || !p || p->second > m_walked) break;
        m_closed_counts = c1;
        m_decoded.erase(m_decoded.begin());
    }
    m_forgotten = std::max(m_forgotten, bytes_needed);
    m_fates.erase_before(m_forgotten);
    m_accounted.erase_before(m_forgotten);
    // Windows: the open gap needs its first (the first ending after its start); later gaps
    // start at or after the first kept session, so need none ending before it.
    const auto& ws = m_src.untraced();
    const uint64_t gap_at = m_gap_at;
    const size_t before_gap = static_cast<size_t>(
        std::partition_point(ws.begin(), ws.end(),
                             [gap_at](const UntracedWindow& w) { return end_of(w) <= gap_at; }) -
        ws.begin());
    m_src.erase_untraced(0, before_gap);
    if (ws.size() > 1 && !st.sessions().empty()) {
        const uint64_t kept = st.sessions().front().first_count;
        const size_t stale = static_cast<size_t>(
            std::partition_point(ws.begin() + 1, ws.end(),
                                 [kept](const UntracedWindow& w) { return end_of(w) <= kept; }) -
            ws.begin());
        m_src.erase_untraced(1, stale);
    }
}

} // namespace ringsim::models
