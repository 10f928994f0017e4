// What the SystemC tests of the AUX path share: the simulated time and a wait until a time
// from a test thread, the losses a sink or driver reports (printable for gtest), and the
// records a PerfBuffer stored, read back by type and field.
#pragma once

#include "models/coresight/trace_loss.h"
#include "models/kernel/perf_buffer.h"

#include <cstring>
#include <ostream>
#include <systemc>
#include <vector>

namespace ringsim::test {

using Bytes = std::vector<uint8_t>;

inline models::Picos now() {
    return sc_core::sc_time_stamp().value();
}
// From an SC_THREAD: waits until simulated time t (at once when it has passed).
inline void wait_until(models::Picos t) {
    if (t > now()) sc_core::wait(sc_core::sc_time(double(t - now()), sc_core::SC_PS));
}

// One TraceObserver::on_trace_lost call.
struct Loss {
    uint8_t id;
    uint64_t off, n;
    models::coresight::TraceLoss why;
    bool operator==(const Loss& o) const {
        return id == o.id && off == o.off && n == o.n && why == o.why;
    }
};
inline std::ostream& operator<<(std::ostream& os, const Loss& l) {
    return os << "{" << int(l.id) << ", " << l.off << ", " << l.n << ", " << to_string(l.why)
              << "}";
}

// The records stored into one data buffer, whole.
struct StoredRecords : models::RecordObserver {
    std::vector<Bytes> stored;
    void on_record_stored(uint64_t, const Bytes& b, uint64_t,
                          const models::RecordStores&) override {
        stored.push_back(b);
    }
    void on_record_retracted(uint64_t) override {}
    uint32_t type(size_t i) const {
        uint32_t t;
        std::memcpy(&t, stored.at(i).data(), 4);
        return t;
    }
    // The i-th u64 of a record's body (after its 8-byte header).
    uint64_t field(size_t rec, size_t i) const {
        uint64_t v;
        std::memcpy(&v, stored.at(rec).data() + 8 + 8 * i, 8);
        return v;
    }
    std::vector<uint32_t> types() const {
        std::vector<uint32_t> v;
        for (size_t i = 0; i < stored.size(); ++i)
            v.push_back(type(i));
        return v;
    }
    size_t count(uint32_t t) const {
        size_t n = 0;
        for (size_t i = 0; i < stored.size(); ++i)
            n += type(i) == t;
        return n;
    }
};

} // namespace ringsim::test
