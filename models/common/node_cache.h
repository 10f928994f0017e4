// Reuses the nodes of a std::map (C++17 node handles): an erased entry's node, with its
// mapped value and whatever capacity that value's vectors hold, becomes the next inserted
// entry's. A map that holds a few entries at a time but sees one insertion per operation
// (the ordering engine's loads and stores) then runs without allocating (issue 13 §1).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace ringsim::models {

template <class Map> class NodeCache {
public:
    using Key = typename Map::key_type;

    // Inserts `k` (which must not be in `m`) and returns its iterator. The mapped value is a
    // previous entry's, as it was when erased: the caller sets every field it reads.
    typename Map::iterator insert(Map& m, const Key& k) {
        if (m_free.empty()) return m.try_emplace(k).first;
        auto node = std::move(m_free.back());
        m_free.pop_back();
        node.key() = k;
        return m.insert(std::move(node)).position;
    }
    void erase(Map& m, typename Map::iterator it) {
        if (m_free.size() < kKept)
            m_free.push_back(m.extract(it));
        else
            m.erase(it);
    }

private:
    static constexpr size_t kKept = 64;
    std::vector<typename Map::node_type> m_free;
};

} // namespace ringsim::models
