// The timeline writer: OpRecords in, trace events out, in the JSON Object Format of the
// Chrome trace-event spec as ui.perfetto.dev and chrome://tracing read it. Times are written
// as exact decimal microseconds (the format's unit) with up to six decimals, so no
// picosecond is lost and the same run always gives the same bytes.
#include "platform/timeline.h"

#include "models/common/hex.h"
#include "models/kernel/perf_abi.h"
#include "platform/builder.h"
#include "platform/config/units.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace ringsim::platform {

using models::Addr;
using models::Barrier;
using models::hex;
using models::OpKind;
using models::OpRecord;
using models::Picos;

namespace {

constexpr unsigned kPid = 1;
// Agent a's tracks are tids (a + 1) * kTidStride + lane, its barrier track the last of its
// block: tids sort agent by agent, lanes in order.
constexpr unsigned kTidStride = 100;
constexpr unsigned kBarrierLane = kTidStride - 1;
// Beyond this many lanes an agent's slices share its last lane and may overlap there.
constexpr size_t kMaxLanes = 64;
// Perfetto rounds ts and dur to whole nanoseconds separately, so a slice may appear to end
// up to 1ns off. Slices on one lane keep 2ns apart: after rounding they still neither touch
// nor overlap, and a flow event at a slice's end still finds that slice on top of its track.
constexpr Picos kLaneGap = 2000;
// Slices a lane remembers to place later ones around; older ones only leave their end.
constexpr size_t kSpansPerLane = 64;
// Stores kept for the arrows. A load reads only stores in the engine's history window, far
// fewer than this; an older source just gets no arrow.
constexpr size_t kStoresKept = size_t(1) << 16;

// Exact decimal microseconds: 1234567 ps -> "1.234567", 3000000 ps -> "3".
std::string micros(Picos ps) {
    std::string s = std::to_string(ps / 1000000);
    const Picos frac = ps % 1000000;
    if (frac == 0) return s;
    char digits[8];
    std::snprintf(digits, sizeof digits, "%06llu", static_cast<unsigned long long>(frac));
    std::string f(digits);
    while (f.back() == '0')
        f.pop_back();
    return s + "." + f;
}

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", static_cast<unsigned>(c));
            out += esc;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

// One JSON object, keys in the order they are added: deterministic text without a DOM.
class JsonObject {
public:
    JsonObject& str(std::string_view key, std::string_view v) { return raw(key, quoted(v)); }
    JsonObject& num(std::string_view key, uint64_t v) { return raw(key, std::to_string(v)); }
    JsonObject& raw(std::string_view key, std::string_view json) {
        if (!m_body.empty()) m_body += ',';
        m_body += quoted(key);
        m_body += ':';
        m_body += json;
        return *this;
    }
    std::string text() const { return "{" + m_body + "}"; }

private:
    std::string m_body;
};

JsonObject event(std::string_view name, std::string_view cat, std::string_view ph, unsigned tid) {
    JsonObject e;
    e.str("name", name).str("cat", cat).str("ph", ph).num("pid", kPid).num("tid", tid);
    return e;
}

bool is_load(OpKind k) {
    return k == OpKind::load || k == OpKind::load_acquire;
}
bool is_store(OpKind k) {
    return k == OpKind::store || k == OpKind::store_release;
}

std::string label_name(Barrier b) {
    return b == Barrier::none ? "none" : std::string(1, static_cast<char>(b));
}

// The barrier an operation executes, or empty: fences, and acquire/release accesses.
std::string barrier_word(OpKind k) {
    switch (k) {
    case OpKind::load_acquire:
        return "acquire";
    case OpKind::store_release:
        return "release";
    case OpKind::fence_rmb:
    case OpKind::fence_wmb:
    case OpKind::fence_mb:
        return models::op_kind_name(k);
    case OpKind::load:
    case OpKind::store:
        return "";
    }
    return "";
}

bool window_side(std::string_view text, Picos& out, std::string& error) {
    if (text.empty()) return true; // open: the run's start or end
    const auto t = config::parse_time(text);
    if (!t) {
        error = "expected " + t.error + ", found '" + std::string(text) + "'";
        return false;
    }
    out = *t.value;
    return true;
}

} // namespace

std::optional<TimelineWindow> parse_timeline_window(std::string_view text, std::string& error) {
    const size_t colon = text.find(':');
    if (colon == std::string_view::npos || text.find(':', colon + 1) != std::string_view::npos) {
        error = "expected FROM:TO, two times such as 1ms:1.2ms, found '" + std::string(text) + "'";
        return std::nullopt;
    }
    TimelineWindow w;
    if (!window_side(text.substr(0, colon), w.from, error) ||
        !window_side(text.substr(colon + 1), w.to, error))
        return std::nullopt;
    if (w.from > w.to) {
        error = "FROM is after TO in '" + std::string(text) + "'";
        return std::nullopt;
    }
    return w;
}

