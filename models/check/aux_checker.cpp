#include "models/check/aux_checker.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/common/time_text.h"
#include "models/coresight/formatter.h"
#include "models/kernel/perf_abi.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace ringsim::models {

using coresight::AuxCommit;
using coresight::EtmSource;
using coresight::FrameRun;
using coresight::TraceLoss;

namespace {
constexpr uint64_t kFrame = coresight::kFrameSize;

// The gap a loss of the sink's leaves in the trace. A switch, not a cast: a TraceLoss added
// without its GapCause fails to compile (-Wswitch, warnings are errors).
GapCause cause_of(TraceLoss l) {
    switch (l) {
    case TraceLoss::fifo_overflow:
        return GapCause::fifo_overflow;
    case TraceLoss::sink_wrap:
        return GapCause::sink_wrap;
    case TraceLoss::aux_shortage:
        return GapCause::aux_shortage;
    case TraceLoss::memerr:
        return GapCause::memerr;
    case TraceLoss::snapshot_overwrite:
        return GapCause::snapshot_overwrite;
    case TraceLoss::record_lost:
        return GapCause::record_lost;
    case TraceLoss::sink_stopped:
        return GapCause::sink_stopped;
    case TraceLoss::count:
        break;
    }
    throw ModelError("a trace loss without a cause");
}
GapCause cause_of(coresight::UntracedCause u) {
    return u == coresight::UntracedCause::aux_disabled ? GapCause::aux_disabled
                                                       : GapCause::stop_window;
}
} // namespace

struct AuxChecker::Source {
    Source(EtmSource& src_, unsigned books_, TraceBooks::Report report)
        : src(&src_), books(books_), trace(src_, std::move(report)) {}
    EtmSource* src;
    unsigned books = 0; // whose AuxBooks hold its bytes
    // Its bytes' fates, decoded counts and gaps; with the sink's and the driver's own books
    // (bytes they committed to an AUX buffer and bytes they reported lost: together they must
    // be every byte the source produced).
    TraceBooks trace;
    uint64_t decoded_packets = 0;
    uint64_t lost = 0; // after close_source: lost, all causes
};

struct AuxChecker::Aux {
    struct Commit {
        AuxCommit c;
        coresight::EtrFrameLog log; // the commit's frames, renumbered from 0
        uint64_t data_off = 0;      // AUX position of frame 0
        // Per source it carries, its first byte: the source's books stay open from there.
        std::vector<std::pair<Source*, uint64_t>> first_src;
    };
    struct Chunk {
        uint64_t pos = 0;
        std::vector<uint8_t> bytes;
    };
    explicit Aux(const CheckedAux& info_, AuxChecker& owner) : info(info_) {
        coresight::TraceDecoderOptions o;
        o.on_counts = [&owner](uint8_t id, uint64_t first, uint64_t n) {
            if (Source* s = owner.source(id)) {
                s->trace.add_counts(first, n);
                s->decoded_packets += n;
            }
            owner.m_n.decoded_packets += n;
        };
        // A count decoded from bytes on both sides of frames the sink's FIFO dropped is not
        // a count the source produced, whatever its value: it is booked as a splice, and its
        // bytes with the bytes around it (close_source).
        o.source_offset = [this, &owner](uint8_t id, uint64_t frame) {
            return owner.source_offset(*this, id, frame);
        };
        o.on_spliced = [&owner](uint8_t, uint64_t) {
            ++owner.m_n.spliced_packets;
            ++owner.m_n.decoded_packets;
        };
        decoder = std::make_unique<coresight::TraceDecoder>(o);
    }
    CheckedAux info;
    std::deque<Commit> commits;
    uint64_t generation = 0; // commits added or removed: what source_offset's hint depends on
    // source_offset's last answer, which holds for the frames after it up to `until` (the
    // decoder asks frame after frame): the commit's data_off and the run's first frame and
    // source offset, valid while the commits are those of `generation`.
    struct OffsetHint {
        uint64_t generation = ~uint64_t(0);
        uint8_t id = 0;
        uint64_t from = 0, until = 0; // AUX offsets
        uint64_t data_off = 0, first_frame = 0, src_off = 0;
        uint64_t at(uint64_t frame) const {
            return src_off +
                   ((frame - data_off) / kFrame - first_frame) * coresight::kFrameSourceBytes;
        }
        // The answer for a frame in [from, until): full frames of one run up to `until`.
        coresight::SourceRun run_at(uint64_t frame) const {
            return {at(frame), until, coresight::kFrameSourceBytes};
        }
    };
    mutable OffsetHint hint;
    struct Record {
        uint64_t size = 0, flags = 0;
        bool delivered = false;
    };
    std::multimap<uint64_t, Record> records; // PERF_RECORD_AUX written, by aux_offset
    IntervalMap<bool> covered;               // AUX bytes a delivered PERF_RECORD_AUX describes
    IntervalMap<uint8_t> consumed; // AUX bytes the checker has dealt with (1 fed, 2 other)
    std::deque<Chunk> pending;
    std::unique_ptr<coresight::TraceDecoder> decoder;
    uint64_t max_end = 0;   // the newest committed AUX position
    uint64_t harvested = 0; // bytes committed into it
};

