#include "models/common/sim_wait.h"

#include "models/common/min_queue.h"
#include "models/common/sc_picos.h"
#include "models/common/sim_clock.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <memory>
#include <queue>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ringsim::models {

namespace detail {
Picos g_lead = 0; // read by sim_now() (sim_clock.h)
} // namespace detail

using detail::g_lead;

namespace {
size_t g_park_from = kParkFrom; // sim_set_park_from()

// SystemC's clock, without the running process's lead.
Picos kernel_now() {
    return sc_core::sc_get_curr_simcontext()->time_stamp().value();
}

// A process resumes, or a method runs, only once whoever ran before it synced its lead.
void require_no_lead() {
    if (g_lead != 0) throw std::logic_error("a process yielded ahead of the simulation's clock");
}

// The order in which the models' processes wake at one instant: by when each went to
// sleep. SystemC's own timed queue is a binary heap with no order among equal times, so
// which of two processes due at one instant ran first depended on what else the heap had
// held (a --series sampler's entries changed a result). A process still sleeps with
// SystemC's own timed wait (the cheap path), but it also takes a ticket here, filed under
// its instant behind those of the processes that went to sleep before it; woken, it runs
// only if its ticket is first, else it steps aside until the process before it has run and
// hands the turn on. Delayed notifications (sim_notify with a delay) take tickets too: a
// method of this queue, woken by a tick at their instant, fires one when it is first, for
// the next delta cycle, and the tickets behind it wait until its wakees have run (a method
// runs before a thread within a delta cycle, but one made runnable in the middle of a
// cycle runs after the threads already due, whose order is again SystemC's).
//
// Parking. SystemC's timed queue is a binary heap, ordered through a comparison it calls by
// pointer at each of its levels: with 33 CPUs' writers asleep it cost about 470
// instructions a record, against 120 on 4 (issue 13). So from kParkFrom instants with
// tickets at once (sim_wait.h), a sleeper with no other event to wake for parks instead:
// it waits on its turn event alone, as one that stepped aside does, unless its instant is
// earlier than every other. The queue keeps the invariant that makes this exact: the
// earliest instant's first ticket always has a wake on its way (its own timed wait, the
// tick armed for a notification, or its turn event notified for that instant, here, when
// the instant becomes the earliest or when a timeout woken early leaves it first).
// SystemC's heap then holds about one event for the sleepers, and the queue's own order of
// instants is a sorted array (models/common/min_queue.h). A parked sleeper wakes in the
// same delta cycle of the same instant, in the same turn, as it would have from a timed
// wait; no process can tell the two ways apart, and the lead tests hold every scenario to
// that, parking from the first instant (RINGSIM_PARK=1) and never (RINGSIM_PARK=0;
// tests/regression/lead_is_exact.cmake).
class WakeQueue {
public:
    WakeQueue() {
        sc_core::sc_spawn_options o;
        o.spawn_method();
        o.set_sensitivity(&m_tick);
        o.dont_initialize();
        sc_core::sc_spawn([this] { fire_notifications(); }, "ringsim_wake_queue", &o);
        m_table.assign(64, Instant{});
        m_mask = m_table.size() - 1;
    }

    // A process that sleeps: its ticket, and the event that hands it the turn.
    struct Waiter {
        sc_core::sc_event turn{"ringsim_wake_turn"};
        uint32_t ticket = kNone;
        Picos due = 0;
        bool stepped_aside = false; // waits on `turn`: parked, or woken before its turn
        bool woken = false; // a wake is on its way or came: a timed wait, or `turn` notified
    };

    Waiter& me() {
        // SystemC numbers a kernel's processes from 0 up (proc_id): an index, not a search.
        const auto id = static_cast<size_t>(sc_core::sc_get_current_process_b()->proc_id);
        if (id < m_waiters.size() && m_waiters[id]) return *m_waiters[id];
        return new_waiter(id);
    }

