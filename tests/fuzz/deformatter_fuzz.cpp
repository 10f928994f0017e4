// Fuzz target: the CoreSight frame deformatter (models/coresight/formatter.h : Deformatter),
// which unpacks the 16-byte frames of formatted trace, FSYNCs and barrier packets.
// Input: u8 seed for the chunking, then the trace bytes. The bytes are deformatted twice: in
// one feed(), and in chunks of sizes drawn from the seed (feed() accepts any chunking): both
// must report the same thing. A third pass adds a reset() (a discontinuity) between chunks.
#include "models/coresight/formatter.h"
#include "tests/fuzz/input.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using namespace ringsim::models::coresight;

// Everything the deformatter says, in order, as numbers.
struct Log final : DeformatterSink {
    std::vector<uint64_t> events;
    void on_data(uint8_t id, const uint8_t* data, size_t n, uint64_t frame_pos) override {
        events.insert(events.end(), {1, id, frame_pos, n});
        for (size_t i = 0; i < n; ++i)
            events.push_back(data[i]);
    }
    void on_fsync(uint64_t pos, uint64_t count) override {
        events.insert(events.end(), {2, pos, count});
    }
    void on_frame_error(uint64_t pos, FrameError e, uint64_t bytes) override {
        events.insert(events.end(), {3, pos, uint64_t(e), bytes});
        (void)to_string(e);
    }
    void on_unattributed(uint64_t frame_pos, size_t n) override {
        events.insert(events.end(), {4, frame_pos, n});
    }
};

bool same(const DeformatterStats& a, const DeformatterStats& b) {
    return a.frames == b.frames && a.fsyncs == b.fsyncs && a.fsync_runs == b.fsync_runs &&
           a.barriers == b.barriers && a.source_bytes == b.source_bytes &&
           a.null_bytes == b.null_bytes && a.special_bytes == b.special_bytes &&
           a.unattributed_bytes == b.unattributed_bytes &&
           a.reserved_id_frames == b.reserved_id_frames &&
           a.reserved_id_bytes == b.reserved_id_bytes && a.partial_bytes == b.partial_bytes &&
           a.id_bytes == b.id_bytes;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    ringsim::fuzz::Input in(data, size);
    uint32_t state = in.u8() * 2654435761u + 1;
    size_t n = 0;
    const uint8_t* p = in.bytes(in.left(), n);
    // Exact-size copy: a read past the end is caught.
    const std::vector<uint8_t> bytes(p, p + n);
    const auto next_chunk = [&state] {
        state = state * 1103515245u + 12345u;
        return size_t((state >> 16) % 41); // 0..40: within and across frames
    };

    Log whole;
    Deformatter one(whole);
    one.feed(bytes.data(), bytes.size());
    one.finish();

    Log chunked;
    Deformatter many(chunked);
    for (size_t at = 0; at < bytes.size();) {
        const size_t k = std::min(next_chunk(), bytes.size() - at);
        const std::vector<uint8_t> chunk(bytes.begin() + at, bytes.begin() + at + k);
        many.feed(chunk.data(), chunk.size());
        at += k;
    }
    many.finish();
    if (whole.events != chunked.events || !same(one.stats(), many.stats()) ||
        one.position() != many.position())
        __builtin_trap(); // the chunking changed what the deformatter reports

    Log reset_log;
    Deformatter reset(reset_log);
    uint64_t pos = 0;
    for (size_t at = 0; at < bytes.size();) {
        const size_t k = std::min(next_chunk(), bytes.size() - at);
        if (k % 7 == 3) reset.reset(pos += k); // a jump forward: bytes went missing
        reset.feed(bytes.data() + at, k);
        at += k;
        pos += k;
    }
    reset.finish();
    return 0;
}
