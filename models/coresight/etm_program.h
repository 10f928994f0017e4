// The synthetic program every ETM traces: what its instruction trace (etm_packets.h) describes,
// so that a real decoder (OpenCSD, `perf report -D`) given this program's memory image can
// follow the trace instruction by instruction.
//
// The program is a loop of kLoopInstructions A64 instructions: kLoopInstructions - 1 NOPs and
// a final unconditional `B` back to the first one. One iteration is one P0 element, the taken
// branch: one E atom (ETMv4, Arm IHI0064, "Atom elements"). The loop of the source with trace
// ID id sits at loop_base(id) = kLoopBase + id * kLoopStride (one 4 KiB page per trace ID), so
// the address in each source's trace says which source it is. It runs at EL0, AArch64, Non-secure
// (the traced task of a perf session), with no Context ID or VMID traced.
// Fixed here rather than in the scenario: no result of ringsim depends on the addresses.
#pragma once

#include <cstdint>
#include <vector>

namespace ringsim::models::coresight {

constexpr uint64_t kLoopBase = 0x400000;
constexpr uint64_t kLoopStride = 0x1000;
constexpr unsigned kLoopInstructions = 8;
constexpr uint32_t kA64Nop = 0xd503201f; // NOP (HINT #0)

// The first instruction of trace ID id's loop (also the target of its closing branch).
constexpr uint64_t loop_base(uint8_t trace_id) {
    return kLoopBase + uint64_t{trace_id} * kLoopStride;
}

// The A64 encodings of the loop, first instruction first (position independent: the branch is
// PC-relative), for a memory image.
std::vector<uint32_t> loop_code();
// The same as the little-endian bytes the PE fetches.
std::vector<uint8_t> loop_code_bytes();

} // namespace ringsim::models::coresight