    // Files the waiter's ticket for `at`. True: it is to park, waiting on its turn event
    // alone (it may when the queue parks, it has no other event to wake for, and an instant
    // no later than its own has a wake on its way); false: it sleeps with a timed wait.
    bool take_ticket(Picos at, Waiter& w, bool may_park) {
        const bool park = may_park && m_parking && !m_instants.empty() && !(at < m_instants.top());
        w.ticket = file(at, &w, nullptr);
        w.due = at;
        w.woken = !park;
        return park;
    }
    // Waits on the waiter's turn event alone: parked, or woken before its turn.
    static void wait_turn(Waiter& w) {
        w.stepped_aside = true;
        sc_core::wait(w.turn);
        w.stepped_aside = false;
    }
    // Woken at the ticket's time: waits for its turn, then gives up the ticket.
    [[gnu::always_inline]] void take_turn(Waiter& w) {
        if (m_firing || find(w.due)->first != w.ticket) wait_turn(w);
        Instant& i = *find(w.due); // the table may have grown meanwhile
        i.first = m_tickets[w.ticket].next;
        release(w.ticket);
        w.ticket = kNone;
        hand_on(w.due);
    }
    // Woken otherwise (an event before the ticket's time): the ticket goes.
    void void_ticket(Waiter& w) {
        Instant& i = *find(w.due);
        uint32_t* link = &i.first;
        uint32_t prev = kNone;
        while (*link != w.ticket) {
            prev = *link;
            link = &m_tickets[*link].next;
        }
        *link = m_tickets[w.ticket].next;
        if (i.last == w.ticket) i.last = prev;
        release(w.ticket);
        w.ticket = kNone;
        if (i.first == kNone)
            retire(i);
        else if (m_parking && i.at == m_instants.top())
            arm_earliest(); // the ticket behind it may be a parked one
    }

    // Whether something is known to be due at or before `at`: a ticket still filed is a
    // process asleep until its instant (in SystemC's timed queue, or parked behind an
    // instant no later than its own that has a wake on its way), or a delayed notification
    // whose tick is armed at or before it; at the current instant, one whose turn has come
    // (its process runnable or its turn notified, or the tick's delta notification pending).
    // Either way the kernel's next activity is no later. A cheap "yes" spares sim_wait()
    // SystemC's question (sc_time_to_pending_activity, about 100 instructions), asked before
    // nearly every real wait; "no" says nothing, and the question is asked.
    bool known_due_by(Picos at) const { return m_hint <= at; }

    void notify_at(Picos at, sc_core::sc_event& e) {
        file(at, nullptr, &e);
        m_notify_times.push(at);
        if (at < m_armed) {
            m_armed = at;
            m_tick.notify(sc_picos(at - kernel_now())); // replaces a later pending tick
        }
    }

private:
    // A process's first sleep: its waiter. Out of line, so that me() is inlined where it is
    // called, on every sleep (a call's saving and restoring of registers is about a fifth of
    // its cost; issue 13).
    [[gnu::noinline]] Waiter& new_waiter(size_t id) {
        if (id >= m_waiters.size()) m_waiters.resize(id + 1);
        m_waiters[id] = std::make_unique<Waiter>();
        return *m_waiters[id];
    }

    static constexpr uint32_t kNone = ~uint32_t(0);
    static constexpr Picos kEmpty = ~Picos(0); // a free table slot
    static constexpr Picos kNever = ~Picos(0);

    struct Ticket {
        Waiter* waiter;            // a sleeping process, or
        sc_core::sc_event* notify; // a delayed notification
        uint32_t next;             // the next ticket of the same instant
    };
    // An instant with tickets: the first and the last, in order of going to sleep. The
    // instants are an open-addressing table (linear probing): one lookup per sleep and per
    // turn, however many processes sleep, where a heap of tickets would grow as their log.
    struct Instant {
        Picos at = kEmpty;
        uint32_t first = kNone, last = kNone;
    };