AuxChecker::AuxChecker(std::vector<EtmSource*> sources, std::vector<unsigned> books_of_source,
                       std::vector<CheckedAux> auxes, bool snapshot, const OrderingEngine* engine,
                       size_t keep_violations, size_t close_every)
    : m_snapshot(snapshot), m_engine(engine), m_books(auxes.size()), m_keep(keep_violations),
      m_close_every(close_every) {
    if (books_of_source.size() != sources.size())
        throw ModelError("aux checker: every source needs the buffer whose books hold it");
    for (size_t i = 0; i < sources.size(); ++i) {
        if (books_of_source[i] >= m_books.size())
            throw ModelError("aux checker: source " + sources[i]->name() + " booked to no buffer");
        const std::string name = sources[i]->name();
        m_sources.push_back(std::make_unique<Source>(
            *sources[i], books_of_source[i],
            [this, name](const char* kind, uint64_t pos, std::string explanation) {
                ++m_n.violations_unexplained; // the only kind closing finds
                add(name, kind, pos, "", std::move(explanation), "");
            }));
    }
    for (const CheckedAux& a : auxes)
        m_auxes.push_back(std::make_unique<Aux>(a, *this));
}

AuxChecker::~AuxChecker() = default;

AuxChecker::Source* AuxChecker::source(uint8_t id) {
    for (auto& s : m_sources)
        if (s->src->trace_id() == id) return s.get();
    return nullptr;
}

uint64_t AuxChecker::harvested_bytes(unsigned aux) const {
    return m_auxes.at(aux)->harvested;
}

uint64_t AuxChecker::reported_lost(uint8_t id) const {
    for (const auto& s : m_sources)
        if (s->src->trace_id() == id) return s->trace.reported_lost();
    return 0;
}

uint64_t AuxChecker::lost_bytes(uint8_t id) const {
    for (const auto& s : m_sources)
        if (s->src->trace_id() == id) return s->lost;
    return 0;
}

void AuxChecker::on_trace_lost(uint8_t id, uint64_t src_off, uint64_t n, TraceLoss why) {
    Source* s = source(id);
    if (!s) return;
    s->trace.lost(src_off, n, {TraceFate::lost, cause_of(why)});
    maybe_close_settled();
}

void AuxChecker::on_aux_commit(AuxCommit c) {
    Aux& a = *m_auxes.at(c.aux);
    Aux::Commit& k = a.commits.emplace_back();
    ++a.generation;
    k.c = std::move(c);
    const AuxCommit& cc = k.c;
    k.data_off = cc.aux_off + (cc.barrier ? kFrame : 0);
    for (const FrameRun& r : cc.runs) {
        k.log.append(r.trace_id, r.src_off, r.src_bytes);
        if (Source* s = source(r.trace_id)) {
            s->trace.committed(r.src_off, r.src_bytes);
            auto it = std::find_if(k.first_src.begin(), k.first_src.end(),
                                   [s](const auto& f) { return f.first == s; });
            if (it == k.first_src.end())
                k.first_src.emplace_back(s, r.src_off);
            else
                it->second = std::min(it->second, r.src_off);
        }
    }
    std::vector<FrameRun>().swap(k.c.runs); // the log holds them now
    if (cc.record_written) a.records.insert({cc.record_offset, {cc.record_size, cc.flags, false}});
    a.max_end = std::max(a.max_end, cc.aux_off + cc.size);
    a.harvested += cc.size;
    // Copies the AUX buffer has since overwritten cannot be read any more.
    for (Aux::Commit& old : a.commits) {
        if (old.c.aux_off + old.c.size + a.info.size > a.max_end) break;
        std::vector<uint8_t>().swap(old.c.bytes);
    }
    if (!cc.record_written) {
        // D11: nothing will describe these bytes; perf's decoder will not look at them.
        a.consumed.insert(cc.aux_off, cc.aux_off + cc.size, 2);
        tag_aux(a, cc.aux_off, cc.aux_off + cc.size, {TraceFate::lost, GapCause::record_lost});
    }
    if (m_snapshot && cc.size > a.info.size) {
        // E6: the copy wrapped inside the AUX buffer and overwrote its own beginning.
        const uint64_t gone = cc.aux_off + cc.size - a.info.size;
        tag_aux(a, cc.aux_off, gone, {TraceFate::lost, GapCause::snapshot_overwrite});
        a.consumed.insert(cc.aux_off, gone, 2);
    }
    maybe_close_settled();
}

