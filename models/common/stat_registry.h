// The statistics registry: every statistic ringsim reports is declared once, by the model
// that counts it, in that model's own .cpp: a dotted path (its place in stats.json, under
// "total" and under each entry of "buffers"), a unit, a description, and how to read it from
// a live instance of the model, or, for a ratio, the two counters it divides. The platform
// walks the registry over the instances of one scope (a buffer, or the whole session) to
// write stats.json, and prints the same declarations for `ringsim stats` and
// docs/statistics.md; nothing above the models copies a counter. Models know nothing of
// JSON here either: a value is a number with a path.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <typeindex>
#include <vector>

namespace ringsim::models {

// Where a statistic appears in stats.json: in each buffer's object, in the total, or both.
enum class StatScope : uint8_t { buffer = 1, total = 2, both = 3 };
const char* to_string(StatScope s);

struct StatDecl {
    std::string path; // within a scope's object: "records.lost", "aux.bytes.lost"
    std::string unit;
    std::string description;
    StatScope scope = StatScope::both;
    // A counter: its value in one instance of `owner`. A scope's value is the sum over the
    // scope's instances of `owner` (the total's: every buffer's, every sink's, ...).
    std::type_index owner = typeid(void);
    std::function<uint64_t(const void*)> read;
    // In the total, read from the one instance of `total_owner` instead of summing: for a
    // count that is not the sum of the buffers' (the consumer's poll() calls).
    std::type_index total_owner = typeid(void);
    std::function<uint64_t(const void*)> total_read;
    // More models whose counts this counter sums, wherever they have instances in the scope
    // (the total's violations.total adds the AUX checker's to the data checkers').
    struct Addend {
        std::type_index owner = typeid(void);
        std::function<uint64_t(const void*)> read;
    };
    std::vector<Addend> addends;
    // A ratio: numerator / denominator, two counters of the same scope; 0 when nothing was
    // counted in the denominator.
    std::string numerator, denominator;

    bool ratio() const { return !numerator.empty(); }
    bool in(StatScope s) const { return (uint8_t(scope) & uint8_t(s)) != 0; }
};

class StatRegistry {
public:
    // A counter held in a member of T (a counter block the model updates).
    template <class T>
    void counter(std::string path, std::string unit, std::string description, uint64_t T::*member,
                 StatScope scope = StatScope::both) {
        counter<T>(
            std::move(path), std::move(unit), std::move(description),
            [member](const T& x) { return x.*member; }, scope);
    }
    // A counter read through the model's accessor.
    template <class T>
    void counter(std::string path, std::string unit, std::string description,
                 std::function<uint64_t(const T&)> read, StatScope scope = StatScope::both) {
        StatDecl d;
        d.path = std::move(path);
        d.unit = std::move(unit);
        d.description = std::move(description);
        d.scope = scope;
        d.owner = typeid(T);
        d.read = [read](const void* p) { return read(*static_cast<const T*>(p)); };
        add(std::move(d));
    }
    // The total of an already declared counter is T's own count, not the sum.
    template <class T>
    void total_counter(const std::string& path, std::function<uint64_t(const T&)> read) {
        StatDecl& d = declared(path);
        d.total_owner = typeid(T);
        d.total_read = [read](const void* p) { return read(*static_cast<const T*>(p)); };
    }
    // An already declared counter also sums T's count, in every scope where T has instances.
    template <class T>
    void adds_to(const std::string& path, std::function<uint64_t(const T&)> read) {
        declared(path).addends.push_back(
            {typeid(T), [read](const void* p) { return read(*static_cast<const T*>(p)); }});
    }
    // numerator / denominator, both declared before, in every scope this one is in.
    void ratio(std::string path, std::string description, const std::string& numerator,
               const std::string& denominator, StatScope scope = StatScope::both);

    const std::vector<StatDecl>& decls() const { return m_decls; }
    const StatDecl* find(const std::string& path) const;

private:
    void add(StatDecl d); // refuses a path declared twice (std::logic_error)
    StatDecl& declared(const std::string& path);
    std::vector<StatDecl> m_decls;
    std::map<std::string, size_t> m_index;
};

// The live model instances of one scope: one buffer's, or every instance for the total.
class StatInstances {
public:
    template <class T> void add(const T& x) { m_of[typeid(T)].push_back(&x); }
    const std::vector<const void*>& of(std::type_index t) const;

private:
    std::map<std::type_index, std::vector<const void*>> m_of;
};

struct StatValue {
    const StatDecl* decl = nullptr;
    uint64_t count = 0;  // a counter's value
    double fraction = 0; // a ratio's value
};

// The values of one scope, in declaration order. A statistic whose model has no instance in
// the scope (the AUX path's without an AUX area) is absent, not zero.
class StatValues {
public:
    StatValues(const StatRegistry& r, const StatInstances& inst, StatScope scope);
    const std::vector<StatValue>& all() const { return m_values; }
    bool has(const std::string& path) const { return m_index.count(path) != 0; }
    // The value at `path`; a path absent here is a model error (std::logic_error).
    uint64_t count(const std::string& path) const;
    double fraction(const std::string& path) const;

private:
    const StatValue& at(const std::string& path) const;
    std::vector<StatValue> m_values;
    std::map<std::string, size_t> m_index;
};

// Each model declares its statistics in its own .cpp; stat_registry() (platform/) calls these
// in this order, which is the order of `ringsim stats` and docs/statistics.md.
void declare_perf_buffer_stats(StatRegistry& r);     // kernel/perf_buffer.cpp
void declare_perf_wakeup_stats(StatRegistry& r);     // kernel/perf_wakeup.cpp
void declare_checker_stats(StatRegistry& r);         // check/checker.cpp
void declare_consumer_stats(StatRegistry& r);        // user/perf_consumer.cpp
void declare_mmu_stats(StatRegistry& r);             // memory/mmu.cpp
void declare_aux_checker_stats(StatRegistry& r);     // check/aux_checker.cpp
void declare_perf_aux_stats(StatRegistry& r);        // kernel/perf_aux.cpp
void declare_cs_etm_driver_stats(StatRegistry& r);   // kernel/cs_etm_driver.cpp
void declare_cs_etm_event_stats(StatRegistry& r);    // kernel/cs_etm_event.cpp
void declare_etr_sink_stats(StatRegistry& r);        // coresight/etr_sink.cpp
void declare_auxtrace_reader_stats(StatRegistry& r); // user/auxtrace_reader.cpp

} // namespace ringsim::models