    size_t slot_of(Picos at) const { return size_t((at * 0x9E3779B97F4A7C15ull) >> 32) & m_mask; }
    Instant* find(Picos at) {
        for (size_t s = slot_of(at);; s = (s + 1) & m_mask) {
            if (m_table[s].at == at) return &m_table[s];
            if (m_table[s].at == kEmpty) return nullptr;
        }
    }
    uint32_t file(Picos at, Waiter* w, sc_core::sc_event* e) {
        uint32_t t = kNone;
        if (!m_free.empty()) {
            t = m_free.back();
            m_free.pop_back();
            m_tickets[t] = {w, e, kNone};
        } else {
            t = uint32_t(m_tickets.size());
            m_tickets.push_back({w, e, kNone});
        }
        if (at < m_hint) {
            m_hint = at;
            m_hint_ticket = t;
        }
        if (Instant* i = find(at)) {
            m_tickets[i->last].next = t;
            i->last = t;
            return t;
        }
        if ((m_live + 1) * 4 > m_table.size()) grow();
        put({at, t, t});
        ++m_live;
        if (m_parking)
            m_instants.push(at);
        else if (m_live >= g_park_from)
            start_parking();
        return t;
    }
    // The queue parks from now on, for the rest of the kernel's life: a run that once had so
    // many instants asleep is one that has them (its processes do not go away), and the
    // switch is then made once, not back and forth around the threshold.
    [[gnu::noinline]] void start_parking() {
        for (const Instant& i : m_table)
            if (i.at != kEmpty) m_instants.push(i.at);
        m_parking = true;
    }
    // An instant with no tickets left leaves the table; when the queue parks and it was the
    // earliest, the next earliest is armed.
    void retire(Instant& i) {
        const Picos at = i.at;
        forget(i);
        if (m_parking) retire_parked(at);
    }
    [[gnu::noinline]] void retire_parked(Picos at) {
        if (m_instants.top() != at) return; // not the earliest: its entry goes later
        m_instants.pop();
        arm_earliest();
    }
    // Keeps the invariant that lets a sleeper park (see the class's comment): the earliest
    // instant's first ticket has a wake on its way. Only a parked waiter's is missing, and
    // its turn event is notified for the instant.
    void arm_earliest() {
        while (!m_instants.empty()) {
            const Instant* i = find(m_instants.top());
            if (i == nullptr) { // forgotten while not the earliest
                m_instants.pop();
                continue;
            }
            Waiter* w = m_tickets[i->first].waiter;
            if (w != nullptr && !w->woken) {
                w->woken = true;
                w->turn.notify(sc_picos(i->at - kernel_now()));
            }
            return;
        }
    }
    void release(uint32_t t) {
        m_free.push_back(t);
        if (t == m_hint_ticket) {
            m_hint = kNever;
            m_hint_ticket = kNone;
        }
    }
    // Puts an instant in the first free slot of its probe run.
    void put(const Instant& i) {
        size_t s = slot_of(i.at);
        while (m_table[s].at != kEmpty)
            s = (s + 1) & m_mask;
        m_table[s] = i;
    }
    // Frees the slot of an instant with no tickets left. The instants after it in its probe
    // run move back into the hole wherever their own slot allows (backward-shift deletion):
    // the table never holds markers of forgotten instants, which every lookup would walk past
    // and only a rehash of the whole table would clear (one every few dozen sleeps with 32
    // CPUs' writers asleep, about 90 instructions a record: issue 13).
    void forget(Instant& i) {
        size_t hole = size_t(&i - m_table.data());
        for (size_t j = (hole + 1) & m_mask; m_table[j].at != kEmpty; j = (j + 1) & m_mask) {
            // The instant at j stays if its own slot lies cyclically in (hole, j]: moved to
            // the hole, it would sit before its own slot, where lookups never look.
            const size_t home = slot_of(m_table[j].at);
            const bool stays = hole <= j ? hole < home && home <= j : hole < home || home <= j;
            if (!stays) {
                m_table[hole] = m_table[j];
                hole = j;
            }
        }
        m_table[hole] = Instant{};
        --m_live;
    }
    // Doubles the table when a quarter of it would be live: kept sparse, a lookup is a probe
    // or two, with 32 CPUs' writers asleep as with 4 (at three quarters full, lookups cost 32
    // CPUs twice what they cost 4: issue 13).
    void grow() {
        std::vector<Instant> old(m_table.size() * 2, Instant{});
        old.swap(m_table);
        m_mask = m_table.size() - 1;
        for (const Instant& i : old)
            if (i.at != kEmpty) put(i);
    }

