// Writes the binary seeds of tests/fuzz/corpus: records made by ringsim's own record encoders
// (models/kernel/perf_records.h), trace made by its ETM encoder and frame formatter. Run it
// from a RINGSIM_FUZZ tree: `fuzz_make_seeds tests/fuzz/corpus`. The seeds are committed;
// rerunning it rewrites the same files.
#include "models/coresight/etm_packets.h"
#include "models/coresight/formatter.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_records.h"

#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;
namespace cs = ringsim::models::coresight;
namespace perf = ringsim::models::perf;

std::string g_dir;

void put_u(Bytes& b, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
        b.push_back(uint8_t(v >> (8 * i)));
}

void write(const std::string& target, const std::string& name, const Bytes& b) {
    const std::string path = g_dir + "/" + target + "/" + name;
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    std::cout << path << " " << b.size() << " bytes\n";
}

// The record_parser input: flags, sample_type, then records of every type ringsim writes.
Bytes records(uint64_t st, bool sample_id_all, bool truncate) {
    perf::RecordContext ctx;
    ctx.sample_type = st;
    ctx.sample_id_all = sample_id_all;
    ctx.pid = 42;
    ctx.tid = 43;
    ctx.time_ns = 1000;
    ctx.id = 7;
    ctx.cpu = 1;
    Bytes body;
    perf::encode_itrace_start(body, ctx);
    perf::encode_aux_output_hw_id(body, ctx, 0x10);
    for (uint64_t i = 0; i < 3; ++i)
        perf::encode_sample(body, ctx, perf::sample_fixed_size(st) + 8 * i, i, 1);
    perf::encode_lost(body, ctx, 5);
    perf::encode_switch(body, ctx, true);
    perf::encode_comm(body, ctx, "writer");
    perf::encode_aux(body, ctx, 0, 4096, PERF_AUX_FLAG_TRUNCATED);
    perf::encode_lost_samples(body, ctx, 3);
    if (truncate) body.resize(body.size() - 12);
    Bytes b{uint8_t(sample_id_all)};
    put_u(b, st, 8);
    b.insert(b.end(), body.begin(), body.end());
    return b;
}

// ETM bytes of one source: a start block, `n` count packets from `first`, a sync in between.
Bytes etm(uint64_t first, int n) {
    Bytes b(cs::kStartSize);
    cs::put_start(0x400000, b.data());
    for (int i = 0; i < n; ++i) {
        if (i == n / 2) {
            const size_t at = b.size();
            b.resize(at + cs::kSyncSize);
            cs::put_sync(0x400000, b.data() + at);
        }
        const size_t at = b.size();
        b.resize(at + cs::kCountPacketSize);
        cs::put_count_packet(first + uint64_t(i), b.data() + at);
    }
    return b;
}

// Formatted trace of two sources (IDs 0x10 and 0x11), interleaved in writes of a few packets.
Bytes formatted(bool id_every_frame, bool barrier, bool gap) {
    cs::FrameEncoder enc(cs::FormatterOptions{id_every_frame});
    const Bytes a = etm(0, 12), c = etm(100, 12);
    Bytes out;
    for (size_t at = 0; at < a.size(); at += 24) {
        const size_t na = std::min<size_t>(24, a.size() - at);
        if (!(gap && at == 48)) enc.write(0x10, a.data() + at, na, out);
        const size_t nc = std::min<size_t>(24, c.size() - std::min(at, c.size()));
        if (nc) enc.write(0x11, c.data() + at, nc, out);
    }
    enc.flush(out);
    if (barrier && out.size() >= 3 * cs::kFrameSize) cs::insert_barrier_packet(out.data() + 32);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: fuzz_make_seeds CORPUS_DIR\n";
        return 2;
    }
    g_dir = argv[1];
    const uint64_t tid_time_cpu = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
    write("record_parser", "sid-all-tid-time-cpu-identifier",
          records(tid_time_cpu | PERF_SAMPLE_IDENTIFIER, true, false));
    write("record_parser", "every-field",
          records(tid_time_cpu | PERF_SAMPLE_IP | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID |
                      PERF_SAMPLE_IDENTIFIER,
                  true, false));
    write("record_parser", "no-sample-id-all-truncated", records(tid_time_cpu, false, true));

    for (int v = 0; v < 4; ++v) {
        const bool every = v & 1, barrier = v & 2;
        const Bytes f = formatted(every, barrier, false);
        Bytes d{uint8_t(17 * v)};
        d.insert(d.end(), f.begin(), f.end());
        const std::string name =
            std::string(every ? "id-every-frame" : "id-on-change") + (barrier ? "-barrier" : "");
        write("deformatter", name, d);

        // trace_decoder: flags, first count, then the trace in two chunks (with a hole in
        // the odd variants).
        const Bytes g = formatted(true, barrier, v == 1);
        Bytes t{uint8_t(v == 3 ? 0x12 : 0x02)};
        put_u(t, 0, 2);
        const size_t half = g.size() / 2 / cs::kFrameSize * cs::kFrameSize;
        t.push_back(0);
        put_u(t, half, 2);
        t.insert(t.end(), g.begin(), g.begin() + long(half));
        t.push_back(v & 1 ? 128 + 32 : 0);
        put_u(t, g.size() - half, 2);
        t.insert(t.end(), g.begin() + long(half), g.end());
        write("trace_decoder", name + (v == 1 ? "-lost-writes" : ""), t);
    }
    return 0;
}
