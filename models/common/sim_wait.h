// The models' waits and notifications: every SystemC process of a model waits and notifies
// through these, never through sc_core::wait or sc_event::notify directly.
//
// Why: a wait of simulated time costs a thread switch, a timed event and a pass of the
// kernel's scheduler (about 800 instructions, issue 13), even when nothing else can happen
// before it ends. sim_wait(d) skips the switch when no other activity is pending up to
// now + d: the process runs on with its own clock ahead of SystemC's (sim_now() adds the
// lead), as TLM's temporal decoupling does, but exactly: it skips only when the wait would
// have woken it alone, so every process sees the same times, in the same order, as with a
// real wait. Anything another process could see (a notification, a wait on an event, the
// process's end) first brings SystemC's clock up to the process's (sim_sync), so a lead is
// never visible outside the process that has it.
#pragma once

#include "models/common/types.h"

#include <systemc>

namespace ringsim::models {

// Lets the calling thread's time advance by d: at once when nothing else is pending up to
// and including now + d, now + d is before the horizon and the lead stays within kMaxLead;
// else by a real wait. d == 0 returns at once: no delta cycle, as no time passes.
void sim_wait(Picos d);
// How far a lead may reach: the end of the sc_start() about to run (its caller observes the
// models there, so no process may have gone past it). 0, the default and after
// sim_reset_lead(), allows no lead at all: a test that drives sc_start() itself sees every
// wait as a real one unless it sets a horizon.
void sim_set_horizon(Picos until);
// Brings SystemC's clock up to the calling process's (a real wait of the lead, if any).
void sim_sync();
// Waits for an event (or any of a list), optionally for at most d; syncs first.
void sim_wait(const sc_core::sc_event& e);
void sim_wait(const sc_core::sc_event_or_list& any);
void sim_wait(Picos d, const sc_core::sc_event& e);
void sim_wait(Picos d, const sc_core::sc_event_or_list& any);
// Notifies e after `delay` of simulated time (0: the next delta cycle); syncs first.
void sim_notify(sc_core::sc_event& e, Picos delay = 0);
// The calling process's lead over SystemC's clock: 0 outside a process that skipped a wait.
Picos sim_lead();
// Forgets any lead and the horizon: a new SystemC kernel (a worker's next run, after one that ended
// in an error while a process was ahead).
void sim_reset_lead();
// Makes the wake queue of the current kernel now, while it elaborates, instead of at the first
// wait: SystemC 2.3 keeps a process spawned during the simulation out of its process table,
// so a kernel deleted after its run (a worker's next run) would leave the queue's method
// behind, a leak per run. Called last in the platform's construction.
void sim_prepare();

// From how many instants with sleepers at once sleepers park (sim_wait.cpp, WakeQueue):
// below it, each sleeper waits with a timed wait of SystemC's, whose timed queue is then
// small; once it has been reached, a sleeper with no event to wake for and an instant no
// earlier than the earliest waits on its turn alone, so that SystemC's heap of timed events
// stays small however many processes sleep (sleepers with a timeout, and one earlier than
// every other, still wait with a timed wait). Either way the same processes wake at the same
// times, in the same delta cycles and order: the choice is one of cost alone (callgrind:
// parking saves about 140 instructions a record on 33 CPUs, breaks even on 9 and costs
// about 40 on 5, where at most 6 instants are live).
constexpr size_t kParkFrom = 8;
// Sets that threshold, read by the current kernel's queue at each new instant and by the
// next kernel's (sim_reset_lead() leaves it); 1 parks from the first instant on. For
// RINGSIM_PARK=1 (tests/regression/lead_is_exact.cmake) and the unit tests, which hold the
// two ways of sleeping to each other.
void sim_set_park_from(size_t instants);

// A lead may grow this far before a real wait: a process alone in the simulation still
// yields every millisecond of simulated time, so that the run loop's slices (progress lines,
// Ctrl-C) keep their pace. Any bound is exact; this one only sets how often.
constexpr Picos kMaxLead = 1'000'000'000; // 1 ms

} // namespace ringsim::models
