#include "platform/run_loop.h"

#include "models/common/sim_wait.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <systemc>

namespace ringsim::platform {

namespace {

using Clock = std::chrono::steady_clock;

// Written by the handler, read between slices: all a handler may touch.
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_stop_signal(int sig) {
    g_signal = sig;
}

// How long one slice should take on the wall clock: short enough that a signal or a progress
// line waits little, long enough that the slices cost nothing next to the simulation.
constexpr double kSliceWallSeconds = 0.05;

// Simulated time in milliseconds, as a progress line shows it.
std::string ms_text(uint64_t ps) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ps) / 1e9);
    return buf;
}

class Progress {
public:
    explicit Progress(const RunLoopOptions& o) : m_o(o), m_start(Clock::now()), m_last(m_start) {}

    void maybe_print(bool last) {
        if (m_o.progress_out == nullptr) return;
        const Clock::time_point now = Clock::now();
        // On a terminal only a run longer than a second shows a line, then four a second.
        const double every = m_o.terminal && m_printed ? 0.25 : 1.0;
        const bool due = std::chrono::duration<double>(now - m_last).count() >= every;
        if (last ? m_o.terminal && !m_printed : !due) return;
        m_last = now;
        m_printed = true;
        const double wall = std::chrono::duration<double>(now - m_start).count();
        const uint64_t at = sc_core::sc_time_stamp().value();
        const double events = double(sc_core::sc_delta_count());
        char rate[64];
        std::snprintf(rate, sizeof rate, "%.3g events/s", wall > 0 ? events / wall : 0.0);
        std::string line = "ringsim: simulated " + ms_text(at);
        if (m_o.duration_ps > 0 && at < m_o.duration_ps) {
            const double done = double(at) / double(m_o.duration_ps);
            char pct[64];
            std::snprintf(pct, sizeof pct, " of %s (%.0f%%)", ms_text(m_o.duration_ps).c_str(),
                          100 * done);
            line += pct;
            line += ", ";
            line += rate;
            if (done > 0) {
                char eta[48];
                std::snprintf(eta, sizeof eta, ", ETA %.0f s", wall * (1 - done) / done);
                line += eta;
            }
        } else {
            line += " (the workload ended at " + ms_text(m_o.duration_ps) + "; the tool drains), ";
            line += rate;
        }
        std::ostream& out = *m_o.progress_out;
        if (m_o.terminal)
            out << "\r\033[K" << line << (last ? "\n" : "") << std::flush;
        else
            out << line << "\n" << std::flush;
    }

private:
    const RunLoopOptions& m_o;
    Clock::time_point m_start, m_last;
    bool m_printed = false;
};

// The signal handlers of a run, and the previous ones back afterwards.
class StopSignals {
public:
    StopSignals() {
        g_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &m_old_int);
        sigaction(SIGTERM, &sa, &m_old_term);
    }
    ~StopSignals() {
        sigaction(SIGINT, &m_old_int, nullptr);
        sigaction(SIGTERM, &m_old_term, nullptr);
    }
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

private:
    struct sigaction m_old_int {
    }, m_old_term{};
};

// A switch of bad_run_environment(): -1 unset or empty, 0 or 1; nothing for any other value.
std::optional<int> switch_value(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || !*v) return -1;
    if (std::string(v) == "0" || std::string(v) == "1") return *v - '0';
    return std::nullopt;
}

} // namespace

std::string bad_run_environment() {
    for (const char* name : {"RINGSIM_NO_LEAD", "RINGSIM_PARK"})
        if (!switch_value(name))
            return std::string(name) + ": expected 0 or 1 (or unset), found \"" +
                   std::getenv(name) + "\"";
    return "";
}

RunLoopEnd run_simulation(const RunLoopOptions& options) {
    // A slice that ends before the next event leaves time where it was; SystemC warns of
    // that (W571), but here it is expected: the next slice is longer.
    sc_core::sc_report_handler::set_actions(sc_core::SC_ID_NO_SC_START_ACTIVITY_,
                                            sc_core::SC_DO_NOTHING);
    const StopSignals signals;
    Progress progress(options);
    double slice_ps = 1e6; // 1 us to start; then sized to kSliceWallSeconds
    // RINGSIM_NO_LEAD=1: every wait a real one (sim_wait.h), to hold the results of the
    // waits it skips to those of real ones (tests/regression/lead_is_exact.cmake).
    const std::optional<int> no_lead = switch_value("RINGSIM_NO_LEAD");
    const std::optional<int> park = switch_value("RINGSIM_PARK");
    if (!no_lead || !park) // the commands refuse them before they simulate (cli.cpp)
        throw std::logic_error("environment variable " + bad_run_environment());
    const bool lead = *no_lead != 1;
    // RINGSIM_PARK=1: sleepers park from the first instant on; RINGSIM_PARK=0: never (every
    // sleeper a timed wait of SystemC's); unset, from kParkFrom instants (sim_wait.h). To hold
    // the ways of sleeping to each other (the same test).
    models::sim_set_park_from(*park == 1   ? 1
                              : *park == 0 ? std::numeric_limits<size_t>::max()
                                           : models::kParkFrom);
    for (;;) {
        const Clock::time_point t0 = Clock::now();
        // SC_EXIT_ON_STARVATION: with nothing left to do, time stays at the last event
        // instead of running on to the slice's end.
        const sc_core::sc_time slice(slice_ps, sc_core::SC_PS);
        if (lead) models::sim_set_horizon(sc_core::sc_time_stamp().value() + slice.value());
        sc_core::sc_start(slice, sc_core::SC_EXIT_ON_STARVATION);
        // Every process yields, or ends, with no lead over the kernel's clock (sim_wait.h).
        if (models::sim_lead() != 0)
            throw std::logic_error("a process ended its turn ahead of the simulation's clock");
        models::sim_set_horizon(0);
        if (sc_core::sc_get_status() == sc_core::SC_STOPPED || !sc_core::sc_pending_activity())
            break;
        if (g_signal != 0) {
            progress.maybe_print(true);
            return {g_signal};
        }
        const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
        const double scale = wall > 0 ? kSliceWallSeconds / wall : 8.0;
        slice_ps = std::clamp(slice_ps * std::clamp(scale, 0.25, 8.0), 1e3, 1e13);
        progress.maybe_print(false);
    }
    progress.maybe_print(true);
    return {};
}

} // namespace ringsim::platform
