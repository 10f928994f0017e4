// The records a record writer outputs (record_writer.h): a PERF_RECORD_SAMPLE from an
// overflowing event, a PERF_RECORD_SWITCH from a context switch, a PERF_RECORD_COMM from
// an exec.
#pragma once

namespace ringsim::models {

enum class RecordKind { sample, switch_, comm };

} // namespace ringsim::models
