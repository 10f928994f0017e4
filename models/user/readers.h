// The readers of the perf ring buffer that `consumer.reader` selects: perf's own two, and
// readers that mirror widely used projects, each as its public source does it (surveyed
// from the source at the commit named; docs/readers.md tells the story of each). A reader
// is what its code does at the consumer's two barrier sites, (C) after the data_head load
// and (D) before the data_tail store, and when it stores data_tail:
//
//  push, libperf: perf's ring_buffer_read_head / ring_buffer_write_tail (C1, C2):
//      smp_load_acquire and smp_store_release (LDAR, STLR on arm64).
//  libbpf: perf_buffer__poll -> perf_event_read_simple (libbpf/libbpf src/libbpf.c, v1.7):
//      data_head once per call through libbpf's own ring_buffer_read_head, whose arm64
//      fallback is READ_ONCE then smp_mb (LDR; DMB ISH); every record handled in place by
//      the callback (one that wraps is copied to a scratch buffer first); one
//      ring_buffer_write_tail after the loop, smp_mb then WRITE_ONCE (DMB ISH; STR).
//  cilium-ebpf: Reader.ReadInto (cilium/ebpf perf/reader.go, perf/ring.go, v0.22): data_head
//      with atomic.LoadUint64 (LDAR) once per wake-up, each record copied out by
//      readRecord, then atomic.StoreUint64 of data_tail (STLR) after every record.
//  aya: PerfBuffer::try_fold (aya-rs/aya aya/src/maps/perf/perf_buffer.rs, 0.14):
//      ptr::read_volatile of data_head then fence(Acquire) (LDR; DMB ISHLD), records read
//      in place by the closure, then fence(SeqCst) and write_volatile of data_tail (DMB ISH;
//      STR) once per call.
//  aya-0.13: PerfBuffer::read_events (aya 0.13.1 and before): data_head read as a plain
//      field, no fence after it (LDR): (C) is missing, a bug present since 2021 and fixed
//      in aya 0.14.0 (aya-rs/aya PR #1554, "add acquire fence on perf data_head load");
//      records copied out; fence(SeqCst) before the plain data_tail store (DMB ISH; STR).
#pragma once

#include "models/memory/linux_barriers.h"
#include "models/user/consumer_policy.h"

#include <vector>

namespace ringsim::models {

struct ReaderTraits {
    ReaderKind kind;
    const char* name;  // consumer.reader's value
    BarrierKind c;     // its (C), what its code does after the data_head load
    BarrierKind d;     // its (D), before the data_tail store
    TailUpdate tail;   // when it stores data_tail
    bool refresh_head; // reads data_head again before each record (libperf's read_event)
    bool read_done;    // libperf's perf_mmap__read_done: prev = data_head after the loop
    bool copies;       // copies each record out before handling it (else: in place)
    const char* code;  // the code it mirrors, for `ringsim params` and the docs
    // Where its code puts (C) and (D), for a violation's "Fix:" line; nullptr: perf's
    // (the checker's own text).
    const char* c_fix;
    const char* d_fix;
};

// Every reader, in consumer.reader's order.
const std::vector<ReaderTraits>& all_readers();
const ReaderTraits& reader_traits(ReaderKind kind);
// nullptr for an unknown name.
const ReaderTraits* reader_named(const char* name);

} // namespace ringsim::models
