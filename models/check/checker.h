// The checker: knows every record each producer stored (a Ledger per buffer) and verifies
// every record the consumer copies out, byte for byte, the way perf report would parse
// perf.data. At the end it closes the books: produced = delivered + lost + unread +
// overwritten (+ violations), per buffer, exactly. It streams: its memory is bounded by
// the buffers, not by the length of the run.
#pragma once

#include "models/check/ledger.h"
#include "models/common/buffer_stats.h"
#include "models/kernel/perf_buffer.h"
#include "models/user/perf_consumer.h"

#include <memory>
#include <string>
#include <vector>

namespace ringsim::models {

struct Violation {
    std::string buffer;
    std::string kind;         // corrupt | missing | duplicated | accounting
    uint64_t pos = 0;
    uint64_t at_ps = 0;       // when the consumer copied it
    std::string explanation;  // a short causal story
};

struct CheckedBuffer {
    std::string name;
    uint64_t data_size = 0;
    bool overwrite = false;
    bool backward = false;
    uint64_t sample_type = 0;
    bool sample_id_all = false;
    BufferStats* stats = nullptr;
    const PerfBuffer* rb = nullptr; // for the loss still pending at the end
};

class Checker : public ConsumerObserver {
public:
    explicit Checker(std::vector<CheckedBuffer> buffers, size_t keep_violations = 20);
    ~Checker() override;

    // The RecordObserver to attach to buffer `idx`'s PerfBuffer.
    RecordObserver& producer_side(unsigned idx);

    void on_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n) override;

    // Closes the books at the end of the run: unread records, the accounting identity.
    void finish();

    // The first violations, in the order found (all are counted in the stats).
    const std::vector<Violation>& violations() const { return m_violations; }

private:
    struct Stream;
    void verify(Stream& s, uint64_t pos, const uint8_t* data, uint64_t n);
    void violation(Stream& s, const char* kind, uint64_t pos, std::string explanation);

    std::vector<std::unique_ptr<Stream>> m_streams;
    std::vector<Violation> m_violations;
    size_t m_keep;
};

} // namespace ringsim::models
