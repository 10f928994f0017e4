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

// The order in which the models' processes wake at one instant: by when each went to
// sleep. SystemC's own timed queue is a binary heap with no order among equal times, so
// which of two processes due at one instant ran first depended on what else the heap had
// held (a --series sampler's entries changed a result). A process still sleeps with
// SystemC's own timed wait (the cheap path), but it also takes a ticket (time, seq) here;
// woken, it runs only if its ticket is the earliest, else it steps aside until the
// process holding the earliest has run and hands the turn on. Within the instant every
// process still runs in the first delta cycle, as it would have.
// Delayed notifications (sim_notify with a delay) go through the same tickets: a method of
// this queue, woken by a tick, fires those due in ticket order.
class WakeQueue {
public:
    WakeQueue() {
        sc_core::sc_spawn_options o;
        o.spawn_method();
        o.set_sensitivity(&m_tick);
        o.dont_initialize();
        sc_core::sc_spawn([this] { fire_notifications(); }, "ringsim_wake_queue", &o);
    }

    // A process that sleeps: its ticket, and the event that hands it the turn.
    struct Waiter {
        sc_core::sc_event turn{"ringsim_wake_turn"};
        uint64_t seq = 0; // its ticket (0: none)
        bool stepped_aside = false;
    };

    Waiter& me() {
        // A run has a few dozen processes at most: a scan beats a hash.
        const sc_core::sc_process_b* p = sc_core::sc_get_current_process_b();
        for (auto& [who, w] : m_waiters)
            if (who == p) return *w;
        m_waiters.emplace_back(p, std::make_unique<Waiter>());
        return *m_waiters.back().second;
    }

    void take_ticket(Picos at, Waiter& w) {
        w.seq = m_next_seq++;
        m_tickets.push({at, w.seq, &w, nullptr});
    }
    // Woken at the ticket's time: waits for its turn, then gives up the ticket.
    void take_turn(Waiter& w) {
        drop_stale();
        if (m_tickets.top().seq != w.seq) {
            w.stepped_aside = true;
            sc_core::wait(w.turn);
            w.stepped_aside = false;
        }
        m_tickets.pop();
        w.seq = 0;
        hand_on(kernel_now());
    }
    // Woken otherwise (an event before the ticket's time): the ticket is void.
    void void_ticket(Waiter& w) {
        w.seq = 0;
        // Void tickets leave when they come first; should they pile up behind a far one (a
        // long timeout cut short again and again), the queue is rebuilt without them.
        if (++m_void > 1024 && m_void > m_tickets.size() / 2) {
            std::vector<Ticket> live;
            for (; !m_tickets.empty(); m_tickets.pop())
                if (!stale(m_tickets.top())) live.push_back(m_tickets.top());
            for (const Ticket& t : live)
                m_tickets.push(t);
            m_void = 0;
        }
    }

    void notify_at(Picos at, sc_core::sc_event& e) {
        m_tickets.push({at, m_next_seq++, nullptr, &e});
        m_notify_times.push(at);
        if (at < m_armed) {
            m_armed = at;
            m_tick.notify(sc_picos(at - kernel_now())); // replaces a later pending tick
        }
    }

    // The earliest ticket's time (or later: void tickets may stand first), kNever if none.
    Picos earliest() {
        drop_stale();
        return m_tickets.empty() ? kNever : m_tickets.top().at;
    }

private:
    struct Ticket {
        Picos at;
        uint64_t seq;
        Waiter* waiter;            // a sleeping process, or
        sc_core::sc_event* notify; // a delayed notification
        bool operator>(const Ticket& o) const { return at != o.at ? at > o.at : seq > o.seq; }
    };

    static Picos kernel_now() { return sc_core::sc_get_curr_simcontext()->time_stamp().value(); }

    static bool stale(const Ticket& t) { return t.waiter && t.waiter->seq != t.seq; }
    // Drops void tickets standing first (their process was woken by an event).
    void drop_stale() {
        while (!m_tickets.empty() && stale(m_tickets.top())) {
            m_tickets.pop();
            if (m_void) --m_void;
        }
    }

    // After a turn at t: the next ticket due at t goes next. A process that stepped aside
    // is handed the turn; one still to run finds it is first when it does; a notification
    // is fired.
    void hand_on(Picos t) {
        for (;;) {
            drop_stale();
            if (m_tickets.empty() || m_tickets.top().at > t) return;
            const Ticket& next = m_tickets.top();
            if (next.waiter) {
                if (next.waiter->stepped_aside) next.waiter->turn.notify();
                return;
            }
            sc_core::sc_event* e = next.notify;
            m_tickets.pop();
            e->notify();
        }
    }

    // The tick, at the time of the earliest delayed notification: fire what is first.
    void fire_notifications() {
        const Picos t = kernel_now();
        while (!m_notify_times.empty() && m_notify_times.top() <= t)
            m_notify_times.pop();
        m_armed = m_notify_times.empty() ? kNever : m_notify_times.top();
        if (m_armed != kNever) m_tick.notify(sc_picos(m_armed - t));
        hand_on(t);
    }

    static constexpr Picos kNever = ~Picos(0);
    sc_core::sc_event m_tick{"ringsim_wake_tick"};
    Picos m_armed = kNever; // the delayed notification the tick is set for
    std::priority_queue<Picos, std::vector<Picos>, std::greater<Picos>> m_notify_times;
    std::priority_queue<Ticket, std::vector<Ticket>, std::greater<Ticket>> m_tickets;
    uint64_t m_next_seq = 1;
    size_t m_void = 0; // void tickets still queued (about: a rebuild may drop more)
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
    q.take_ticket(at, w);
    const sc_core::sc_time d = sc_picos(at - kernel_now());
    if (also)
        sc_core::wait(d, *also);
    else
        sc_core::wait(d);
    if (kernel_now() >= at)
        q.take_turn(w);
    else
        q.void_ticket(w); // woken by `also` first
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
    if (d == 0)
        sc_core::wait(sc_core::SC_ZERO_TIME, e); // the next delta cycle: no instant to order
    else
        sleep_until(kernel_now() + d, &e);
}

void sim_wait(Picos d, const sc_core::sc_event_or_list& any) {
    sim_sync();
    if (d == 0)
        sc_core::wait(sc_core::SC_ZERO_TIME, any);
    else
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
