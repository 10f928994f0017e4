// Encoders for the records ringsim's kernel model writes, in the exact byte layout of
// <linux/perf_event.h> (KERNEL-SEMANTICS §2): PERF_RECORD_SAMPLE, PERF_RECORD_LOST,
// PERF_RECORD_SWITCH and PERF_RECORD_COMM, each with the sample_id trailer when
// attr.sample_id_all is set (__perf_event__output_id_sample).
// Leaves out: callchains, branch stacks, registers and every other sample field.
#pragma once

#include <cstdint>
#include <vector>

namespace ringsim::models::perf {

// What the kernel knows about the writer of a record at the moment it writes it.
struct RecordContext {
    uint64_t sample_type = 0;
    bool sample_id_all = false;
    uint32_t pid = 0, tid = 0;
    uint64_t time_ns = 0; // perf_clock at the event
    uint64_t id = 0;      // event->id
    uint32_t cpu = 0;
};

// PERF_RECORD_SAMPLE of exactly `size` bytes (a valid perf::sample_size_exact size).
// `seq` seeds the IP and RAW payload so every record's bytes are distinct.
void encode_sample(std::vector<uint8_t>& out, const RecordContext& ctx, uint64_t size, uint64_t seq,
                   uint64_t period);
void encode_lost(std::vector<uint8_t>& out, const RecordContext& ctx, uint64_t lost);
// PERF_RECORD_LOST_SAMPLES {lost} as perf record writes it at exit (builtin-record.c :
// __record__read_lost_samples): the sample_id trailer of perf_event__synthesize_id_sample,
// written whatever sample_id_all says, with only the id (ctx.id) set and the rest zero.
void encode_lost_samples(std::vector<uint8_t>& out, RecordContext ctx, uint64_t lost);
void encode_switch(std::vector<uint8_t>& out, const RecordContext& ctx, bool switch_out);
void encode_comm(std::vector<uint8_t>& out, const RecordContext& ctx, const char* comm);
// PERF_RECORD_AUX {aux_offset, aux_size, flags} (perf_event_aux_event, A3).
void encode_aux(std::vector<uint8_t>& out, const RecordContext& ctx, uint64_t aux_offset,
                uint64_t aux_size, uint64_t flags);

// PERF_RECORD_ITRACE_START {pid, tid} (perf_log_itrace_start, P4).
void encode_itrace_start(std::vector<uint8_t>& out, const RecordContext& ctx);
// PERF_RECORD_AUX_OUTPUT_HW_ID {hw_id}: for CoreSight the source's trace ID in the low 7
// bits, version 0 (etm_event_start, perf_report_aux_output_id).
void encode_aux_output_hw_id(std::vector<uint8_t>& out, const RecordContext& ctx, uint64_t hw_id);

// Sizes of the same records without building them (the size perf_prepare_header computes).
uint64_t lost_size(const RecordContext& ctx);
uint64_t switch_size(const RecordContext& ctx);
uint64_t comm_size(const RecordContext& ctx);
uint64_t aux_size(const RecordContext& ctx);
uint64_t itrace_start_size(const RecordContext& ctx);
uint64_t aux_output_hw_id_size(const RecordContext& ctx);

} // namespace ringsim::models::perf
