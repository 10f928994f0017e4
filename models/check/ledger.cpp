#include "models/check/ledger.h"

namespace ringsim::models {

std::vector<LedgerEntry> Ledger::store(LedgerEntry e, bool retire_lapped) {
    std::vector<LedgerEntry> lapped;
    // A record occupies [pos, pos + size). The new one physically overlaps an older one
    // exactly when the span from the older record's far edge to the new record's far edge
    // exceeds the buffer size; entries are in production order, so stop at the first that
    // does not.
    const uint64_t p = e.pos, s = e.bytes.size();
    for (auto it = m_entries.begin(); it != m_entries.end();) {
        LedgerEntry& old = it->second;
        const uint64_t span = m_backward ? old.pos + old.bytes.size() - p : p + s - old.pos;
        if (span <= m_size) break;
        if (!retire_lapped) {
            if (!old.overwriter.header) {
                old.overwriter = e.stores;
                old.overwritten_at_ps = e.stored_at_ps;
            }
            ++it;
            continue;
        }
        lapped.push_back(std::move(old));
        it = m_entries.erase(it);
    }
    const uint64_t k = key(e.pos);
    m_entries[k] = std::move(e);
    return lapped;
}

void Ledger::forget_overwriter(uint64_t header_store) {
    for (auto& [key, e] : m_entries)
        if (e.overwriter.header == header_store) {
            e.overwriter = RecordStores{};
            e.overwritten_at_ps = 0;
        }
}

const LedgerEntry* Ledger::find(uint64_t pos) const {
    auto it = m_entries.find(key(pos));
    return it == m_entries.end() ? nullptr : &it->second;
}

LedgerEntry Ledger::take(uint64_t pos) {
    auto it = m_entries.find(key(pos));
    LedgerEntry e = std::move(it->second);
    m_entries.erase(it);
    return e;
}

std::vector<uint64_t> Ledger::older_than(uint64_t pos) const {
    std::vector<uint64_t> out;
    const uint64_t k = key(pos);
    for (auto it = m_entries.begin(); it != m_entries.end() && it->first < k; ++it)
        out.push_back(it->second.pos);
    return out;
}

bool Ledger::already_passed(uint64_t pos) const {
    return m_any_read && key(pos) <= m_last_read_key;
}

void Ledger::mark_read(uint64_t pos) {
    if (!m_any_read || key(pos) > m_last_read_key) m_last_read_key = key(pos);
    m_any_read = true;
}

} // namespace ringsim::models

namespace ringsim::models {

void Ledger::keep_delivered(LedgerEntry e) {
    const uint64_t k = key(e.pos);
    m_delivered[k] = std::move(e);
    while (!m_delivered.empty() && k - m_delivered.begin()->first > 2 * m_size)
        m_delivered.erase(m_delivered.begin());
}

const LedgerEntry* Ledger::find_delivered(uint64_t pos) const {
    auto it = m_delivered.find(key(pos));
    return it == m_delivered.end() ? nullptr : &it->second;
}

} // namespace ringsim::models
