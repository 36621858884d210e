#include "tidesim/tools/lib/stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace tidesim::app {
namespace {

// t_{0.975, df} for df = 1..30 (NIST/SEMATECH e-Handbook, table 1.3.6.7.2).
constexpr std::array<double, 30> kT975{
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836, 2.446911851,
    2.364624252,  2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830,
    2.160368656,  2.144786688, 2.131449546, 2.119905299, 2.109815578, 2.100922040,
    2.093024054,  2.085963447, 2.079613845, 2.073873068, 2.068657610, 2.063898562,
    2.059538553,  2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456};

// Abramowitz & Stegun 26.7.5: t_p(df) = z + g1/df + g2/df^2 + g3/df^3 + g4/df^4.
double cornish_fisher_975(double df) {
  constexpr double z = 1.959963984540054;  // standard normal 0.975 quantile
  const double z2 = z * z;
  const double z3 = z2 * z;
  const double z5 = z3 * z2;
  const double z7 = z5 * z2;
  const double z9 = z7 * z2;
  const double g1 = (z3 + z) / 4.0;
  const double g2 = (5 * z5 + 16 * z3 + 3 * z) / 96.0;
  const double g3 = (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384.0;
  const double g4 = (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160.0;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

double mean_of(std::span<const double> v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double sample_variance(std::span<const double> v, double mean) {
  double sum = 0.0;
  for (const double x : v) {
    sum += (x - mean) * (x - mean);
  }
  return sum / static_cast<double>(v.size() - 1);
}

}  // namespace

double t_quantile_975(double df) {
  if (!(df > 0.0)) {
    throw std::invalid_argument("t_quantile_975: degrees of freedom must be positive");
  }
  if (df > 30.0) {
    return cornish_fisher_975(df);
  }
  const double lo = std::floor(df);
  if (lo == df) {
    return kT975[static_cast<std::size_t>(df) - 1];
  }
  if (lo < 1.0) {
    // Below one degree of freedom the table has no lower neighbour; interpolating in 1/df
    // towards df = 1 would under-state the width, so extrapolate no further than df = 1.
    return kT975[0];
  }
  const double hi = lo + 1.0;
  const double t_lo = kT975[static_cast<std::size_t>(lo) - 1];
  const double t_hi = kT975[static_cast<std::size_t>(hi) - 1];
  // Interpolate linearly in 1/df (the usual rule for t tables).
  const double w = (1.0 / lo - 1.0 / df) / (1.0 / lo - 1.0 / hi);
  return t_lo + w * (t_hi - t_lo);
}

std::optional<Summary> summarize(std::span<const double> values) {
  if (values.empty()) {
    return std::nullopt;
  }
  Summary s;
  s.n = values.size();
  s.mean = mean_of(values);
  if (s.n >= 2) {
    s.sd = std::sqrt(sample_variance(values, s.mean));
    s.ci95_half =
        t_quantile_975(static_cast<double>(s.n - 1)) * *s.sd / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

std::optional<PairedDifference> paired_difference(std::span<const double> a,
                                                  std::span<const double> b) {
  if (a.empty() || a.size() != b.size()) {
    return std::nullopt;
  }
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    d[i] = b[i] - a[i];
  }
  const auto s = summarize(d);
  PairedDifference out;
  out.n = s->n;
  out.mean = s->mean;
  out.ci95_half = s->ci95_half;
  out.mean_a = mean_of(a);
  if (out.mean_a != 0.0) {
    out.relative = (mean_of(b) - out.mean_a) / std::fabs(out.mean_a);
  }
  return out;
}

std::optional<PairedDifference> welch_difference(std::span<const double> a,
                                                 std::span<const double> b) {
  if (a.empty() || b.empty()) {
    return std::nullopt;
  }
  PairedDifference out;
  out.n = std::min(a.size(), b.size());
  out.mean_a = mean_of(a);
  const double mean_b = mean_of(b);
  out.mean = mean_b - out.mean_a;
  if (out.mean_a != 0.0) {
    out.relative = out.mean / std::fabs(out.mean_a);
  }
  if (a.size() >= 2 && b.size() >= 2) {
    const double va = sample_variance(a, out.mean_a) / static_cast<double>(a.size());
    const double vb = sample_variance(b, mean_b) / static_cast<double>(b.size());
    if (va + vb > 0.0) {
      const double df = (va + vb) * (va + vb) /
                        (va * va / static_cast<double>(a.size() - 1) +
                         vb * vb / static_cast<double>(b.size() - 1));
      out.ci95_half = t_quantile_975(df) * std::sqrt(va + vb);
    }
  }
  return out;
}

}  // namespace tidesim::app
