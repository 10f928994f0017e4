#include "models/common/sim_wait.h"

#include "models/common/sc_picos.h"
#include "models/common/sim_clock.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <memory>
#include <queue>
#include <utility>
#include <vector>

namespace ringsim::models {

namespace detail {
Picos g_lead = 0; // read by sim_now() (sim_clock.cpp)
} // namespace detail

using detail::g_lead;

namespace {

// The instants at which the models' processes wake, in order: by time, then by when each
// went to sleep. SystemC's own timed queue is a binary heap with no order among equal
// times, so that which of two processes due at one instant ran first depended on what else
// the heap had held (a --series sampler's entries changed a result). Every timed wait and
// delayed notification of a model goes through this queue instead, and one SystemC event,
// `tick`, wakes a method at the earliest entry, which wakes the entries due then, in order.
class WakeQueue {
public:
    WakeQueue() {
        sc_core::sc_spawn_options o;
        o.spawn_method();
        o.set_sensitivity(&m_tick);
        o.dont_initialize();
        sc_core::sc_spawn([this] { run_due(); }, "ringsim_wake_queue", &o);
    }

    // A sleeping process: the event it waits on, and the entry (seq) that may wake it.
    struct Waiter {
        sc_core::sc_event event{"ringsim_wake"};
        uint64_t due_seq = 0; // 0: no entry may wake it
    };

    Waiter& me() {
        // A run has a few dozen processes at most: a scan beats a hash.
        const sc_core::sc_process_b* p = sc_core::sc_get_current_process_b();
        for (auto& [who, w] : m_waiters)
            if (who == p) return *w;
        m_waiters.emplace_back(p, std::make_unique<Waiter>());
        return *m_waiters.back().second;
    }

    // Wakes `w` at `at` (unless w.due_seq has changed by then).
    void wake_at(Picos at, Waiter& w) { w.due_seq = push(at, &w.event, &w); }
    // The earliest entry's time (kNever when none): activity a skipped wait must not pass.
    Picos earliest() const { return m_armed; }
    // Notifies `e` at `at`.
    void notify_at(Picos at, sc_core::sc_event& e) { push(at, &e, nullptr); }

private:
    struct Entry {
        Picos at;
        uint64_t seq;
        sc_core::sc_event* event;
        Waiter* waiter; // null: a delayed notification, never cancelled
        bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };

    uint64_t push(Picos at, sc_core::sc_event* e, Waiter* w) {
        const uint64_t seq = m_next_seq++;
        m_due.push({at, seq, e, w});
        // The tick is armed for the earliest entry; a later one needs no SystemC call.
        if (at < m_armed) {
            m_armed = at;
            m_tick.notify(sc_picos(at - now())); // replaces the later pending tick
        }
        return seq;
    }

    void run_due() {
        const Picos t = now();
        // Immediate notifications, in (time, seq) order: the processes run in this order,
        // in this delta cycle, as they would have woken from their own timed waits.
        while (!m_due.empty() && m_due.top().at <= t) {
            const Entry e = m_due.top();
            m_due.pop();
            if (e.waiter) {
                if (e.waiter->due_seq != e.seq) continue; // woken otherwise meanwhile
                e.waiter->due_seq = 0;
            }
            e.event->notify();
        }
        m_armed = kNever;
        if (!m_due.empty()) {
            m_armed = m_due.top().at;
            m_tick.notify(sc_picos(m_armed - t));
        }
    }

    static constexpr Picos kNever = ~Picos(0);
    Picos m_armed = kNever; // the time the tick is notified for

    static Picos now() { return sc_core::sc_get_curr_simcontext()->time_stamp().value(); }

    sc_core::sc_event m_tick{"ringsim_wake_tick"};
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> m_due;
    uint64_t m_next_seq = 1;
    std::vector<std::pair<const sc_core::sc_process_b*, std::unique_ptr<Waiter>>> m_waiters;
};

WakeQueue* g_queue = nullptr;
const sc_core::sc_simcontext* g_queue_kernel = nullptr;
Picos g_horizon = 0;

WakeQueue& queue() {
    const sc_core::sc_simcontext* k = sc_core::sc_get_curr_simcontext();
    if (g_queue == nullptr || g_queue_kernel != k) {
        // A kernel that went without sim_reset_lead() (a unit test's) keeps its queue.
        g_queue = new WakeQueue;
        g_queue_kernel = k;
    }
    return *g_queue;
}

Picos kernel_now() {
    return sc_core::sc_get_curr_simcontext()->time_stamp().value();
}

// Sleeps until `at` (kernel time), or until `also` fires when given.
template <class Also> void sleep_until(Picos at, const Also* also) {
    WakeQueue& q = queue();
    WakeQueue::Waiter& w = q.me();
    q.wake_at(at, w);
    if (also) {
        sc_core::sc_event_or_list any;
        any |= w.event;
        any |= *also;
        sc_core::wait(any);
        w.due_seq = 0; // woken by `also`: the entry no longer wakes us
    } else {
        sc_core::wait(w.event);
    }
}

} // namespace

void sim_wait(Picos d) {
    if (d == 0) return;
    const Picos lead = g_lead + d;
    const Picos k = kernel_now();
    // Strictly before the horizon: whether sc_start() runs what is due at its very end or
    // leaves it to the next call is SystemC's to decide.
    if (lead <= kMaxLead && k + lead < g_horizon) {
        // Nothing runnable now (another process, a delta notification, an update) and the
        // next activity (the wake queue's tick among it) strictly after our new time: the
        // wait would wake us alone and first. At the same instant as another activity we
        // wait for real, and the wake queue orders the two.
        // The wake queue's earliest entry first: it is most of the activity, and cheaper
        // to ask (kernel time, as the entries are).
        if (queue().earliest() > k + lead &&
            sc_core::sc_time_to_pending_activity().value() > lead) {
            g_lead = lead;
            return;
        }
    }
    g_lead = 0; // before the switch: other processes run with no lead
    sleep_until<sc_core::sc_event>(k + lead, nullptr);
}

void sim_sync() {
    if (g_lead == 0) return;
    const Picos lead = g_lead;
    g_lead = 0;
    sleep_until<sc_core::sc_event>(kernel_now() + lead, nullptr);
}

void sim_wait(const sc_core::sc_event& e) {
    sim_sync();
    sc_core::wait(e);
}

void sim_wait(const sc_core::sc_event_or_list& any) {
    sim_sync();
    sc_core::wait(any);
}

void sim_wait(Picos d, const sc_core::sc_event& e) {
    sim_sync();
    sleep_until(kernel_now() + d, &e);
}

void sim_wait(Picos d, const sc_core::sc_event_or_list& any) {
    sim_sync();
    sleep_until(kernel_now() + d, &any);
}

void sim_notify(sc_core::sc_event& e, Picos delay) {
    sim_sync();
    if (delay == 0)
        e.notify(sc_core::SC_ZERO_TIME);
    else
        queue().notify_at(kernel_now() + delay, e);
}

Picos sim_lead() {
    return g_lead;
}

void sim_set_horizon(Picos until) {
    g_horizon = until;
}

void sim_reset_lead() {
    g_lead = 0;
    g_horizon = 0;
    delete g_queue; // its events and method belong to the kernel about to be deleted
    g_queue = nullptr;
    g_queue_kernel = nullptr;
}

} // namespace ringsim::models
