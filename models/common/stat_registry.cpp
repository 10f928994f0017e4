#include "models/common/stat_registry.h"

#include <stdexcept>

namespace ringsim::models {

const char* to_string(StatScope s) {
    switch (s) {
    case StatScope::buffer:
        return "buffers";
    case StatScope::total:
        return "total";
    case StatScope::both:
        return "total, buffers";
    }
    return "?";
}

void StatRegistry::add(StatDecl d) {
    // Users' scripts address statistics by path: one path, one meaning.
    if (m_index.count(d.path)) throw std::logic_error("statistic " + d.path + " declared twice");
    m_index[d.path] = m_decls.size();
    m_decls.push_back(std::move(d));
}

StatDecl& StatRegistry::declared(const std::string& path) {
    auto it = m_index.find(path);
    if (it == m_index.end()) throw std::logic_error("statistic " + path + " is not declared");
    return m_decls[it->second];
}

const StatDecl* StatRegistry::find(const std::string& path) const {
    auto it = m_index.find(path);
    return it == m_index.end() ? nullptr : &m_decls[it->second];
}

void StatRegistry::ratio(std::string path, std::string description, const std::string& numerator,
                         const std::string& denominator, StatScope scope) {
    // Both terms must exist wherever the ratio does, or a scope would print a ratio of
    // nothing.
    for (const std::string* term : {&numerator, &denominator}) {
        const StatDecl& t = declared(*term);
        if (t.ratio() || (uint8_t(t.scope) & uint8_t(scope)) != uint8_t(scope))
            throw std::logic_error("ratio " + path + ": " + *term +
                                   " is not a counter in every scope of the ratio");
    }
    StatDecl d;
    d.path = std::move(path);
    d.unit = "fraction";
    d.description = std::move(description);
    d.scope = scope;
    d.numerator = numerator;
    d.denominator = denominator;
    add(std::move(d));
}

const std::vector<const void*>& StatInstances::of(std::type_index t) const {
    static const std::vector<const void*> none;
    auto it = m_of.find(t);
    return it == m_of.end() ? none : it->second;
}

StatValues::StatValues(const StatRegistry& r, const StatInstances& inst, StatScope scope) {
    for (const StatDecl& d : r.decls()) {
        if (!d.in(scope)) continue;
        StatValue v;
        v.decl = &d;
        if (d.ratio()) {
            // Terms are declared first, so they are already here when they apply.
            if (!has(d.numerator) || !has(d.denominator)) continue;
            const uint64_t num = count(d.numerator), den = count(d.denominator);
            v.fraction = den ? double(num) / double(den) : 0.0;
        } else if (scope == StatScope::total && d.total_read) {
            const auto& owners = inst.of(d.total_owner);
            if (owners.empty()) continue;
            for (const void* p : owners)
                v.count += d.total_read(p);
        } else {
            const auto& owners = inst.of(d.owner);
            if (owners.empty()) continue;
            for (const void* p : owners)
                v.count += d.read(p);
        }
        for (const StatDecl::Addend& a : d.addends)
            for (const void* p : inst.of(a.owner))
                v.count += a.read(p);
        m_index[d.path] = m_values.size();
        m_values.push_back(v);
    }
}

const StatValue& StatValues::at(const std::string& path) const {
    auto it = m_index.find(path);
    if (it == m_index.end()) throw std::logic_error("no statistic " + path + " in this scope");
    return m_values[it->second];
}

uint64_t StatValues::count(const std::string& path) const {
    return at(path).count;
}
double StatValues::fraction(const std::string& path) const {
    return at(path).fraction;
}

} // namespace ringsim::models
