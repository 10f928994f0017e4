// The ordering engine: the only place that knows memory-ordering rules. Every memory
// operation of every agent is issued here at its issue time t; the engine gives it a
// perform time p inside the bounds of MEMORY-MODEL.md (picked by the timing policy), raised
// to satisfy the model's preserved program order, fences, acquire/release and dependencies.
// Stores become visible to every agent at once at p (multi-copy atomic); an agent sees its
// own stores at once (forwarding). A load returns what memory held at its p: early loads
// read recent history, late loads are pending until the simulation reaches p.
//
// Plain C++: time is a number passed in, randomness a seeded generator. The SystemC side is
// engine_port.h. Models: sc (everything performs at issue, in order), tso (x86: only store
// then load may reorder), arm (ARMv8, multi-copy atomic; dmb ishld/ishst/ish for rmb/wmb/mb).
#pragma once

#include "models/common/flat_ring.h"
#include "models/common/rng.h"
#include "models/common/small_bytes.h"
#include "models/common/types.h"
#include "models/common/uninit_bytes.h"
#include "models/memory/memory_port.h"
#include "models/memory/phys_mem.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ringsim::models {

enum class MemoryModel { sc, tso, arm };
enum class TimingPolicy { none, random, adversarial };

// How far an agent's operations may stray from their issue time (MEMORY-MODEL.md bounds).
struct TimingBounds {
    Picos store_drain_max = 0; // store: p in [t, t + store_drain_max]
    Picos load_early_max = 0;  // load:  p in [t - load_early_max, t + load_late_max]
    Picos load_late_max = 0;
};

enum class OpKind { load, load_acquire, store, store_release, fence_rmb, fence_wmb, fence_mb };
const char* op_kind_name(OpKind k);

// One performed (or scheduled) operation, as timelines and explanations show it.
struct OpRecord {
    uint64_t seq = 0; // global issue order, from 1
    unsigned agent = 0;
    OpKind kind = OpKind::load;
    Addr addr = 0;
    uint64_t size = 0;
    Picos issue = 0;
    Picos perform = 0;
    Barrier label = Barrier::none;
    uint64_t value = 0;  // first up to 8 bytes stored (stores) or read (loads, once read)
    uint64_t source = 0; // loads: the newest store that supplied any of its bytes (0: none)
};

// The two parts of a read-modify-write: read() the load part's ticket for the old value.
struct RmwTicket {
    LoadTicket load;
    uint64_t store_seq = 0;
};

class OpObserver {
public:
    virtual ~OpObserver() = default;
    // A load is reported when it is read. A listener only watches: it must not call back
    // into the engine (store() hands it the record in its slot of the ring of store records).
    virtual void on_op(const OpRecord& op) = 0;
};

class OrderingEngine {
public:
    OrderingEngine(PhysicalMemory& mem, MemoryModel model, TimingPolicy policy, uint64_t seed);

    // Registers an agent (a CPU, a bus master) with its timing bounds; returns its id.
    unsigned add_agent(const std::string& name, const TimingBounds& bounds);
    const std::string& agent_name(unsigned agent) const { return m_agents.at(agent).name; }
    unsigned agent_count() const { return unsigned(m_agents.size()); }
    MemoryModel model() const { return m_model; }

