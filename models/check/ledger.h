// Ground truth of one ring buffer: every record the kernel stored and nobody has read yet,
// keyed by its position. Bounded by the buffer: entries leave when they are read, when an
// overwrite-mode producer writes over them, or at the end of the run.
#pragma once

#include "models/common/ring_deque.h"
#include "models/common/small_bytes.h"
#include "models/kernel/perf_buffer.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ringsim::models {

// A field added here is set in Ledger::store too: entries are made in reused slots.
struct LedgerEntry {
    uint64_t pos = 0;  // free-running offset of the first byte
    SmallBytes bytes;  // exactly what the producer stored
    uint64_t lost = 0; // the count of a PERF_RECORD_LOST (may be 0), else 0
    uint64_t stored_at_ps = 0;
    RecordStoreSeqs stores;       // the engine's stores of its bytes
    uint64_t performed_at_ps = 0; // when its last store became visible to all
    // Ground truth of a lost race: a later record stored over this one before it was read
    // (only with (A) or (D) off). Apart, and shared by the entries one record laps and by
    // their copies: the ledger holds hundreds of thousands of entries, nearly none of them
    // overwritten, and inline these 72 bytes were a quarter of each.
    struct Overwrite {
        RecordStores by; // that record's stores and data_tail load
        uint64_t at_ps = 0;
    };
    std::shared_ptr<const Overwrite> overwrite; // null: not overwritten
    bool retired = false;                       // overwrite mode: a newer record has lapped it
    // The overwriting record's stores (header 0: none).
    const RecordStores& overwriter() const {
        static const RecordStores kNone;
        return overwrite ? overwrite->by : kNone;
    }
    // PERF_RECORD_LOST is type 2 (include/uapi/linux/perf_event.h).
    bool is_lost_record() const {
        return bytes.size() >= 4 && bytes[0] == 2 && bytes[1] == 0 && bytes[2] == 0 &&
               bytes[3] == 0;
    }
};

class Ledger {
public:
    Ledger(uint64_t data_size, bool backward) : m_size(data_size), m_backward(backward) {}

    // Records a stored record of `size` bytes at `pos` and returns its entry, made in its
    // place in the ledger (a reused slot: no entry is built and moved in per record): pos,
    // stores and stored_at_ps are set, performed_at_ps is stored_at_ps, lost is 0, no
    // overwriter, not retired; the caller puts in its bytes, which must be `size` long. The
    // unread entries it lands on are moved to `lapped` (emptied first; oldest first) and forgotten
    // when the buffer is in overwrite mode, where that is the point; otherwise they are kept and
    // marked with their overwriter, for the checker to explain when it meets them (A or D missing).
    // A record stored where one is already recorded replaces it. The reference holds until
    // the unread entries next change.
    LedgerEntry& store(uint64_t pos, uint64_t size, const RecordStores& stores,
                       uint64_t stored_at_ps, bool retire_lapped, std::vector<LedgerEntry>& lapped);

    // The entry stored at `pos`, or null.
    const LedgerEntry* find(uint64_t pos) const;
    // Removes the entry at `pos` (which must be here) and returns it.
    LedgerEntry take(uint64_t pos);
    // A record whose stores were squashed (A off) overwrote nothing: entries that named
    // its header store as their overwriter no longer do.
    void forget_overwriter(uint64_t header_store);
    // Entries stored before the one at `pos` (in production order) that are still here.
    std::vector<uint64_t> older_than(uint64_t pos) const;
    // Whether `pos` lies before the newest position already read (a re-read).
    bool already_passed(uint64_t pos) const;
    void mark_read(uint64_t pos);

    // Calls f(entry) for every entry still unread, in production order.
    template <class F> void for_each_unread(F f) const {
        for (size_t i = 0; i < m_entries.size(); ++i)
            if (!m_entries[i].gone) f(m_entries[i].e);
    }

    // Delivered entries stay findable for one more buffer length, so that a record delivered
    // twice (perf_mmap__push's double data_head read, C4) can be verified byte for byte.
    void keep_delivered(LedgerEntry&& e);
    // Moves the unread entry at `pos` (which must be here) among the delivered ones and
    // returns it there: take() then keep_delivered() without moving it twice. The reference
    // holds until the ledger next changes.
    const LedgerEntry& deliver(uint64_t pos);
    const LedgerEntry* find_delivered(uint64_t pos) const;
    // A forward buffer's reader begins a copy at `pos`, its own tail: it never copies from
    // before it again, so the delivered entries before `pos` can no longer come back.
    void reader_starts_at(uint64_t pos);

private:
    // Production order: forward buffers grow, backward buffers shrink (R4); the key makes
    // both ascend.
    uint64_t key(uint64_t pos) const { return m_backward ? uint64_t(0) - pos : pos; }

    // Entries in ascending key order. Records are nearly always stored in production order
    // and read oldest first, so a ring sorted by key takes both at its ends (a nested writer
    // that finishes first is the rare insertion in the middle); an entry taken out of the
    // middle leaves a slot marked gone until the ends reach it. Lookups are binary searches.
    struct Slot {
        uint64_t key = 0;
        bool gone = false;
        LedgerEntry e;
    };
    using Slots = RingDeque<Slot>;
    // The index of the first slot whose key is not below k.
    static size_t locate(const Slots& slots, uint64_t k);
    // Puts `e` at key `k` (replacing what is there), in order.
    static LedgerEntry& place(Slots& slots, uint64_t k, LedgerEntry&& e);
    // The slot for key `k`, in order: the one already there, else a new one (at the back, a
    // reused slot as it was; in the middle, a default one). Not marked gone.
    static Slot& slot_for(Slots& slots, uint64_t k);
    void forget_delivered_before(uint64_t k); // those more than one buffer length before k
    // Pops the gone slots at both ends. Every member function leaves neither end of
    // m_entries gone (find() and deliver() trust the front), so a change that marks no slot
    // gone, or only the front (deliver(), which pops it), needs no trim.
    void trim_gone();

    uint64_t m_size;
    bool m_backward;
    Slots m_entries;
    Slots m_delivered; // never gone: they leave from the front, past the window
    bool m_any_read = false;
    uint64_t m_last_read_key = 0;
};

} // namespace ringsim::models
