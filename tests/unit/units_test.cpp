// Unit strings: exact conversions, strict rejections (a bare number, a fraction of a
// picosecond, overflow) and the shortest exact formatting back.
#include "platform/config/units.h"

#include <gtest/gtest.h>

#include <limits>

namespace ringsim::config {
namespace {

TEST(Units, SizeConversions) {
    EXPECT_EQ(parse_size("0B").value, 0u);
    EXPECT_EQ(parse_size("64B").value, 64u);
    EXPECT_EQ(parse_size("64KiB").value, 65536u);
    EXPECT_EQ(parse_size("4KiB").value, 4096u);
    EXPECT_EQ(parse_size("3MiB").value, 3u << 20);
    EXPECT_EQ(parse_size("2GiB").value, 2ULL << 30);
    EXPECT_EQ(parse_size("2KB").value, 2000u);
    EXPECT_EQ(parse_size("5MB").value, 5000000u);
    EXPECT_EQ(parse_size("1GB").value, 1000000000u);
    EXPECT_EQ(parse_size("007KiB").value, 7168u);
}

TEST(Units, SizeRejections) {
    for (const char* bad : {"64", "", "KiB", "64 KiB", " 64KiB", "64KiB ", "-1B", "+1B", "64kib",
                            "64Kib", "64KiB/s", "1e3B", "64b", "0x10B"}) {
        const auto r = parse_size(bad);
        EXPECT_FALSE(r) << bad;
        EXPECT_NE(r.error.find("a size with a unit"), std::string::npos) << bad;
    }
    const auto fraction = parse_size("1.5KiB");
    EXPECT_FALSE(fraction);
    EXPECT_NE(fraction.error.find("whole count"), std::string::npos);
    EXPECT_EQ(parse_size("16777216GiB").value, 1ULL << 54);
    EXPECT_EQ(parse_size("17179869184GiB").error, "a size that fits in 64 bits (below 16EiB)");
    EXPECT_FALSE(parse_size("99999999999999999999B"));
    EXPECT_EQ(parse_size("18446744073709551615B").value, std::numeric_limits<uint64_t>::max());
}

TEST(Units, TimeConversions) {
    EXPECT_EQ(parse_time("0s").value, 0u);
    EXPECT_EQ(parse_time("1ps").value, 1u);
    EXPECT_EQ(parse_time("250ns").value, 250000u);
    EXPECT_EQ(parse_time("1.5us").value, 1500000u);
    EXPECT_EQ(parse_time("10ms").value, 10000000000u);
    EXPECT_EQ(parse_time("2s").value, 2000000000000u);
    EXPECT_EQ(parse_time("0.001ns").value, 1u);
    EXPECT_EQ(parse_time("0.000000000001s").value, 1u);
    EXPECT_EQ(parse_time("1.10000us").value, 1100000u); // trailing zeros are harmless
    EXPECT_EQ(parse_time("2.5ps").value, std::nullopt);
    EXPECT_EQ(parse_time("18446744073709551615ps").value, std::numeric_limits<uint64_t>::max());
    EXPECT_EQ(parse_time("18446744.073709551615s").value, std::numeric_limits<uint64_t>::max());
}

TEST(Units, TimeRejections) {
    for (const char* bad :
         {"10", "", "ns", "1 ns", "-1ns", "1.ns", ".5ns", "1e3ns", "1min", "1h", "5NS", "1µs"}) {
        const auto r = parse_time(bad);
        EXPECT_FALSE(r) << bad;
        EXPECT_NE(r.error.find("a time with a unit"), std::string::npos) << bad;
    }
    for (const char* fine : {"0.1ps", "0.0001ns", "1.0000000000001s"}) {
        const auto r = parse_time(fine);
        EXPECT_FALSE(r) << fine;
        EXPECT_NE(r.error.find("whole number of picoseconds"), std::string::npos) << fine;
    }
    for (const char* huge : {"18446744073709551616ps", "18446744.073709551616s", "18446745s",
                             "99999999999999999999999s"}) {
        const auto r = parse_time(huge);
        EXPECT_FALSE(r) << huge;
        EXPECT_NE(r.error.find("fits in 64 bits"), std::string::npos) << huge;
    }
}

TEST(Units, Frequency) {
    EXPECT_DOUBLE_EQ(*parse_frequency("1Hz").value, 1.0);
    EXPECT_DOUBLE_EQ(*parse_frequency("10kHz").value, 10000.0);
    EXPECT_DOUBLE_EQ(*parse_frequency("2.5MHz").value, 2500000.0);
    EXPECT_DOUBLE_EQ(*parse_frequency("1.2GHz").value, 1.2e9);
    EXPECT_DOUBLE_EQ(*parse_frequency("0Hz").value, 0.0);
    for (const char* bad : {"10", "10hz", "10KHz", "-1Hz", "1e3Hz", "1 Hz", "Hz", "10k"}) {
        const auto r = parse_frequency(bad);
        EXPECT_FALSE(r) << bad;
        EXPECT_NE(r.error.find("a frequency with a unit"), std::string::npos) << bad;
    }
}

TEST(Units, Bandwidth) {
    EXPECT_DOUBLE_EQ(*parse_bandwidth("100B/s").value, 100.0);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("4GB/s").value, 4e9);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("1.5GB/s").value, 1.5e9);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("2KB/s").value, 2000.0);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("3MB/s").value, 3e6);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("1KiB/s").value, 1024.0);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("1MiB/s").value, 1048576.0);
    EXPECT_DOUBLE_EQ(*parse_bandwidth("0.5GiB/s").value, 536870912.0);
    for (const char* bad : {"4GB", "4", "4Gb/s", "4GB/sec", "4 GB/s", "-4GB/s", "GB/s"}) {
        const auto r = parse_bandwidth(bad);
        EXPECT_FALSE(r) << bad;
        EXPECT_NE(r.error.find("a bandwidth with a unit"), std::string::npos) << bad;
    }
}

