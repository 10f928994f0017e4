#include "platform/estimate.h"

#include "models/check/ledger.h"
#include "models/kernel/etr_alloc.h"
#include "models/kernel/perf_abi.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unistd.h>

namespace ringsim::platform {

namespace {

using config::Deployment;
using config::RecordKind;

constexpr double kMiB = 1024.0 * 1024.0;
// The process before any buffer: code, SystemC, the ordering engine's history ring (4.7 MB).
// A 10 ms quickstart run peaks at 14 MB.
constexpr double kBaseBytes = 32 * kMiB;
// A page of the tool's mappings: its physical address and Pte (10 bytes, models/memory/mmu.h),
// and the builder's page list while it maps the buffer.
constexpr double kBytesPerMappedPage = 10 + 16;
// A SystemC thread: its stack as far as the models' calls reach, and the process object.
constexpr double kBytesPerThread = 16 * 1024;
// A ledger slot: the entry, its key and flag, and the chunk's share (models/check/ledger.h);
// a record longer than SmallBytes' inline bytes adds its bytes and a heap block's header.
constexpr double kLedgerSlotBytes = sizeof(models::LedgerEntry) + 32;
constexpr double kHeapBlockBytes = 16;
// SystemC evaluation rounds, as run.json's delta_cycles counts them: two a record (its
// arrival, its publication; measured 1.8 to 2.0 on the curated scenarios) and about one per
// burst of trace the sink moves (aux-reference: 1.2).
constexpr double kEventsPerRecord = 2.0;
constexpr double kEventsPerTraceBurst = 1.5;
// Poisson and bursty arrivals exceed their mean rate now and then: a margin on counts.
constexpr double kArrivalMargin = 1.1;

// The longest record a writer writes: a sample's size, or a switch or comm record with
// every sample_id field (at most 40 bytes).
double record_bytes(const config::Writer& w) {
    switch (w.record) {
    case RecordKind::sample:
        return double(w.size);
    case RecordKind::switch_:
        return double(models::perf::kSwitchRecordSize) + 40;
    case RecordKind::comm:
        return double(models::perf::kCommRecordSize) + 40;
    }
    return double(w.size);
}

// The shortest: what packs the most records, and ledger entries, into a buffer.
double shortest_record_bytes(const config::Writer& w) {
    switch (w.record) {
    case RecordKind::sample:
        return double(w.size);
    case RecordKind::switch_:
        return double(models::perf::kSwitchRecordSize);
    case RecordKind::comm:
        return double(models::perf::kCommRecordSize);
    }
    return double(w.size);
}

double highest_trace_rate(const config::Scenario& s) {
    double rate = s.trace.rate;
    for (const auto& ph : s.trace.phases)
        rate = std::max(rate, ph.rate);
    return rate;
}

// Bytes from a double, saturating: a bound past 2^64 is still a bound.
uint64_t saturated(double bytes) {
    return bytes >= 1.8e19 ? UINT64_MAX : uint64_t(bytes);
}

} // namespace

ResourceEstimate estimate_resources(const config::Scenario& s) {
    ResourceEstimate e;
    const double seconds = double(s.duration_ps) * 1e-12;
    const bool per_thread = s.deployment == Deployment::per_thread;
    const double buffers = per_thread ? 1.0 : double(s.traced_cpus.size());
    const std::string nbuf =
        " x " + std::to_string(uint64_t(buffers)) + " buffer" + (buffers == 1 ? "" : "s");
    // The task of a per-thread session runs on one CPU at a time: its buffer gets one CPU's
    // records; otherwise each traced CPU's writers fill that CPU's buffer.
    const double cpus_per_writer = per_thread ? 1.0 : double(s.traced_cpus.size());

    double records = 0, bytes = 0, shortest = 1e18;
    for (const config::Writer& w : s.writers) {
        records += w.rate_hz * seconds;
        bytes += w.rate_hz * seconds * record_bytes(w);
        shortest = std::min(shortest, shortest_record_bytes(w));
    }
    records = records * kArrivalMargin + 1;
    bytes = bytes * kArrivalMargin + 1;
    e.records = records * cpus_per_writer;

    const double page = double(s.page_size);
    const double data = double(s.data_pages) * page;
    // What the writers can write into one buffer, in whole pages, and the control page.
    const double touched = std::min(data, std::ceil(bytes / page) * page) + page;
    e.parts.push_back({"data buffers (touched)",
                       "session.data_pages, workload.writers[].rate x duration" + nbuf,
                       saturated(buffers * touched)});
    // The ledger holds the unread records and one buffer length of delivered ones.
    const double entries = 2 * std::min(data / std::max(shortest, 8.0), records);
    const double heap = 2 * std::min(data, bytes) + entries * kHeapBlockBytes;
    e.parts.push_back({"checker's ledger", "session.data_pages, workload.writers[].size" + nbuf,
                       saturated(buffers * (entries * kLedgerSlotBytes + heap))});
    // perf_mmap__push copies what is unread, up to a whole buffer, before writing it out.
    e.parts.push_back({"the tool's copies", "session.data_pages" + nbuf,
                       saturated(buffers * std::min(data, bytes))});
    // perf_mmap__push copies what is unread, up to a whole buffer, before writing it out.
    e.parts.push_back({"the tool's copies", "session.data_pages" + nbuf,
                       saturated(buffers * std::min(data, bytes))});
    const double mapped_pages = 1 + double(s.data_pages) + (s.aux.enabled ? s.aux.pages : 0);
    e.parts.push_back({"the tool's page tables", "session.data_pages, session.aux.pages" + nbuf,
                       saturated(buffers * mapped_pages * kBytesPerMappedPage)});

    // A thread per writer and CPU, two per buffer (wakeup, reader side), a few of the tool's.
    double threads = 8 + 2 * buffers + double(s.writers.size()) * cpus_per_writer;

    if (s.aux.enabled) {
        const double aux = double(s.aux.pages) * page;
        const double trace = highest_trace_rate(s) * seconds * cpus_per_writer;
        const double aux_touched = std::min(aux, trace);
        // The AUX pages, and the checker's copy of what the tool read from them.
        e.parts.push_back({"AUX buffers (touched) and their checker",
                           "session.aux.pages, trace.rate x duration" + nbuf,
                           saturated(buffers * 3 * aux_touched)});
        const double etr = double(models::etr_buf_size(uint64_t(aux), s.etr.buffer_size));
        const double all_trace = highest_trace_rate(s) * seconds * double(s.traced_cpus.size());
        e.parts.push_back({"ETR buffer (touched) and its SG table",
                           "etr.buffer_size, session.aux.pages, trace.rate x duration",
                           saturated(std::min(etr, all_trace) + etr / 4096 * 16)});
        threads += double(s.traced_cpus.size());
        e.events += all_trace / double(std::max<uint64_t>(s.etr.burst, 16)) * kEventsPerTraceBurst;
    }
    e.parts.push_back({"SystemC threads",
                       "workload.writers x " + std::to_string(uint64_t(cpus_per_writer)) +
                           (cpus_per_writer == 1 ? " CPU" : " CPUs"),
                       saturated(threads * kBytesPerThread)});
    e.parts.push_back({"the process", "", uint64_t(kBaseBytes)});
    e.events += e.records * kEventsPerRecord;

    std::stable_sort(
        e.parts.begin(), e.parts.end(),
        [](const EstimatePart& a, const EstimatePart& b) { return a.bytes > b.bytes; });
    for (const EstimatePart& p : e.parts)
        e.bytes = p.bytes > UINT64_MAX - e.bytes ? UINT64_MAX : e.bytes + p.bytes;
    return e;
}

uint64_t default_max_memory() {
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0) return UINT64_MAX;
    return uint64_t(pages) / 5 * 4 * uint64_t(size);
}

std::string bytes_text(uint64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = double(bytes);
    size_t u = 0;
    for (; v >= 1024 && u + 1 < sizeof units / sizeof *units; ++u)
        v /= 1024;
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    return buf;
}

std::string parts_text(const ResourceEstimate& e) {
    std::string text;
    for (const EstimatePart& p : e.parts)
        text +=
            "\n  " + bytes_text(p.bytes) + "  " + p.what + (p.keys.empty() ? "" : ": " + p.keys);
    return text;
}

std::string estimate_text(const ResourceEstimate& e, uint64_t max_memory) {
    char counts[96];
    std::snprintf(counts, sizeof counts, "about %.3g records and %.3g events", e.records, e.events);
    return "estimated peak memory at most " + bytes_text(e.bytes) + " (--max-memory " +
           bytes_text(max_memory) + "), " + counts + ":" + parts_text(e);
}

} // namespace ringsim::platform
