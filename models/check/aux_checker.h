// The AUX path's books: every trace byte an ETM produced ends delivered (decoded from what
// the tool copied), lost for one named cause, unread, or corrupted, and every gap in a
// source's decoded counts is attributed to one cause of KERNEL-SEMANTICS §10.
//  - Producer side: the sink and the driver report what they lose and what they commit
//    (TraceObserver); each commit says which frames, so which source bytes, fill which AUX
//    bytes.
//  - Consumer side: each chunk the tool copies is compared byte for byte with what the
//    commits put there (regenerated from the sources' streams); a mismatch is stale (the
//    tool read before the copy reached it: (B)/(C) for AUX) or overrun (a later commit
//    replaced it: (A)/(D)), told apart by the stores the bytes came from, as for the data
//    buffers. Matching bytes are decoded the way perf's cs-etm does it: only AUX bytes a
//    PERF_RECORD_AUX covers (cs_etm__queue_aux_records), frame by frame and packet by packet
//    (trace_decoder.h).
//  - At the end each source's decoded counts are compared with what it produced.
// Memory: commits until read past, chunks until their record arrives, and per source the
// books not yet closed (trace_books.h): flat in the length of the run.
#pragma once

#include "models/check/checker.h"
#include "models/check/interval_map.h"
#include "models/check/trace_books.h"
#include "models/common/aux_stats.h"
#include "models/coresight/etm_source.h"
#include "models/coresight/trace_decoder.h"
#include "models/coresight/trace_loss.h"
#include "models/user/tool_observers.h"

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::models {

// The checker's own counts, for the whole session.
struct AuxCheckCounters {
    uint64_t records_delivered = 0, truncated_delivered = 0, decoded_packets = 0;
    uint64_t spliced_packets = 0; // decoded across a FIFO drop
    uint64_t violations_total = 0, violations_stale = 0, violations_overrun = 0;
    uint64_t violations_unexplained = 0, violations_duplicated = 0, violations_accounting = 0;
};

struct CheckedAux {
    std::string name; // e.g. "cpu2.aux"
    uint64_t size = 0;
    Addr base = 0;
};

class AuxChecker : public coresight::TraceObserver, public AuxObserver, public ConsumerObserver {
public:
    // `books_of_source[i]`: the buffer whose books hold source i's trace, the buffer of the
    // event that traces it (its CPU's per CPU, the task's per thread). Each source's bytes
    // are booked there wherever a shared sink's harvest copies them: only there do produced
    // and its fates close, since bytes lost in the sink never reach any AUX area.
    // Books close as the run goes (trace_books.h), every `close_every` reports of the sink and
    // the driver (0: only at the end); the result is the same either way. The checker drops
    // the sources' history behind its closed books, so it takes them mutable.
    AuxChecker(std::vector<coresight::EtmSource*> sources, std::vector<unsigned> books_of_source,
               std::vector<CheckedAux> auxes, bool snapshot, const OrderingEngine* engine,
               size_t keep_violations = 20, size_t close_every = 256);
    ~AuxChecker() override;

    void on_trace_lost(uint8_t id, uint64_t src_off, uint64_t n, coresight::TraceLoss why) override;
    void on_aux_commit(coresight::AuxCommit c) override;
    void on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                       const std::vector<CopySource>& sources, const CopyContext& ctx) override;
    // A PERF_RECORD_AUX perf.data received from data buffer idx.
    void on_aux_record(unsigned idx, uint64_t offset, uint64_t size, uint64_t flags);

    // Closes the books when the tool is done (after the record checker's, which still
    // hands it PERF_RECORD_AUX records).
    void finish();
    // The run stopped before its end (SIGINT, SIGTERM): finish() then counts the trace the
    // FIFOs and sinks still hold as in flight (aux.bytes.in_flight).
    void set_stopped_early() { m_stopped_early = true; }
    void on_finished() override { finish(); }
    const std::vector<Violation>& violations() const { return m_violations; }
    // Buffer i's AUX books (complete after finish()), and the checker's own counts.
    const AuxBooks& books(unsigned i) const { return m_books.at(i); }
    const AuxCheckCounters& counters() const { return m_n; }

    // Running books, for a time series: bytes the driver copied into AUX buffer `aux` so far,
    // and trace bytes of source `id` the sink and the driver reported lost so far.
    uint64_t harvested_bytes(unsigned aux) const;
    uint64_t reported_lost(uint8_t id) const;
    // After finish(): trace bytes of source `id` lost, all causes (its share of bytes.lost).
    uint64_t lost_bytes(uint8_t id) const;

private:
    struct Aux;
    struct Source;
    Source* source(uint8_t id);
    void pump(Aux& a);
    void take_good(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n);
    void feed(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n);
    // Where the bytes of trace ID `id` in the frame at AUX offset `frame` of buffer a start in
    // that source's stream, by the newest commit that wrote the frame (nullopt: none holds it),
    // and up to which frame the same run of source bytes goes on.
    std::optional<coresight::SourceRun> source_offset(const Aux& a, uint8_t id,
                                                      uint64_t frame) const;
    // Source bytes behind AUX bytes [first, end) of buffer a: f(id, src_off, n).
    void trace_behind(const Aux& a, uint64_t first, uint64_t end,
                      const std::function<void(uint8_t, uint64_t, uint64_t)>& f) const;
    void expected_bytes(const Aux& a, uint64_t pos, uint64_t n, uint8_t* out,
                        std::vector<uint64_t>* seqs) const;
    // Where expected_bytes() would copy all of [pos, pos + n) from, when one commit's kept
    // bytes hold it all and no later commit wrote any of it; else null.
    const uint8_t* kept_bytes(const Aux& a, uint64_t pos, uint64_t n) const;
    void verify(Aux& a, uint64_t pos, const uint8_t* data, uint64_t n,
                const std::vector<CopySource>& src, const CopyContext& ctx);
    void tag_aux(const Aux& a, uint64_t first, uint64_t end, FateTag tag);
    void add(std::string where, std::string kind, uint64_t pos, std::string barriers,
             std::string explanation, std::string fix);
    void close_source(Source& s);
    // Closes each source's books as far as nothing can change them any more.
    void close_settled();
    void maybe_close_settled() {
        if (m_close_every && ++m_since_close >= m_close_every) close_settled();
    }

    std::vector<std::unique_ptr<Source>> m_sources;
    std::vector<std::unique_ptr<Aux>> m_auxes;
    bool m_snapshot;
    bool m_stopped_early = false;
    const OrderingEngine* m_engine;
    std::vector<AuxBooks> m_books; // by buffer
    AuxCheckCounters m_n;
    size_t m_keep;
    size_t m_close_every, m_since_close = 0;
    std::vector<Violation> m_violations;
    std::vector<uint8_t> m_expect;
};

} // namespace ringsim::models
