#include "models/user/perf_consumer.h"
#include "models/common/sim_wait.h"

#include "models/common/sim_clock.h"
#include "models/common/stat_registry.h"
#include "models/kernel/perf_abi.h"
#include "models/user/mmap_access.h"
#include "models/user/readers.h"
#include "models/user/record_parser.h"

#include <algorithm>
#include <cmath>

namespace ringsim::models {

PerfConsumer::PerfConsumer(sc_core::sc_module_name name, const PerfConsumerParams& params,
                           MemoryPort& mem, std::vector<ConsumerMmap> mmaps)
    : sc_module(name), m_p(params), m_mem(mem), m_mmaps(std::move(mmaps)), m_state(m_mmaps.size()),
      m_next_snapshot(params.snapshot_every), m_cost_rng(params.cost_seed),
      m_wakeup_rng(params.wakeup_seed), m_wakeup_cost_rng(params.wakeup_cost_seed),
      m_flush(params.mmap_flush) {
    require_param(m_p.copy_bandwidth > 0, "PerfConsumerParams.copy_bandwidth");
    require_param(m_p.write_bandwidth > 0, "PerfConsumerParams.write_bandwidth");
    require_param(m_p.mmap_flush >= 1, "PerfConsumerParams.mmap_flush");
    require_param(m_p.cpu_share > 0 && m_p.cpu_share <= 1, "PerfConsumerParams.cpu_share");
    SC_THREAD(consumer_thread);
    if (!m_p.pauses.empty()) SC_THREAD(pause_thread);
}

// ring_buffer_read_head (C1): smp_load_acquire on arm64 and x86-64.
uint64_t PerfConsumer::read_head(unsigned idx) {
    // (C): the record loads that follow perform after this data_head load.
    // Pairs with (B), the kernel's smp_wmb in perf_output_put_handle.
    const HeadLoad h = load_head(m_mem, m_mmaps[idx].user_page + perf::kOffDataHead, m_p.c);
    CopyContext& last = m_state[idx].last;
    last.head_value = h.value;
    last.head_load_seq = h.ticket.seq;
    last.head_load_perform = h.ticket.perform;
    last.head_store_seq = h.store_seq;
    return h.value;
}

// ring_buffer_write_tail (C2): smp_store_release.
void PerfConsumer::write_tail(unsigned idx, uint64_t tail) {
    // (D): every record load above performs before the producer may see this tail and
    // reuse the space. Pairs with (A), the kernel's control dependency on data_tail in
    // __perf_output_begin.
    m_state[idx].last.tail_store_seq =
        store_tail(m_mem, m_mmaps[idx].user_page + perf::kOffDataTail, tail, m_p.d);
}

PerfConsumer::Copy PerfConsumer::issue_copy(unsigned idx, uint64_t pos, uint64_t n) {
    const ConsumerMmap& m = m_mmaps[idx];
    const uint64_t mask = m.data_size - 1;
    Copy c{idx, pos, n, {}, {}, m_state[idx].last};
    // A record or chunk crossing the buffer end is two copies (perf's bounce buffer).
    const uint64_t first = std::min(n, m.data_size - (pos & mask));
    const CopyTickets t = models::issue_copy(m_mem, m.data + (pos & mask), first, m.data, n - first,
                                             m_p.copy_bandwidth);
    c.first = t.first;
    c.second = t.second;
    m.stats->consumer_bytes_copied += n;
    return c;
}

void PerfConsumer::deliver(const Copy& c) {
    std::vector<CopySource> sources;
    read_copy(m_mem, c.first, c.second, m_buf, sources);
    CopyContext ctx = c.ctx;
    ctx.tail_store_seq = m_state[c.idx].last.tail_store_seq; // stored after the copy issued
    // A forward pass has already moved its read position (md->prev) where it goes on.
    ctx.next_start = m_state[c.idx].prev;
    ctx.next_start_known = !m_mmaps[c.idx].overwrite;
    for (ConsumerObserver* o : m_observers)
        o->on_copied(c.idx, c.pos, m_buf.data(), c.n, sources, ctx);
}

void PerfConsumer::consumer_thread() {
    // builtin-record.c : __cmd_record's loop. A pass that found nothing polls; once the
    // workload has exited, the first pass that finds nothing ends the loop.
    bool disabled = false;
    if (m_aux) m_aux->on_start();
    for (;;) {
        if (m_exited && !disabled && m_aux) {
            // evlist__disable once done: the events stop, and their AUX data is committed
            // (P2, E5) before the last passes read it.
            m_aux->on_exit();
            disabled = true;
        }
        if (m_aux && m_aux->next_due() && m_aux->next_due() <= sim_now() && !m_exited)
            m_aux->run_due();
        bool hits = false;
        pass_start();
        for (unsigned i = 0; i < m_mmaps.size(); ++i) {
            if (m_mmaps[i].backward) continue;
            hits |= read_forward(i);
            if (m_aux) hits |= m_aux->after_data_read(i); // C5: data, then its AUX
        }
        pass_end();
        if (snapshot_due()) {
            m_next_snapshot += m_p.snapshot_every;
            read_backward_all();
        }
        if (!hits) {
            // Done once a pass after the events were disabled found nothing (the exit may
            // have come during this pass: then disable first and look again).
            if (m_exited && (disabled || !m_aux)) break;
            if (!m_exited) poll();
        }
    }
    // out_child: record__mmap_read_all(rec, true), one last pass with every map's flush
    // threshold forced to 1, so what --mmap-flush held back is written too. With a threshold
    // of 1 already, the loop's last pass read the same way and found nothing, and nothing
    // writes once the workload exited and the events are disabled: that pass is left out.
    if (m_flush > 1) {
        m_flush = 1;
        pass_start();
        for (unsigned i = 0; i < m_mmaps.size(); ++i) {
            if (m_mmaps[i].backward) continue;
            read_forward(i);
            if (m_aux) m_aux->after_data_read(i);
        }
        pass_end();
    }
    // BKW_MMAP_DATA_PENDING at exit: the overwrite buffers are read last.
    read_backward_all();
    for (ConsumerObserver* o : m_observers)
        o->on_finished();
    sim_sync(); // a thread ends with no lead (sim_wait.h)
}

void PerfConsumer::pass_start() {
    for (ConsumerObserver* o : m_observers)
        o->on_pass_start();
}

void PerfConsumer::pass_end() {
    for (ConsumerObserver* o : m_observers)
        o->on_pass_end();
}

void PerfConsumer::read_backward_all() {
    // record__mmap_read_evlist over the overwrite maps: a pass of its own.
    bool any = false;
    for (const ConsumerMmap& m : m_mmaps)
        any |= m.backward;
    if (!any) return;
    pass_start();
    for (unsigned i = 0; i < m_mmaps.size(); ++i)
        if (m_mmaps[i].backward) read_backward(i);
    pass_end();
}

bool PerfConsumer::snapshot_due() const {
    return m_p.snapshot_every && sim_now() >= m_next_snapshot && !m_exited;
}

void PerfConsumer::workload_exited() {
    m_exited = true;
    sim_notify(m_sigchld);
}

void PerfConsumer::poll() {
    ++m_polls;
    // Overwrite maps are in the pollfd array with revents 0 (libperf mmap_per_evsel): their
    // wakeups never end a poll.
    // Sleep until a waitqueue wakes us, the workload exits (SIGCHLD interrupts poll), the
    // poll times out or a periodic snapshot is due.
    bool ready = false;
    sc_core::sc_event_or_list any;
    any |= m_sigchld;
    for (auto& m : m_mmaps) {
        if (m.overwrite) continue;
        ready |= m.wakeup->pollin_pending();
        any |= m.wakeup->waitqueue();
    }
    for (ConsumerObserver* o : m_observers)
        o->on_poll(!ready);
    if (!ready) {
        Picos until = m_p.poll_timeout;
        auto wake_at = [&until](Picos at) {
            if (at > sim_now()) until = until ? std::min(until, at - sim_now()) : at - sim_now();
        };
        if (m_p.snapshot_every) wake_at(m_next_snapshot);
        if (m_aux && m_aux->next_due()) wake_at(m_aux->next_due());
        if (until)
            sim_wait(until, any);
        else
            sim_wait(any);
        for (ConsumerObserver* o : m_observers)
            o->on_woken();
        if (const Picos latency = draw(m_p.wakeup_latency, m_wakeup_rng)) sim_wait(latency);
        for (ConsumerObserver* o : m_observers)
            o->on_running();
        if (const Picos work = draw(m_p.wakeup_cost, m_wakeup_cost_rng)) sim_wait(on_cpu(work));
    }
    for (auto& m : m_mmaps)
        if (!m.overwrite && m.wakeup->perf_poll()) ++m.stats->consumer_polls;
}

Picos PerfConsumer::cost(uint64_t n) const {
    // Copy out of the mapping, then write to perf.data.
    return on_cpu(transfer_time(n, m_p.copy_bandwidth) + transfer_time(n, m_p.write_bandwidth));
}

Picos PerfConsumer::draw(const TimeDistribution& d, Rng& rng) {
    bool capped = false;
    const Picos t = d.draw(rng, capped);
    m_draws_capped += capped;
    return t;
}

Picos PerfConsumer::record_cost(uint32_t type) {
    return on_cpu(
        draw(type == PERF_RECORD_LOST ? m_p.lost_record_cost : m_p.per_record_cost, m_cost_rng));
}

bool PerfConsumer::read_forward(unsigned idx) {
    return m_p.reader == ReaderKind::push ? push(idx) : read_events(idx);
}

bool PerfConsumer::push(unsigned idx) {
    const ConsumerMmap& m = m_mmaps[idx];
    MmapState& s = m_state[idx];
    // perf_mmap__push reads data_head once for the new tail, then read_init reads it again
    // for the end of the copy (C4): a publication between the two is copied twice.
    const uint64_t head = read_head(idx);
    const uint64_t end = read_head(idx);
    const uint64_t start = s.prev;
    if (end - start < m_flush) return false; // -EAGAIN
    ++m.stats->consumer_passes;
    if (end - start > m.data_size) {
        // "failed to keep up with mmap data" (C3): everything unread is dropped.
        keep_up_failure(idx, end);
        return false;
    }
    const uint64_t n = end - start;
    const Copy copy = issue_copy(idx, start, n);
    if (m_p.tail_update == TailUpdate::per_record && !m.overwrite) {
        handle_records(idx, copy);
        return true;
    }
    sim_wait(cost(n));
    s.prev = head;
    if (!m.overwrite) write_tail(idx, head); // perf_mmap__consume
    deliver(copy);
    return true;
}

void PerfConsumer::handle_records(unsigned idx, const Copy& copy) {
    // The copy is the consumer's private buffer: it parses the records out of it (waiting
    // for the loads, as a real copy completes before it is parsed) and releases each
    // record's room as soon as it has handled it. Each record is done when the handling of
    // the records up to it, counted from the copy's start, is: the copy's own time is part
    // of it, not added.
    Picos done_at = sim_now();
    std::vector<CopySource> sources;
    read_copy(m_mem, copy.first, copy.second, m_buf, sources);
    const UninitBytes bytes = m_buf;
    uint64_t done = 0;
    while (done < copy.n) {
        // A header the copy cannot hold, or one that is not plausible (a reordering with a
        // barrier off), ends the per-record walk: the rest is handled as one piece.
        uint64_t size = copy.n - done;
        uint32_t type = 0;
        if (copy.n - done >= perf::kHeaderSize) {
            const auto h = perf::parse_header(bytes.data() + done, copy.n - done);
            if (h && perf::plausible(*h) && h->size <= copy.n - done) {
                size = h->size;
                type = h->type;
            }
        }
        done_at += record_cost(type) + cost(size);
        if (done_at > sim_now()) sim_wait(done_at - sim_now());
        done += size;
        m_state[idx].prev = copy.pos + done;
        write_tail(idx, copy.pos + done); // perf_mmap__consume of this record
    }
    CopyContext ctx = copy.ctx;
    ctx.tail_store_seq = m_state[idx].last.tail_store_seq;
    ctx.next_start = m_state[idx].prev;
    ctx.next_start_known = !m_mmaps[idx].overwrite;
    for (ConsumerObserver* o : m_observers)
        o->on_copied(idx, copy.pos, bytes.data(), copy.n, sources, ctx);
}

bool PerfConsumer::read_events(unsigned idx) {
    // libperf, and the readers of other projects (readers.h), which differ from it in their
    // barriers (C, D: the scenario's, which default to the reader's own), in reading
    // data_head once per pass, in having no read_done, and in the cost of a record.
    const ReaderTraits& reader = reader_traits(m_p.reader);
    const ConsumerMmap& m = m_mmaps[idx];
    MmapState& s = m_state[idx];
    const uint64_t mask = m.data_size - 1;
    // perf_mmap__read_init; the one data_head load of the others' pass.
    uint64_t start = s.prev;
    uint64_t end = read_head(idx);
    if (end - start < m_flush) return false;
    ++m.stats->consumer_passes;
    if (end - start > m.data_size) {
        // perf's check (C3). The other projects have none: data_head more than a buffer
        // ahead arises only with (A) off, and ringsim skips the unread data for them too,
        // counted, rather than walk records the producer overwrote.
        keep_up_failure(idx, end);
        return false;
    }
    bool any = false;
    const bool per_record = m_p.tail_update == TailUpdate::per_record;
    // The other projects' batch readers hand each record to a callback that reads it in
    // place or copies it on (a memcpy whose loads feed stores, not a branch): nothing waits
    // for those loads before the one data_tail store, so with (D) off it may overtake them.
    // Their records are delivered after that store; libperf's, as its tools parse each
    // event at once, before it.
    const bool defer = !per_record && m_p.reader != ReaderKind::libperf;
    std::vector<Copy> deferred;
    for (;;) {
        // perf_mmap__read_event refreshes end from data_head for forward maps.
        if (reader.refresh_head) end = read_head(idx);
        if (end - start < perf::kHeaderSize) break;
        uint8_t hdr[perf::kHeaderSize];
        m_mem.load_bytes(m.data + (start & mask), hdr, sizeof hdr);
        const auto h = perf::parse_header(hdr, sizeof hdr);
        if (!perf::plausible(*h) || end - start < h->size) break;
        const Copy copy = issue_copy(idx, start, h->size);
        start += h->size;
        s.prev = start;
        // libperf as perf's tools use it: the copy and a write, as push; the others pay the
        // copy when they copy (cilium-ebpf, aya-0.13), nothing more in place (libbpf, aya).
        const Picos handling = m_p.reader == ReaderKind::libperf ? cost(h->size)
                               : reader.copies ? on_cpu(transfer_time(h->size, m_p.copy_bandwidth))
                                               : 0;
        sim_wait(record_cost(h->type) + handling);
        // perf_mmap__consume after each event (cilium-ebpf: its deferred writeTail).
        if (per_record && !m.overwrite) write_tail(idx, s.prev);
        if (defer)
            deferred.push_back(copy);
        else
            deliver(copy);
        any = true;
    }
    // batch: one perf_mmap__consume after the loop, before read_done.
    if (!per_record && any && !m.overwrite) write_tail(idx, s.prev);
    for (const Copy& copy : deferred)
        deliver(copy);
    if (!reader.read_done) return any;
    // perf_mmap__read_done: prev = data_head, read again after the last event. Records
    // published in between are stepped over (their space is released at the next consume).
    const uint64_t head = read_head(idx);
    if (head != s.prev)
        for (ConsumerObserver* o : m_observers)
            o->on_skipped(idx, s.prev, head);
    s.prev = head;
    return any;
}

void PerfConsumer::keep_up_failure(unsigned idx, uint64_t head) {
    // "failed to keep up with mmap data" (C3): everything unread is dropped.
    const ConsumerMmap& m = m_mmaps[idx];
    MmapState& s = m_state[idx];
    ++m.stats->consumer_keep_up_failures;
    ++m_keep_up_failures;
    for (ConsumerObserver* o : m_observers)
        o->on_skipped(idx, s.prev, head);
    s.prev = head;
    if (!m.overwrite) write_tail(idx, head);
}

// overwrite_rb_find_range (tools/lib/perf/mmap.c): walk headers from the newest record
// until a never-written (zero) header or one buffer length; returns the new end.
uint64_t PerfConsumer::overwrite_rb_find_range(unsigned idx, uint64_t start) {
    const ConsumerMmap& m = m_mmaps[idx];
    const uint64_t mask = m.data_size - 1;
    uint64_t evt_head = start;
    uint64_t last_size = 0;
    for (;;) {
        if (evt_head - start >= m.data_size) {
            if (evt_head - start > m.data_size) evt_head -= last_size; // rewind one record
            return evt_head;
        }
        uint8_t hdr[perf::kHeaderSize];
        m_mem.load_bytes(m.data + (evt_head & mask), hdr, sizeof hdr);
        last_size = perf::parse_header(hdr, sizeof hdr)->size;
        if (last_size == 0) return evt_head;
        evt_head += last_size;
    }
}

void PerfConsumer::read_backward(unsigned idx) {
    const ConsumerMmap& m = m_mmaps[idx];
    MmapState& s = m_state[idx];
    // evlist__toggle_bkw_mmap: PERF_EVENT_IOC_PAUSE_OUTPUT before reading (R9).
    if (!m_user_paused) m.rb->set_paused(true);
    // perf record reads overwrite maps with perf_mmap__push too (C4, C5): data_head once
    // for the new prev, then read_init with md->overwrite: from the newest record (a
    // second data_head read) back to prev, walking headers when the buffer is full.
    const uint64_t head = read_head(idx);
    const uint64_t start = read_head(idx);
    uint64_t end = s.prev;
    if (end - start >= m_flush) {
        ++m.stats->consumer_passes;
        if (end - start > m.data_size) end = overwrite_rb_find_range(idx, start);
        const uint64_t n = end - start;
        const Copy copy = issue_copy(idx, start, n);
        sim_wait(cost(n));
        deliver(copy);
    }
    s.prev = head;
    if (!m_user_paused) m.rb->set_paused(false);
}

void PerfConsumer::set_paused(bool paused) {
    m_user_paused = paused;
    for (auto& m : m_mmaps)
        m.rb->set_paused(paused);
}

void PerfConsumer::pause_thread() {
    for (const PauseWindow& w : m_p.pauses) {
        if (w.at > sim_now()) sim_wait(w.at - sim_now());
        set_paused(true);
        sim_wait(w.length);
        set_paused(false);
    }
    sim_sync(); // a thread ends with no lead (sim_wait.h)
}

} // namespace ringsim::models

