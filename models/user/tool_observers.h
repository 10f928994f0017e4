// What the perf tool model tells its listeners (the checkers, exporters, the end of the
// run): the bytes it copied out of a data or AUX mapping with where each came from, what
// it skipped, and that it is done. Plain C++, so that listeners compile without SystemC.
#pragma once

#include "models/common/types.h"

#include <cstdint>
#include <vector>

namespace ringsim::models {

// Where each byte range of a copy came from: the consumer's load and the store it read.
struct CopySource {
    uint64_t offset = 0; // within the copy
    uint64_t length = 0;
    uint64_t store_seq = 0; // 0: older than the engine's history
    uint64_t load_seq = 0;
    Picos load_issue = 0;
    Picos load_perform = 0;
};

// The protocol operations behind a copy: the data_head load that made the consumer copy,
// and its latest data_tail store when it delivered (for the checker's explanations).
struct CopyContext {
    uint64_t head_value = 0;
    uint64_t head_load_seq = 0;
    Picos head_load_perform = 0;
    uint64_t head_store_seq = 0; // the kernel's data_head store the load read (0: unknown)
    uint64_t tail_store_seq = 0; // the consumer's latest data_tail store (0: none yet)
    // Where the reader's next copy of this buffer begins (its read position after this
    // pass), when it reads forward; nothing before it is copied again.
    uint64_t next_start = 0;
    bool next_start_known = false;
};

// A listener of the consumer (the checker, an exporter, the end of the run): each hears
// what it overrides, in the order the listeners were added.
class ConsumerObserver {
public:
    virtual ~ConsumerObserver() = default;
    // What the consumer copied out: contiguous bytes at free-running position `pos` of mmap
    // `idx`, with where they came from.
    virtual void on_copied(unsigned /*idx*/, uint64_t /*pos*/, const uint8_t* /*data*/,
                           uint64_t /*n*/, const std::vector<CopySource>& /*sources*/,
                           const CopyContext& /*ctx*/) {}
    // The tool moved its read position from `from` to `to` without reading what is between.
    virtual void on_skipped(unsigned /*idx*/, uint64_t /*from*/, uint64_t /*to*/) {}
    // A pass over the buffers begins and ends (record__mmap_read_evlist: over the forward
    // maps, or over the overwrite maps): perf record ends a pass that wrote anything with
    // PERF_RECORD_FINISHED_ROUND. The AUX reads that follow each data read are in it.
    virtual void on_pass_start() {}
    virtual void on_pass_end() {}
    // perf's poll(): `sleeps` when nothing was pending, so it waits on the waitqueues; then
    // the wait ends (a wake-up, the timeout, SIGCHLD) and, after the wake-up latency, the
    // tool runs again. For waveforms (platform/vcd.h).
    virtual void on_poll(bool /*sleeps*/) {}
    virtual void on_woken() {}
    virtual void on_running() {}
    // The tool is done: its last pass is over (perf record's exit).
    virtual void on_finished() {}
};

// What the tool copied out of an AUX area: bytes at free-running AUX position `pos` (the
// offset of the PERF_RECORD_AUXTRACE perf writes for this read).
class AuxObserver {
public:
    virtual ~AuxObserver() = default;
    virtual void on_aux_copied(unsigned idx, uint64_t pos, const uint8_t* data, uint64_t n,
                               const std::vector<CopySource>& sources, const CopyContext& ctx) = 0;
};

} // namespace ringsim::models