    // Issues a load of n bytes at time `now`; read() later returns its value.
    LoadTicket load(unsigned agent, Picos now, Addr addr, uint64_t n, bool acquire, Barrier label);
    // A bulk copy of n bytes (memcpy): one load per cache line it touches, the line at
    // offset o issued at now + start + span * o / n, when a copy taking `span` reaches it,
    // each with its own perform time under the model's rules, as if issued one by one with
    // nothing else in between. The ticket performs when the last piece does. A piece that
    // performs later than a store of its bytes sees it; one performing earlier does not;
    // at the same instant, coherence order breaks the tie by the copy's sequence number.
    LoadTicket load_copy(unsigned agent, Picos now, Addr addr, uint64_t n, Picos start, Picos span);
    // The value of a load; `now` must have reached its perform time. `sources`, if given,
    // receives which store each byte range came from.
    void read(const LoadTicket& t, Picos now, uint8_t* dst, std::vector<ByteSource>* sources);
    // Issues a store; returns its sequence number (its identity in ByteSource).
    uint64_t store(unsigned agent, Picos now, Addr addr, const uint8_t* src, uint64_t n,
                   bool release, Barrier label) {
        // sc's stores, three a record, take a small function of their own: in one with the
        // drawn path, each paid at its entry and exit for that path's registers.
        if (m_model == MemoryModel::sc && !m_store_part)
            return store_in_order(agent, now, addr, src, n, release, label);
        return store_drawn(agent, now, addr, src, n, release, label);
    }
    // An atomic read-modify-write of n bytes that stores `src` (xchg and its _acquire,
    // _release, _relaxed forms; a lock's acquisition): a load and a store, with nothing of
    // anybody else's between them in coherence order. Under sc and tso both parts perform at
    // one instant (tso: a locked instruction, ordered with everything); under arm the store
    // part may perform later than the load part, and than later accesses unless a fence
    // follows. `acquire` applies to the load part, `release` to the store part.
    // A failed spin (a lock found taken) stores too: the lock word's value again.
    RmwTicket rmw(unsigned agent, Picos now, Addr addr, const uint8_t* src, uint64_t n,
                  bool acquire, bool release, Barrier label);
    void fence(unsigned agent, Picos now, Fence kind, Barrier label);
    // A control dependency on a load's value: later stores of the agent perform after it.
    void ctrl_dep(unsigned agent, const LoadTicket& t);
    // An address or data dependency on a load: the agent's next access (whose address or
    // value comes from it) performs after it.
    void dep(unsigned agent, const LoadTicket& t);
    // A task moves from agent `from` to agent `to` through the scheduler's full barriers:
    // everything `from` issued performs before anything `to` issues next.
    void handoff(unsigned from, unsigned to);
    // Squashes a store issued under a branch that resolved at `resolved_at` (the perform
    // time of the load the branch reads) and went the other way: a store that performs at
    // or after that instant never becomes visible. One that performed before it escaped
    // (false): on arm, with no dependency to hold it back, other agents may have seen it.
    bool cancel_store(uint64_t seq, Picos resolved_at);

    // Listeners of every operation (a timeline, litmus's horizon), told in the order added.
    void add_observer(OpObserver* o) { m_observers.push_back(o); }
    void remove_observer(OpObserver* o) {
        m_observers.erase(std::remove(m_observers.begin(), m_observers.end(), o),
                          m_observers.end());
    }
    // The record of one of the last kStoreRecordsKept stores, for explanations; else null.
    const OpRecord* store_record(uint64_t seq) const;
    static constexpr size_t kStoreRecordsKept = 1 << 16;
    static constexpr size_t kStoreRecordsFirst = 1 << 10; // the ring's first block

private:
    struct PendingStore {
        OpRecord op;
        SmallBytes bytes; // nearly every store is 8 bytes or a record of 64: no heap
    };
    // An agent's recent operations that may still constrain later ones (same bytes).
    struct RecentOp {
        Addr addr;
        uint64_t size;
        Picos perform;
        bool is_store;
        bool exclusive = false; // the store part of a read-modify-write
    };
    struct Agent {
        std::string name;
        TimingBounds bounds;
        Picos max_load = 0;        // latest perform time of any earlier load
        Picos max_store = 0;       // ... of any earlier store
        Picos floor_all = 0;       // every later operation performs at or after this
        Picos floor_store = 0;     // every later store performs at or after this
        Picos last_release = 0;    // arm: an acquire after a release performs after it
        Picos next_floor = 0;      // a dependency: the next access performs after this
        bool exchanged = false;    // has issued a read-modify-write (exclusive_floor applies)
        FlatRing<RecentOp> recent; // in issue order
    };