bool TimelineWriter::Lane::fits(Picos lo, Picos hi) const {
    if (forgotten && lo < forgotten_end + kLaneGap) return false; // cannot tell: assume not
    const auto next = spans.lower_bound(lo);
    if (next != spans.end() && next->first < hi + kLaneGap) return false;
    // Spans on a lane are disjoint, so the one starting last before lo also ends last.
    return next == spans.begin() || std::prev(next)->second + kLaneGap <= lo;
}

void TimelineWriter::Lane::add(Picos lo, Picos hi) {
    Picos& end = spans[lo];
    end = std::max(end, hi);
    while (spans.size() > kSpansPerLane) {
        forgotten_end = std::max(forgotten_end, spans.begin()->second);
        forgotten = true;
        spans.erase(spans.begin());
    }
}

TimelineWriter::TimelineWriter(const std::string& path, TimelineWindow window,
                               std::vector<std::string> agents,
                               const std::vector<TimelineBuffer>& buffers)
    : m_out(path, std::ios::binary | std::ios::trunc), m_window(window),
      m_agent_names(std::move(agents)) {
    for (const TimelineBuffer& b : buffers) {
        m_words[b.data_head] = b.name + " data_head";
        m_words[b.data_tail] = b.name + " data_tail";
        if (b.aux_head) m_words[b.aux_head] = b.name + " aux_head";
        if (b.aux_tail) m_words[b.aux_tail] = b.name + " aux_tail";
    }
    m_out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    JsonObject args;
    args.str("name", "ringsim memory operations");
    JsonObject p;
    p.str("name", "process_name").str("ph", "M").num("pid", kPid).raw("args", args.text());
    emit(p.text());
}

TimelineWriter::~TimelineWriter() {
    close();
}

bool TimelineWriter::close() {
    if (!m_closed) {
        m_closed = true;
        m_out << "\n]}\n";
        m_out.close(); // flushes; sets failbit when that fails
    }
    return ok();
}

void TimelineWriter::on_op(const OpRecord& op) {
    if (m_closed) return;
    if (is_load(op.kind) || is_store(op.kind)) op_slice(op);
    if (is_store(op.kind)) word_counter(op);
    if (!barrier_word(op.kind).empty()) barrier_instant(op);
}

void TimelineWriter::op_slice(const OpRecord& op) {
    // An early load performs before its issue: its slice runs from perform to issue.
    const Picos lo = std::min(op.issue, op.perform);
    const Picos hi = std::max(op.issue, op.perform);
    if (!in_window(lo, hi)) return;
    const unsigned tid = place(op.agent, lo, hi);

    JsonObject args;
    args.num("seq", op.seq)
        .str("kind", models::op_kind_name(op.kind))
        .str("address", hex(op.addr))
        .num("size", op.size)
        .num("issue_ps", op.issue)
        .num("perform_ps", op.perform)
        .str("value", hex(op.value))
        .str("label", label_name(op.label));
    if (is_load(op.kind)) {
        args.num("source", op.source);
        if (op.perform < op.issue) args.raw("early", "true");
    }
    emit(event(op_name(op), "memory", "X", tid)
             .raw("ts", micros(lo))
             .raw("dur", micros(hi - lo))
             .raw("args", args.text())
             .text());
    if (is_store(op.kind))
        remember_store(op, tid);
    else
        reads_from_arrow(op, tid);
}

void TimelineWriter::on_translation(unsigned agent, models::Addr vaddr, uint64_t n, bool write,
                                    Picos start, const models::Translation& t) {
    const Picos end = start + t.cost;
    if (m_closed || !in_window(start, end)) return;
    const unsigned tid = place(agent, start, end);
    std::string name =
        t.faults       ? (t.faults == 1 ? "page fault" : std::to_string(t.faults) + " page faults")
        : t.tlb_misses ? "TLB walk"
                       : "TLB hit";
    if (t.faults && t.tlb_misses) name += " + TLB walk";
    JsonObject args;
    args.str("address", hex(vaddr))
        .num("size", n)
        .str("access", write ? "store" : "load")
        .num("faults", t.faults)
        .num("tlb_misses", t.tlb_misses)
        .num("cost_ps", t.cost);
    emit(event(name, "mmu", "X", tid)
             .raw("ts", micros(start))
             .raw("dur", micros(t.cost))
             .raw("args", args.text())
             .text());
}

void TimelineWriter::barrier_instant(const OpRecord& op) {
    // The barrier executes where the program is: at issue.
    if (!in_window(op.issue, op.issue)) return;
    std::string name = barrier_word(op.kind);
    if (op.label != Barrier::none) name = "(" + label_name(op.label) + ") " + name;
    JsonObject args;
    args.num("seq", op.seq)
        .str("kind", models::op_kind_name(op.kind))
        .str("label", label_name(op.label))
        .num("issue_ps", op.issue)
        .num("perform_ps", op.perform);
    emit(event(name, "barrier", "i", barrier_tid(op.agent))
             .str("s", "t")
             .raw("ts", micros(op.issue))
             .raw("args", args.text())
             .text());
}

