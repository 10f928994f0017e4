// The perf tool's reading policies (perf_consumer.h says what each does): which reader,
// and when it stores data_tail.
#pragma once

namespace ringsim::models {

// perf's two readers, then those of other projects (readers.h).
enum class ReaderKind { push, libperf, libbpf, cilium_ebpf, aya, aya_0_13 };
enum class TailUpdate { batch, per_record };

} // namespace ringsim::models
