// `ringsim run --series INTERVAL` against the real binary (docs/series.md): the sampler
// changes nothing in the run (stats.json and violations.json byte-identical with and
// without it), series.csv is byte-identical for the same seed, each per-interval count
// column sums to its stats.json total (per buffer; the AUX columns over all buffers to
// total.aux), the rows come every INTERVAL with the last one at the run's end, and a bad
// INTERVAL is an exit-2 error naming the flag, what was expected and what was found.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class SeriesTest : public testing::Test {
protected:
    fs::path dir;
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("ringsim-series-" +
               std::string(testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
               std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    // Runs `ringsim run SCENARIO ARGS --out DIR/out`; returns the exit code, stderr in err.
    int run(const std::string& scenario, const std::string& args, const std::string& out,
            std::string* err = nullptr) {
        const fs::path e = dir / (out + ".err");
        const std::string cmd = std::string(RINGSIM_BINARY) + " run " + RINGSIM_SOURCE_DIR +
                                "/scenarios/" + scenario + " " + args + " --out " +
                                (dir / out).string() + " > /dev/null 2> " + e.string();
        const int status = std::system(cmd.c_str());
        if (err) *err = slurp(e);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    static std::string slurp(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }
};

struct Csv {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    size_t col(const std::string& name) const {
        for (size_t i = 0; i < header.size(); ++i)
            if (header[i] == name) return i;
        ADD_FAILURE() << "no column " << name;
        return 0;
    }
};

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> v;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');)
        v.push_back(cell);
    return v;
}

Csv read_csv(const fs::path& p) {
    std::ifstream in(p);
    Csv c;
    std::string line;
    if (std::getline(in, line)) c.header = split(line);
    while (std::getline(in, line))
        c.rows.push_back(split(line));
    return c;
}

json read_json(const fs::path& p) {
    std::ifstream in(p);
    return json::parse(in);
}

// Every per-interval column sums to its stats.json total, rows are per interval in time
// order with the last at the run's end, and the fill level stays within the buffer.
void check_books(const fs::path& out, uint64_t interval_ps) {
    const Csv c = read_csv(out / "series.csv");
    const json stats = read_json(out / "stats.json");
    const json run = read_json(out / "run.json");
    const size_t nbuf = stats["buffers"].size();
    const json& session = run["effective_config"]["session"];
    const uint64_t page = session["page_size"] == "4KiB" ? 4096 : 0;
    ASSERT_NE(page, 0u) << "the scenarios here use 4KiB pages";
    const uint64_t data_size = session["data_pages"].get<uint64_t>() * page;
    ASSERT_EQ(c.rows.size() % nbuf, 0u);
    ASSERT_GE(c.rows.size(), 2 * nbuf);
    std::map<std::string, std::map<std::string, uint64_t>> sums;
    const std::vector<std::string> counts = {"records.produced", "records.delivered",
                                             "records.lost"};
    const bool aux = c.header.size() == 9;
    uint64_t last_t = 0;
    uint64_t aux_sum[3] = {0, 0, 0};
    for (size_t r = 0; r < c.rows.size(); ++r) {
        const auto& row = c.rows[r];
        ASSERT_EQ(row.size(), c.header.size());
        const uint64_t t = std::stoull(row[0]);
        const std::string name = row[1];
        EXPECT_EQ(name, stats["buffers"][r % nbuf]["name"]) << "row " << r;
        if (r % nbuf == 0) {
            // Every INTERVAL, except the last row, at the run's end.
            if (r + nbuf < c.rows.size())
                EXPECT_EQ(t, (r / nbuf + 1) * interval_ps);
            else
                EXPECT_EQ(t, run["simulated_time_ps"].get<uint64_t>());
            EXPECT_GT(t, last_t);
            last_t = t;
        }
        for (const std::string& k : counts)
            sums[name][k] += std::stoull(row[c.col(k)]);
        // CIRC_SPACE keeps one byte free (R1): never a whole buffer unread.
        EXPECT_LT(std::stoull(row[c.col("bytes.unread")]), data_size) << "row " << r;
        if (aux) {
            aux_sum[0] += std::stoull(row[c.col("aux.bytes.produced")]);
            aux_sum[1] += std::stoull(row[c.col("aux.bytes.harvested")]);
            aux_sum[2] += std::stoll(row[c.col("aux.bytes.lost")]);
        }
    }
    for (const json& b : stats["buffers"])
        for (const std::string& k : counts) {
            const auto dot = k.find('.');
            EXPECT_EQ(sums[b["name"]][k], b[k.substr(0, dot)][k.substr(dot + 1)].get<uint64_t>())
                << b["name"] << " " << k;
        }
    if (aux) {
        const json& a = stats["total"]["aux"];
        EXPECT_EQ(aux_sum[0], a["bytes"]["produced"].get<uint64_t>());
        EXPECT_EQ(aux_sum[1], a["driver"]["harvested_bytes"].get<uint64_t>());
        EXPECT_EQ(aux_sum[2], a["bytes"]["lost"].get<uint64_t>());
    }
}

// stats.json and violations.json. The last case wraps a sink whose 64-byte FIFO the model
// cannot follow (docs/aux-path.md): the AUX checker finds `unexplained` gaps while it
// closes its books mid-run, stamped with the time of the close, which a sampler asking the
// sinks for their losses would move.
TEST_F(SeriesTest, StatsAreByteIdenticalWithAndWithoutTheSeries) {
    const struct {
        const char* scenario;
        const char* args;
        const char* series;
        const char* name;
    } cases[] = {
        {"slow-consumer.json", "", "--series 100us", "slow-consumer"},
        {"etr-wrap.json", "", "--series 100us", "etr-wrap"},
        {"overwrite.json", "", "--series 100us", "overwrite"},
        {"etr-per-thread.json",
         "--seed 2 --set etr.fifo_size=64B --set trace.rate=6GB/s --set etr.mem_bandwidth=2GB/s "
         "--set session.aux.pages=64 --set etr.buffer_size=256KiB",
         "--series 5us", "fifo-64B"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        const std::string plain = std::string(c.name) + "-plain";
        const std::string sampled = std::string(c.name) + "-series";
        ASSERT_EQ(run(c.scenario, c.args, plain), 0);
        ASSERT_EQ(run(c.scenario, std::string(c.args) + " " + c.series, sampled), 0);
        EXPECT_EQ(slurp(dir / plain / "stats.json"), slurp(dir / sampled / "stats.json"));
        EXPECT_EQ(slurp(dir / plain / "violations.json"), slurp(dir / sampled / "violations.json"));
        EXPECT_FALSE(fs::exists(dir / plain / "series.csv"));
    }
    // The last case does find what it is there for.
    EXPECT_NE(slurp(dir / "fifo-64B-plain" / "violations.json").find("\"unexplained\""),
              std::string::npos);
}

TEST_F(SeriesTest, SameSeedSameSeriesByteForByte) {
    ASSERT_EQ(run("quickstart.json", "--series 250us", "a"), 0);
    ASSERT_EQ(run("quickstart.json", "--series 250us", "b"), 0);
    const std::string a = slurp(dir / "a" / "series.csv");
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, slurp(dir / "b" / "series.csv"));
    ASSERT_EQ(run("quickstart.json", "--series 250us --seed 2", "c"), 0);
    EXPECT_NE(a, slurp(dir / "c" / "series.csv")); // the seed does reach it
}

TEST_F(SeriesTest, ColumnsSumToTheStatsOfEachBuffer) {
    ASSERT_EQ(run("slow-consumer.json", "--series 100us", "slow"), 0);
    const Csv c = read_csv(dir / "slow" / "series.csv");
    EXPECT_EQ(c.header,
              (std::vector<std::string>{"time_ps", "buffer", "records.produced",
                                        "records.delivered", "records.lost", "bytes.unread"}));
    check_books(dir / "slow", 100'000'000);
    // The slow consumer lets the buffer fill: some interval ends with bytes unread, and
    // losses happen in the steady state, not only at the end.
    uint64_t max_unread = 0, lossy_intervals = 0;
    for (const auto& row : c.rows) {
        max_unread = std::max<uint64_t>(max_unread, std::stoull(row[5]));
        if (std::stoull(row[4])) ++lossy_intervals;
    }
    EXPECT_GT(max_unread, 0u);
    EXPECT_GT(lossy_intervals, 1u);
    // After the final drain nothing is left unread.
    EXPECT_EQ(c.rows.back()[5], "0");
}

TEST_F(SeriesTest, AuxColumnsSumToTheAuxTotals) {
    for (const char* s : {"etr-wrap.json", "etr-system-wide.json", "aux-full.json", "snapshot.json",
                          "etr-per-thread.json"}) {
        SCOPED_TRACE(s);
        ASSERT_EQ(run(s, "--series 500us", s), 0);
        const Csv c = read_csv(dir / s / "series.csv");
        ASSERT_EQ(c.header.size(), 9u);
        EXPECT_EQ(c.header[6], "aux.bytes.produced");
        EXPECT_EQ(c.header[7], "aux.bytes.harvested");
        EXPECT_EQ(c.header[8], "aux.bytes.lost");
        check_books(dir / s, 500'000'000);
    }
}

TEST_F(SeriesTest, BadIntervalIsAnExit2ErrorNamingTheFlag) {
    for (const char* bad : {"100", "0us", "fast", "1.5", "''"}) {
        std::string err;
        EXPECT_EQ(run("quickstart.json", std::string("--series ") + bad, "bad", &err), 2) << bad;
        EXPECT_NE(err.find("--series"), std::string::npos) << err;
        EXPECT_NE(err.find("expected"), std::string::npos) << err;
        const std::string found = std::string(bad) == "''" ? "" : bad;
        EXPECT_NE(err.find("found '" + found + "'"), std::string::npos) << err;
        EXPECT_FALSE(fs::exists(dir / "bad" / "stats.json")) << bad;
    }
}

} // namespace
