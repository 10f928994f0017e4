// Student's t distribution, for the 95% confidence intervals of sweep means over replicates.
#pragma once

#include <cstdint>

namespace ringsim::platform::sweep {

// P(T <= t) for T with `df` degrees of freedom (df >= 1).
double student_t_cdf(double t, double df);
// The q-quantile (0 < q < 1), e.g. q = 0.975 for a two-sided 95% interval: 12.706 at df 1.
double student_t_quantile(double q, double df);

} // namespace ringsim::platform::sweep
