#include "tidesim/tools/lib/stats.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace tidesim::app {
namespace {

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
  return boost::math::quantile(boost::math::students_t_distribution<double>(df), 0.975);
}

namespace {

// Two-sided p-value of a t statistic `mean / se` over `df` degrees of freedom; 0 or 1 when se is 0.
double two_sided_p(double mean, double se, double df) {
  if (!(se > 0.0)) {
    return mean == 0.0 ? 1.0 : 0.0;
  }
  const boost::math::students_t_distribution<double> t(df);
  return std::min(1.0, 2.0 * boost::math::cdf(boost::math::complement(t, std::fabs(mean / se))));
}

}  // namespace

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
  if (s->sd) {
    out.p_value = two_sided_p(s->mean, *s->sd / std::sqrt(static_cast<double>(s->n)),
                              static_cast<double>(s->n - 1));
  }
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
      out.p_value = two_sided_p(out.mean, std::sqrt(va + vb), df);
    } else {
      out.p_value = two_sided_p(out.mean, 0.0, 1.0);
    }
  }
  return out;
}

}  // namespace tidesim::app