    Picos pick(Picos t, Picos lo, Picos hi);
    // The perform time of a load issued at t by `a` (bounds, floors, the model's order);
    // updates what later operations of `a` must respect.
    Picos perform_load(Agent& a, Picos t, Addr addr, uint64_t n, bool acquire) {
        if (m_model != MemoryModel::sc) return perform_load_reordered(a, t, addr, n, acquire);
        // Everything performs at issue, in order: no bounds, floors or draws to consult.
        // Inline: a copy asks once per cache line.
        a.max_load = std::max(a.max_load, t);
        return t;
    }
    Picos perform_load_reordered(Agent& a, Picos t, Addr addr, uint64_t n, bool acquire);
    // A new operation's record, numbered in issue order.
    OpRecord next_op(unsigned agent, OpKind kind, Addr addr, uint64_t n, Picos now, Picos perform,
                     Barrier label);
    Picos same_bytes_floor(const Agent& a, Addr addr, uint64_t n, bool later_is_store) const;
    // p raised to same_bytes_floor(), whose scan is skipped when nothing it could find
    // performs after p: every remembered load performs at or before max_load, every
    // remembered store at or before max_store, and both only grow.
    Picos after_same_bytes(const Agent& a, Picos p, Addr addr, uint64_t n,
                           bool later_is_store) const {
        const Picos latest = later_is_store ? std::max(a.max_load, a.max_store) : a.max_load;
        return latest <= p ? p : std::max(p, same_bytes_floor(a, addr, n, later_is_store));
    }
    // arm: an acquire load of bytes its own agent's read-modify-write stored performs after
    // that store part (ARMv8's [range(rmw)]; lrs; [A|Q] in aob), though forwarded its value.
    Picos exclusive_floor(const Agent& a, Addr addr, uint64_t n) const;
    inline void remember(Agent& a, Addr addr, uint64_t n, Picos p, bool is_store, Picos now,
                         bool exclusive = false);
    // Merges into memory what no load can still need to see around; stores performing at
    // or after `keep_from` stay (a branch on a load just read may still squash them).
    void retire(Picos now, Picos keep_from = ~Picos(0));
    // store() under sc, outside a read-modify-write: performs at issue, in order.
    uint64_t store_in_order(unsigned agent, Picos now, Addr addr, const uint8_t* src, uint64_t n,
                            bool release, Barrier label);
    // store() otherwise: its perform time drawn (tso, arm) or decided by rmw().
    uint64_t store_drawn(unsigned agent, Picos now, Addr addr, const uint8_t* src, uint64_t n,
                         bool release, Barrier label);
    // Both: the store's record, numbered, in its slot of the ring and shown to the observers.
    inline const OpRecord& record_store(unsigned agent, Picos now, Picos p, Addr addr,
                                        const uint8_t* src, uint64_t n, bool release,
                                        Barrier label);
    // Under sc: to memory at once, or to the history when a copy in flight must not see it yet.
    inline uint64_t perform_in_order(const OpRecord& op, const uint8_t* src, Picos now);
    // Both: a store that cannot go straight to memory waits in the history, in coherence order.
    inline uint64_t pend_store(const OpRecord& op, const uint8_t* src, Picos now);
    // The same out of line, for the rare store under sc that must wait: inlined, it would have
    // store_in_order() save its registers at every store.
    [[gnu::noinline]] uint64_t pend_store_out_of_line(const OpRecord& op, const uint8_t* src,
                                                      Picos now);
    // Set by rmw() around its call of store(): the store part's perform time, decided there.
    std::optional<Picos> m_store_part;
    // The latest perform time of the stores to these bytes still in the history (0: none).
    Picos latest_store_to(Addr addr, uint64_t n) const;
    // A read-modify-write's exclusive window: from its load part's perform time up to its
    // store part's, no other store to its bytes may perform.
    struct Exclusive {
        Addr addr;
        uint64_t size;
        Picos load, store;
    };
    std::vector<Exclusive> m_exclusive; // open windows; empty unless rmw() was used
    // A store's perform time p moved out of every open window on its bytes (after it); only
    // called while a window is open.
    Picos outside_exclusive(Addr addr, uint64_t n, Picos now, Picos p);
    void prune_exclusive(Picos now);