void TimelineWriter::word_counter(const OpRecord& op) {
    // The new value holds from the moment the store becomes visible to everyone.
    const auto word = m_words.find(op.addr);
    if (word == m_words.end() || op.size != 8 || !in_window(op.perform, op.perform)) return;
    JsonObject args;
    args.num("value", op.value);
    JsonObject c;
    // Counters belong to the process; the tid (the storer's first track, which its slice
    // has created) only keeps Perfetto from inventing a thread for them.
    c.str("name", word->second)
        .str("ph", "C")
        .num("pid", kPid)
        .num("tid", (op.agent + 1) * kTidStride)
        .raw("ts", micros(op.perform))
        .raw("args", args.text());
    emit(c.text());
}

void TimelineWriter::reads_from_arrow(const OpRecord& load, unsigned load_tid) {
    // The store is gone from m_stores when it lies outside the window or is too old: its
    // slice is not in the file, so an arrow would have nothing to start from.
    const auto store = m_stores.find(load.source);
    if (load.source == 0 || store == m_stores.end()) return;
    // One flow id per arrow: Perfetto does not let a v1 flow id start twice.
    emit(event("reads-from", "flow", "s", store->second.tid)
             .num("id", load.seq)
             .raw("ts", micros(store->second.perform))
             .text());
    emit(event("reads-from", "flow", "f", load_tid)
             .num("id", load.seq)
             .str("bp", "e")
             .raw("ts", micros(load.perform))
             .text());
}

void TimelineWriter::remember_store(const OpRecord& op, unsigned tid) {
    m_stores[op.seq] = StoreEnd{tid, op.perform};
    // Stores are reported in seq order: the first entry is the oldest.
    while (m_stores.size() > kStoresKept)
        m_stores.erase(m_stores.begin());
}

unsigned TimelineWriter::place(unsigned agent, Picos lo, Picos hi) {
    if (agent >= m_agents.size()) m_agents.resize(agent + 1);
    std::vector<Lane>& lanes = m_agents[agent].lanes;
    size_t lane = 0;
    while (lane < lanes.size() && !lanes[lane].fits(lo, hi))
        ++lane;
    const unsigned base = (agent + 1) * kTidStride;
    if (lane == lanes.size()) {
        if (lane < kMaxLanes) {
            lanes.emplace_back();
            name_thread(base + unsigned(lane),
                        lane == 0 ? agent_name(agent)
                                  : agent_name(agent) + " overlap " + std::to_string(lane));
        } else {
            lane = kMaxLanes - 1; // out of lanes: accept an overlap
        }
    }
    lanes[lane].add(lo, hi);
    return base + unsigned(lane);
}

unsigned TimelineWriter::barrier_tid(unsigned agent) {
    if (agent >= m_agents.size()) m_agents.resize(agent + 1);
    const unsigned tid = (agent + 1) * kTidStride + kBarrierLane;
    if (!m_agents[agent].barrier_track) {
        m_agents[agent].barrier_track = true;
        name_thread(tid, agent_name(agent) + " barriers");
    }
    return tid;
}

void TimelineWriter::name_thread(unsigned tid, const std::string& name) {
    JsonObject args;
    args.str("name", name);
    JsonObject m;
    m.str("name", "thread_name").str("ph", "M").num("pid", kPid).num("tid", tid);
    emit(m.raw("args", args.text()).text());
    // chrome://tracing orders threads by this; Perfetto orders them by tid already.
    JsonObject sort_args;
    sort_args.num("sort_index", tid);
    JsonObject s;
    s.str("name", "thread_sort_index").str("ph", "M").num("pid", kPid).num("tid", tid);
    emit(s.raw("args", sort_args.text()).text());
}

std::string TimelineWriter::agent_name(unsigned agent) const {
    return agent < m_agent_names.size() ? m_agent_names[agent] : "agent" + std::to_string(agent);
}

std::string TimelineWriter::op_name(const OpRecord& op) const {
    std::string name = models::op_kind_name(op.kind);
    const auto word = m_words.find(op.addr);
    if (word != m_words.end() && op.size == 8)
        name += " " + word->second;
    else
        name += " " + std::to_string(op.size) + "B @" + hex(op.addr);
    // The seq is what violations.json's explanations cite ("store #3656"): searchable.
    return name + " #" + std::to_string(op.seq);
}

bool TimelineWriter::in_window(Picos lo, Picos hi) const {
    return lo <= m_window.to && hi >= m_window.from;
}

void TimelineWriter::emit(const std::string& event) {
    if (!m_first) m_out << ",\n";
    m_first = false;
    m_out << event;
}

std::vector<std::string> timeline_agents(const models::OrderingEngine& engine) {
    std::vector<std::string> names;
    for (unsigned id = 0; id < engine.agent_count(); ++id)
        names.push_back(engine.agent_name(id));
    return names;
}

std::vector<TimelineBuffer> timeline_buffers(const Platform& platform) {
    std::vector<TimelineBuffer> out;
    for (const BufferSlot& b : platform.buffers()) {
        const Addr up = b.rb->params().user_page;
        out.push_back({b.name, up + models::perf::kOffDataHead, up + models::perf::kOffDataTail,
                       up + models::perf::kOffAuxHead, up + models::perf::kOffAuxTail});
    }
    return out;
}

} // namespace ringsim::platform
