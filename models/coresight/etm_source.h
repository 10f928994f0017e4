// One ETM-like trace source (one per traced CPU): while its event runs it produces the
// packet stream of etm_packets.h at the configured rate, and nothing while stopped.
// The count each packet carries is timestamp-like: C(t) = floor(trace bytes the rate
// profile yields by t / 8), the same clock for every source whether it runs or not. So a
// window in which the source was stopped shows in the decoded trace as a jump in the
// count exactly like a loss, and ringsim tells them apart: every start records why the
// source was not tracing since its previous stop (KERNEL-SEMANTICS P3, D1, D4).
// Production is arithmetic, not a process: the sink asks for the bytes up to "now" when
// it moves a burst, and the driver when it stops the source (P2: source off first).
// Leaves out: program flow beyond the synthetic loop (etm_program.h), Overflow packets on
// back-pressure (the sink counts what its FIFO drops instead), ETM-internal FIFOs and their
// latency.
#pragma once

#include "models/common/types.h"
#include "models/coresight/etm_stream.h"

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace ringsim::models::coresight {

// Exact trace amounts: 1e-12 byte units overflow 64 bits within seconds of trace.
__extension__ typedef unsigned __int128 TraceUnits;

// The trace rate profile: `rate` bytes/s from 0, then each phase's rate from its time on.
class TraceRate {
public:
    struct Step {
        Picos at = 0;
        uint64_t rate = 0; // bytes/s, whole
    };
    TraceRate(double rate, const std::vector<std::pair<Picos, double>>& phases);

    // Trace bytes the profile yields in [0, t), in 1e-12 byte units (exact).
    TraceUnits units_until(Picos t) const;
    // C(t): the count the packet emitted at t carries.
    uint64_t count_at(Picos t) const;
    // The rate in force at t (bytes/s).
    uint64_t rate_at(Picos t) const;
    // The next rate change after t, or 0 when none.
    Picos next_change(Picos t) const;

private:
    std::vector<Step> m_steps; // sorted, m_steps[0].at == 0
};

// Why a source was not tracing between two sessions.
enum class UntracedCause : uint8_t {
    stop_window,  // pmu::stop/start: sched out, migration, snapshot disable, end (D4)
    aux_disabled, // the event was off because the AUX buffer was full (A2, A6; D1)
};
const char* to_string(UntracedCause c);

struct UntracedWindow {
    uint64_t first_count = 0;
    uint64_t counts = 0;
    UntracedCause cause = UntracedCause::stop_window;
};

class EtmSource {
public:
    EtmSource(std::string name, uint8_t trace_id, const TraceRate& rate,
              uint32_t sync_period_counts);

    const std::string& name() const { return m_name; }
    uint8_t trace_id() const { return m_stream.trace_id(); }
    bool running() const { return m_stream.running(); }
    const EtmStream& stream() const { return m_stream; }
    uint64_t rate_at(Picos t) const { return m_rate.rate_at(t); }

    // ETM enable at t (the start block: A-Sync, Trace Info, Trace On, address); `why_off` names
    // what kept it off since the previous stop (ignored for the first start).
    void start(Picos t, UntracedCause why_off);
    // Produces every packet due by t; returns the stream size after.
    uint64_t produce_until(Picos t);
    // ETM disable at t: produce what is due, end the session.
    void stop(Picos t);

    // The windows between a stop and the next start: what a decoded gap's cause is.
    // Those kept: a reader that no longer needs some (the AUX checker, once its books before
    // them are closed) erases them, windows [first, last) in order, to keep memory flat.
    const std::deque<UntracedWindow>& untraced() const { return m_untraced; }
    void erase_untraced(size_t first, size_t last) {
        m_untraced.erase(m_untraced.begin() + first, m_untraced.begin() + last);
    }
    EtmStream& stream() { return m_stream; } // for forget_before, by the same reader
    // Its event was off in [t0, t1) while the code it traces ran (a system-wide event:
    // always; a task-bound one: while its task was scheduled in): what the rate would have
    // produced then is untraced trace (D1, D4). A task scheduled out, or running under
    // another CPU's ETM, misses nothing, so a window is not untraced trace in itself.
    void add_untraced(Picos t0, Picos t1, UntracedCause why);
    uint64_t untraced_counts(UntracedCause c) const { return m_untraced_counts[size_t(c)]; }
    // When the last start and the last stop took effect.
    Picos started_at() const { return m_started_at; }
    Picos stopped_at() const { return m_stopped_at; }

private:
    std::string m_name;
    const TraceRate& m_rate;
    EtmStream m_stream;
    bool m_started_once = false;
    Picos m_started_at = 0, m_stopped_at = 0;
    std::deque<UntracedWindow> m_untraced;
    std::array<uint64_t, 2> m_untraced_counts{}; // by UntracedCause
};

} // namespace ringsim::models::coresight
