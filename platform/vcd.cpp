// The run as a value change dump (see vcd.h).
#include "platform/vcd.h"

#include "models/common/sim_clock.h"
#include "models/kernel/perf_abi.h"
#include "platform/builder.h"

#include <algorithm>
#include <limits>

namespace ringsim::platform {

using models::Barrier;
using models::OpKind;
using models::OpRecord;
using models::Picos;

namespace {

// Changes wait this long before they are written: an operation is reported by the time it
// has performed plus this at the latest (loads are reported when read, just after).
constexpr Picos kLag = 1'000'000'000; // 1 ms

// VCD identifiers: printable ASCII from '!' to '~', shortest first.
std::string vcd_id(unsigned n) {
    std::string id;
    do {
        id += static_cast<char>('!' + n % 94);
        n /= 94;
    } while (n);
    return id;
}

} // namespace

VcdWriter::VcdWriter(const std::string& path, TimelineWindow window, std::vector<VcdBuffer> buffers,
                     unsigned sinks)
    : m_out(path, std::ios::binary | std::ios::trunc), m_window(window) {
    for (const VcdBuffer& b : buffers) {
        const std::string scope = b.name;
        auto words = [&](models::Addr head, models::Addr tail, const std::string& prefix,
                         bool fill) {
            Words w;
            w.head = add_var(scope, prefix + "_head", Kind::word);
            w.tail = add_var(scope, prefix + "_tail", Kind::word);
            m_word_at[head] = {unsigned(m_words.size()), true};
            m_word_at[tail] = {unsigned(m_words.size()), false};
            if (fill) {
                w.fill = add_var(scope, prefix + "_fill", Kind::word);
                m_fill_of[w.head] = m_fill_of[w.tail] = int(m_words.size());
            }
            m_words.push_back(w);
        };
        words(b.user_page + models::perf::kOffDataHead, b.user_page + models::perf::kOffDataTail,
              "data", b.data_fill);
        if (b.aux)
            words(b.user_page + models::perf::kOffAuxHead, b.user_page + models::perf::kOffAuxTail,
                  "aux", b.aux_fill);
        m_wakeup.push_back(add_var(scope, "wakeup", Kind::event));
    }
    m_reading = add_var("consumer", "reading", Kind::bit);
    m_asleep = add_var("consumer", "asleep", Kind::bit);
    m_waking = add_var("consumer", "waking", Kind::bit);
    m_poll = add_var("consumer", "poll", Kind::event);
    for (unsigned i = 0; i < sinks; ++i) {
        const std::string scope = sinks == 1 ? "etr" : "etr" + std::to_string(i);
        SinkVars s;
        s.rwp = add_var(scope, "rwp", Kind::word);
        s.full = add_var(scope, "sts_full", Kind::bit);
        s.tmc_ready = add_var(scope, "sts_tmcready", Kind::bit);
        s.memerr = add_var(scope, "sts_memerr", Kind::bit);
        m_sinks.push_back(s);
    }
    for (const char label : {'A', 'B', 'C', 'D'})
        m_barrier[label] = add_var("barriers", std::string(1, label), Kind::event);

    // The header: one scope per part, in the order declared.
    m_out << "$version ringsim $end\n$timescale 1ps $end\n$scope module top $end\n";
    std::string open;
    for (const Var& v : m_vars) {
        if (v.scope != open) {
            if (!open.empty()) m_out << "$upscope $end\n";
            m_out << "$scope module " << v.scope << " $end\n";
            open = v.scope;
        }
        // A word's reference carries its range, as GTKWave then names it: data_head[63:0].
        if (v.kind == Kind::word)
            m_out << "$var wire 64 " << v.id << ' ' << v.name << " [63:0] $end\n";
        else
            m_out << "$var " << (v.kind == Kind::event ? "event 1 " : "wire 1 ") << v.id << ' '
                  << v.name << " $end\n";
    }
    if (!open.empty()) m_out << "$upscope $end\n";
    m_out << "$upscope $end\n$enddefinitions $end\n";
}

unsigned VcdWriter::add_var(const std::string& scope, const std::string& name, Kind kind) {
    Var v;
    v.scope = scope;
    v.name = name;
    v.kind = kind;
    v.id = vcd_id(unsigned(m_vars.size()));
    m_vars.push_back(std::move(v));
    m_fill_of.push_back(-1);
    return unsigned(m_vars.size() - 1);
}

void VcdWriter::change(Picos at, unsigned var, uint64_t value) {
    const Picos now = models::sim_now();
    flush_before(now > kLag ? now - kLag : 0);
    m_queue.push(Change{at, m_order++, var, value});
}

void VcdWriter::flush_before(Picos t) {
    while (!m_queue.empty() && m_queue.top().at < t) {
        write(m_queue.top());
        m_queue.pop();
    }
}

void VcdWriter::on_op(const OpRecord& op) {
    const bool store = op.kind == OpKind::store || op.kind == OpKind::store_release;
    if (store && op.size == 8)
        if (const auto it = m_word_at.find(op.addr); it != m_word_at.end()) {
            const Words& w = m_words[it->second.first];
            change(op.perform, it->second.second ? w.head : w.tail, op.value);
        }
    if (op.label != Barrier::none)
        if (const auto it = m_barrier.find(static_cast<char>(op.label)); it != m_barrier.end())
            change(op.perform, it->second, 1);
}

void VcdWriter::on_pass_start() {
    change(models::sim_now(), m_reading, 1);
}
void VcdWriter::on_pass_end() {
    change(models::sim_now(), m_reading, 0);
}
void VcdWriter::on_poll(bool sleeps) {
    change(models::sim_now(), m_poll, 1);
    if (sleeps) change(models::sim_now(), m_asleep, 1);
}
void VcdWriter::on_woken() {
    change(models::sim_now(), m_asleep, 0);
    change(models::sim_now(), m_waking, 1);
}
void VcdWriter::on_running() {
    change(models::sim_now(), m_waking, 0);
}
void VcdWriter::on_wakeup(unsigned buffer) {
    if (buffer < m_wakeup.size()) change(models::sim_now(), m_wakeup[buffer], 1);
}
void VcdWriter::on_sink(unsigned sink, Picos t, uint64_t rwp, uint32_t sts) {
    if (sink >= m_sinks.size()) return;
    const SinkVars& s = m_sinks[sink];
    change(t, s.rwp, rwp);
    change(t, s.full, (sts & models::coresight::tmc::STS_Full) != 0);
    change(t, s.tmc_ready, (sts & models::coresight::tmc::STS_TMCReady) != 0);
    change(t, s.memerr, (sts & models::coresight::tmc::STS_MemErr) != 0);
}

void VcdWriter::start_dump() {
    m_dumping = true;
    m_last_time = m_window.from;
    m_out << '#' << m_window.from << "\n$dumpvars\n";
    for (const Var& v : m_vars)
        if (v.kind != Kind::event) write_value(v, v.value);
    m_out << "$end\n";
}

void VcdWriter::write_value(const Var& v, uint64_t value) {
    if (v.kind != Kind::word) {
        m_out << (value ? '1' : '0') << v.id << '\n';
        return;
    }
    // Binary, leading zeros dropped (VCD extends a shorter value with zeros).
    char bits[65];
    int n = 0;
    do {
        bits[n++] = static_cast<char>('0' + (value & 1));
        value >>= 1;
    } while (value);
    m_out << 'b';
    while (n)
        m_out << bits[--n];
    m_out << ' ' << v.id << '\n';
}

void VcdWriter::write(const Change& c) {
    if (c.at > m_window.to) return;
    Var& v = m_vars[c.var];
    const bool event = v.kind == Kind::event;
    if (c.at >= m_window.from) {
        if (!m_dumping) start_dump();
        if (c.at < m_last_time) {
            ++m_late; // reported after the dump had passed its time: left out, counted
            return;
        }
        if (event || v.value != c.value) {
            if (c.at != m_last_time) m_out << '#' << c.at << '\n';
            m_last_time = c.at;
            write_value(v, c.value);
        }
    }
    if (event) return;
    v.value = c.value;
    // A control word moved: its buffer's fill level with it.
    if (const int w = m_fill_of[c.var]; w >= 0) {
        const Words& words = m_words[unsigned(w)];
        const uint64_t fill = m_vars[words.head].value - m_vars[words.tail].value;
        if (fill != m_vars[words.fill].value) write(Change{c.at, c.order, words.fill, fill});
    }
}

VcdWriter::~VcdWriter() {
    if (!m_closed) close(std::numeric_limits<Picos>::max());
}

bool VcdWriter::close(Picos end) {
    if (m_closed) return ok();
    m_closed = true;
    m_window.to = std::min(m_window.to, end);
    flush_before(std::numeric_limits<Picos>::max());
    if (m_window.from <= end) {
        if (!m_dumping) start_dump();
        const Picos last = std::min(end, m_window.to);
        if (last > m_last_time) m_out << '#' << last << '\n';
    }
    m_out.close();
    return ok();
}

std::vector<VcdBuffer> vcd_buffers(const Platform& platform) {
    std::vector<VcdBuffer> out;
    for (const BufferSlot& b : platform.buffers())
        out.push_back({b.name, b.rb->params().user_page, platform.aux_enabled(),
                       !b.rb->params().overwrite, !platform.aux_snapshot()});
    return out;
}

} // namespace ringsim::platform