void AuxChecker::close_settled() {
    m_since_close = 0;
    // Counts the decoders have assembled but not reported yet would land behind the books.
    for (auto& a : m_auxes)
        a->decoder->flush_counts();
    // A commit still held can still be read, tagged or decoded: its sources' books stay open
    // from its first byte.
    std::vector<std::pair<Source*, uint64_t>> held;
    for (const auto& a : m_auxes)
        for (const Aux::Commit& k : a->commits)
            for (const auto& [s, off] : k.first_src) {
                auto it = std::find_if(held.begin(), held.end(),
                                       [s = s](const auto& h) { return h.first == s; });
                if (it == held.end())
                    held.emplace_back(s, off);
                else
                    it->second = std::min(it->second, off);
            }
    for (auto& s : m_sources) {
        uint64_t safe = s->trace.accounted_prefix();
        for (const auto& [h, off] : held)
            if (h == s.get()) safe = std::min(safe, off);
        // A decoder may hold the first bytes of a count packet whose last ones come later.
        safe = safe > coresight::kCountPacketSize ? safe - coresight::kCountPacketSize : 0;
        s->trace.close_upto(safe);
    }
}

std::optional<coresight::SourceRun> AuxChecker::source_offset(const Aux& a, uint8_t id,
                                                              uint64_t frame) const {
    const Aux::OffsetHint& h = a.hint;
    if (h.generation == a.generation && h.id == id && frame >= h.from && frame < h.until)
        return h.run_at(frame);
    // The newest commit that wrote the frame wrote what the decoder is reading (verify()).
    // A newer commit starting above the frame bounds the frames the answer holds for.
    uint64_t until = ~uint64_t(0);
    for (auto it = a.commits.rbegin(); it != a.commits.rend(); ++it) {
        const Aux::Commit& k = *it;
        const uint64_t end = k.c.aux_off + k.c.size;
        if (frame < k.data_off || frame >= end) {
            if (frame < k.data_off) until = std::min(until, k.data_off);
            continue;
        }
        const uint64_t f = (frame - k.data_off) / kFrame;
        if (f < k.log.first_kept() || f >= k.log.frames()) return std::nullopt;
        uint64_t same_until = 0;
        const FrameRun* r = k.log.run_of(f, id, same_until);
        if (!r) return std::nullopt;
        // Where frame f's bytes of the run start in the source (runs_in's clipping: the run
        // is the last one starting at or before f, so f >= r->first_frame), and so for every
        // frame up to the run's end, the commit's end and the newer commits.
        a.hint = {a.generation, id,
                  frame,        std::min({until, end, k.data_off + same_until * kFrame}),
                  k.data_off,   r->first_frame,
                  r->src_off};
        return a.hint.run_at(frame);
    }
    return std::nullopt;
}

void AuxChecker::trace_behind(const Aux& a, uint64_t first, uint64_t end,
                              const std::function<void(uint8_t, uint64_t, uint64_t)>& f) const {
    std::vector<FrameRun> runs;
    for (const Aux::Commit& k : a.commits) {
        const uint64_t lo = std::max(first, k.data_off);
        const uint64_t hi = std::min(end, k.c.aux_off + k.c.size);
        if (lo >= hi) continue;
        const uint64_t f0 = (lo - k.data_off) / kFrame;
        const uint64_t f1 = std::min(k.log.frames(), (hi - k.data_off + kFrame - 1) / kFrame);
        if (f1 <= f0) continue;
        runs.clear();
        k.log.runs_in(f0, f1 - f0, runs);
        for (const FrameRun& r : runs)
            f(r.trace_id, r.src_off, r.src_bytes);
    }
}

void AuxChecker::tag_aux(const Aux& a, uint64_t first, uint64_t end, FateTag tag) {
    trace_behind(a, first, end, [this, tag](uint8_t id, uint64_t off, uint64_t n) {
        if (Source* s = source(id)) s->trace.tag(off, n, tag);
    });
}

