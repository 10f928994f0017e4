// The execution contexts Linux nests on one CPU, lowest first: task < softirq < irq < NMI
// (KERNEL-SEMANTICS R2, R3). A higher one interrupts a lower one; cpu_state.h runs them.
#pragma once

namespace ringsim::models {

enum class ExecContext : unsigned { task = 0, softirq = 1, irq = 2, nmi = 3 };

} // namespace ringsim::models
