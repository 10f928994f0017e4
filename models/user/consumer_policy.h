// The perf tool's reading policies (perf_consumer.h says what each does): which reader,
// when it stores data_tail, and how its per-record cost is drawn.
#pragma once

namespace ringsim::models {

// perf's two readers, then those of other projects (readers.h).
enum class ReaderKind { push, libperf, libbpf, cilium_ebpf, aya, aya_0_13 };
enum class TailUpdate { batch, per_record };
enum class CostDistribution { fixed, exponential };

} // namespace ringsim::models
