// One ETM source's trace books, for the AUX checker: the fate of every byte the source
// produced (delivered, lost for one cause, unread, corrupted) and the cause of every gap in
// its decoded counts, closed as the run goes so that memory stays flat however long it is.
//
// The checker tells the books what the sink and the driver did with the source's bytes
// (lost(), committed()), what it found itself (tag()) and which counts perf's decoder got
// (add_counts()). It then closes them up to a byte below which nothing can change any more
// (close_upto(): the sink has accounted for every byte there, no commit still held by the
// checker carries one, the decoder holds none), and closes the rest at the end (close()).
// Closing walks the stream in order, byte range by byte range, exactly as one walk at the
// end would (a range the walk cannot finish yet waits), and the gaps between decoded count
// runs likewise. Behind the walk the stream's sessions, its untraced windows and the books'
// own maps are dropped.
#pragma once

#include "models/check/interval_map.h"
#include "models/common/aux_stats.h"
#include "models/coresight/etm_source.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace ringsim::models {

enum class TraceFate : uint8_t { lost, unread, corrupted };
struct FateTag {
    TraceFate fate = TraceFate::lost;
    GapCause cause = GapCause::count;
    bool operator==(const FateTag& o) const { return fate == o.fate && cause == o.cause; }
};

// What closing found, in bytes (and gaps).
struct TraceBookSums {
    uint64_t delivered = 0, lost = 0, unread = 0, corrupted = 0;
    uint64_t overlap = 0; // decoded although reported lost or unread: a contradiction
    std::array<uint64_t, kGapCauses> lost_by_cause{};
    std::array<uint64_t, kGapCauses> gaps_by_cause{};
    uint64_t discontinuities = 0;
};

class TraceBooks {
public:
    // report(kind, position, explanation): a violation found while closing ("unexplained").
    using Report = std::function<void(const char*, uint64_t, std::string)>;
    TraceBooks(coresight::EtmSource& src, Report report);

    // The sink or the driver lost bytes [off, off+n) (their own report, exactly once each).
    // A claim continuing the one before it, for the same cause, is merged into it and booked
    // when anything else touches the books (apply_held()): a sink that laps itself reports
    // its source's bytes a burst at a time, and one booking of the run counts what each would
    // (the bytes added, the bytes already claimed) when nothing comes between them.
    void lost(uint64_t off, uint64_t n, FateTag why);
    // The driver committed bytes [off, off+n) to an AUX buffer.
    void committed(uint64_t off, uint64_t n);
    // The checker's own finding about bytes [off, off+n): the first fate of a byte wins.
    void tag(uint64_t off, uint64_t n, FateTag t) {
        apply_held();
        m_fates.insert(off, off + n, t);
    }
    // perf's decoder decoded counts [c, c+n); a count decoded before is a duplicate.
    void add_counts(uint64_t c, uint64_t n);

    // Every byte below this has been committed or reported lost.
    uint64_t accounted_prefix();
    // Closes the books of the bytes below `safe`, below which no fate, decoded count or
    // commit can change any more, and forgets what only they needed.
    void close_upto(uint64_t safe) { advance(safe, false); }
    // Closes the rest: every byte below `produced` (the stream's end less any in flight).
    void close(uint64_t produced) { advance(produced, true); }

    const TraceBookSums& sums() const { return m_sums; }
    uint64_t committed_bytes() const { return m_committed; }
    uint64_t reported_lost() const { return m_reported_lost; }
    uint64_t claimed_twice() {
        apply_held();
        return m_claimed_twice;
    }
    uint64_t duplicates() const { return m_duplicates; }
    const coresight::EtmSource& source() const { return m_src; }

private:
    void apply_held(); // books the held loss claim, if any
    void advance(uint64_t limit, bool final);
    void walk(uint64_t limit, bool final); // the bytes' fates
    void close_gaps(uint64_t limit, bool final);
    void fold_gap(uint64_t to); // fates of the open gap's packets up to byte `to`
    void end_gap(uint64_t g1);  // the open gap [m_gap_at, g1) is complete
    void forget(uint64_t counts_needed);

    coresight::EtmSource& m_src;
    Report m_report;
    IntervalMap<FateTag> m_fates;           // source bytes: lost / unread / corrupted
    IntervalMap<bool> m_accounted;          // bytes committed or reported lost
    std::map<uint64_t, uint64_t> m_decoded; // count runs [first, end) not yet closed
    uint64_t m_committed = 0, m_reported_lost = 0, m_claimed_twice = 0, m_duplicates = 0;
    struct HeldLoss {
        uint64_t off = 0, n = 0; // n == 0: none
        FateTag why;
    };
    HeldLoss m_held;              // a loss claim not booked yet (lost())
    uint64_t m_forgotten = 0;     // bytes below this have left the maps
    uint64_t m_closed_counts = 0; // counts below this have left m_decoded

    // The walk: where it stands and what it carries from the range before.
    uint64_t m_walked = 0;
    GapCause m_last_cause = GapCause::count;
    bool m_after_corrupt = false;

    // The gaps: the next gap starts at m_gap_at (the end of the last decoded run closed).
    bool m_started = false, m_decoded_any = false;
    uint64_t m_gap_at = 0;
    // The open gap's packets' fates folded so far (bytes [m_gap_b0, m_gap_folded)).
    bool m_gap_b0_known = false;
    uint64_t m_gap_b0 = 0, m_gap_b0_count = 0, m_gap_folded = 0;
    GapCause m_gap_cause = GapCause::count; // the first loss among them
    bool m_gap_not_only_unread = false, m_gap_corrupt = false;

    TraceBookSums m_sums;
};

} // namespace ringsim::models
