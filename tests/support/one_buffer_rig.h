// The rig of the producer/consumer unit tests, which assert exact simulated times: one
// 4 KiB data buffer on CPU 0 (sc memory, no timing noise) with its wakeup (irq_work after
// 2 us) and checker, periodic record writers on CPU 0, and a perf-tool consumer on CPU 1
// that wakes 5.5 us after POLLIN (never at the same instant as a record) and copies and
// writes at 1 GB/s (a 64-byte record costs 128 ns of bandwidth).
#pragma once

#include "models/check/checker.h"
#include "models/kernel/perf_abi.h"
#include "models/kernel/perf_wakeup.h"
#include "models/kernel/record_writer.h"
#include "models/kernel/scheduler.h"
#include "models/memory/engine_port.h"
#include "models/user/perf_consumer.h"

#include <memory>
#include <systemc>
#include <vector>

namespace ringsim::test {

constexpr uint64_t kRigSampleType = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;

struct OneBufferRig {
    models::PhysicalMemory phys;
    models::MemorySystem mem{phys, models::MemoryModel::sc, models::TimingPolicy::none, 1};
    models::CpuState cpu0{0};
    models::BufferStats stats;
    std::unique_ptr<models::PerfBuffer> rb;
    std::unique_ptr<models::PerfWakeup> wakeup;
    std::unique_ptr<models::Checker> checker;
    std::vector<std::unique_ptr<models::RecordWriter>> writers;
    std::unique_ptr<models::PerfConsumer> consumer;
    int running = 0;

    // The tool is done (the run's end).
    struct End : models::ConsumerObserver {
        bool finished = false;
        void on_finished() override { finished = true; }
    } end;

    // CPU 0's task, never switched out nor moved.
    models::Scheduler& scheduler() {
        if (!sched) {
            models::SchedulerParams sp;
            sp.traced = {0};
            sched = std::make_unique<models::Scheduler>(
                sp, std::vector<models::SchedCpu>{{&cpu0, &mem.agent("cpu0")}});
        }
        return *sched;
    }
    std::unique_ptr<models::Scheduler> sched;

    // `watermark` 0: the default, half the buffer.
    explicit OneBufferRig(uint64_t watermark = 0) {
        models::PerfBufferParams p;
        p.name = "cpu0";
        p.page_size = 4096;
        p.nr_pages = 1;
        p.user_page = phys.allocate("up", 4096, 4096);
        p.data = phys.allocate("data", 4096, 4096);
        p.wakeup_watermark = watermark;
        rb = std::make_unique<models::PerfBuffer>(p, stats);
        wakeup = std::make_unique<models::PerfWakeup>("wakeup", 2'000'000 /* 2 us */, stats);
        rb->set_wakeup_sink(wakeup.get());
        models::CheckedBuffer cb;
        cb.name = "cpu0";
        cb.data_size = 4096;
        cb.sample_type = kRigSampleType;
        cb.sample_id_all = true;
        cb.stats = &stats;
        cb.rb = rb.get();
        checker = std::make_unique<models::Checker>(std::vector<models::CheckedBuffer>{cb},
                                                    &mem.engine());
        rb->set_observer(&checker->producer_side(0));
    }
    // Periodic records of `size` bytes at `rate` from `start`, none at or after `stop`, each
    // taking `write_time` between reservation and publication.
    void writer(const char* name, models::ExecContext ctx, models::Picos start, double rate,
                models::Picos write_time, models::Picos stop, uint64_t size = 64) {
        models::RecordWriterParams p;
        p.context = ctx;
        p.arrivals.rate_hz = rate;
        p.arrivals.start = start;
        p.arrivals.random_phase = false;
        p.stop = stop;
        p.sample_size = size;
        p.write_time = write_time;
        p.sample_type = kRigSampleType;
        p.sample_id_all = true;
        writers.push_back(
            std::make_unique<models::RecordWriter>(name, p, scheduler(), 0, *rb, [this] {
                if (--running == 0 && consumer) consumer->workload_exited();
            }));
        ++running;
    }
    // The consumer, with the rig's latency and bandwidths over the rest of `p`.
    void consume(models::PerfConsumerParams p = {}) {
        p.wakeup_latency = 5'500'000;
        p.copy_bandwidth = 1e9;
        p.write_bandwidth = 1e9;
        if (p.mmap_flush == 0) p.mmap_flush = 1; // perf's default --mmap-flush
        models::ConsumerMmap m{rb.get(),          wakeup.get(), &stats, rb->params().user_page,
                               rb->params().data, 4096,         false,  false};
        consumer = std::make_unique<models::PerfConsumer>("consumer", p, mem.agent("cpu1"),
                                                          std::vector<models::ConsumerMmap>{m});
        consumer->add_observer(checker.get());
        consumer->add_observer(&end);
    }
    // A word of the control page, e.g. perf::kOffDataTail.
    uint64_t word(uint64_t off) { return phys.read_u64(rb->params().user_page + off); }
};

// Runs the simulation up to and including everything that happens at `t_ps`.
inline void run_until(uint64_t t_ps) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (t_ps > now) sc_core::sc_start(sc_core::sc_time(double(t_ps - now), sc_core::SC_PS));
    while (sc_core::sc_pending_activity_at_current_time())
        sc_core::sc_start(sc_core::SC_ZERO_TIME);
}

} // namespace ringsim::test
