// The data buffer against queueing theory (issue 9): scenarios/sweeps/mm1k-base.json makes
// it an M/M/1/K queue, scenarios/sweeps/mm1k.json sweeps it over the 12 points below, and
// the loss fraction records.lost / records.produced of each point, as `ringsim sweep`
// measures it, must lie within its confidence interval of the blocking probability (the 12
// intervals holding together at 99%)
//   P_K = (1 - rho) rho^K / (1 - rho^(K+1)),   1 / (K + 1) at rho = 1
// (the limit of the formula as rho -> 1; the "K / (K+1)" is the probability that
// an arrival is *not* lost there), at rho in {0.5, 0.9, 1.0, 1.5} and K in {3, 7, 15}.
//
// The mapping (the scenario's description says the same): Poisson arrivals of one record
// size from one writer; wakeup_events = 1 with zero irq_work and wake-up latency, so the
// consumer starts on a record the instant it is published; the libperf reader handles one
// record at a time for an exponential time of mean 1 us (mu = 1 MHz) and stores data_tail
// after each (tail_update per_record), so the record in service holds its room until its
// service ends, as the customer in service counts towards K. Copy and write bandwidth of
// 1000000GB/s cost 4 ps per 1 KiB record (each rounded up to 2 ps) against 1 us of service,
// TLB and faults cost nothing, and the kernel writes in zero time (write_time 0).
//
// K, and why PERF_RECORD_LOST records never reduce it: the kernel admits a reservation when
// CIRC_SPACE = (tail - head - 1) mod size >= its size (R1), so an empty buffer offers
// size - 1 bytes and holds K = floor((size - 1) / r) records of r bytes; the (K+1)-th
// finds less than r and is lost (R5). After a loss the next record that fits carries a
// PERF_RECORD_LOST in front of it, in the same reservation: 24 bytes here (sample_id_all is
// off, so no sample_id trailer). A LOST record sits in the buffer only just before its own
// sample, so with n <= K-1 samples unread at most n LOST records are there too, and an
// arrival then needs n (r + 24) + 24 + r bytes: the sizes below satisfy
// K (r + 24) <= size - 1 < (K + 1) r, so every arrival that finds fewer than K samples fits,
// LOST record and all, and none that finds K does:
//   K = 3:  one 4KiB page,  r = 1024B: 3 x 1048 = 3144 <= 4095 < 4096
//   K = 7:  one 4KiB page,  r = 512B:  7 x 536  = 3752 <= 4095 < 4096
//   K = 15: two 4KiB pages, r = 512B: 15 x 536  = 8040 <= 8191 < 8192
// A LOST record also costs the consumer service time unless told otherwise: with the
// default lost_record_cost (= per_record_cost) each loss episode adds one more exponential
// service that the M/M/1/K formula does not have (with lost_record_cost = 1us, K = 3 loses
// 55.5% of 1e6 records at rho = 1.5 where P_K = 41.5%, and 7.5% at rho = 0.5 where
// P_K = 6.7%). perf's handlers only count a LOST record, so the scenario sets
// lost_record_cost to 0s; its 24 bytes cost 2 ps of copy and write at that bandwidth.
//
// The confidence interval: losses come in bursts (the buffer stays full for a while), so
// lost/produced of one run is not a binomial proportion and the binomial interval would be
// too narrow. Each point runs R = 20 independent replications (the sweep's replicates, each an
// independent run from an empty buffer with its own seed), and the interval is the mean of their
// loss fractions +- t s / sqrt(R), s their sample standard deviation: correlation inside a run only
// widens s. The 12 intervals hold together at 99% (Bonferroni: t(1 - 0.005/12, 19), each point's
// own at 99.92%): with each at 99%, a perfect M/M/1/K would miss at one point or more for about one
// seed set in nine, and the seeds derive from the spec's seed and the points' ids, which hash the
// resolved scenario, so a change that only adds a scenario key moves every seed (issue 16's
// distributed times did, and K = 3, rho = 0.9 then fell 0.85% below P_K, just outside its 99%
// half-width of 0.77%, while the other eleven deviated both ways). A model error shows as a
// deviation of one sign at many points, or far outside the interval; the test prints every point's
// deviation to tell them apart. The initial transient (an empty buffer at t = 0) lasts a few
// records out of tens of thousands per replication. The records per point are set so that the
// half-width is below 10% of P_K, and the test checks that too.
//
// Reduced (tests/support/reduced.h), the sweep is scenarios/sweeps/mm1k-quick.json's (the same
// 12 points with about 2e4 records a replicate) with 2 replicates: every point still runs its
// queue into losses and LOST records under the sanitizers, and must complete with no
// violation; the interval checks, which need the full sweep's hour of records, are left to
// the full run.
#include "tests/support/reduced.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kMu = 1e6; // 1 / per_record_cost
constexpr int kReplications = 20;
constexpr int kReducedReplications = 2;
// Student's t with 19 degrees of freedom at 1 - 0.005/12: 12 intervals that hold together at
// 99% (Bonferroni).
constexpr double kT99 = 3.9632;
constexpr double kPageSize = 4096;

