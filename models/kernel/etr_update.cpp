#include "models/kernel/etr_update.h"

#include <algorithm>

namespace ringsim::models {

EtrHarvest etr_update_buffer(const EtrSyncState& hw, bool snapshot, uint64_t handle_size,
                             uint64_t handle_head, uint64_t aux_size, uint64_t mask) {
    EtrHarvest h;
    h.new_head = handle_head;
    // tmc_sync_etr_buf / ops->sync (E4): RRP is the start; a full buffer holds `size` bytes.
    // MemErr: the driver warns and discards everything, with no flag (D10).
    uint64_t offset = hw.rrp_off;
    uint64_t len = hw.full ? hw.size
                           : (hw.rwp_off >= hw.rrp_off ? hw.rwp_off - hw.rrp_off
                                                       : hw.size - hw.rrp_off + hw.rwp_off);
    bool lost = hw.full;
    if (hw.memerr) {
        len = 0;
        lost = false;
    }
    uint64_t size = len;
    // tmc_update_etr_buffer (E5): more than the AUX room: keep the newest bytes, in whole
    // memory-width units.
    if (!snapshot && size > handle_size) {
        size = handle_size & mask;
        offset = (offset + len - size) % hw.size;
        lost = true;
    }
    h.offset = offset;
    h.size = size;
    h.lost = lost;
    h.truncated = !snapshot && lost;
    // tmc_etr_sync_perf_buffer: copy `size` bytes from ETR[offset] to AUX[head % aux_size],
    // each step as long as neither buffer wraps.
    uint64_t src = offset, dst = handle_head % aux_size, left = size;
    while (left) {
        const uint64_t n = std::min({left, hw.size - src, aux_size - dst});
        h.copies.push_back({src, dst, n});
        left -= n;
        src = (src + n) % hw.size;
        dst = (dst + n) % aux_size;
    }
    if (snapshot) h.new_head = handle_head + size; // E6: even when it laps the AUX buffer
    return h;
}

} // namespace ringsim::models