    PhysicalMemory& m_mem;
    MemoryModel m_model;
    TimingPolicy m_policy;
    Rng m_rng;
    std::vector<Agent> m_agents;
    Picos m_window = 0; // how long performed stores stay in history
    uint64_t m_next_seq = 1;
    // Stores not yet merged into m_mem, ordered by (perform time, seq): coherence order. A
    // store performs within its drain bound of its issue, so it nearly always goes in at
    // the back or a few places before it, and retire() takes them from the front.
    FlatRing<PendingStore> m_history;
    // Where a store of perform time p and sequence number seq goes in m_history.
    size_t history_index(Picos p, uint64_t seq) const;
    // One cache line of a copy: offset and length within it, its issue and perform times.
    struct Piece {
        uint64_t offset;
        uint64_t length;
        Picos issue;
        Picos perform;
    };
    // A load issued and not yet read. Its value is fixed once it has performed: at issue
    // when p <= t (every store that performs before p is already issued), else on read.
    struct PendingLoad {
        OpRecord op;
        Picos first_perform = 0;   // the earliest piece's (a plain load: its perform time)
        std::vector<Piece> pieces; // a copy's; empty for a plain load (one piece, op's times)
        bool resolved = false;
        // At least op.size bytes, of which the first op.size count; resolve() sizes it and
        // reads memory over all of it, so growing it zeroes nothing.
        UninitBytes bytes;
        std::vector<ByteSource> sources;
    };
    // Fixes the load's value: into `into` (its op.size bytes), or into l.bytes when null. A
    // load resolved when read goes straight to the reader's buffer (a copy: one pass fewer
    // over its bytes); one resolved at issue keeps its value in l.bytes until then.
    void resolve(PendingLoad& l, uint8_t* into = nullptr);
    // resolve()'s part for stores not yet merged into memory: puts in `bytes` (resolve()'s
    // target) those that reach each piece, and in l.sources (empty) one range per piece,
    // painted with them.
    inline void apply_history(PendingLoad& l, uint8_t* bytes); // .cpp only: always inlined
    // Under sc a store goes straight to memory unless a pending copy reads its bytes or
    // older stores wait in the history.
    bool pending_load_overlaps(Addr addr, uint64_t n) const;
    FlatRing<PendingLoad> m_loads; // by seq: issued in its order, read in any
    // A slot, reused by a later load or store, keeps buffers for at most a copy of this
    // many bytes: its bytes, and a copy's pieces and sources (one per cache line).
    static constexpr size_t kKeptSlotBytes = 64 * 1024;
    template <class Vector> static void keep_at_most(Vector& v, size_t elements) {
        if (v.capacity() > elements) Vector().swap(v);
    }
    static void keep_at_most(SmallBytes& b, size_t bytes) {
        if (b.capacity() > bytes) b = SmallBytes();
    }
    // A new pending load for `op` (a reused slot: every field is set here but `bytes`,
    // which resolve() sizes).
    PendingLoad& add_load(const OpRecord& op, Picos first_perform);
    // resolve()'s scratch: the stores that reach each piece of the load.
    struct Hit {
        size_t piece;
        uint64_t from, to; // within the load
        uint64_t store_seq;
    };
    std::vector<Hit> m_hits;
    // Records of recent stores, for explanations: a ring indexed by seq, so a newer
    // operation's slot replaces an old store's; it grows up to kStoreRecordsKept slots.
    std::vector<OpRecord> m_store_records;
    inline OpRecord& store_record_slot(uint64_t seq); // seq's slot, grown to; always inlined
    std::vector<OpObserver*> m_observers;
    // Only while an observer watches: which store's bytes memory holds, so that a load that
    // read memory (every load under sc, old bytes under tso and arm) still names the store
    // it read (OpRecord::source, the timeline's arrows). Nothing else reads it: results are
    // the same with and without an observer.
    struct Written {
        Addr end;
        uint64_t seq;
    };
    std::map<Addr, Written> m_written; // disjoint ranges by start
    void note_written(Addr addr, uint64_t n, uint64_t seq);
    uint64_t written_by(Addr addr, uint64_t n) const;
};

} // namespace ringsim::models
