// `ringsim run --series INTERVAL`: a time series of every buffer's books, to tell the
// steady state from the final drain (docs/series.md). One SystemC timed event per interval,
// never per record: at each interval's end the sampler reads the counters the models keep
// anyway (BufferStats, the AUX checker's per-buffer books, the ETMs' stream sizes) and the
// published data_head and data_tail straight from physical memory, without issuing a
// simulated memory operation, so a run's results are the same with and without it.
//
// DIR/series.csv has a header line, then one row per (interval end, buffer), buffers in
// stats.json order:
//   time_ps               the interval's end (ps); the last row's is the run's end, after
//                         the final drain, so its interval may be shorter
//   buffer                the buffer's name, as in stats.json
//   records.produced      records the workload asked the kernel to write in the interval
//   records.delivered     records the consumer delivered (checked) in the interval
//   records.lost          records the kernel dropped in the interval (R5)
//   bytes.unread          the fill level at the interval's end: data_head - data_tail as
//                         published (an overwrite buffer, which has no tail: the bytes
//                         between the tool's read position and data_head, at most the size)
// and with session.aux.enabled:
//   aux.bytes.produced    trace bytes the ETMs of this buffer's event emitted into the sink
//                         (per-thread: every ETM; the sink pulls them per burst)
//   aux.bytes.harvested   bytes the driver copied into this buffer's AUX area (frames,
//                         barrier packets and padding included, aux.driver.harvested_bytes)
//   aux.bytes.lost        trace bytes the sink and the driver reported lost; the last row
//                         also holds the losses the checker attributes only at the end
//                         (a PERF_RECORD_AUX lost, snapshot overwrite, undecodable bytes)
// Counts are per interval, not cumulative: each count column sums to the stats.json total
// of its buffer (the AUX columns to total.aux over the buffers). An event at exactly an
// interval's end falls on one side or the other, the same way in every run.
#pragma once

#include "models/common/types.h"
#include "platform/builder.h"

#include <cstdint>
#include <ostream>
#include <systemc>
#include <vector>

namespace ringsim::platform {

class SeriesSampler : public sc_core::sc_module {
public:
    SC_HAS_PROCESS(SeriesSampler);
    // Writes the header now and a row per buffer every `interval` (> 0) into `out`.
    SeriesSampler(sc_core::sc_module_name name, const Platform& platform, models::Picos interval,
                  std::ostream& out);

    // After the run (and the checkers' finish): the last rows, up to the run's end.
    void finish();

private:
    struct Books {
        uint64_t produced = 0, delivered = 0, lost = 0;
        uint64_t aux_produced = 0, aux_harvested = 0, aux_lost = 0;
    };
    void sampler_thread();
    std::vector<Books> books(bool final) const;
    uint64_t fill_level(unsigned idx) const;
    void write_rows(models::Picos t, const std::vector<Books>& now,
                    const std::vector<uint64_t>& fill);

    const Platform& m_p;
    models::Picos m_interval;
    std::ostream& m_out;
    bool m_aux;
    std::vector<Books> m_base; // the books at the last written row
    // The latest sample, written once the next sample (or the end) shows it is not the
    // run's last instant: a run ending on an interval boundary gets one row there, not two.
    bool m_pending = false;
    models::Picos m_pending_at = 0;
    std::vector<Books> m_pending_books;
    std::vector<uint64_t> m_pending_fill;
};

} // namespace ringsim::platform
