#include "tidesim/workloads/distributions.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tidesim::workloads {

double normal_quantile(double p) {
  if (!(p > 0.0 && p < 1.0)) {
    throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  }
  // Peter J. Acklam, "An algorithm for computing the inverse normal cumulative distribution
  // function" (2003).
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  if (p < kLow) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - kLow) {
    const double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double Lognormal::median() const {
  return std::exp(mu);
}

double Lognormal::mean() const {
  return std::exp(mu + sigma * sigma / 2);
}

double Lognormal::quantile(double p) const {
  return std::exp(mu + sigma * normal_quantile(p));
}

Lognormal fit_lognormal(std::span<const QuantilePoint> points) {
  if (points.size() < 2) {
    throw std::invalid_argument("a lognormal fit needs at least two percentiles");
  }
  double sz = 0, sy = 0;
  std::vector<double> z, y;
  for (const auto& pt : points) {
    if (!(pt.value > 0)) {
      throw std::invalid_argument("percentile values must be positive");
    }
    z.push_back(normal_quantile(pt.probability));
    y.push_back(std::log(pt.value));
    sz += z.back();
    sy += y.back();
  }
  const double n = static_cast<double>(points.size());
  const double mz = sz / n, my = sy / n;
  double szz = 0, szy = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    szz += (z[i] - mz) * (z[i] - mz);
    szy += (z[i] - mz) * (y[i] - my);
  }
  if (!(szz > 0)) {
    throw std::invalid_argument("percentiles need at least two distinct probabilities");
  }
  const double sigma = szy / szz;
  if (!(sigma > 0)) {
    throw std::invalid_argument("percentile values must grow with their probability");
  }
  return Lognormal{my - sigma * mz, sigma};
}

std::vector<QuantilePoint> philly_runtime_percentiles() {
  return {{0.25, 131}, {0.50, 1186}, {0.75, 3340}, {0.90, 12858}, {0.99, 287239}};
}

std::vector<std::pair<int, double>> philly_gpu_counts() {
  return {{1, 76627}, {2, 1818}, {4, 1870}, {8, 1643}, {12, 7},
          {16, 199},  {24, 7},   {32, 67},  {64, 6},   {128, 3}};
}

double Distribution::sample(RandomStream& rng) const {
  switch (kind) {
    case Kind::kFixed:
      return value;
    case Kind::kLognormal: {
      double v = rng.lognormal(lognormal.mu, lognormal.sigma);
      v = std::max(v, min);
      if (max > 0) {
        v = std::min(v, max);
      }
      return v;
    }
    case Kind::kChoice:
      return values[rng.weighted_choice(weights)];
  }
  return value;
}

}  // namespace tidesim::workloads
