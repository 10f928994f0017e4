// The arithmetic of the TMC-ETR driver's harvest at pmu::stop: which bytes of the ETR
// buffer are kept, where the barrier packet goes, and how they are copied into the AUX
// pages, wrapping at both buffers' ends. Pure C++; the driver model does the accesses.
// Mirrors drivers/hwtracing/coresight/coresight-tmc-etr.c : tmc_sync_etr_buf (via the flat
// and SG ops->sync), tmc_update_etr_buffer, tmc_etr_sync_perf_buffer, and
// coresight-tmc.h : tmc_get_memwidth_mask (KERNEL-SEMANTICS E4, E5, E6; D2, D3, D10, D14).
// Leaves out: the shared-sink refcount (a caller's decision, E5's first step).
#pragma once

#include "models/coresight/tmc_regs.h"

#include <cstdint>
#include <vector>

namespace ringsim::models {

using coresight::EtrSyncState; // what the TMC's registers say at sync (tmc_regs.h)

struct EtrCopy {
    uint64_t etr_off = 0; // source offset in the ETR buffer
    uint64_t aux_off = 0; // destination offset in the AUX buffer
    uint64_t len = 0;
};

struct EtrHarvest {
    uint64_t offset = 0;         // where the kept data start in the ETR buffer
    uint64_t size = 0;           // bytes committed to the AUX buffer (perf_aux_output_end size)
    bool lost = false;           // data lost: a barrier packet replaces the first 16 bytes
    bool truncated = false;      // PERF_AUX_FLAG_TRUNCATED (never in snapshot mode, E6)
    uint64_t new_head = 0;       // snapshot mode: handle->head after the copy
    std::vector<EtrCopy> copies; // at most three: split at the ETR end and the AUX end
};

// tmc_get_memwidth_mask: 16-byte units, 32 for a 256-bit memory interface.
constexpr uint64_t memwidth_mask(unsigned memwidth_bits) {
    return memwidth_bits == 256 ? ~uint64_t{31} : ~uint64_t{15};
}

// The harvest of one stop. `handle_size` is the AUX room from perf_aux_output_begin (A2),
// `handle_head` the AUX position to copy to, `aux_size` the AUX buffer.
EtrHarvest etr_update_buffer(const EtrSyncState& hw, bool snapshot, uint64_t handle_size,
                             uint64_t handle_head, uint64_t aux_size, uint64_t mask);

} // namespace ringsim::models
