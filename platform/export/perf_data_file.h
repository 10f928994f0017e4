// The perf.data file layout (format version 2, "PERFILE2") as perf record writes it, byte
// for byte: the file header, the attrs with their id arrays, and the feature sections.
// Mirrors tools/perf/util/header.c (perf 6.1) : perf_session__do_write_header (the order
// [header][ids of each evsel][attrs][data][feature table][features]), perf_header__adds_write,
// do_write_string (u32 length padded to NAME_ALIGN 64, then the string and its zero
// padding), write_nrcpus, write_cmdline, write_event_desc, write_pmu_mappings, and
// tools/perf/util/auxtrace.c : auxtrace_index__write. Pure C++: the encoders append bytes.
// Leaves out: pipe mode, directory mode (--threads), compression, build ids and every
// feature not listed in Feature.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ringsim::platform::perf_data {

using Bytes = std::vector<uint8_t>;

// The feature bits of header.h's HEADER_* enum that ringsim writes.
enum class Feature : unsigned {
    hostname = 3,
    osrelease = 4,
    version = 5,
    arch = 6,
    nrcpus = 7,
    cmdline = 11,
    event_desc = 12,
    pmu_mappings = 16,
    auxtrace = 18,
};

constexpr uint64_t kMagic = 0x32454c4946524550ull; // "PERFILE2", little-endian
constexpr uint64_t kFileHeaderSize = 104;          // sizeof(struct perf_file_header)
constexpr uint64_t kFileSectionSize = 16;          // struct perf_file_section {offset, size}
constexpr uint64_t kFileAttrSize = sizeof(perf_event_attr) + kFileSectionSize;
constexpr uint32_t kNameAlign = 64; // NAME_ALIGN

// One event of perf record's evlist: its attr, name (as on perf's command line) and the
// ids of its instances (one per CPU, or one per thread).
struct Evsel {
    std::string name;
    perf_event_attr attr{};
    std::vector<uint64_t> ids;
};

// The machine perf record ran on. ringsim invents what it does not model, and says so.
struct Host {
    std::string hostname, osrelease, version, arch;
    uint32_t nr_cpus_avail = 0, nr_cpus_online = 0;
    std::vector<std::string> cmdline; // argv[0] is perf's path in a real file
};

struct PmuMapping {
    uint32_t type = 0;
    std::string name;
};

// struct auxtrace_index_entry: where each PERF_RECORD_AUXTRACE sits, and its header.size.
struct AuxIndexEntry {
    uint64_t file_offset = 0, size = 0;
};

struct Section {
    uint64_t offset = 0, size = 0;
};

// struct perf_file_header.
struct FileHeader {
    Section attrs, data;
    std::vector<Feature> features; // the adds_features bits
};

// A value's bytes as the file holds them (little-endian, as the host writes them).
template <typename T> void put(Bytes& out, T v) {
    const auto* b = reinterpret_cast<const uint8_t*>(&v);
    out.insert(out.end(), b, b + sizeof v);
}
// struct perf_event_header {type, misc 0, size}.
inline void put_header(Bytes& out, uint32_t type, uint64_t size) {
    put<uint32_t>(out, type);
    put<uint16_t>(out, 0);
    put<uint16_t>(out, uint16_t(size));
}

void put_file_header(Bytes& out, const FileHeader& h);
// struct perf_file_attr {attr, ids section} for each evsel.
void put_file_attr(Bytes& out, const perf_event_attr& attr, Section ids);
void put_string(Bytes& out, const std::string& s); // do_write_string

// The payload of each feature (perf_header__adds_write calls the write_* of each bit).
struct FeatureInputs {
    const Host* host = nullptr;
    const std::vector<Evsel>* evsels = nullptr;
    const std::vector<PmuMapping>* pmus = nullptr;
    const std::vector<AuxIndexEntry>* aux_index = nullptr;
};
void put_feature(Bytes& out, Feature f, const FeatureInputs& in);

} // namespace ringsim::platform::perf_data