namespace ringsim::models {

void declare_consumer_stats(StatRegistry& r) {
    using S = BufferStats;
    r.counter("consumer.polls", "calls",
              "per buffer: poll() returns that reported POLLIN for "
              "it; in total: the consumer's poll() calls",
              &S::consumer_polls);
    // One poll() covers every buffer: the total is the consumer's own count.
    r.total_counter<PerfConsumer>("consumer.polls",
                                  [](const PerfConsumer& c) { return c.polls(); });
    r.counter<PerfConsumer>(
        "consumer.draws_capped", "draws",
        "draws of a distributed consumer time (wakeup_latency, wakeup_cost, per_record_cost, "
        "lost_record_cost) above its key's bound, cut to the bound",
        [](const PerfConsumer& c) { return c.draws_capped(); }, StatScope::total);
    r.counter("consumer.passes", "passes",
              "read passes over the buffer (perf_mmap__push or a "
              "read_init/read_event/consume loop)",
              &S::consumer_passes);
    r.counter("consumer.bytes_copied", "bytes", "bytes the consumer copied out of the mapping",
              &S::consumer_bytes_copied);
    r.counter("consumer.keep_up_failures", "passes",
              "passes that found head more than a "
              "buffer ahead (\"failed to keep up with mmap data\", C3)",
              &S::consumer_keep_up_failures);
}

} // namespace ringsim::models
