// OpenCSD judges the trace: two ETM streams made by the model (EtmStream: a start, periodic
// syncs, a stop and a restart after a gap) are formatted into CoreSight frames (FrameEncoder, as
// the ETR stores them, the two IDs interleaved in bursts), written as an OpenCSD snapshot with a
// memory image of each source's synthetic loop (etm_program.h: real A64 NOPs and the closing
// `B`), and decoded by OpenCSD's trc_pkt_lister with -decode: packets and the full instruction
// decode. The test asserts no error of any kind, the exact packet sequence the model says
// (A-Sync, Trace Info, Trace On after each gap, Address with Context, atoms, timestamps with the
// counts), and that every E atom is one pass over the loop, 8 instructions ending in a taken
// branch. Skipped when trc_pkt_lister is not installed (tools/setup.sh installs libopencsd-bin).
#include "models/coresight/etm_packets.h"
#include "models/coresight/etm_program.h"
#include "models/coresight/etm_stream.h"
#include "models/coresight/formatter.h"
#include "platform/export/perf_data_session.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ringsim::models::coresight;
namespace fs = std::filesystem;

namespace {

constexpr uint8_t kIds[] = {0x10, 0x11};
constexpr uint32_t kPeriod = 5;

void write_file(const fs::path& p, const std::string& text) {
    std::ofstream(p) << text;
}

void write_bytes(const fs::path& p, const std::vector<uint8_t>& b) {
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

std::string hex(uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// One ETM and one core per trace ID; the ETM registers are the ones ringsim writes into
// perf.data's AUXTRACE_INFO (platform/export/perf_data_session.h: an ETMv4.2, 64-bit
// timestamps and addresses, no VMID), so that OpenCSD decodes here what perf decodes there;
// TRCCONFIGR.TS (bit 11) set: timestamps on, no cycle counts, no Context ID or VMID.
void write_snapshot(const fs::path& dir, const std::vector<uint8_t>& etr) {
    std::ostringstream devices, cores, sources;
    for (size_t i = 0; i < std::size(kIds); ++i) {
        const std::string cpu = "cpu_" + std::to_string(i), etm = "ETM_" + std::to_string(i);
        devices << "device" << 2 * i << "=" << cpu << ".ini\n"
                << "device" << 2 * i + 1 << "=" << etm << ".ini\n";
        write_bytes(dir / (cpu + ".bin"), loop_code_bytes());
        write_file(dir / (cpu + ".ini"),
                   "[device]\nname=" + cpu + "\nclass=core\ntype=Cortex-A57\n\n[regs]\n" +
                       "PC(size:64)=" + hex(loop_base(kIds[i])) + "\n\n[dump1]\nfile=" + cpu +
                       ".bin\naddress=" + hex(loop_base(kIds[i])) +
                       "\nlength=" + hex(4 * kLoopInstructions) + "\n");
        write_file(dir / (etm + ".ini"),
                   "[device]\nname=" + etm +
                       "\nclass=trace_source\ntype=ETM4\n\n[regs]\n"
                       "TRCCONFIGR(0x004)=" +
                       hex(ringsim::platform::kTrcConfigTs) + "\nTRCTRACEIDR(0x010)=" +
                       hex(kIds[i]) + "\nTRCIDR0(0x178)=" + hex(ringsim::platform::kTrcIdr0) +
                       "\nTRCIDR1(0x179)=" + hex(ringsim::platform::kTrcIdr1) +
                       "\nTRCIDR2(0x17A)=" + hex(ringsim::platform::kTrcIdr2) +
                       "\nTRCIDR8(0x180)=" + hex(ringsim::platform::kTrcIdr8) +
                       "\nTRCIDR9(0x181)=0x0\n"
                       "TRCIDR10(0x182)=0x0\nTRCIDR11(0x183)=0x0\n"
                       "TRCIDR12(0x184)=0x0\nTRCIDR13(0x185)=0x0\n");
        sources << etm << "=ETR_0\n";
        cores << cpu << "=" << etm << "\n";
    }
    write_file(dir / "snapshot.ini", "[snapshot]\nversion=1.0\n\n[device_list]\n" + devices.str() +
                                         "\n[trace]\nmetadata=trace.ini\n");
    write_file(dir / "trace.ini", "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETR_0\n"
                                  "file=etr.bin\nformat=coresight\n\n[source_buffers]\n" +
                                      sources.str() + "\n[core_trace_sources]\n" + cores.str());
    write_bytes(dir / "etr.bin", etr);
}

std::string run(const std::string& cmd) {
    std::string out;
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    pclose(p);
    return out;
}

// What the model says each ID's packets are, as trc_pkt_lister names them (with the value it
// prints for an address or a timestamp).
std::vector<std::string> expected_packets(const EtmStream& s) {
    const std::string addr = "ADDR_CTXT_L_64IS0 Addr=0x" + [&] {
        char b[32];
        std::snprintf(b, sizeof b, "%016llx",
                      static_cast<unsigned long long>(loop_base(s.trace_id())));
        return std::string(b);
    }();
    std::vector<std::string> v;
    for (const auto& sess : s.sessions()) {
        v.insert(v.end(), {"ASYNC", "TRACE_INFO", "TRACE_ON", addr});
        for (uint64_t k = 0; k < sess.counts; ++k) {
            if (k != 0 && k % kPeriod == 0) v.insert(v.end(), {"ASYNC", "TRACE_INFO", addr});
            v.push_back("ATOM_F1 E");
            v.push_back("TIMESTAMP " + hex(sess.first_count + k));
        }
    }
    return v;
}

TEST(OpenCsd, DecodesTheModelsEtrBufferWithoutErrors) {
    if (std::system("command -v trc_pkt_lister >/dev/null 2>&1") != 0)
        GTEST_SKIP() << "trc_pkt_lister not installed (libopencsd-bin)";

    // Source 0: counts 100..112, stop, restart at 300 (a gap: Trace On), 300..306.
    // Source 1: counts 5000..5003 then 5010..5020 (a second start). Bytes go to the formatter
    // in bursts of 37 source bytes, alternating IDs, so frames change ID mid-frame.
    std::vector<EtmStream> streams;
    for (uint8_t id : kIds)
        streams.emplace_back(id, kPeriod);
    streams[0].start(100);
    streams[0].produce(13);
    streams[0].stop();
    streams[0].start(300);
    streams[0].produce(7);
    streams[1].start(5000);
    streams[1].produce(4);
    streams[1].stop();
    streams[1].start(5010);
    streams[1].produce(11);

    FrameEncoder fe;
    std::vector<uint8_t> etr;
    std::vector<uint64_t> at(streams.size(), 0);
    for (bool more = true; more;) {
        more = false;
        for (size_t i = 0; i < streams.size(); ++i) {
            const uint64_t n = std::min<uint64_t>(37, streams[i].size() - at[i]);
            if (n == 0) continue;
            std::vector<uint8_t> b(n);
            streams[i].read(at[i], n, b.data());
            ASSERT_TRUE(fe.write(streams[i].trace_id(), b, etr));
            at[i] += n;
            more = true;
        }
    }
    fe.flush(etr);

    char tmpl[] = "/tmp/ringsim-opencsd-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const fs::path dir = tmpl;
    write_snapshot(dir, etr);
    const std::string out =
        run("cd " + dir.string() + " && trc_pkt_lister -ss_dir . -decode -logstdout 2>&1");
    fs::remove_all(dir);
    ASSERT_NE(out.find("END OF TRACE DATA"), std::string::npos) << out;

    // No error: no bad or reserved packet, no decoder error, and losing sync only at the start.
    for (const char* bad : {"ERR", "BAD", "RESERVED", "INCOMPLETE", "I_NOTSYNC", "NOT_SYNC",
                            "DISCARD", "OVERFLOW", "NACC", "ADDR_NACC", "UNKNOWN"})
        EXPECT_EQ(out.find(bad), std::string::npos) << bad << " in\n" << out;

    // Packets per ID: "Idx:N; ID:10; [bytes];\tI_NAME : text"
    const std::regex pkt(R"(^Idx:\d+; ID:([0-9a-f]+); \[[^\]]*\];\s+I_([A-Z0-9_]+) : (.*)$)");
    const std::regex addr(R"(Addr=(0x[0-9a-f]+); Ctxt: AArch64,EL0, NS;)");
    const std::regex ts(R"(Updated val = (0x[0-9a-f]+))");
    const std::regex range(
        R"(^Idx:\d+; ID:([0-9a-f]+); OCSD_GEN_TRC_ELEM_INSTR_RANGE\((.*)\)\s*$)");
    std::map<unsigned, std::vector<std::string>> got;
    std::map<unsigned, std::vector<std::string>> ranges;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, range)) {
            ranges[std::stoul(m[1], nullptr, 16)].push_back(m[2]);
            continue;
        }
        if (!std::regex_match(line, m, pkt)) continue;
        std::string name = m[2];
        const std::string text = m[3];
        std::smatch v;
        if (name == "ADDR_CTXT_L_64IS0" && std::regex_search(text, v, addr))
            name += " Addr=" + v[1].str();
        if (name == "TIMESTAMP" && std::regex_search(text, v, ts)) name += " " + v[1].str();
        if (name == "ATOM_F1") name += text.substr(text.size() - 2) == " E" ? " E" : " ?";
        got[std::stoul(m[1], nullptr, 16)].push_back(name);
    }
    for (const auto& s : streams) {
        SCOPED_TRACE("trace ID " + hex(s.trace_id()));
        EXPECT_EQ(got[s.trace_id()], expected_packets(s)) << out;
        // The instruction decode: every E atom is the whole loop, its closing branch taken.
        const std::string one_pass = "exec range=" + hex(loop_base(s.trace_id())) + ":[" +
                                     hex(loop_base(s.trace_id()) + 4 * kLoopInstructions) +
                                     "] num_i(8) last_sz(4) (ISA=A64) E BR  ";
        ASSERT_EQ(ranges[s.trace_id()].size(), s.counts_produced());
        for (const auto& r : ranges[s.trace_id()])
            EXPECT_EQ(r, one_pass);
    }
}

} // namespace
