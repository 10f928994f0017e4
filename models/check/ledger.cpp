#include "models/check/ledger.h"

#include "models/common/types.h"

#include <algorithm>

namespace ringsim::models {

size_t Ledger::locate(const Slots& slots, uint64_t k) {
    return slots.lower_bound(k, [](const Slot& s, uint64_t key) { return s.key < key; });
}

Ledger::Slot& Ledger::slot_for(Slots& slots, uint64_t k) {
    if (slots.empty() || slots.back().key < k) {
        Slot& s = slots.emplace_back();
        s.key = k;
        s.gone = false;
        return s;
    }
    const size_t i = locate(slots, k);
    if (i < slots.size() && slots[i].key == k) {
        slots[i].gone = false;
        return slots[i];
    }
    slots.insert_at(i, Slot{k, false, LedgerEntry{}});
    return slots[i];
}

LedgerEntry& Ledger::place(Slots& slots, uint64_t k, LedgerEntry&& e) {
    LedgerEntry& in = slot_for(slots, k).e;
    in = std::move(e);
    return in;
}

void Ledger::trim_gone() {
    while (!m_entries.empty() && m_entries.front().gone)
        m_entries.pop_front();
    while (!m_entries.empty() && m_entries.back().gone)
        m_entries.pop_back();
}

LedgerEntry& Ledger::store(uint64_t pos, uint64_t size, const RecordStores& stores,
                           uint64_t stored_at_ps, bool retire_lapped,
                           std::vector<LedgerEntry>& lapped) {
    // Every record has its header store (numbered from 1): header 0 means no overwriter.
    if (!stores.header) throw ModelError("ledger: a record stored without its header store");
    lapped.clear();
    // A record occupies [pos, pos + size). The new one physically overlaps an older one
    // exactly when the span from the older record's far edge to the new record's far edge
    // exceeds the buffer size; entries are in production order, so stop at the first that
    // does not.
    const uint64_t p = pos, s = size;
    bool any_gone = false;
    std::shared_ptr<const LedgerEntry::Overwrite> by; // one for every entry this record laps
    for (size_t i = 0; i < m_entries.size(); ++i) {
        Slot& slot = m_entries[i];
        if (slot.gone) continue;
        LedgerEntry& old = slot.e;
        const uint64_t span = m_backward ? old.pos + old.bytes.size() - p : p + s - old.pos;
        if (span <= m_size) break;
        if (!retire_lapped) {
            if (!old.overwrite) {
                if (!by)
                    by = std::make_shared<const LedgerEntry::Overwrite>(
                        LedgerEntry::Overwrite{stores, stored_at_ps});
                old.overwrite = by;
            }
            continue;
        }
        lapped.push_back(std::move(old));
        slot.gone = true;
        any_gone = true;
    }
    // Neither end is ever left gone (ledger.h, trim_gone), so only a lap can need a trim.
    if (any_gone) trim_gone();
    // Every field of LedgerEntry but the bytes, set as the function's comment says: the
    // slot may hold an entry that left it.
    LedgerEntry& e = slot_for(m_entries, key(pos)).e;
    e.pos = pos;
    e.lost = 0;
    e.stored_at_ps = stored_at_ps;
    e.stores = stores; // the seqs alone: its data_tail load only ever explains an overwrite
    e.performed_at_ps = stored_at_ps;
    e.overwrite.reset();
    e.retired = false;
    return e;
}

void Ledger::forget_overwriter(uint64_t header_store) {
    for (size_t i = 0; i < m_entries.size(); ++i) {
        LedgerEntry& e = m_entries[i].e;
        if (!m_entries[i].gone && e.overwrite && e.overwrite->by.header == header_store)
            e.overwrite.reset();
    }
}

const LedgerEntry* Ledger::find(uint64_t pos) const {
    const uint64_t k = key(pos);
    // The usual case: the consumer reads the oldest entry.
    if (!m_entries.empty() && m_entries.front().key == k) return &m_entries.front().e;
    const size_t i = locate(m_entries, k);
    return i == m_entries.size() || m_entries[i].key != k || m_entries[i].gone ? nullptr
                                                                               : &m_entries[i].e;
}

LedgerEntry Ledger::take(uint64_t pos) {
    const uint64_t k = key(pos);
    Slot& slot = m_entries.front().key == k ? m_entries.front() : m_entries[locate(m_entries, k)];
    LedgerEntry e = std::move(slot.e);
    slot.gone = true;
    trim_gone();
    return e;
}

std::vector<uint64_t> Ledger::older_than(uint64_t pos) const {
    std::vector<uint64_t> out;
    const uint64_t k = key(pos);
    for (size_t i = 0; i < m_entries.size() && m_entries[i].key < k; ++i)
        if (!m_entries[i].gone) out.push_back(m_entries[i].e.pos);
    return out;
}

bool Ledger::already_passed(uint64_t pos) const {
    return m_any_read && key(pos) <= m_last_read_key;
}

void Ledger::mark_read(uint64_t pos) {
    if (!m_any_read || key(pos) > m_last_read_key) m_last_read_key = key(pos);
    m_any_read = true;
}

void Ledger::keep_delivered(LedgerEntry&& e) {
    const uint64_t k = key(e.pos);
    place(m_delivered, k, std::move(e));
    forget_delivered_before(k);
}

void Ledger::forget_delivered_before(uint64_t k) {
    while (!m_delivered.empty() && k - m_delivered.front().key > m_size)
        m_delivered.pop_front();
}

const LedgerEntry& Ledger::deliver(uint64_t pos) {
    const uint64_t k = key(pos);
    const bool oldest = m_entries.front().key == k; // the usual case: read in order
    Slot& from = oldest ? m_entries.front() : m_entries[locate(m_entries, k)];
    LedgerEntry& e = place(m_delivered, k, std::move(from.e));
    from.gone = true;
    if (oldest) {
        // Only the front moved: trim_gone() without its look at the back.
        do
            m_entries.pop_front();
        while (!m_entries.empty() && m_entries.front().gone);
    } else {
        trim_gone();
    }
    forget_delivered_before(k); // never the entry just placed, at k itself
    return e;
}

void Ledger::reader_starts_at(uint64_t pos) {
    if (m_backward) return; // a backward buffer is read from its head down
    while (!m_delivered.empty() && m_delivered.front().key < pos)
        m_delivered.pop_front();
}

const LedgerEntry* Ledger::find_delivered(uint64_t pos) const {
    const uint64_t k = key(pos);
    const size_t i = locate(m_delivered, k);
    return i == m_delivered.size() || m_delivered[i].key != k ? nullptr : &m_delivered[i].e;
}

} // namespace ringsim::models
