// The data buffer against queueing theory (issue 9): scenarios/sweeps/mm1k-base.json makes
// it an M/M/1/K queue, and the loss fraction records.lost / records.produced measured by
// the real binary must lie within the 99% confidence interval of the blocking probability
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
// too narrow. Each point runs R = 20 independent replications (seeds 1..20, each an
// independent run from an empty buffer), and the interval is the mean of their loss
// fractions +- t(0.995, 19) s / sqrt(R), s their sample standard deviation: correlation
// inside a run only widens s. The initial transient (an empty buffer at t = 0) lasts a few
// records out of tens of thousands per replication. The records per point are set so that
// the half-width is below 10% of P_K, and the test checks that too. With 12 points each at
// 99%, a perfect M/M/1/K would still miss at one point or more for about one seed set in
// nine; the seeds are fixed, so the outcome is deterministic.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kMu = 1e6; // 1 / per_record_cost
constexpr int kReplications = 20;
constexpr double kT99 = 2.8609; // Student's t, 0.995 quantile, 19 degrees of freedom
constexpr int kJobs = 2;

struct Point {
    int k;
    double rho;
    double records; // over all replications
};

double blocking(double rho, int k) {
    if (rho == 1.0) return 1.0 / (k + 1);
    return (1 - rho) * std::pow(rho, k) / (1 - std::pow(rho, k + 1));
}

// The --set overrides that make K.
std::vector<std::string> k_sets(int k) {
    if (k == 3) return {}; // the base scenario
    if (k == 7) return {"workload.writers.0.size=512B"};
    return {"session.data_pages=2", "workload.writers.0.size=512B"};
}

struct Replication {
    uint64_t produced = 0, lost = 0, violations = 0;
    int code = -1;
};

Replication run_one(const Point& pt, int seed, const fs::path& out) {
    const double lambda = pt.rho * kMu;
    const auto duration_ps =
        uint64_t(std::llround(pt.records / kReplications / lambda * 1e12));
    std::ostringstream cmd;
    cmd << RINGSIM_BINARY << " run " << RINGSIM_SOURCE_DIR << "/scenarios/sweeps/mm1k-base.json"
        << " --seed " << seed << " --out " << out.string()
        << " --set workload.writers.0.rate=" << std::llround(lambda) << "Hz"
        << " --set duration=" << duration_ps << "ps";
    for (const std::string& s : k_sets(pt.k)) cmd << " --set " << s;
    cmd << " > " << (out / "stdout.txt").string() << " 2>&1";
    Replication r;
    r.code = std::system(cmd.str().c_str());
    if (r.code != 0) return r;
    std::ifstream in(out / "stats.json");
    const json total = json::parse(in)["total"];
    r.produced = total["records"]["produced"];
    r.lost = total["records"]["lost"];
    r.violations = total["violations"]["total"];
    return r;
}

class Mm1k : public testing::TestWithParam<Point> {};

TEST_P(Mm1k, LossFractionIsWithinThe99PercentIntervalOfPK) {
    const Point pt = GetParam();
    const double pk = blocking(pt.rho, pt.k);
    const fs::path dir = fs::temp_directory_path() /
                         ("ringsim-mm1k-" + std::to_string(pt.k) + "-" +
                          std::to_string(int(pt.rho * 10)) + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<Replication> reps(kReplications);
    std::mutex next_mutex;
    int next = 0;
    std::vector<std::thread> jobs;
    for (int j = 0; j < kJobs; ++j)
        jobs.emplace_back([&] {
            for (;;) {
                int i = 0;
                {
                    std::lock_guard<std::mutex> lock(next_mutex);
                    if (next == kReplications) return;
                    i = next++;
                }
                const fs::path out = dir / std::to_string(i + 1);
                fs::create_directories(out);
                reps[i] = run_one(pt, i + 1, out);
            }
        });
    for (auto& t : jobs) t.join();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    double sum = 0, sum2 = 0;
    uint64_t produced = 0, lost = 0;
    for (int i = 0; i < kReplications; ++i) {
        ASSERT_EQ(reps[i].code, 0) << "seed " << i + 1 << ": see " << dir / std::to_string(i + 1);
        ASSERT_GT(reps[i].produced, 0u);
        EXPECT_EQ(reps[i].violations, 0u) << "seed " << i + 1;
        const double p = double(reps[i].lost) / double(reps[i].produced);
        sum += p;
        sum2 += p * p;
        produced += reps[i].produced;
        lost += reps[i].lost;
    }
    const double mean = sum / kReplications;
    const double var = (sum2 - kReplications * mean * mean) / (kReplications - 1);
    const double half = kT99 * std::sqrt(std::max(var, 0.0) / kReplications);
    // The records a 10% half-width needs, from the spread measured here.
    const double needed = double(produced) * std::pow(half / (0.1 * pk), 2);
    std::printf("mm1k K=%d rho=%.1f P_K=%.6g records=%llu lost=%llu loss=%.6g "
                "ci99=[%.6g, %.6g] half=%.2f%% of P_K deviation=%+.2f%% needed=%.3g "
                "wall=%.1fs\n",
                pt.k, pt.rho, pk, (unsigned long long)produced, (unsigned long long)lost, mean,
                mean - half, mean + half, 100 * half / pk, 100 * (mean - pk) / pk, needed, wall);
    EXPECT_LE(half, 0.1 * pk) << "too few records for a 99% interval within 10% of P_K";
    EXPECT_LE(std::abs(mean - pk), half)
        << "P_K = " << pk << " is outside [" << mean - half << ", " << mean + half << "]";
    fs::remove_all(dir);
}

// Records per point (all replications): enough for a half-width below 10% of P_K with
// margin, from the spread of pilot runs. K = 15, rho = 0.5 loses 1.5e-5 of its records,
// in bursts: 1.4e8 records gave a half-width of 10.4% of P_K, so it gets 2.2e8.
INSTANTIATE_TEST_SUITE_P(
    Points, Mm1k,
    testing::Values(Point{3, 0.5, 1e6}, Point{3, 0.9, 1e6}, Point{3, 1.0, 1e6},
                    Point{3, 1.5, 1e6}, Point{7, 0.5, 4e6}, Point{7, 0.9, 1e6},
                    Point{7, 1.0, 1e6}, Point{7, 1.5, 1e6}, Point{15, 0.5, 2.2e8},
                    Point{15, 0.9, 2e6}, Point{15, 1.0, 1e6}, Point{15, 1.5, 1e6}),
    [](const testing::TestParamInfo<Point>& i) {
        return "K" + std::to_string(i.param.k) + "_rho" + std::to_string(int(i.param.rho * 10));
    });

} // namespace
