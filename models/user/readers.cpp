#include "models/user/readers.h"

#include <cstring>

namespace ringsim::models {

const std::vector<ReaderTraits>& all_readers() {
    using B = BarrierKind;
    using T = TailUpdate;
    // name, (C), (D), tail, refresh_head, read_done, copies, the code, the fixes (readers.h)
    static const std::vector<ReaderTraits> readers{
        {ReaderKind::push, "push", B::acquire, B::release, T::batch, false, false, true,
         "perf record's perf_mmap__push (tools/perf/util/mmap.c, perf 6.1)", nullptr, nullptr},
        {ReaderKind::libperf, "libperf", B::acquire, B::release, T::per_record, true, true, true,
         "libperf's perf_mmap__read_init/read_event/consume/read_done (tools/lib/perf/mmap.c)",
         nullptr, nullptr},
        {ReaderKind::libbpf, "libbpf", B::mb, B::mb, T::batch, false, false, false,
         "libbpf's perf_buffer__poll -> perf_event_read_simple (libbpf v1.7, src/libbpf.c)",
         "(C) smp_mb() after READ_ONCE(data_head) in libbpf's ring_buffer_read_head, paired "
         "with (B)",
         "(D) smp_mb() before WRITE_ONCE(data_tail) in libbpf's ring_buffer_write_tail, paired "
         "with (A)"},
        {ReaderKind::cilium_ebpf, "cilium-ebpf", B::acquire, B::release, T::per_record, false,
         false, true, "cilium/ebpf's perf.Reader.ReadInto (v0.22, perf/reader.go, perf/ring.go)",
         "(C) atomic.LoadUint64(&meta.Data_head) in forwardReader.loadHead, paired with (B)",
         "(D) atomic.StoreUint64(&meta.Data_tail) in forwardReader.writeTail, paired with (A)"},
        {ReaderKind::aya, "aya", B::rmb, B::mb, T::batch, false, false, false,
         "aya's PerfBuffer::try_fold (aya 0.14, aya/src/maps/perf/perf_buffer.rs)",
         "(C) atomic::fence(Ordering::Acquire) after ptr::read_volatile of data_head, paired "
         "with (B)",
         "(D) atomic::fence(Ordering::SeqCst) before ptr::write_volatile of data_tail, paired "
         "with (A)"},
        {ReaderKind::aya_0_13, "aya-0.13", B::none, B::mb, T::batch, false, false, true,
         "aya's PerfBuffer::read_events (aya 0.13.1 and before: no fence after data_head)",
         "(C) atomic::fence(Ordering::Acquire) after the data_head load, as aya 0.14 does "
         "(aya-rs/aya PR #1554), paired with (B)",
         "(D) atomic::fence(Ordering::SeqCst) before the data_tail store, paired with (A)"},
    };
    return readers;
}

const ReaderTraits& reader_traits(ReaderKind kind) {
    for (const ReaderTraits& r : all_readers())
        if (r.kind == kind) return r;
    return all_readers().front();
}

const ReaderTraits* reader_named(const char* name) {
    for (const ReaderTraits& r : all_readers())
        if (std::strcmp(r.name, name) == 0) return &r;
    return nullptr;
}

} // namespace ringsim::models
