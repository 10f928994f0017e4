#include "models/kernel/record_writer.h"
#include "models/common/sim_wait.h"

#include "models/common/sim_clock.h"
#include "models/kernel/perf_records.h"
#include "models/memory/engine_port.h"

namespace ringsim::models {

RecordWriter::RecordWriter(sc_core::sc_module_name name, const RecordWriterParams& params,
                           Scheduler& sched, int task, PerfBuffer& rb,
                           std::function<void()> on_done)
    : sc_module(name), m_p(params), m_sched(sched), m_task(task), m_rb(rb),
      m_on_done(std::move(on_done)), m_arrivals(params.arrivals, params.seed) {
    require_param(params.kind != RecordKind::sample || params.sample_size > 0,
                  "RecordWriterParams.sample_size");
    SC_THREAD(writer_thread);
}

void RecordWriter::writer_thread() {
    for (;;) {
        const Picos at = m_arrivals.next();
        if (at >= m_p.stop) {
            // Wait out the workload's duration: the task exits then, not at its last record.
            const Picos now = sim_now();
            if (m_p.stop > now) sim_wait(m_p.stop - now);
            if (m_on_done) m_on_done();
            sim_sync(); // a thread ends with no lead (sim_wait.h)
            return;
        }
        const Picos now = sim_now();
        if (at > now) sim_wait(at - now);
        // The task is switched out: its event is stopped.
        if (!m_sched.schedule(m_task).in(at)) continue;
        const SchedCpu c = m_sched.cpu(m_sched.cpu_of(m_task, sim_now()));
        write_one({c.state, c.port, &m_rb});
    }
}

uint64_t RecordWriter::record_size(const perf::RecordContext& ctx) const {
    switch (m_p.kind) {
    case RecordKind::sample:
        return m_p.sample_size;
    case RecordKind::switch_:
        return perf::switch_size(ctx);
    case RecordKind::comm:
        return perf::comm_size(ctx);
    }
    return 0;
}

void RecordWriter::write_one(const WriteTarget& t) {
    t.cpu->enter(m_p.context);
    const Picos entered = sim_now();

    perf::RecordContext ctx;
    ctx.sample_type = m_p.sample_type;
    ctx.sample_id_all = m_p.sample_id_all;
    ctx.pid = m_p.pid;
    ctx.tid = m_p.tid;
    ctx.time_ns = entered / kPicosPerNs;
    ctx.id = m_p.event_id;
    ctx.cpu = t.cpu->id();
    const uint64_t seq = m_seq++;

    PerfBuffer::Handle h;
    if (t.rb->output_begin(h, *t.mem, ctx, record_size(ctx))) {
        switch (m_p.kind) {
        case RecordKind::sample:
            perf::encode_sample(m_bytes, ctx, m_p.sample_size, seq, m_p.period);
            break;
        case RecordKind::switch_:
            perf::encode_switch(m_bytes, ctx, seq % 2 == 0);
            break;
        case RecordKind::comm:
            perf::encode_comm(m_bytes, ctx, "workload");
            break;
        }
        // perf_output_sample: the header first, then the fields, copied while the CPU runs
        // this context; nested writers may reserve behind us meanwhile, and only the
        // outermost one publishes (R3).
        t.rb->output_header(h, *t.mem, m_bytes);
        t.cpu->run_for(m_p.context, m_p.write_time);
        t.rb->output_record(h, *t.mem, m_bytes);
        if (m_p.kind == RecordKind::sample) t.rb->count_sample_event();
        t.rb->output_end(h, *t.mem);
    }
    t.cpu->leave(m_p.context, sim_now() - entered);
}

} // namespace ringsim::models
