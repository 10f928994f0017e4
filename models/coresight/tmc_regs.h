// TMC (Trace Memory Controller) register map as the Linux driver uses it for an ETR sink:
// offsets and bits with the TRM names (CoreSight TMC TRM, ARM DDI 0461, "Programmers model";
// coresight-tmc.h TMC_* macros), exactly the subset KERNEL-SEMANTICS E3 lists.
// Leaves out: the ETB/ETF-only registers (RRD, RWD), LAR/LSR and the CoreSight management
// registers, PSCR, ITCTRL and the integration registers, AXICTL fields other than the SG bit.
#pragma once

#include <cstdint>

namespace ringsim::models::coresight::tmc {

// Register offsets from the TMC's base (bytes).
constexpr uint32_t RSZ = 0x004;   // RAM size, in 32-bit words
constexpr uint32_t STS = 0x00c;   // status
constexpr uint32_t RRP = 0x014;   // RAM read pointer, low 32 bits
constexpr uint32_t RWP = 0x018;   // RAM write pointer, low 32 bits
constexpr uint32_t TRG = 0x01c;   // trigger counter
constexpr uint32_t CTL = 0x020;   // control
constexpr uint32_t MODE = 0x028;  // mode
constexpr uint32_t RRPHI = 0x038; // RAM read pointer, high 32 bits
constexpr uint32_t RWPHI = 0x03c; // RAM write pointer, high 32 bits
constexpr uint32_t AXICTL = 0x110;
constexpr uint32_t DBALO = 0x118; // data buffer address, low 32 bits
constexpr uint32_t DBAHI = 0x11c; // data buffer address, high 32 bits
constexpr uint32_t FFSR = 0x300;  // formatter and flush status
constexpr uint32_t FFCR = 0x304;  // formatter and flush control

// STS bits.
constexpr uint32_t STS_Full = 1u << 0;
constexpr uint32_t STS_Triggered = 1u << 1;
constexpr uint32_t STS_TMCReady = 1u << 2;
constexpr uint32_t STS_MemErr = 1u << 5;

// CTL bits.
constexpr uint32_t CTL_TraceCaptEn = 1u << 0;

// MODE values (a 2-bit field, not flags).
constexpr uint32_t MODE_CIRCULAR_BUFFER = 0;
constexpr uint32_t MODE_SOFTWARE_FIFO = 1;
constexpr uint32_t MODE_HARDWARE_FIFO = 2;

// AXICTL: bit 7 selects the scatter-gather table walk (TMC_AXICTL_SCT_GAT_MODE).
constexpr uint32_t AXICTL_ScatterGather = 1u << 7;

// FFSR bits.
constexpr uint32_t FFSR_FtStopped = 1u << 1;

// FFCR bits.
constexpr uint32_t FFCR_EnFt = 1u << 0;
constexpr uint32_t FFCR_EnTI = 1u << 1;
constexpr uint32_t FFCR_FOnFlIn = 1u << 4;
constexpr uint32_t FFCR_FOnTrigEvt = 1u << 5;
constexpr uint32_t FFCR_FlushMan = 1u << 6;
constexpr uint32_t FFCR_TrigOnTrigIn = 1u << 8;
constexpr uint32_t FFCR_StopOnFl = 1u << 12;

// What __tmc_etr_enable_hw writes to FFCR (StopOnFl is added only when configured).
constexpr uint32_t kEtrEnableFfcr =
    FFCR_EnFt | FFCR_EnTI | FFCR_FOnFlIn | FFCR_FOnTrigEvt | FFCR_TrigOnTrigIn;

} // namespace ringsim::models::coresight::tmc

namespace ringsim::models::coresight {

// What the registers say once the driver has synced the buffer (E4), as buffer offsets: the
// state the sink hands the driver's harvest (etr_update.h).
struct EtrSyncState {
    uint64_t size = 0;    // the ETR buffer (RSZ, in bytes)
    uint64_t rrp_off = 0; // RRP - base (the start of valid data)
    uint64_t rwp_off = 0; // RWP - base
    bool full = false;    // STS.Full: the write pointer wrapped at least once
    bool memerr = false;  // STS.MemErr: the whole capture is discarded (D10)
};

} // namespace ringsim::models::coresight
