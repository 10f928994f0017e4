// The synthetic loop's A64 encodings (see etm_program.h).
#include "models/coresight/etm_program.h"

namespace ringsim::models::coresight {

namespace {
// B <label>: 0b000101 imm26, the target is PC + imm26 * 4 (Arm ARM, "B": C6.2.26 in DDI0487).
uint32_t a64_branch(int64_t byte_offset) {
    const auto imm26 = static_cast<uint32_t>(byte_offset / 4) & 0x03ffffffu;
    return 0x14000000u | imm26;
}
} // namespace

std::vector<uint32_t> loop_code() {
    std::vector<uint32_t> code(kLoopInstructions, kA64Nop);
    code.back() = a64_branch(-int64_t{4} * (kLoopInstructions - 1));
    return code;
}

std::vector<uint8_t> loop_code_bytes() {
    std::vector<uint8_t> bytes;
    for (uint32_t insn : loop_code())
        for (int i = 0; i < 4; ++i)
            bytes.push_back(static_cast<uint8_t>(insn >> (8 * i)));
    return bytes;
}

} // namespace ringsim::models::coresight
