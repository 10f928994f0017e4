// `ringsim run --timeline FILE`: every memory operation of the run as a Chrome/Perfetto
// trace-event JSON file (docs/timeline.md). Operations are slices from issue to perform on
// their agent's tracks, barrier executions are instants, data_head/data_tail are counters,
// and an arrow leads from each store to every load that read it.
//
// The writer is the ordering engine's OpObserver and streams: each event goes to the file
// as the engine reports its operation, and the only state kept is bounded (recent stores for
// the arrows, recent slices per track for the layout), so a long run costs disk, not memory.
#pragma once

#include "models/common/types.h"
#include "models/memory/mmu.h"
#include "models/memory/ordering_engine.h"

#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ringsim::platform {

class Platform;

// The part of simulated time written: operations whose slice meets [from, to].
struct TimelineWindow {
    models::Picos from = 0;
    models::Picos to = std::numeric_limits<models::Picos>::max();
};

// Parses --timeline-window "FROM:TO" ("1ms:1.2ms"); an empty side is open ("1ms:" is from
// 1ms to the end). Empty optional, with `error` completing "--timeline-window: ...", when
// the text is not two times or FROM is after TO.
std::optional<TimelineWindow> parse_timeline_window(std::string_view text, std::string& error);

// A ring buffer's control words, drawn as counters and named in operation names. Every
// control page holds the AUX words too; a run without AUX never touches them.
struct TimelineBuffer {
    std::string name; // "cpu0": its counters are "cpu0 data_head", "cpu0 data_tail", ...
    models::Addr data_head = 0;
    models::Addr data_tail = 0;
    models::Addr aux_head = 0; // 0: not named
    models::Addr aux_tail = 0;
};

class TimelineWriter : public models::OpObserver, public models::MmuObserver {
public:
    // Opens `path` and writes the JSON preamble; ok() says whether that worked. `agents`
    // names the engine's agents by id (an agent beyond the list is named "agentN").
    TimelineWriter(const std::string& path, TimelineWindow window, std::vector<std::string> agents,
                   const std::vector<TimelineBuffer>& buffers);
    ~TimelineWriter() override;
    TimelineWriter(const TimelineWriter&) = delete;
    TimelineWriter& operator=(const TimelineWriter&) = delete;

    void on_op(const models::OpRecord& op) override;
    // The consumer's page faults and TLB walks: a slice before the access they delayed.
    void on_translation(unsigned agent, models::Addr vaddr, uint64_t n, bool write,
                        models::Picos start, const models::Translation& t) override;
    // Ends the JSON and closes the file; false when any write failed. Operations reported
    // after it are ignored; closing again only repeats the verdict.
    bool close();
    bool ok() const { return !m_out.fail(); }

private:
    // A track holds slices that must not overlap: Perfetto drops a complete event that
    // partially overlaps another on its thread, and an agent's operations overlap whenever
    // they reorder. So each agent gets as many tracks ("lanes") as it needs.
    struct Lane {
        std::map<models::Picos, models::Picos> spans; // recent slices, start -> end
        models::Picos forgotten_end = 0;              // latest end of a pruned slice
        bool forgotten = false;
        bool fits(models::Picos lo, models::Picos hi) const;
        void add(models::Picos lo, models::Picos hi);
    };
    struct Agent {
        std::vector<Lane> lanes;
        bool barrier_track = false; // its thread_name has been written
    };
    struct StoreEnd {
        unsigned tid = 0;
        models::Picos perform = 0;
    };

    void op_slice(const models::OpRecord& op);
    void barrier_instant(const models::OpRecord& op);
    void word_counter(const models::OpRecord& op);
    void reads_from_arrow(const models::OpRecord& load, unsigned load_tid);
    void remember_store(const models::OpRecord& op, unsigned tid);
    unsigned place(unsigned agent, models::Picos lo, models::Picos hi);
    unsigned barrier_tid(unsigned agent);
    void name_thread(unsigned tid, const std::string& name);
    std::string agent_name(unsigned agent) const;
    std::string op_name(const models::OpRecord& op) const;
    bool in_window(models::Picos lo, models::Picos hi) const;
    void emit(const std::string& event);

    std::ofstream m_out;
    TimelineWindow m_window;
    std::vector<std::string> m_agent_names;
    std::map<models::Addr, std::string> m_words; // a control word's address -> "cpu0 data_head"
    std::vector<Agent> m_agents;                 // by agent id, grown on first use
    std::map<uint64_t, StoreEnd> m_stores;       // written stores by seq, the latest only
    bool m_first = true;
    bool m_closed = false;
};

// What `ringsim run` hands the writer: the engine's agent names in id order, and each
// buffer's control words.
std::vector<std::string> timeline_agents(const models::OrderingEngine& engine);
std::vector<TimelineBuffer> timeline_buffers(const Platform& platform);

} // namespace ringsim::platform