TEST(Units, FormatSizeIsShortestExact) {
    EXPECT_EQ(format_size(0), "0B");
    EXPECT_EQ(format_size(1), "1B");
    EXPECT_EQ(format_size(100), "100B");
    EXPECT_EQ(format_size(1000), "1KB");
    EXPECT_EQ(format_size(1024), "1KiB");
    EXPECT_EQ(format_size(65536), "64KiB");
    EXPECT_EQ(format_size(1536), "1536B");
    EXPECT_EQ(format_size(1ULL << 20), "1MiB");
    EXPECT_EQ(format_size(32768 - 57), "32711B");
    EXPECT_EQ(format_size(5000000), "5MB");
    EXPECT_EQ(format_size(3ULL << 30), "3GiB");
    EXPECT_EQ(format_size(2048ULL << 30), "2048GiB");
}

TEST(Units, FormatTimeIsShortestExact) {
    EXPECT_EQ(format_time(0), "0s");
    EXPECT_EQ(format_time(1), "1ps");
    EXPECT_EQ(format_time(250000), "250ns");
    EXPECT_EQ(format_time(1500000), "1.5us");
    EXPECT_EQ(format_time(100000), "100ns"); // not "0.1us": same length, no point
    EXPECT_EQ(format_time(10000000000), "10ms");
    EXPECT_EQ(format_time(2000000000000), "2s");
    EXPECT_EQ(format_time(1001), "1001ps");
    EXPECT_EQ(format_time(1500), "1.5ns");
    EXPECT_EQ(format_time(1250), "1250ps"); // not "1.25ns": same length, no point
}

TEST(Units, FormatParsesBack) {
    const uint64_t values[] = {
        0, 1, 7, 999, 1000, 1024, 123456789, 1ULL << 40, std::numeric_limits<uint64_t>::max()};
    for (uint64_t v : values) {
        EXPECT_EQ(parse_size(format_size(v)).value, v) << format_size(v);
        EXPECT_EQ(parse_time(format_time(v)).value, v) << format_time(v);
    }
}

} // namespace
} // namespace ringsim::config
