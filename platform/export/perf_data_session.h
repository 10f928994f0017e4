// What perf record would know about ringsim's session when it writes perf.data: its events
// (one evsel per scenario writer, and the cs_etm event of an AUX session) with their attrs
// and ids, the machine, the PMUs, and the CoreSight metadata of PERF_RECORD_AUXTRACE_INFO.
// Mirrors tools/perf/arch/arm/util/cs-etm.c : cs_etm_info_fill and cs_etm_get_metadata
// (perf 6.1) for the AUXTRACE_INFO layout; evsel__config for the attrs.
#pragma once

#include "models/kernel/record_kind.h"
#include "platform/export/perf_data_writer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::platform {

// The dynamic PMU type of cs_etm (/sys/bus/event_source/devices/cs_etm/type): any number
// above the fixed PERF_TYPE_* ones; ringsim's machine gives it this one.
constexpr uint32_t kCsEtmPmuType = 9;
// PERF_RECORD_AUXTRACE_INFO's type for CoreSight (tools/perf/util/auxtrace.h).
constexpr uint32_t kAuxtraceCsEtm = 3;
// The period of every sampling writer's event (-c 100000 on a cycles event).
constexpr uint64_t kSamplePeriod = 100000;

struct PerfDataInputs {
    struct Event {
        std::string name;
        models::RecordKind record = models::RecordKind::sample;
        std::vector<uint64_t> ids; // by CPU, or the one of the task
        bool raw = false;          // its samples carry PERF_SAMPLE_RAW (bigger than the fixed part)
        bool cpu_clock = false;    // PERF_COUNT_SW_CPU_CLOCK (R12), else cycles
        uint64_t cpu_clock_period = 0; // its sample_period, ns
    };
    struct Etm {
        unsigned cpu = 0;
        uint8_t trace_id = 0;
    };
    std::vector<Event> events;                // the writers' events, in scenario order
    std::vector<uint64_t> cs_etm_ids;         // the cs_etm event's ids; empty: no AUX
    std::vector<Etm> etms;                    // by CPU, ascending
    std::vector<PerfDataSession::Mmap> mmaps; // by buffer
    bool snapshot = false;                    // -S
    bool write_backward = false;              // --overwrite: attr.write_backward
    uint64_t sample_type = 0;
    bool sample_id_all = false;
    unsigned nr_cpus = 0; // platform.cpus
    uint64_t seed = 0;
};

PerfDataSession make_perf_data_session(const PerfDataInputs& in);

// Why perf report would refuse the file of this session, as an error naming the scenario
// key, what it expects and what it found; empty when it would not. perf refuses several
// events whose samples carry no id ("non matching sample_type": evlist__valid_sample_type),
// which perf record avoids by sampling the id whenever it opens more than one event.
std::string perf_data_refusal(const PerfDataSession& s);

// The ETMv4 ID registers ringsim's ETMs report (the values perf copies from sysfs into
// the metadata): an ETMv4.2 with 64-bit timestamps and addresses.
constexpr uint64_t kTrcIdr0 = 0x28000ea1;   // TSSIZE 64 bits, COMMOPT 1, RETSTACK, CCI, BB
constexpr uint64_t kTrcIdr1 = 0x4100f424;   // ETMv4.2, designer Arm
constexpr uint64_t kTrcIdr2 = 0x00000088;   // IASIZE 64 bits, CIDSIZE 32 bits, no VMID
constexpr uint64_t kTrcIdr8 = 0;            // MAXSPEC 0
constexpr uint64_t kTrcAuthStatus = 0xcc;   // non-secure invasive and non-invasive debug on
constexpr uint64_t kTrcConfigTs = 1u << 11; // TRCCONFIGR.TS: global timestamps on

} // namespace ringsim::platform
