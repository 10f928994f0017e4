#include "platform/sweep/student_t.h"

#include <cmath>

namespace ringsim::platform::sweep {

namespace {

// The continued fraction of the regularised incomplete beta function, by the modified Lentz
// method; converges fast for x < (a + 1) / (a + b + 2).
double beta_fraction(double a, double b, double x) {
    constexpr double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (std::fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 1000; ++m) {
        const double m2 = 2.0 * m;
        // The even step, then the odd one.
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = std::fabs(c) < tiny ? tiny : c;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        c = 1 + aa / c;
        d = 1 / (std::fabs(d) < tiny ? tiny : d);
        c = std::fabs(c) < tiny ? tiny : c;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1) < eps) break;
    }
    return h;
}

// I_x(a, b), the regularised incomplete beta function.
double incomplete_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                  a * std::log(x) + b * std::log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

} // namespace

double student_t_cdf(double t, double df) {
    const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
    return t >= 0 ? 1 - tail : tail;
}

double student_t_quantile(double q, double df) {
    if (q == 0.5) return 0;
    if (q < 0.5) return -student_t_quantile(1 - q, df);
    double lo = 0, hi = 1;
    while (student_t_cdf(hi, df) < q)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (student_t_cdf(mid, df) < q ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

} // namespace ringsim::platform::sweep
