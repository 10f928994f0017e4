// Fuzz target: the trace decoder (models/coresight/trace_decoder.h), which deformats AUX
// chunks and decodes each trace ID's bytes as an ETM stream (etm_packets.h), the way the
// checker reads the AUX data a consumer collected.
// Input: u8 options, u16 first count, then chunks, each u8 jump (0: the chunk follows the
// previous one; else the AUX offset jumps by (jump - 128) bytes, a hole or an overlap), u16
// length, and that many bytes (fewer at the end). Each chunk is an exact-size copy.
#include "models/coresight/trace_decoder.h"
#include "tests/fuzz/input.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ringsim::models::coresight;
    ringsim::fuzz::Input in(data, size);
    const uint8_t flags = in.u8();
    TraceDecoderOptions o;
    o.frame_align = (flags & 1) ? 0 : kFrameSize;
    o.check_first_count = flags & 2;
    o.first_count = in.u16();
    o.max_gaps = (flags & 4) ? 2 : size_t(1) << 16; // the caps, reached or not
    o.max_barriers = (flags & 8) ? 1 : size_t(1) << 16;
    uint64_t sum = 0;
    o.on_counts = [&sum](uint8_t id, uint64_t first, uint64_t n) { sum += id + first + n; };
    if (flags & 16) {
        // Where a frame's bytes start in the source's stream: known for most frames, so that
        // both the splice check and its "unknown" path run.
        o.source_offset = [](uint8_t id, uint64_t frame) -> std::optional<SourceRun> {
            const uint64_t f = frame / kFrameSize;
            if (f % 5 == 4) return std::nullopt;
            return SourceRun{f * kFrameDataSlots + id, (f / 5 * 5 + 4) * kFrameSize,
                             kFrameDataSlots};
        };
        o.on_spliced = [&sum](uint8_t id, uint64_t count) { sum += id ^ count; };
    }
    o.batch_frames = !(flags & 32);
    TraceDecoder decoder(o);
    uint64_t offset = uint64_t(flags >> 6) << 12; // AUX offsets need not start at 0
    while (!in.empty()) {
        const uint8_t jump = in.u8();
        size_t n = 0;
        const uint8_t* p = in.bytes(in.u16(), n);
        if (jump != 0) offset += uint64_t(int64_t(jump) - 128);
        const std::vector<uint8_t> chunk(p, p + n);
        decoder.feed(offset, chunk.data(), chunk.size());
        offset += n;
    }
    decoder.finish();
    for (const TraceIdSummary& s : decoder.summaries())
        sum += s.counts + s.gaps + s.missing_counts + s.skipped_bytes;
    for (const TraceGap& g : decoder.gaps())
        sum += g.first_missing + g.missing;
    const TraceDecodeStats st = decoder.stats();
    sum += st.undecodable_frame_bytes() + st.barriers + decoder.barrier_offsets().size() +
           decoder.gaps_dropped();
    ringsim::fuzz::g_sink = sum; // keeps the work from being optimised away
    return 0;
}
