#include "models/kernel/perf_records.h"

#include "models/common/le.h"
#include "models/common/rng.h"
#include "models/kernel/perf_abi.h"

#include <cstring>

namespace ringsim::models::perf {

namespace {

// Fills a record of the size its header gives: one resize of the caller's buffer (which
// keeps its capacity from record to record), then each field copied to its place.
class Writer {
public:
    explicit Writer(std::vector<uint8_t>& out) : m_out(out) {}
    void u16(uint16_t v) { put(&v, 2); }
    void u32(uint32_t v) { put(&v, 4); }
    void u64(uint64_t v) { put(&v, 8); }
    void put(const void* p, size_t n) {
        std::memcpy(m_out.data() + m_pos, p, n);
        m_pos += n;
    }
    // Bytes whose value is written elsewhere (store_le64): n bytes from here.
    uint8_t* reserve(size_t n) {
        uint8_t* at = m_out.data() + m_pos;
        m_pos += n;
        return at;
    }
    void header(uint32_t type, uint16_t misc, uint64_t size) {
        m_out.resize(size);
        m_pos = 0;
        u32(type);
        u16(misc);
        u16(static_cast<uint16_t>(size));
    }

private:
    std::vector<uint8_t>& m_out;
    size_t m_pos = 0;
};

// __perf_event__output_id_sample: the trailer that lets perf attribute non-sample records.
void put_sample_id(Writer& w, const RecordContext& c) {
    if (!c.sample_id_all) return;
    const uint64_t st = c.sample_type;
    if (st & PERF_SAMPLE_TID) {
        w.u32(c.pid);
        w.u32(c.tid);
    }
    if (st & PERF_SAMPLE_TIME) w.u64(c.time_ns);
    if (st & PERF_SAMPLE_ID) w.u64(c.id);
    if (st & PERF_SAMPLE_STREAM_ID) w.u64(c.id);
    if (st & PERF_SAMPLE_CPU) {
        w.u32(c.cpu);
        w.u32(0);
    }
    if (st & PERF_SAMPLE_IDENTIFIER) w.u64(c.id);
}

uint64_t trailer(const RecordContext& c) {
    return c.sample_id_all ? id_header_size(c.sample_type) : 0;
}

// Kernel-space text addresses on arm64 start at 0xffff8000...; any distinct value will do.
constexpr uint64_t kTextBase = 0xffff800080000000ull;

} // namespace

uint64_t lost_size(const RecordContext& c) {
    return kLostRecordSize + trailer(c);
}
uint64_t switch_size(const RecordContext& c) {
    return kSwitchRecordSize + trailer(c);
}
uint64_t comm_size(const RecordContext& c) {
    return kCommRecordSize + trailer(c);
}
uint64_t aux_size(const RecordContext& c) {
    return kAuxRecordSize + trailer(c);
}
uint64_t itrace_start_size(const RecordContext& c) {
    return kHeaderSize + 8 + trailer(c);
}
uint64_t aux_output_hw_id_size(const RecordContext& c) {
    return kHeaderSize + 8 + trailer(c);
}

void encode_sample(std::vector<uint8_t>& out, const RecordContext& c, uint64_t size, uint64_t seq,
                   uint64_t period) {
    Writer w(out);
    const uint64_t st = c.sample_type;
    const uint64_t fixed = sample_fixed_size(st);
    w.header(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, size);
    // perf_output_sample's order.
    if (st & PERF_SAMPLE_IDENTIFIER) w.u64(c.id);
    if (st & PERF_SAMPLE_IP) w.u64(kTextBase + (mix64(seq) & 0xffffffc));
    if (st & PERF_SAMPLE_TID) {
        w.u32(c.pid);
        w.u32(c.tid);
    }
    if (st & PERF_SAMPLE_TIME) w.u64(c.time_ns);
    if (st & PERF_SAMPLE_ID) w.u64(c.id);
    if (st & PERF_SAMPLE_STREAM_ID) w.u64(c.id);
    if (st & PERF_SAMPLE_CPU) {
        w.u32(c.cpu);
        w.u32(0);
    }
    if (st & PERF_SAMPLE_PERIOD) w.u64(period);
    if (size > fixed) {
        // PERF_SAMPLE_RAW: u32 size, then that many bytes; u32 + data is 8-byte aligned.
        const uint64_t raw = size - fixed - 4;
        w.u32(static_cast<uint32_t>(raw));
        // A fresh mix64 word every 8 bytes, least significant byte first.
        uint8_t* bytes = w.reserve(raw);
        uint64_t x = mix64(seq ^ c.id);
        uint64_t i = 0;
        for (; i + 8 <= raw; i += 8)
            store_le64(bytes + i, x = mix64(x));
        if (i < raw) {
            uint8_t last[8];
            store_le64(last, mix64(x));
            std::memcpy(bytes + i, last, raw - i);
        }
    }
}

void encode_lost(std::vector<uint8_t>& out, const RecordContext& c, uint64_t lost) {
    Writer w(out);
    w.header(PERF_RECORD_LOST, 0, lost_size(c));
    w.u64(c.id);
    w.u64(lost);
    put_sample_id(w, c);
}

void encode_lost_samples(std::vector<uint8_t>& out, RecordContext c, uint64_t lost) {
    // perf_event__synthesize_id_sample writes the trailer whatever sample_id_all says.
    c.sample_id_all = true;
    Writer w(out);
    w.header(PERF_RECORD_LOST_SAMPLES, 0, kHeaderSize + 8 + trailer(c));
    w.u64(lost);
    put_sample_id(w, c);
}

void encode_switch(std::vector<uint8_t>& out, const RecordContext& c, bool switch_out) {
    Writer w(out);
    w.header(PERF_RECORD_SWITCH, switch_out ? PERF_RECORD_MISC_SWITCH_OUT : 0, switch_size(c));
    put_sample_id(w, c);
}

void encode_comm(std::vector<uint8_t>& out, const RecordContext& c, const char* comm) {
    Writer w(out);
    w.header(PERF_RECORD_COMM, 0, comm_size(c));
    w.u32(c.pid);
    w.u32(c.tid);
    char name[16] = {};
    std::strncpy(name, comm, sizeof name - 1);
    w.put(name, sizeof name);
    put_sample_id(w, c);
}

} // namespace ringsim::models::perf

namespace ringsim::models::perf {

void encode_aux(std::vector<uint8_t>& out, const RecordContext& c, uint64_t aux_offset,
                uint64_t size, uint64_t flags) {
    Writer w(out);
    w.header(PERF_RECORD_AUX, 0, aux_size(c));
    w.u64(aux_offset);
    w.u64(size);
    w.u64(flags);
    put_sample_id(w, c);
}

} // namespace ringsim::models::perf

namespace ringsim::models::perf {

void encode_itrace_start(std::vector<uint8_t>& out, const RecordContext& c) {
    Writer w(out);
    w.header(PERF_RECORD_ITRACE_START, 0, itrace_start_size(c));
    w.u32(c.pid);
    w.u32(c.tid);
    put_sample_id(w, c);
}

void encode_aux_output_hw_id(std::vector<uint8_t>& out, const RecordContext& c, uint64_t hw_id) {
    Writer w(out);
    w.header(PERF_RECORD_AUX_OUTPUT_HW_ID, 0, aux_output_hw_id_size(c));
    w.u64(hw_id);
    put_sample_id(w, c);
}

} // namespace ringsim::models::perf
