#include "platform/export/perf_data_file.h"

#include <cstring>

namespace ringsim::platform::perf_data {

namespace {

void put_section(Bytes& out, Section s) {
    put<uint64_t>(out, s.offset);
    put<uint64_t>(out, s.size);
}

} // namespace

void put_file_header(Bytes& out, const FileHeader& h) {
    put<uint64_t>(out, kMagic);
    put<uint64_t>(out, kFileHeaderSize);
    put<uint64_t>(out, kFileAttrSize);
    put_section(out, h.attrs);
    put_section(out, h.data);
    put_section(out, Section{}); // event_types: ignored since perf 3.x
    uint64_t bits[4] = {};       // DECLARE_BITMAP(adds_features, HEADER_FEAT_BITS = 256)
    for (Feature f : h.features)
        bits[unsigned(f) / 64] |= uint64_t{1} << (unsigned(f) % 64);
    for (uint64_t w : bits)
        put<uint64_t>(out, w);
    static_assert(kFileHeaderSize == 8 * 3 + kFileSectionSize * 3 + 32, "perf_file_header");
}

void put_file_attr(Bytes& out, const perf_event_attr& attr, Section ids) {
    perf_event_attr a = attr;
    a.size = sizeof a; // perf_session__do_write_header raises a short attr.size to its own
    put(out, a);
    put_section(out, ids);
}

void put_string(Bytes& out, const std::string& s) {
    const uint32_t olen = uint32_t(s.size() + 1);
    const uint32_t len = (olen + kNameAlign - 1) / kNameAlign * kNameAlign;
    put<uint32_t>(out, len);
    out.insert(out.end(), s.begin(), s.end());
    out.insert(out.end(), len - s.size(), 0);
}

void put_feature(Bytes& out, Feature f, const FeatureInputs& in) {
    switch (f) {
    case Feature::hostname:
        put_string(out, in.host->hostname);
        return;
    case Feature::osrelease:
        put_string(out, in.host->osrelease);
        return;
    case Feature::version:
        put_string(out, in.host->version);
        return;
    case Feature::arch:
        put_string(out, in.host->arch);
        return;
    case Feature::nrcpus: // write_nrcpus: max present CPU + 1, then the online count
        put<uint32_t>(out, in.host->nr_cpus_avail);
        put<uint32_t>(out, in.host->nr_cpus_online);
        return;
    case Feature::cmdline: // write_cmdline: argc, then each argument
        put<uint32_t>(out, uint32_t(in.host->cmdline.size()));
        for (const std::string& a : in.host->cmdline)
            put_string(out, a);
        return;
    case Feature::event_desc: // write_event_desc
        put<uint32_t>(out, uint32_t(in.evsels->size()));
        put<uint32_t>(out, uint32_t(sizeof(perf_event_attr)));
        for (const Evsel& e : *in.evsels) {
            perf_event_attr a = e.attr;
            a.size = sizeof a;
            put(out, a);
            put<uint32_t>(out, uint32_t(e.ids.size()));
            put_string(out, e.name);
            for (uint64_t id : e.ids)
                put<uint64_t>(out, id);
        }
        return;
    case Feature::pmu_mappings: // write_pmu_mappings: count, then {type, name} per PMU
        put<uint32_t>(out, uint32_t(in.pmus->size()));
        for (const PmuMapping& p : *in.pmus) {
            put<uint32_t>(out, p.type);
            put_string(out, p.name);
        }
        return;
    case Feature::auxtrace: // auxtrace_index__write: total, then {file_offset, sz} each
        put<uint64_t>(out, in.aux_index->size());
        for (const AuxIndexEntry& e : *in.aux_index) {
            put<uint64_t>(out, e.file_offset);
            put<uint64_t>(out, e.size);
        }
        return;
    }
}

} // namespace ringsim::platform::perf_data