    // After a turn at t: the next ticket of t goes next. A process that stepped aside is
    // handed the turn; one still to run finds it is first when it does; a notification is
    // fired.
    [[gnu::always_inline]] void hand_on(Picos t) {
        for (;;) {
            Instant* i = find(t);
            if (i == nullptr) return;
            if (i->first == kNone) {
                retire(*i);
                return;
            }
            const Ticket next = m_tickets[i->first];
            if (next.waiter) {
                if (next.waiter->stepped_aside) {
                    next.waiter->woken = true;
                    next.waiter->turn.notify();
                }
                return;
            }
            // Its wakees run in the next delta cycle, and the tickets behind it after them:
            // this method runs there again (after them: notified after them) and goes on.
            release(i->first);
            i->first = next.next;
            next.notify->notify(sc_core::SC_ZERO_TIME);
            m_firing = true;
            m_armed = t;
            m_tick.notify(sc_core::SC_ZERO_TIME);
            return;
        }
    }

    // The tick, at the time of the earliest delayed notification: fire what is first.
    void fire_notifications() {
        require_no_lead();
        m_firing = false;
        const Picos t = kernel_now();
        while (!m_notify_times.empty() && m_notify_times.top() <= t)
            m_notify_times.pop();
        m_armed = m_notify_times.empty() ? kNever : m_notify_times.top();
        if (m_armed != kNever) m_tick.notify(sc_picos(m_armed - t));
        hand_on(t);
    }