void AuxChecker::expected_bytes(const Aux& a, uint64_t pos, uint64_t n, uint8_t* out,
                                std::vector<uint64_t>* seqs) const {
    // Memory no commit wrote reads as zero (never written since allocation).
    uint64_t filled = pos;
    auto zero_to = [&](uint64_t at) {
        if (at > filled) std::memset(out + (filled - pos), 0, at - filled);
        filled = std::max(filled, at);
    };
    if (seqs) seqs->assign(n, 0);
    std::vector<uint8_t> frames;
    auto stream_of = [this](uint8_t id) -> const coresight::EtmStream& {
        for (const auto& s : m_sources)
            if (s->src->trace_id() == id) return s->src->stream();
        throw ModelError("aux checker: unknown trace ID");
    };
    for (const Aux::Commit& k : a.commits) {
        // A later commit at the same position (snapshot laps) wins: walk all in order.
        const uint64_t lo = std::max(pos, k.c.aux_off);
        const uint64_t hi = std::min(pos + n, k.c.aux_off + k.c.size);
        if (lo >= hi) continue;
        zero_to(lo);
        filled = std::max(filled, hi);
        if (k.c.bytes.size() == k.c.size) {
            // What the driver's copy stored, kept until the tool has read past it.
            std::memcpy(out + (lo - pos), k.c.bytes.data() + (lo - k.c.aux_off), hi - lo);
        } else {
            if (k.c.barrier && lo < k.data_off) {
                uint8_t barrier[coresight::kBarrierSize];
                coresight::insert_barrier_packet(barrier);
                for (uint64_t p = lo; p < std::min(hi, k.data_off); ++p)
                    out[p - pos] = barrier[p - k.c.aux_off];
            }
            const uint64_t dlo = std::max(lo, k.data_off);
            if (dlo < hi) {
                const uint64_t f0 = (dlo - k.data_off) / kFrame;
                const uint64_t f1 =
                    std::min(k.log.frames(), (hi - k.data_off + kFrame - 1) / kFrame);
                if (f1 > f0) {
                    frames.resize((f1 - f0) * kFrame);
                    k.log.materialize(f0, f1 - f0, stream_of, frames.data());
                    const uint64_t from = k.data_off + f0 * kFrame;
                    const uint64_t to = std::min(hi, from + frames.size());
                    std::memcpy(out + (dlo - pos), frames.data() + (dlo - from), to - dlo);
                }
            }
        }
        if (seqs)
            for (const AuxCommit::Store& st : k.c.stores) {
                const uint64_t s0 = std::max(lo, st.aux_off),
                               s1 = std::min(hi, st.aux_off + st.len);
                for (uint64_t p = s0; p < s1; ++p)
                    (*seqs)[p - pos] = st.seq;
            }
    }
    zero_to(pos + n);
}

void AuxChecker::on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                               const std::vector<CopySource>& sources, const CopyContext& ctx) {
    Aux& a = *m_auxes.at(idx);
    verify(a, pos, data, n, sources, ctx);
    pump(a);
    // The tool never reads behind this again: the copies' bytes are no longer needed, and a
    // commit whose every byte has been dealt with is not needed at all.
    for (Aux::Commit& k : a.commits) {
        if (k.c.aux_off + k.c.size > pos + n) break;
        std::vector<uint8_t>().swap(k.c.bytes);
    }
    while (!a.commits.empty()) {
        const AuxCommit& k = a.commits.front().c;
        if (k.aux_off + k.size > pos + n) break; // the tool may still read it
        uint64_t done = 0;
        a.consumed.for_each_in(
            k.aux_off, k.aux_off + k.size,
            [&done](uint64_t lo, uint64_t hi, const uint8_t&) { done += hi - lo; });
        if (done < k.size) break;
        for (auto it = a.records.begin(); it != a.records.end() && it->first < k.aux_off;)
            it = it->second.delivered ? a.records.erase(it) : std::next(it);
        a.consumed.erase_before(k.aux_off);
        a.covered.erase_before(k.aux_off);
        a.commits.pop_front();
        ++a.generation;
    }
    maybe_close_settled();
}

const uint8_t* AuxChecker::kept_bytes(const Aux& a, uint64_t pos, uint64_t n) const {
    // expected_bytes() lets each commit overwrite those before it: the newest to touch the
    // range decides every byte when it covers all of it.
    for (auto it = a.commits.rbegin(); it != a.commits.rend(); ++it) {
        const AuxCommit& c = it->c;
        if (pos >= c.aux_off + c.size || c.aux_off >= pos + n) continue; // touches none of it
        const bool covers = c.aux_off <= pos && pos + n <= c.aux_off + c.size;
        return covers && c.bytes.size() == c.size ? c.bytes.data() + (pos - c.aux_off) : nullptr;
    }
    return nullptr;
}

