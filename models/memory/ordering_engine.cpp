#include "models/memory/ordering_engine.h"

#include <algorithm>
#include <cstring>

namespace ringsim::models {

namespace {

bool overlaps(Addr a, uint64_t an, Addr b, uint64_t bn) {
    return a < b + bn && b < a + an;
}

uint64_t first_word(const uint8_t* p, uint64_t n) {
    uint64_t v = 0;
    // A constant size is a move, not a call of memcpy (nearly every access has 8 or more).
    if (n >= 8)
        std::memcpy(&v, p, 8);
    else
        std::memcpy(&v, p, n);
    return v;
}
} // namespace

const char* barrier_kind_name(BarrierKind k) {
    switch (k) {
    case BarrierKind::none:
        return "none";
    case BarrierKind::ctrl:
        return "ctrl";
    case BarrierKind::rmb:
        return "rmb";
    case BarrierKind::wmb:
        return "wmb";
    case BarrierKind::mb:
        return "mb";
    case BarrierKind::acquire:
        return "acquire";
    case BarrierKind::release:
        return "release";
    }
    return "?";
}

const char* op_kind_name(OpKind k) {
    switch (k) {
    case OpKind::load:
        return "load";
    case OpKind::load_acquire:
        return "load-acquire";
    case OpKind::store:
        return "store";
    case OpKind::store_release:
        return "store-release";
    case OpKind::fence_rmb:
        return "rmb";
    case OpKind::fence_wmb:
        return "wmb";
    case OpKind::fence_mb:
        return "mb";
    }
    return "?";
}

OrderingEngine::OrderingEngine(PhysicalMemory& mem, MemoryModel model, TimingPolicy policy,
                               uint64_t seed)
    : m_mem(mem), m_model(model), m_policy(model == MemoryModel::sc ? TimingPolicy::none : policy),
      m_rng(seed) {}

unsigned OrderingEngine::add_agent(const std::string& name, const TimingBounds& bounds) {
    Agent a;
    a.name = name;
    a.bounds = m_model == MemoryModel::sc ? TimingBounds{} : bounds;
    // History must reach back as far as any load may perform early, and as far as any
    // store may still be pending.
    m_window = std::max({m_window, a.bounds.load_early_max, a.bounds.store_drain_max});
    m_agents.push_back(std::move(a));
    return unsigned(m_agents.size() - 1);
}

OpRecord OrderingEngine::next_op(unsigned agent, OpKind kind, Addr addr, uint64_t n, Picos now,
                                 Picos perform, Barrier label) {
    OpRecord op;
    op.seq = m_next_seq++;
    op.agent = agent;
    op.kind = kind;
    op.addr = addr;
    op.size = n;
    op.issue = now;
    op.perform = perform;
    op.label = label;
    return op;
}

Picos OrderingEngine::pick(Picos t, Picos lo, Picos hi) {
    // Under sc everything performs at issue: a draw would be thrown away.
    if (m_model == MemoryModel::sc) return t;
    switch (m_policy) {
    case TimingPolicy::none:
        return t;
    case TimingPolicy::random:
        return lo + m_rng.below(hi - lo + 1);
    case TimingPolicy::adversarial:
        return (m_rng.next() & 1) ? hi : lo; // extremes only
    }
    return t;
}

Picos OrderingEngine::same_bytes_floor(const Agent& a, Addr addr, uint64_t n,
                                       bool later_is_store) const {
    // Coherence and arm's "same bytes" rule: a later access to the same bytes performs after
    // an earlier load of them, and a later store after an earlier store too. A load after a
    // store to the same bytes needs no order: it is forwarded the store's value.
    Picos floor = 0;
    for (size_t i = 0; i < a.recent.size(); ++i) {
        const RecentOp& r = a.recent[i];
        if ((later_is_store || !r.is_store) && overlaps(r.addr, r.size, addr, n))
            floor = std::max(floor, r.perform);
    }
    return floor;
}

Picos OrderingEngine::exclusive_floor(const Agent& a, Addr addr, uint64_t n) const {
    Picos floor = 0;
    for (size_t i = 0; i < a.recent.size(); ++i) {
        const RecentOp& r = a.recent[i];
        if (r.exclusive && overlaps(r.addr, r.size, addr, n)) floor = std::max(floor, r.perform);
    }
    return floor;
}

[[gnu::always_inline]] inline void OrderingEngine::remember(Agent& a, Addr addr, uint64_t n,
                                                            Picos p, bool is_store, Picos now,
                                                            bool exclusive) {
    // An earlier op that performed before (now - window) cannot hold back a later one,
    // whose perform time is at least its issue time minus the window.
    while (!a.recent.empty() && a.recent.front().perform + m_window < now)
        a.recent.pop_front();
    a.recent.emplace_back() = {addr, n, p, is_store, exclusive};
}

Picos OrderingEngine::perform_load_reordered(Agent& a, Picos t, Addr addr, uint64_t n,
                                             bool acquire) {
    const Picos lo = t > a.bounds.load_early_max ? t - a.bounds.load_early_max : 0;
    Picos p = pick(t, lo, t + a.bounds.load_late_max);
    p = std::max({p, a.floor_all, a.next_floor});
    switch (m_model) {
    case MemoryModel::sc:
        break; // not reached: perform_load() answers sc at issue
    case MemoryModel::tso:
        // Loads in order; that holds the same-bytes rule too, as every remembered load
        // performs at or before max_load.
        p = std::max(p, a.max_load);
        break;
    case MemoryModel::arm:
        p = after_same_bytes(a, p, addr, n, false);
        if (acquire) p = std::max(p, a.last_release); // RCsc: release then acquire
        if (acquire && a.exchanged) p = std::max(p, exclusive_floor(a, addr, n));
        break;
    }
    a.max_load = std::max(a.max_load, p);
    if (acquire && m_model == MemoryModel::arm) a.floor_all = std::max(a.floor_all, p);
    return p;
}

LoadTicket OrderingEngine::load(unsigned agent, Picos now, Addr addr, uint64_t n, bool acquire,
                                Barrier label) {
    Agent& a = m_agents.at(agent);
    const Picos p = perform_load(a, now, addr, n, acquire);
    a.next_floor = 0;
    if (m_model != MemoryModel::sc) remember(a, addr, n, p, false, now);

    const OpRecord op =
        next_op(agent, acquire ? OpKind::load_acquire : OpKind::load, addr, n, now, p, label);
    PendingLoad& l = add_load(op, p);
    if (p <= now) resolve(l);
    return LoadTicket{op.seq, now, p, addr, n};
}

LoadTicket OrderingEngine::load_copy(unsigned agent, Picos now, Addr addr, uint64_t n, Picos start,
                                     Picos span) {
    if (n == 0) throw ModelError("a copy of no bytes");
    Agent& a = m_agents.at(agent);
    std::vector<Piece> pieces;
    pieces.reserve(n / kCacheLine + 2);
    Picos first = ~Picos(0), last = 0;
    for (uint64_t off = 0; off < n;) {
        const uint64_t len = std::min(n - off, kCacheLine - (addr + off) % kCacheLine);
        // When the copy reaches this line: span * off / n, in parts that cannot overflow.
        const Picos t = now + start + span / n * off + span % n * off / n;
        const Picos p = perform_load(a, t, addr + off, len, false);
        pieces.push_back({off, len, t, p});
        first = std::min(first, p);
        last = std::max(last, p);
        off += len;
    }
    a.next_floor = 0;
    // One entry for the whole range, at its last perform time: a later access to any of its
    // bytes is held after the whole copy (stricter than per line, never weaker).
    if (m_model != MemoryModel::sc) remember(a, addr, n, last, false, now);

    const OpRecord op = next_op(agent, OpKind::load, addr, n, now, last, Barrier::none);
    PendingLoad& l = add_load(op, first);
    l.pieces = std::move(pieces);
    if (last <= now) resolve(l);
    return LoadTicket{op.seq, now, last, addr, n};
}

namespace {
// Paints [offset, offset + length) of the sorted, contiguous byte ranges ranges[from..]
// with `with`.
void paint(std::vector<ByteSource>& ranges, size_t from, const ByteSource& with) {
    const uint64_t a = with.offset, b = with.offset + with.length;
    const auto first =
        std::partition_point(ranges.begin() + std::ptrdiff_t(from), ranges.end(),
                             [a](const ByteSource& r) { return r.offset + r.length <= a; });
    auto last = first;
    while (last != ranges.end() && last->offset < b)
        ++last;
    ByteSource mid[3];
    size_t k = 0;
    if (first != last && first->offset < a) {
        mid[k] = *first;
        mid[k++].length = a - first->offset;
    }
    mid[k++] = with;
    if (first != last && (last - 1)->offset + (last - 1)->length > b) {
        mid[k] = *(last - 1);
        mid[k].length = mid[k].offset + mid[k].length - b;
        mid[k++].offset = b;
    }
    const auto at = ranges.erase(first, last);
    ranges.insert(at, mid, mid + k);
}
} // namespace

OrderingEngine::PendingLoad& OrderingEngine::add_load(const OpRecord& op, Picos first_perform) {
    // The newest sequence number: the back keeps m_loads in seq order.
    PendingLoad& l = m_loads.emplace_back();
    l.op = op;
    l.first_perform = first_perform;
    l.pieces.clear();
    l.resolved = false;
    l.sources.clear();
    return l;
}

void OrderingEngine::resolve(PendingLoad& l, uint8_t* into) {
    const OpRecord& op = l.op;
    uint8_t* bytes = into;
    if (!bytes) {
        if (l.bytes.size() < op.size) l.bytes.resize(op.size); // a reused slot's may be larger
        bytes = l.bytes.data();
    }
    m_mem.read(op.addr, bytes, op.size);
    l.sources.clear();
    if (m_history.empty()) {
        // No store in flight (every load under sc, nearly): each piece reads memory alone.
        // The same value and sources as apply_history() would give, whose search for the
        // stores reaching each piece would find none, at a fraction of its cost (a load is
        // read on every record: the writer's data_tail).
        if (l.pieces.empty()) {
            l.sources.push_back({0, op.size, 0, op.issue, op.perform});
        } else {
            l.sources.reserve(l.pieces.size()); // a copy of 4 MiB: 65,536 pieces
            for (const Piece& pc : l.pieces)
                l.sources.push_back({pc.offset, pc.length, 0, pc.issue, pc.perform});
        }
    } else {
        apply_history(l, bytes);
    }
    l.op.value = first_word(bytes, op.size);
    for (const ByteSource& b : l.sources) {
        uint64_t seq = b.store_seq;
        if (!seq && !m_observers.empty()) seq = written_by(op.addr + b.offset, b.length);
        l.op.source = std::max(l.op.source, seq);
    }
    l.resolved = true;
}

[[gnu::always_inline]] inline void OrderingEngine::apply_history(PendingLoad& l, uint8_t* bytes) {
    const OpRecord& op = l.op;
    const Piece whole{0, op.size, op.issue, op.perform};
    const Piece* pieces = l.pieces.empty() ? &whole : l.pieces.data();
    const size_t count = l.pieces.empty() ? 1 : l.pieces.size();
    // The piece holding byte `off` of the load: all but the first are whole cache lines.
    const uint64_t head = pieces[0].length;
    auto piece_of = [&](uint64_t off) {
        return off < head ? size_t(0) : size_t(1 + (off - head) / kCacheLine);
    };
    // Apply, in coherence order, every store visible to each piece: those performed before
    // it, and the agent's own earlier stores still in its store buffer (forwarding). Each
    // piece's sources are painted on their own, at the end of the list: a large copy has
    // many pieces and many stores, one per piece, and painting the whole list each time
    // would be quadratic.
    std::vector<Hit>& hits = m_hits;
    hits.clear();
    for (size_t i = 0; i < m_history.size(); ++i) {
        const PendingStore& s = m_history[i];
        if (!overlaps(s.op.addr, s.op.size, op.addr, op.size)) continue;
        const bool own = s.op.agent == op.agent && s.op.seq < op.seq;
        const uint64_t from = std::max(s.op.addr, op.addr) - op.addr;
        const uint64_t to = std::min(s.op.addr + s.op.size, op.addr + op.size) - op.addr;
        for (size_t k = piece_of(from); k <= piece_of(to - 1); ++k) {
            const Piece& pc = pieces[k];
            if (!own &&
                !(std::make_pair(s.op.perform, s.op.seq) < std::make_pair(pc.perform, op.seq)))
                continue;
            const uint64_t a = std::max(from, pc.offset);
            const uint64_t b = std::min(to, pc.offset + pc.length);
            std::memcpy(bytes + a, s.bytes.data() + (op.addr + a - s.op.addr), b - a);
            hits.push_back({k, a, b, s.op.seq});
        }
    }
    std::stable_sort(hits.begin(), hits.end(),
                     [](const Hit& x, const Hit& y) { return x.piece < y.piece; });
    auto h = hits.begin();
    // A hit replaces at least one range with at most three; and no range is empty.
    l.sources.reserve(std::min<uint64_t>(count + 2 * hits.size(), op.size));
    for (size_t k = 0; k < count; ++k) {
        const Piece& pc = pieces[k];
        const size_t from = l.sources.size();
        l.sources.push_back({pc.offset, pc.length, 0, pc.issue, pc.perform});
        for (; h != hits.end() && h->piece == k; ++h)
            paint(l.sources, from, {h->from, h->to - h->from, h->store_seq, pc.issue, pc.perform});
    }
}

void OrderingEngine::read(const LoadTicket& t, Picos now, uint8_t* dst,
                          std::vector<ByteSource>* sources) {
    const size_t at = m_loads.lower_bound(
        t.seq, [](const PendingLoad& l, uint64_t seq) { return l.op.seq < seq; });
    if (at == m_loads.size() || m_loads[at].op.seq != t.seq)
        throw ModelError("a load was read twice or never issued");
    PendingLoad& l = m_loads[at];
    if (!l.resolved) {
        if (now < l.op.perform) throw ModelError("a load was read before it performed");
        resolve(l, dst);
    } else {
        PhysicalMemory::copy(dst, l.bytes.data(), l.op.size);
    }
    if (sources) sources->swap(l.sources); // the slot keeps the caller's old capacity
    for (OpObserver* o : m_observers)
        o->on_op(l.op);
    const Picos performed = l.op.perform;
    // The slot is reused by a later load; a large copy's buffers are not kept for it.
    keep_at_most(l.bytes, kKeptSlotBytes);
    keep_at_most(l.pieces, kKeptSlotBytes / kCacheLine);
    keep_at_most(l.sources, kKeptSlotBytes / kCacheLine);
    m_loads.erase_at(at);
    // The caller may now branch on the value and squash the stores it issued after the
    // load (cancel_store): those performing from the load on must still be squashable.
    retire(now, performed);
}

[[gnu::always_inline]] inline const OpRecord&
OrderingEngine::record_store(unsigned agent, Picos now, Picos p, Addr addr, const uint8_t* src,
                             uint64_t n, bool release, Barrier label) {
    // The record is made in its slot of the ring of recent stores, not built and copied in
    // (three stores a record).
    const uint64_t seq = m_next_seq++;
    OpRecord& op = store_record_slot(seq);
    op = {seq,  agent, release ? OpKind::store_release : OpKind::store,
          addr, n,     now,
          p,    label, first_word(src, n),
          0};
    for (OpObserver* o : m_observers)
        o->on_op(op);
    return op;
}

[[gnu::always_inline]] inline uint64_t OrderingEngine::pend_store(const OpRecord& op,
                                                                  const uint8_t* src, Picos now) {
    // The newest seq: after every store performing at or before its perform time, so nearly
    // always at the back, where no search is needed.
    const Picos p = op.perform;
    const size_t at = m_history.empty() || m_history.back().op.perform <= p
                          ? m_history.size()
                          : history_index(p, op.seq);
    PendingStore& s = at == m_history.size() ? m_history.emplace_back() : m_history.emplace_at(at);
    s.op = op;
    s.bytes.assign(src, op.size);
    retire(now); // may pop s (a store performing at once): op, in the ring of records, stays
    return op.seq;
}

inline uint64_t OrderingEngine::perform_in_order(const OpRecord& op, const uint8_t* src,
                                                 Picos now) {
    // Straight to memory, unless a copy still to perform reads these bytes (its later pieces
    // see the store, its earlier ones not), or stores kept for such a copy are older in
    // coherence order.
    if (m_history.empty() && !pending_load_overlaps(op.addr, op.size)) {
        m_mem.write(op.addr, src, op.size);
        if (!m_observers.empty()) note_written(op.addr, op.size, op.seq);
        return op.seq;
    }
    return pend_store_out_of_line(op, src, now);
}

uint64_t OrderingEngine::pend_store_out_of_line(const OpRecord& op, const uint8_t* src, Picos now) {
    return pend_store(op, src, now);
}

uint64_t OrderingEngine::store_in_order(unsigned agent, Picos now, Addr addr, const uint8_t* src,
                                        uint64_t n, bool release, Barrier label) {
    Agent& a = m_agents.at(agent);
    // At issue, in order: no bounds, floors or draws to consult.
    a.next_floor = 0;
    a.max_store = std::max(a.max_store, now);
    if (release) a.last_release = std::max(a.last_release, now);
    return perform_in_order(record_store(agent, now, now, addr, src, n, release, label), src, now);
}

uint64_t OrderingEngine::store_drawn(unsigned agent, Picos now, Addr addr, const uint8_t* src,
                                     uint64_t n, bool release, Barrier label) {
    Agent& a = m_agents.at(agent);
    Picos p = 0;
    if (m_store_part) {
        p = *m_store_part; // rmw() decided it
    } else {
        p = pick(now, now, now + a.bounds.store_drain_max);
        p = std::max({p, a.floor_all, a.floor_store, a.next_floor});
        p = after_same_bytes(a, p, addr, n, true);
        switch (m_model) {
        case MemoryModel::sc:
            break; // not reached: store_in_order()
        case MemoryModel::tso:
            p = std::max({p, a.max_load, a.max_store});
            break; // FIFO
        case MemoryModel::arm:
            if (release) p = std::max({p, a.max_load, a.max_store}); // everything before it
            break;
        }
        if (!m_exclusive.empty()) p = outside_exclusive(addr, n, now, p);
    }
    a.next_floor = 0;
    a.max_store = std::max(a.max_store, p);
    if (release) a.last_release = std::max(a.last_release, p);
    const OpRecord& op = record_store(agent, now, p, addr, src, n, release, label);
    if (m_model == MemoryModel::sc) return perform_in_order(op, src, now); // rmw()'s store part
    remember(a, addr, n, p, true, now, m_store_part.has_value());
    return pend_store(op, src, now);
}

RmwTicket OrderingEngine::rmw(unsigned agent, Picos now, Addr addr, const uint8_t* src, uint64_t n,
                              bool acquire, bool release, Barrier label) {
    Agent& a = m_agents.at(agent);
    // The load part: not early (an exclusive load reads the newest value), after every store
    // to these bytes already issued, so that none of them can come between it and the store
    // part in coherence order.
    Picos pl = pick(now, now, now + a.bounds.load_late_max);
    pl = std::max({pl, a.floor_all, a.next_floor, same_bytes_floor(a, addr, n, true),
                   latest_store_to(addr, n)});
    // The store part: after the load part, within its own drain bound.
    Picos ps = pick(now, now, now + a.bounds.store_drain_max);
    ps = std::max({ps, a.floor_all, a.floor_store, a.next_floor});
    a.next_floor = 0;
    switch (m_model) {
    case MemoryModel::sc:
        pl = ps = now;
        break;
    case MemoryModel::tso:
        // A locked instruction: one instant, after everything before it (the store buffer
        // drains first); everything after it already follows max_load and max_store.
        pl = ps = std::max({pl, ps, a.max_load, a.max_store});
        break;
    case MemoryModel::arm:
        if (acquire) pl = std::max(pl, a.last_release); // RCsc, as for a plain acquire
        ps = std::max(ps, pl);
        if (release) ps = std::max({ps, a.max_load, a.max_store});
        // Acquire orders what follows after the load part only: the store part may become
        // visible after later accesses (ldaxr/stxr, swpa), which is why the kernel has
        // smp_mb__after_spinlock().
        if (acquire) a.floor_all = std::max(a.floor_all, pl);
        break;
    }
    a.max_load = std::max(a.max_load, pl); // max_store and last_release: store() below
    if (m_model != MemoryModel::sc) remember(a, addr, n, pl, false, now);
    a.exchanged = true;

    const OpRecord op =
        next_op(agent, acquire ? OpKind::load_acquire : OpKind::load, addr, n, now, pl, label);
    PendingLoad& l = add_load(op, pl);
    if (pl <= now) resolve(l);
    // Until the store part performs, no other store to these bytes may perform from the load
    // part's instant on (the exclusive monitor): outside_exclusive() moves them after it.
    prune_exclusive(now);
    m_exclusive.push_back({addr, n, pl, ps});
    RmwTicket t;
    t.load = LoadTicket{op.seq, now, pl, addr, n};
    m_store_part = ps; // store() takes this perform time, and remembers an exclusive store
    t.store_seq = store(agent, now, addr, src, n, release, label);
    m_store_part.reset();
    return t;
}

Picos OrderingEngine::latest_store_to(Addr addr, uint64_t n) const {
    Picos latest = 0;
    for (size_t i = 0; i < m_history.size(); ++i) {
        const OpRecord& s = m_history[i].op;
        if (overlaps(s.addr, s.size, addr, n)) latest = std::max(latest, s.perform);
    }
    return latest;
}

void OrderingEngine::prune_exclusive(Picos now) {
    // A window that closed before `now` cannot hold a store issued from now on.
    m_exclusive.erase(std::remove_if(m_exclusive.begin(), m_exclusive.end(),
                                     [now](const Exclusive& x) { return x.store < now; }),
                      m_exclusive.end());
}

Picos OrderingEngine::outside_exclusive(Addr addr, uint64_t n, Picos now, Picos p) {
    prune_exclusive(now);
    // Moved after one window, a store may land in the next: repeat until it is in none.
    for (bool moved = true; moved;) {
        moved = false;
        for (const Exclusive& x : m_exclusive)
            if (overlaps(x.addr, x.size, addr, n) && p >= x.load && p < x.store) {
                p = x.store; // at the same instant, after it in coherence (a later seq)
                moved = true;
            }
    }
    return p;
}

void OrderingEngine::fence(unsigned agent, Picos now, Fence kind, Barrier label) {
    Agent& a = m_agents.at(agent);
    // Numbered whether or not anybody watches: explanations cite seq numbers, and a
    // timeline must not change them.
    const uint64_t seq = m_next_seq++;
    if (m_model == MemoryModel::arm) {
        // dmb ishld: earlier loads before every later access; dmb ishst: earlier stores
        // before later stores; dmb ish: everything before everything.
        if (kind == Fence::rmb) a.floor_all = std::max(a.floor_all, a.max_load);
        if (kind == Fence::wmb) a.floor_store = std::max(a.floor_store, a.max_store);
        if (kind == Fence::mb) a.floor_all = std::max({a.floor_all, a.max_load, a.max_store});
    } else if (m_model == MemoryModel::tso && kind == Fence::mb) {
        // x86's locked add: drains the store buffer before later loads.
        a.floor_all = std::max({a.floor_all, a.max_load, a.max_store});
    }
    if (!m_observers.empty()) {
        OpRecord op;
        op.seq = seq;
        op.agent = agent;
        op.kind = kind == Fence::rmb   ? OpKind::fence_rmb
                  : kind == Fence::wmb ? OpKind::fence_wmb
                                       : OpKind::fence_mb;
        op.issue = op.perform = now;
        op.label = label;
        for (OpObserver* o : m_observers)
            o->on_op(op);
    }
}

void OrderingEngine::ctrl_dep(unsigned agent, const LoadTicket& t) {
    Agent& a = m_agents.at(agent);
    // A branch on the value: no later store can perform (become visible) before the load.
    if (m_model == MemoryModel::arm) a.floor_store = std::max(a.floor_store, t.perform);
}

void OrderingEngine::dep(unsigned agent, const LoadTicket& t) {
    // Every model keeps dependencies (ARMv8 preserves address and data dependencies).
    Agent& a = m_agents.at(agent);
    a.next_floor = std::max(a.next_floor, t.perform);
}

void OrderingEngine::handoff(unsigned from, unsigned to) {
    const Agent& f = m_agents.at(from);
    Agent& t = m_agents.at(to);
    t.floor_all = std::max({t.floor_all, f.max_load, f.max_store});
}

bool OrderingEngine::cancel_store(uint64_t seq, Picos resolved_at) {
    const OpRecord* op = store_record(seq);
    if (!op) throw ModelError("a squashed store's record is gone");
    if (op->perform < resolved_at) return false; // performed before the branch resolved
    // Performs after the branch resolved: squashed before anybody could see it (the writer
    // decides when the load performs, PerfBuffer::output_header). Under tso no store passes
    // an earlier load, so every store of a failed check is squashed; sc never leaves a
    // check pending.
    const size_t at = history_index(op->perform, seq);
    if (at == m_history.size() || m_history[at].op.seq != seq)
        throw ModelError("a store performing after its branch resolved was already merged");
    keep_at_most(m_history[at].bytes, kKeptSlotBytes);
    m_history.erase_at(at);
    return true;
}

void OrderingEngine::retire(Picos now, Picos keep_from) {
    // Merge into memory every store no load can still need to see around: older than the
    // window, and older than every load not yet resolved (a copy: its earliest piece).
    if (m_history.empty()) return; // nothing to merge (every access under sc, nearly)
    if (keep_from == 0) return;    // a branch on a load performed at 0 may squash any store
    Picos horizon = now > m_window ? now - m_window - 1 : 0;
    horizon = std::min(horizon, keep_from - 1);
    for (size_t i = 0; i < m_loads.size(); ++i) {
        const PendingLoad& l = m_loads[i];
        if (!l.resolved) horizon = std::min(horizon, l.first_perform ? l.first_perform - 1 : 0);
    }
    while (!m_history.empty() && m_history.front().op.perform <= horizon) {
        const PendingStore& s = m_history.front();
        m_mem.write(s.op.addr, s.bytes.data(), s.op.size);
        if (!m_observers.empty()) note_written(s.op.addr, s.op.size, s.op.seq);
        keep_at_most(m_history.front().bytes, kKeptSlotBytes);
        m_history.pop_front();
    }
}

void OrderingEngine::note_written(Addr addr, uint64_t n, uint64_t seq) {
    const Addr end = addr + n;
    // A range that starts before and reaches into [addr, end) keeps its left part, and its
    // right part if it reaches past.
    auto it = m_written.lower_bound(addr);
    if (it != m_written.begin()) {
        auto before = std::prev(it);
        if (before->second.end > addr) {
            const Written whole = before->second;
            before->second.end = addr;
            if (whole.end > end) m_written[end] = whole;
        }
    }
    it = m_written.lower_bound(addr);
    while (it != m_written.end() && it->first < end) {
        const Written w = it->second;
        it = m_written.erase(it);
        if (w.end > end) {
            m_written[end] = w;
            break;
        }
    }
    m_written[addr] = {end, seq};
}

uint64_t OrderingEngine::written_by(Addr addr, uint64_t n) const {
    uint64_t seq = 0;
    auto it = m_written.upper_bound(addr);
    if (it != m_written.begin()) --it;
    for (; it != m_written.end() && it->first < addr + n; ++it)
        if (it->second.end > addr) seq = std::max(seq, it->second.seq);
    return seq;
}

bool OrderingEngine::pending_load_overlaps(Addr addr, uint64_t n) const {
    for (size_t i = 0; i < m_loads.size(); ++i) {
        const PendingLoad& l = m_loads[i];
        if (!l.resolved && overlaps(l.op.addr, l.op.size, addr, n)) return true;
    }
    return false;
}

size_t OrderingEngine::history_index(Picos p, uint64_t seq) const {
    return m_history.lower_bound(std::make_pair(p, seq),
                                 [](const PendingStore& s, const auto& key) {
                                     return std::make_pair(s.op.perform, s.op.seq) < key;
                                 });
}

[[gnu::always_inline]] inline OpRecord& OrderingEngine::store_record_slot(uint64_t seq) {
    // The ring grows to its size as stores come, instead of being zeroed whole up front: a
    // short run (a sweep point, a lesson) touches only the pages it uses. Its capacity comes
    // in two steps, a small block and then the whole ring: growing by doubling would copy and
    // fault in about twice the ring's size on the way, and reserving it all in every engine
    // costs a litmus test's thousands of small engines a 4.7 MB allocation each.
    const size_t slot = seq % kStoreRecordsKept;
    if (slot >= m_store_records.size()) {
        if (slot >= m_store_records.capacity())
            m_store_records.reserve(slot < kStoreRecordsFirst ? kStoreRecordsFirst
                                                              : kStoreRecordsKept);
        m_store_records.resize(slot + 1);
    }
    return m_store_records[slot];
}

const OpRecord* OrderingEngine::store_record(uint64_t seq) const {
    const size_t slot = seq % kStoreRecordsKept;
    if (slot >= m_store_records.size()) return nullptr;
    const OpRecord& op = m_store_records[slot];
    return op.seq == seq && seq ? &op : nullptr;
}

} // namespace ringsim::models
