// The barriers Linux 6.1 and perf 6.1 put at the four sites of each ring buffer
// (KERNEL-SEMANTICS §9): (A) the producer's control dependency on the tail, (B) its barrier
// before publishing the head, (C) the consumer's after reading the head, (D) its barrier
// before storing the tail. The models default to them, and so do the scenario's barrier
// switches (params.cpp takes its defaults from here): one statement of what Linux does.
#pragma once

#include "models/memory/memory_port.h"

namespace ringsim::models {

struct ProtocolBarriers {
    BarrierKind a, b, c, d;
};

// The regular ring buffer: __perf_output_begin's control dependency on data_tail,
// perf_output_put_handle's smp_wmb, perf's smp_load_acquire of data_head and
// smp_store_release of data_tail (C1, C2).
constexpr ProtocolBarriers kLinuxDataBarriers{BarrierKind::ctrl, BarrierKind::wmb,
                                              BarrierKind::acquire, BarrierKind::release};
// The AUX buffer: perf_aux_output_begin's control dependency on aux_tail, the ETR driver's
// smp_wmb after its copy (tmc_update_etr_buffer), perf's smp_rmb after reading aux_head and
// its smp_mb before storing aux_tail (A2, E5, C6).
constexpr ProtocolBarriers kLinuxAuxBarriers{BarrierKind::ctrl, BarrierKind::wmb, BarrierKind::rmb,
                                             BarrierKind::mb};

} // namespace ringsim::models