void AuxChecker::verify(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n,
                        const std::vector<CopySource>& src, const CopyContext& ctx) {
    // The usual case, compared in place: perf read what the harvest there stored.
    if (const uint8_t* kept = kept_bytes(a, pos, n); kept && std::memcmp(data, kept, n) == 0) {
        take_good(a, pos, data, n);
        return;
    }
    // Grown, never shrunk: reads of different lengths would zero-fill the difference anew.
    if (m_expect.size() < n) m_expect.resize(n);
    expected_bytes(a, pos, n, m_expect.data(), nullptr);
    // One violation per read that returned wrong bytes, named by its first wrong range.
    uint64_t wrong = 0, first_bad = 0, first_end = 0;
    if (std::memcmp(data, m_expect.data(), n) == 0) { // at memcmp speed
        take_good(a, pos, data, n);
        return;
    }
    uint64_t i = 0;
    while (i < n) {
        // The longest run that matches, then the longest that does not.
        uint64_t j = i;
        while (j < n && data[j] == m_expect[j])
            ++j;
        if (j > i) take_good(a, pos + i, data + i, j - i);
        if (j == n) break;
        uint64_t k = j;
        while (k < n && data[k] != m_expect[k])
            ++k;
        // Round out to whole frames: a frame with one wrong byte is not decodable.
        const uint64_t bad0 = std::max(pos, (pos + j) / kFrame * kFrame);
        const uint64_t bad1 = std::min(pos + n, (pos + k + kFrame - 1) / kFrame * kFrame);
        if (!a.pending.empty() && a.pending.back().pos + a.pending.back().bytes.size() > bad0) {
            Aux::Chunk& c = a.pending.back();
            c.bytes.resize(bad0 > c.pos ? bad0 - c.pos : 0);
            if (c.bytes.empty()) a.pending.pop_back();
        }
        if (!wrong) {
            first_bad = pos + j;
            first_end = pos + k;
        }
        wrong += k - j;
        a.consumed.insert(bad0, bad1, 3);
        tag_aux(a, bad0, bad1, {TraceFate::corrupted, GapCause::count});
        i = bad1 - pos;
    }
    if (!wrong) return;
    // Where did the first wrong bytes come from? An older store: stale; a newer: overwritten.
    std::vector<uint64_t> seqs;
    std::vector<uint8_t> tmp(first_end - first_bad);
    expected_bytes(a, first_bad, tmp.size(), tmp.data(), &seqs);
    const uint64_t rel = first_bad - pos;
    uint64_t actual = 0;
    Picos load_perform = 0;
    for (const CopySource& cs : src)
        if (cs.offset <= rel && rel < cs.offset + cs.length) {
            actual = cs.store_seq;
            load_perform = cs.load_perform;
        }
    if (actual == 0) {
        // Memory older than the engine's history is not always older than the copy: a later
        // harvest that reused the space long before perf's late load performed has merged
        // into memory by then. Its commit is still kept (perf has not read it): compare.
        const uint64_t len = first_end - first_bad;
        const uint64_t kept_end =
            a.commits.empty() ? 0 : a.commits.back().c.aux_off + a.commits.back().c.size;
        std::vector<uint8_t> later(len);
        std::vector<uint64_t> later_seqs;
        for (uint64_t at = first_bad + a.info.size; at + len <= kept_end; at += a.info.size) {
            expected_bytes(a, at, len, later.data(), &later_seqs);
            if (later_seqs.front() && std::memcmp(later.data(), data + rel, len) == 0) {
                actual = later_seqs.front();
                break;
            }
        }
    }
    const uint64_t expected = seqs.front();
    const bool stale = actual == 0 || actual < expected;
    (stale ? m_n.violations_stale : m_n.violations_overrun)++;
    std::ostringstream ex;
    ex << "perf loaded aux_head = " << ctx.head_value << " (load #" << ctx.head_load_seq
       << ", performed at " << us_text(ctx.head_load_perform) << ") and copied AUX bytes [" << pos
       << ", " << pos + n << ") of " << a.info.name << ".\n";
    ex << wrong << " of them were wrong, the first at [" << first_bad << ", " << first_end
       << "), read by a load that performed at " << us_text(load_perform)
       << (load_perform < ctx.head_load_perform ? ", before the aux_head load did" : "") << ".\n";
    if (stale)
        ex << "They still held "
           << (actual ? "older data (store #" + std::to_string(actual) + ")"
                      : "memory older than the driver's copy")
           << ": the driver's copy (store #" << expected
           << ") had not reached them, although the aux_head store that announced it had.\n";
    else
        ex << "They held store #" << actual << ", from a later harvest that reused the space "
           << "while perf was still reading it: perf's aux_tail store #" << ctx.tail_store_seq
           << " let the driver see the room before perf's loads had performed.\n";
    add(a.info.name, stale ? "stale" : "overrun", first_bad, stale ? "B, C" : "A, D", ex.str(),
        stale ? "Keep (B) for AUX (the driver's smp_wmb) and (C) for AUX (perf's smp_rmb)."
              : "Keep (D) for AUX (perf's smp_mb before the aux_tail store) and (A) for AUX "
                "(the control dependency on aux_tail).");
}