double blocking(double rho, int k) {
    if (rho == 1.0) return 1.0 / (k + 1);
    return (1 - rho) * std::pow(rho, k) / (1 - std::pow(rho, k + 1));
}

// "900kHz" -> 9e5, "1024B" -> 1024: the plain units mm1k.json writes.
double quantity(const std::string& text, const std::string& unit, double scale) {
    EXPECT_EQ(text.substr(text.size() - unit.size()), unit) << text;
    return std::stod(text.substr(0, text.size() - unit.size())) * scale;
}

struct PointRuns {
    json axes;
    std::vector<double> fractions;
    uint64_t produced = 0, lost = 0, violations = 0;
};

TEST(Mm1k, EveryPointOfTheSweepHasPKWithinIts99PercentInterval) {
    const fs::path dir = fs::temp_directory_path() / ("ringsim-mm1k-" + std::to_string(getpid()));
    fs::remove_all(dir);
    const bool reduced = ringsim::testing_support::reduced();
    const std::string sweeps = std::string(RINGSIM_SOURCE_DIR) + "/scenarios/sweeps/";
    std::string spec = sweeps + "mm1k.json";
    if (reduced) {
        std::ifstream quick(sweeps + "mm1k-quick.json");
        json j = json::parse(quick);
        j["scenario"] = sweeps + "mm1k-base.json";
        j["replicates"] = kReducedReplications;
        spec = dir.string() + "-reduced.json";
        std::ofstream(spec) << j.dump(2);
    }
    const int replications = reduced ? kReducedReplications : kReplications;
    const std::string cmd = std::string(RINGSIM_BINARY) + " sweep " + spec + " --jobs 2 --out " +
                            dir.string() + " > " + dir.string() + ".log 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << dir.string() << ".log";

    std::map<std::string, PointRuns> points; // by point id
    std::ifstream in(dir / "points-0-of-1.jsonl");
    for (std::string text; std::getline(in, text);) {
        const json line = json::parse(text);
        ASSERT_EQ(line["status"], "ok") << text.substr(0, 400);
        PointRuns& p = points[line["point"]];
        p.axes = line["axes"];
        const json& records = line["stats"]["total"]["records"];
        const uint64_t produced = records["produced"], lost = records["lost"];
        ASSERT_GT(produced, 0u);
        p.fractions.push_back(double(lost) / double(produced));
        p.produced += produced;
        p.lost += lost;
        p.violations += line["stats"]["total"]["violations"]["total"].get<uint64_t>();
    }
    ASSERT_EQ(points.size(), 12u);
    std::map<std::pair<int, double>, int> seen; // every (K, rho) of the issue, once
    for (const auto& [id, p] : points) {
        ASSERT_EQ(p.fractions.size(), size_t(replications)) << id;
        const double rho = quantity(p.axes["workload.writers.0.rate"], "kHz", 1e3) / kMu;
        const double size = quantity(p.axes["workload.writers.0.size"], "B", 1);
        const int k = int((p.axes["session.data_pages"].get<double>() * kPageSize - 1) / size);
        ++seen[{k, rho}];
        if (reduced) { // two replicates: no interval to speak of, only the books
            EXPECT_EQ(p.violations, 0u) << "K = " << k << ", rho = " << rho;
            continue;
        }
        const double pk = blocking(rho, k);
        double sum = 0, sum2 = 0;
        for (double f : p.fractions) {
            sum += f;
            sum2 += f * f;
        }
        const double mean = sum / kReplications;
        const double var = (sum2 - kReplications * mean * mean) / (kReplications - 1);
        const double half = kT99 * std::sqrt(std::max(var, 0.0) / kReplications);
        std::printf("mm1k K=%d rho=%.1f P_K=%.6g records=%llu lost=%llu loss=%.6g "
                    "ci99=[%.6g, %.6g] half=%.2f%% of P_K deviation=%+.2f%%\n",
                    k, rho, pk, (unsigned long long)p.produced, (unsigned long long)p.lost, mean,
                    mean - half, mean + half, 100 * half / pk, 100 * (mean - pk) / pk);
        SCOPED_TRACE("K = " + std::to_string(k) + ", rho = " + std::to_string(rho));
        EXPECT_EQ(p.violations, 0u);
        EXPECT_LE(half, 0.1 * pk) << "too few records for a 99% interval within 10% of P_K";
        EXPECT_LE(std::abs(mean - pk), half)
            << "P_K = " << pk << " is outside [" << mean - half << ", " << mean + half << "]";
    }
    for (int k : {3, 7, 15})
        for (double rho : {0.5, 0.9, 1.0, 1.5})
            EXPECT_EQ((seen[{k, rho}]), 1) << "K = " << k << ", rho = " << rho;
    fs::remove_all(dir);
    fs::remove(dir.string() + ".log");
    if (reduced) fs::remove(spec);
}

} // namespace
