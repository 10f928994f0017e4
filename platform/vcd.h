// `ringsim run --vcd FILE [--vcd-window FROM:TO]`: the run as a value change dump (IEEE 1364
// VCD) for GTKWave (docs/waveforms.md). Per buffer: data_head, data_tail and the fill level
// (head - tail) as the stores to them performed, with AUX aux_head, aux_tail and aux_fill,
// and the wake-ups of its poll waitqueue; the consumer's state (asleep in poll, waking,
// reading a pass) and its polls; each ETR's write pointer and STS bits; and each barrier
// label's instants (the operation that carries it, as it performs).
//
// The writer only listens: the ordering engine's operations (OpObserver), the consumer
// (ConsumerObserver), the wake-ups and the sinks (their listeners). Stores are reported when
// they issue and perform later, so changes wait in a queue ordered by time and are written
// once no later report can come before them: the file is in time order and streams, and the
// queue holds only what is in flight.
#pragma once

#include "models/memory/ordering_engine.h"
#include "models/user/tool_observers.h"
#include "platform/timeline.h"

#include <cstdint>
#include <fstream>
#include <map>
#include <queue>
#include <string>
#include <vector>

namespace ringsim::platform {

class Platform;

// A ring buffer whose control words the dump shows.
struct VcdBuffer {
    std::string name;           // "cpu0": its signals are top.cpu0.data_head, ...
    models::Addr user_page = 0; // perf_event_mmap_page
    bool aux = false;           // it has an AUX area (aux_head, aux_tail)
    // A fill level only where the tool releases space with its tail: not for an overwrite
    // (--overwrite, write_backward) data buffer nor a snapshot (-S) AUX area, whose tail
    // perf never stores.
    bool data_fill = true, aux_fill = true;
};

class VcdWriter : public models::OpObserver, public models::ConsumerObserver {
public:
    // Opens `path` and writes the header (the signals of these buffers and `sinks` ETRs);
    // ok() says whether that worked.
    VcdWriter(const std::string& path, TimelineWindow window, std::vector<VcdBuffer> buffers,
              unsigned sinks);
    VcdWriter(const VcdWriter&) = delete;
    VcdWriter& operator=(const VcdWriter&) = delete;

    void on_op(const models::OpRecord& op) override;
    void on_pass_start() override;
    void on_pass_end() override;
    void on_poll(bool sleeps) override;
    void on_woken() override;
    void on_running() override;
    // Buffer i's waitqueue was woken (PerfWakeup's listener).
    void on_wakeup(unsigned buffer);
    // ETR `sink`'s registers at t (EtrSink's listener).
    void on_sink(unsigned sink, models::Picos t, uint64_t rwp, uint32_t sts);

    // Writes what is queued up to `end` (changes after it, of stores the run ended before
    // they performed, are not part of it), ends the dump at `end` (clipped to the window) and
    // closes the file; false when any write failed. Closing again only repeats the verdict.
    bool close(models::Picos end);
    // A writer destroyed unclosed (the run threw) still writes what it had.
    ~VcdWriter() override;
    bool ok() const { return !m_out.fail(); }

private:
    enum class Kind : uint8_t { bit, word, event };
    struct Var {
        std::string scope, name, id;
        Kind kind = Kind::bit;
        uint64_t value = 0;
    };
    struct Change {
        models::Picos at = 0;
        uint64_t order = 0; // report order, for changes at the same time
        unsigned var = 0;
        uint64_t value = 0;
        bool operator>(const Change& o) const { return at != o.at ? at > o.at : order > o.order; }
    };
    // A buffer's words: their vars (their values are the vars' own).
    struct Words {
        unsigned head = 0, tail = 0, fill = 0;
    };

    unsigned add_var(const std::string& scope, const std::string& name, Kind kind);
    void change(models::Picos at, unsigned var, uint64_t value);
    void flush_before(models::Picos t); // writes every change before t
    void write(const Change& c);
    void write_value(const Var& v, uint64_t value);
    void start_dump();

    std::ofstream m_out;
    TimelineWindow m_window;
    std::vector<Var> m_vars;
    // Control word address -> (words index, true for head).
    std::map<models::Addr, std::pair<unsigned, bool>> m_word_at;
    std::vector<Words> m_words;         // data words of each buffer, then AUX words
    std::vector<int> m_fill_of;         // by var: the Words whose head or tail it is, or -1
    std::vector<unsigned> m_wakeup;     // event var per buffer
    std::map<char, unsigned> m_barrier; // event var per barrier label
    unsigned m_reading = 0, m_asleep = 0, m_waking = 0, m_poll = 0;
    struct SinkVars {
        unsigned rwp = 0, full = 0, tmc_ready = 0, memerr = 0;
    };
    std::vector<SinkVars> m_sinks;
    std::priority_queue<Change, std::vector<Change>, std::greater<Change>> m_queue;
    uint64_t m_order = 0;
    bool m_dumping = false; // the initial values are written
    models::Picos m_last_time = 0;
    bool m_any_time = false;
    bool m_closed = false;
    uint64_t m_late = 0;

public:
    // Changes reported after the dump had passed their time, left out (0 in every run seen:
    // operations are reported within kLag of performing).
    uint64_t late_changes() const { return m_late; }
};

// What `ringsim run` hands the writer: each buffer, with its AUX area if any.
std::vector<VcdBuffer> vcd_buffers(const Platform& platform);

} // namespace ringsim::platform