void AuxChecker::take_good(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n) {
    // In order behind what waits already; else straight to the decoder as far as delivered
    // records describe it (no copy), the rest waits for its record.
    if (a.pending.empty()) {
        const uint64_t end = pos + n;
        while (pos < end) {
            if (const auto* cov = a.covered.find(pos)) {
                const uint64_t stop = std::min(end, cov->second.end);
                feed(a, pos, data, stop - pos);
                data += stop - pos;
                pos = stop;
            } else if (const auto* done = a.consumed.find(pos)) {
                const uint64_t stop = std::min(end, done->second.end);
                data += stop - pos;
                pos = stop;
            } else {
                break;
            }
        }
        n = end - pos;
        if (!n) return;
    }
    a.pending.push_back({pos, std::vector<uint8_t>(data, data + n)});
}

void AuxChecker::on_aux_record(unsigned idx, uint64_t offset, uint64_t size, uint64_t flags) {
    if (idx >= m_auxes.size()) return;
    Aux& a = *m_auxes[idx];
    ++m_n.records_delivered;
    if (flags & PERF_AUX_FLAG_TRUNCATED) ++m_n.truncated_delivered;
    // A5: normal mode names the first new byte; overwrite mode the new head.
    // Every PERF_RECORD_AUX perf.data holds must be one the driver wrote (A3, A5).
    bool known = false;
    for (auto [it, end] = a.records.equal_range(offset); it != end; ++it)
        if (it->second.size == size && it->second.flags == flags) {
            known = true;
            it->second.delivered = true;
            break;
        }
    if (!known) {
        ++m_n.violations_accounting;
        std::ostringstream ex;
        ex << "perf.data holds PERF_RECORD_AUX {offset " << offset << ", size " << size
           << ", flags " << flags << "} for " << a.info.name << ", which the driver never wrote.\n";
        add(a.info.name, "accounting", offset, "", ex.str(), "");
        return;
    }
    const uint64_t first = (flags & PERF_AUX_FLAG_OVERWRITE) ? offset - size : offset;
    if (size) a.covered.insert(first, first + size, true);
    pump(a);
}

void AuxChecker::pump(Aux& a) {
    while (!a.pending.empty()) {
        Aux::Chunk& c = a.pending.front();
        const uint64_t end = c.pos + c.bytes.size();
        uint64_t at = c.pos;
        while (at < end) {
            if (const auto* cov = a.covered.find(at)) {
                const uint64_t stop = std::min(end, cov->second.end);
                feed(a, at, c.bytes.data() + (at - c.pos), stop - at);
                at = stop;
                continue;
            }
            if (const auto* done = a.consumed.find(at)) { // no record will come
                at = std::min(end, done->second.end);
                continue;
            }
            break; // its record has not arrived yet
        }
        if (at == end) {
            a.pending.pop_front();
            continue;
        }
        c.bytes.erase(c.bytes.begin(), c.bytes.begin() + (at - c.pos));
        c.pos = at;
        break;
    }
}

void AuxChecker::feed(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n) {
    a.decoder->feed(pos, data, n);
    a.consumed.insert(pos, pos + n, 1);
}

void AuxChecker::add(std::string where, std::string kind, uint64_t pos, std::string barriers,
                     std::string explanation, std::string fix) {
    ++m_n.violations_total;
    if (m_violations.size() >= m_keep) return;
    Violation v;
    v.buffer = std::move(where);
    v.kind = std::move(kind);
    v.pos = pos;
    v.at_ps = sim_now();
    v.barriers = std::move(barriers);
    v.explanation = std::move(explanation);
    v.fix = std::move(fix);
    m_violations.push_back(std::move(v));
}

void AuxChecker::finish() {
    for (auto& ap : m_auxes) {
        Aux& a = *ap;
        // Bytes read whose record was written but never reached perf.data.
        for (const Aux::Chunk& c : a.pending) {
            tag_aux(a, c.pos, c.pos + c.bytes.size(), {TraceFate::lost, GapCause::record_lost});
            a.consumed.insert(c.pos, c.pos + c.bytes.size(), 2);
        }
        a.pending.clear();
        a.decoder->finish();
        // Committed bytes the tool never read: still there (unread), or overwritten by a
        // later commit in a snapshot buffer (D6).
        for (const Aux::Commit& k : a.commits) {
            uint64_t at = k.c.aux_off;
            const uint64_t end = k.c.aux_off + k.c.size;
            auto leftover = [&](uint64_t lo, uint64_t hi) {
                const uint64_t live = a.max_end > a.info.size ? a.max_end - a.info.size : 0;
                const uint64_t split = std::clamp(live, lo, hi);
                if (split > lo)
                    tag_aux(a, lo, split,
                            m_snapshot ? FateTag{TraceFate::lost, GapCause::snapshot_overwrite}
                                       : FateTag{TraceFate::corrupted, GapCause::count});
                if (hi > split) tag_aux(a, split, hi, {TraceFate::unread, GapCause::count});
            };
            a.consumed.for_each_in(at, end, [&](uint64_t lo, uint64_t hi, const uint8_t&) {
                if (lo > at) leftover(at, lo);
                at = hi;
            });
            if (at < end) leftover(at, end);
        }
    }
    for (auto& s : m_sources)
        close_source(*s);
}