    sc_core::sc_event m_tick{"ringsim_wake_tick"};
    Picos m_armed = kNever; // the delayed notification the tick is set for
    bool m_firing = false;  // a notification fired: its wakees go before the next ticket
    std::priority_queue<Picos, std::vector<Picos>, std::greater<Picos>> m_notify_times;
    std::vector<Ticket> m_tickets; // by index; m_free lists the unused ones
    std::vector<uint32_t> m_free;
    // A live ticket's instant, the earliest of those filed since the last one known was
    // released (not always the earliest of all), and that ticket; kNever: none known.
    Picos m_hint = kNever;
    uint32_t m_hint_ticket = kNone;
    bool m_parking = false;
    MinQueue<Picos> m_instants;   // the table's instants while it parks, and some forgotten
    std::vector<Instant> m_table; // a power of two in size
    size_t m_mask = 0;            // m_table.size() - 1
    size_t m_live = 0;            // instants in the table
    std::vector<std::unique_ptr<Waiter>> m_waiters; // by proc_id
};

// What sc_time_to_pending_activity() last told the running process, as the kernel time of
// the next activity (the largest time when none): about 100 instructions a question, asked
// at every wait a process might skip, several times a record (issue 13). While a process
// runs, no other does, so only it can add activity, and only by notifying, which models do
// through this file alone (tests/lint/waits_go_through_sim_wait.sh): every notification and
// every wait below forgets the answer, and a thread ends through sim_sync(), which forgets it
// too. A process that asks at another kernel time, or another process, asks anew
// (tests/unit/sim_wait_test.cpp).
struct NextActivity {
    const sc_core::sc_simcontext* kernel = nullptr;
    const sc_core::sc_process_b* process = nullptr; // null: nothing remembered
    Picos asked_at = 0;
    Picos at = 0;
};
NextActivity g_next;

void forget_next_activity() {
    g_next.process = nullptr;
}

WakeQueue* g_queue = nullptr;
const sc_core::sc_simcontext* g_queue_kernel = nullptr;
Picos g_horizon = 0;

// The current kernel's first sleep: its queue. Out of line, as WakeQueue::new_waiter.
[[gnu::noinline]] WakeQueue& new_queue(const sc_core::sc_simcontext* k) {
    // A new kernel without sim_reset_lead() first (a unit test's): a queue of its own; the
    // old one is left, as its events belong to a kernel that may be gone.
    g_queue = new WakeQueue;
    g_queue_kernel = k;
    return *g_queue;
}

WakeQueue& queue() {
    const sc_core::sc_simcontext* k = sc_core::sc_get_curr_simcontext();
    if (g_queue != nullptr && g_queue_kernel == k) return *g_queue;
    return new_queue(k);
}

// Whether the kernel has any activity (a runnable process, a delta notification, an update,
// a timed event) at or before kernel time `by`, asked at kernel time `now`: what SystemC
// last told the running process, else something filed in the wake queue due by then (a
// "yes" that spares the question: with 33 CPUs' writers asleep, a quarter of those before
// real waits), else SystemC's answer, remembered.
bool activity_by(Picos now, Picos by) {
    const sc_core::sc_simcontext* k = sc_core::sc_get_curr_simcontext();
    const sc_core::sc_process_b* p = sc_core::sc_get_current_process_b();
    if (g_next.process != p || g_next.kernel != k || g_next.asked_at != now || p == nullptr) {
        if (g_queue != nullptr && g_queue_kernel == k && g_queue->known_due_by(by)) return true;
        g_next = {k, p, now, now + sc_core::sc_time_to_pending_activity(k).value()};
    }
    return g_next.at - now <= by - now;
}

// Sleeps until `at` (kernel time), or until `also` fires when given.
template <class Also> void sleep_until(Picos at, const Also* also) {
    forget_next_activity();
    WakeQueue& q = queue();
    WakeQueue::Waiter& w = q.me();
    if (q.take_ticket(at, w, also == nullptr)) {
        WakeQueue::wait_turn(w); // woken by its turn alone, at its instant
    } else if (also) {
        sc_core::wait(sc_picos(at - kernel_now()), *also);
    } else {
        sc_core::wait(sc_picos(at - kernel_now()));
    }
    require_no_lead(); // a thread that ended ahead would have left its lead behind
    if (kernel_now() >= at)
        q.take_turn(w); // may notify the next in turn
    else
        q.void_ticket(w); // woken by `also` first
    forget_next_activity();
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
        if (!activity_by(k, k + lead)) {
            g_lead = lead;
            return;
        }
    }
    g_lead = 0; // before the switch: other processes run with no lead
    sleep_until<sc_core::sc_event>(k + lead, nullptr);
}

void sim_sync() {
    forget_next_activity(); // a thread's last call (sim_wait.h): it may end after it
    if (g_lead == 0) return;
    const Picos lead = g_lead;
    g_lead = 0;
    sleep_until<sc_core::sc_event>(kernel_now() + lead, nullptr);
}

void sim_wait(const sc_core::sc_event& e) {
    sim_sync();
    sc_core::wait(e);
    forget_next_activity();
}

void sim_wait(const sc_core::sc_event_or_list& any) {
    sim_sync();
    sc_core::wait(any);
    forget_next_activity();
}

void sim_wait(Picos d, const sc_core::sc_event& e) {
    sim_sync();
    if (d == 0)
        sc_core::wait(sc_core::SC_ZERO_TIME, e); // the next delta cycle: no instant to order
    else
        sleep_until(kernel_now() + d, &e);
    forget_next_activity();
}

void sim_wait(Picos d, const sc_core::sc_event_or_list& any) {
    sim_sync();
    if (d == 0)
        sc_core::wait(sc_core::SC_ZERO_TIME, any);
    else
        sleep_until(kernel_now() + d, &any);
    forget_next_activity();
}

void sim_notify(sc_core::sc_event& e, Picos delay) {
    sim_sync(); // forgets the next activity: this one may come before it
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

void sim_set_park_from(size_t instants) {
    g_park_from = instants;
}

void sim_prepare() {
    queue();
}

void sim_reset_lead() {
    forget_next_activity();
    g_lead = 0;
    g_horizon = 0;
    delete g_queue; // its events and method belong to the kernel about to be deleted
    g_queue = nullptr;
    g_queue_kernel = nullptr;
}

} // namespace ringsim::models
