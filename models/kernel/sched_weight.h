// The share of a CPU that the fair scheduler gives a task among always-runnable others:
// each task's weight is sched_prio_to_weight[nice + 20] (kernel/sched/core.c), and a task
// gets its weight over the sum of the weights on that CPU (kernel/sched/fair.c: CFS, and
// EEVDF after it, divide time in proportion to weight). The fluid view: it leaves out slices,
// wake-up preemption and lag, which the measured wake-up latency stands for.
#pragma once

#include <vector>

namespace ringsim::models {

constexpr int kMinNice = -20;
constexpr int kMaxNice = 19;

// kernel/sched/core.c : sched_prio_to_weight, nice -20 first.
constexpr int kSchedPrioToWeight[40] = {
    88761, 71755, 56483, 46273, 36291, // -20
    29154, 23254, 18705, 14949, 11916, // -15
    9548,  7620,  6100,  4904,  3906,  // -10
    3121,  2501,  1991,  1586,  1277,  //  -5
    1024,  820,   655,   526,   423,   //   0
    335,   272,   215,   172,   137,   //   5
    110,   87,    70,    56,    45,    //  10
    36,    29,    23,    18,    15,    //  15
};

constexpr int sched_weight(int nice) {
    return kSchedPrioToWeight[nice - kMinNice];
}

// The share of its CPU a task at `nice` gets beside CPU-bound tasks at `others`.
inline double fair_share(int nice, const std::vector<int>& others) {
    double total = sched_weight(nice);
    for (int o : others)
        total += sched_weight(o);
    return sched_weight(nice) / total;
}

} // namespace ringsim::models