void AuxChecker::close_source(Source& s) {
    const coresight::EtmStream& st = s.src->stream();
    AuxBooks& books = m_books[s.books];
    TraceBooks& tb = s.trace;
    books.bytes_produced += st.size();
    // A run stopped early (SIGINT, SIGTERM) ends with trace still in the ETM's FIFO and the
    // sink, neither committed nor reported lost: the stream's last bytes, since the sink
    // takes them in order. Only they are in flight; the books close on the bytes before.
    const uint64_t accounted = tb.committed_bytes() + tb.reported_lost();
    const uint64_t in_flight = m_stopped_early && accounted < st.size() ? st.size() - accounted : 0;
    books.bytes_in_flight += in_flight;
    const uint64_t produced = st.size() - in_flight;
    const std::string name = s.src->name();
    if (tb.duplicates()) {
        ++m_n.violations_duplicated;
        add(name, "duplicated", 0, "",
            std::to_string(tb.duplicates()) + " count packets were decoded twice.\n", "");
    }
    tb.close(produced);
    const TraceBookSums& r = tb.sums();
    // The sink's and driver's own books against the source: what they committed plus what
    // they reported lost is every byte produced, each claimed once.
    if (accounted != produced || tb.claimed_twice()) {
        // (produced excludes what is in flight: the identity holds on the rest)
        ++m_n.violations_accounting;
        std::ostringstream ex;
        ex << name << " produced " << produced << " trace bytes; the sink and the driver "
           << "committed " << tb.committed_bytes() << " to AUX buffers and reported "
           << tb.reported_lost() << " lost (" << tb.claimed_twice() << " of them twice): "
           << (accounted < produced ? "some were never accounted for"
                                    : "some were accounted for twice")
           << ".\n";
        add(name, "accounting", 0, "", ex.str(), "");
    }
    if (r.overlap) {
        ++m_n.violations_accounting;
        add(name, "accounting", 0, "",
            std::to_string(r.overlap) +
                " trace bytes were decoded although the model reported them lost or unread.\n",
            "");
    }
    books.bytes_delivered += r.delivered;
    books.bytes_lost += r.lost;
    s.lost = r.lost;
    books.bytes_unread += r.unread;
    books.bytes_corrupted += r.corrupted;
    for (size_t c = 0; c < kGapCauses; ++c) {
        books.lost_by_cause[c] += r.lost_by_cause[c];
        books.gaps_by_cause[c] += r.gaps_by_cause[c];
    }
    books.discontinuities += r.discontinuities;

    // Untraced: what the rate would have produced while the event was off and the code it
    // traces ran (EtmSource::add_untraced), by why it was off.
    for (const auto why :
         {coresight::UntracedCause::stop_window, coresight::UntracedCause::aux_disabled}) {
        const uint64_t bytes = s.src->untraced_counts(why) * coresight::kCountPacketSize;
        books.bytes_untraced += bytes;
        books.lost_by_cause[size_t(cause_of(why))] += bytes;
    }
}

namespace {

const char* kCauseText[kGapCauses] = {
    "the sink's FIFO was full: trace arrived faster than its memory bandwidth",
    "overwritten in the ETR buffer before the harvest: the sink wrapped, STS.Full (D3)",
    "the AUX room at perf_aux_output_begin was smaller than the ETR data: the oldest bytes "
    "were dropped, TRUNCATED (D2)",
    "STS.MemErr: the driver discarded the whole capture (D10)",
    "the snapshot AUX buffer overwrote it before a snapshot read it (D6)",
    "its PERF_RECORD_AUX never reached perf.data, so perf's cs-etm decoder skips it (D11)",
    "traced while the shared sink stood stopped: another CPU's harvest had flushed and "
    "stopped it, and a CPU starting meanwhile only takes a reference (E3), so the sink "
    "restarts only once every user has stopped",
    "the event was stopped (sched out, migration, snapshot, exit): nothing traced (D4)",
    "the event was disabled because the AUX buffer was full, until the tool re-enabled it "
    "(A2, A6; D1): nothing traced",
};

} // namespace

