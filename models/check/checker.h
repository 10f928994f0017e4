// The checker: knows every record each producer stored (a Ledger per buffer) and verifies
// every record the consumer copies out, byte for byte, the way perf report would parse
// perf.data. A record read with the wrong bytes is classified by where its bytes came from
// (MEMORY-MODEL.md "Violations"): all older than the record -> stale (message passing:
// (B) or (C) missing); all newer -> overrun (load buffering: (A) or (D) missing); both
// -> torn. Each is explained as a short causal story. At the end the books close: produced
// = delivered + lost + unread + overwritten + corrupted + missing, per buffer, exactly.
// It streams: its memory is bounded by the buffers, not by the length of the run.
#pragma once

#include "models/check/ledger.h"
#include "models/common/buffer_stats.h"
#include "models/kernel/perf_buffer.h"
#include "models/memory/linux_barriers.h"
#include "models/memory/ordering_engine.h"
#include "models/user/tool_observers.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ringsim::models {

struct Violation {
    std::string buffer;
    std::string kind;        // stale | overrun | torn | corrupt | missing | duplicated | accounting
    uint64_t pos = 0;        // free-running offset of the record in its buffer
    uint64_t at_ps = 0;      // when the checker saw it
    std::string barriers;    // the switched-off barriers that allow it, e.g. "B" or "A, D"
    std::string explanation; // a short causal story, one sentence per line
    std::string fix;
};

struct CheckedBuffer {
    std::string name;
    uint64_t data_size = 0;
    bool overwrite = false;
    bool backward = false;
    uint64_t sample_type = 0;
    bool sample_id_all = false;
    BufferStats* stats = nullptr;
    const PerfBuffer* rb = nullptr; // for the loss still pending at the end
    BarrierKind a = kLinuxDataBarriers.a, b = kLinuxDataBarriers.b;
    BarrierKind c = kLinuxDataBarriers.c, d = kLinuxDataBarriers.d;
    bool push_reader = true; // perf_mmap__push may legitimately copy a record twice (C4)
    // The consumer's fixes for (C) and (D) as its reader's code would put them
    // (models/user/readers.h); empty: perf's.
    std::string c_fix, d_fix;
    Addr data = 0; // address of data page 0, to name addresses in explanations
};

class Checker : public ConsumerObserver {
public:
    // `engine` (may be null) names the operations behind a violation.
    Checker(std::vector<CheckedBuffer> buffers, const OrderingEngine* engine,
            size_t keep_violations = 20);
    ~Checker() override;

    // The RecordObserver to attach to buffer `idx`'s PerfBuffer.
    RecordObserver& producer_side(unsigned idx);

    void on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                   const std::vector<CopySource>& sources, const CopyContext& ctx) override;
    void on_skipped(unsigned idx, uint64_t from, uint64_t to) override;

    // Closes the books at the end of the run: unread records, the accounting identity.
    void finish();
    void on_finished() override { finish(); }

    // Called for every intact PERF_RECORD_AUX delivered: buffer, aux_offset, aux_size, flags.
    void set_aux_record_sink(std::function<void(unsigned, uint64_t, uint64_t, uint64_t)> f) {
        m_on_aux_record = std::move(f);
    }

    // The first violations, in the order found (all are counted in the stats).
    const std::vector<Violation>& violations() const { return m_violations; }

private:
    struct Stream;
    // Verifies the record of `n` bytes the consumer copied at `pos`.
    // Verifies the whole records of `data` (n bytes, at free-running position `base`),
    // record by record; returns how many bytes they took (the rest is a partial record).
    uint64_t walk(Stream& s, uint64_t base, const uint8_t* data, uint64_t n,
                  const std::vector<CopySource>& src);
    void verify(Stream& s, uint64_t pos, const uint8_t* data, uint64_t n,
                const std::vector<CopySource>& src, uint64_t src_base);
    void mismatch(Stream& s, const LedgerEntry& e, const uint8_t* data,
                  const std::vector<CopySource>& src, uint64_t src_base);
    void add(Stream& s, Violation v);
    std::string describe_store(uint64_t seq) const;

    std::vector<std::unique_ptr<Stream>> m_streams;
    const OrderingEngine* m_engine;
    std::vector<Violation> m_violations;
    size_t m_keep;
    std::function<void(unsigned, uint64_t, uint64_t, uint64_t)> m_on_aux_record;
};

} // namespace ringsim::models