// The books, per buffer and in total (the total sums the buffers'), then the checker's own
// counts, in total only.
void declare_aux_checker_stats(StatRegistry& r) {
    using B = AuxBooks;
    r.counter("aux.bytes.produced", "bytes",
              "trace bytes the ETMs produced (per buffer: those "
              "of its event's ETMs, wherever a shared sink's harvest copied them); the checker "
              "gives each one fate, so produced = delivered + lost + unread + corrupted",
              &B::bytes_produced);
    r.counter("aux.bytes.delivered", "bytes",
              "trace bytes ringsim's decoder decoded from what "
              "the tool copied out of the AUX buffers",
              &B::bytes_delivered);
    r.counter("aux.bytes.lost", "bytes",
              "trace bytes produced and lost, all causes "
              "(lost_by_cause.*, the first seven)",
              &B::bytes_lost);
    r.ratio("aux.bytes.lost_fraction",
            "aux.bytes.lost / aux.bytes.produced (0 when nothing "
            "was produced)",
            "aux.bytes.lost", "aux.bytes.produced");
    r.counter("aux.bytes.unread", "bytes",
              "trace bytes still in an AUX buffer when the run "
              "ended",
              &B::bytes_unread);
    r.counter("aux.bytes.in_flight", "bytes",
              "trace bytes still in an ETM's FIFO or a sink, neither committed nor reported "
              "lost, when the run stopped: 0 unless it was interrupted (SIGINT, SIGTERM)",
              &B::bytes_in_flight);
    r.counter("aux.bytes.corrupted", "bytes",
              "trace bytes the tool read wrong (each range is "
              "also a stale or overrun violation)",
              &B::bytes_corrupted);
    r.counter("aux.bytes.untraced", "bytes",
              "trace the ETMs would have produced while their "
              "event was off and the code it traces ran (a task-bound event's: only while its "
              "task was scheduled in); stop_window + aux_disabled; not part of produced",
              &B::bytes_untraced);
    for (size_t c = 0; c < kGapCauses; ++c)
        r.counter<B>(std::string("aux.lost_by_cause.") + to_string(GapCause(c)), "bytes",
                     kCauseText[c], [c](const B& b) { return b.lost_by_cause[c]; });
    for (size_t c = 0; c < kGapCauses; ++c)
        r.counter<B>(std::string("aux.gaps_by_cause.") + to_string(GapCause(c)), "gaps",
                     "gaps in a source's decoded counts whose cause is this one",
                     [c](const B& b) { return b.gaps_by_cause[c]; });

    r.counter("aux.discontinuities", "gaps",
              "jumps between two decoded counts of a source: the discontinuities a decoder of "
              "the trace perf read sees (perf's cs-etm through OpenCSD); loss before the first "
              "or after the last decoded count makes none",
              &B::discontinuities);

    using N = AuxCheckCounters;
    auto own = [&r](const char* path, const char* unit, const char* what, uint64_t N::*m) {
        r.counter<AuxChecker>(
            path, unit, what, [m](const AuxChecker& k) { return k.counters().*m; },
            StatScope::total);
    };
    own("aux.records_delivered", "records",
        "PERF_RECORD_AUX records the tool delivered, each once (perf.data holds twice one that "
        "perf_mmap__push copied twice, and perf report counts both)",
        &N::records_delivered);
    own("aux.truncated_delivered", "records", "of those, flagged TRUNCATED (C9)",
        &N::truncated_delivered);
    own("aux.decoder.packets", "packets", "count packets decoded", &N::decoded_packets);
    own("aux.decoder.spliced_packets", "packets",
        "count packets decoded from bytes on both "
        "sides of a run of frames the sink's FIFO dropped (the model emits no ETM Overflow "
        "packet), told by where their bytes came from, whatever count they decoded to: never "
        "a delivered count; the dropped bytes, and the packet's bytes on either side, are booked "
        "lost to the FIFO overflow",
        &N::spliced_packets);
    own("aux.violations.total", "violations", "AUX violations of every kind", &N::violations_total);
    r.adds_to<AuxChecker>("violations.total",
                          [](const AuxChecker& k) { return k.counters().violations_total; });
    own("aux.violations.stale", "violations",
        "AUX ranges read before the driver's copy "
        "reached them: (B) or (C) for AUX missing",
        &N::violations_stale);
    own("aux.violations.overrun", "violations",
        "AUX ranges overwritten by a later harvest "
        "before the tool read them: (A) or (D) for AUX missing",
        &N::violations_overrun);
    own("aux.violations.unexplained", "violations",
        "gaps or undecodable trace no cause "
        "explains",
        &N::violations_unexplained);
    own("aux.violations.duplicated", "violations", "counts decoded twice",
        &N::violations_duplicated);
    own("aux.violations.accounting", "violations",
        "the books disagree: a source's bytes "
        "committed by the driver plus those the sink and driver reported lost differ from what "
        "it produced, a byte is reported lost twice, decoded bytes were reported lost or "
        "unread, or perf.data holds a PERF_RECORD_AUX the driver never wrote",
        &N::violations_accounting);
}

} // namespace ringsim::models
