#pragma once
/// Distributions for synthetic workloads: a lognormal fitted to published percentiles, the Philly
/// presets, and sampling from a RandomStream (never std::*_distribution).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "tidesim/sim/engine/random.hpp"

namespace tidesim::workloads {

/// Quantile of the standard normal distribution at probability p in (0, 1) (Acklam's rational
/// approximation, relative error below 1.2e-9). Throws std::invalid_argument outside (0, 1).
double normal_quantile(double p);

/// ln X ~ Normal(mu, sigma).
struct Lognormal {
  double mu = 0;
  double sigma = 1;
  /// exp(mu).
  double median() const;
  /// exp(mu + sigma^2 / 2).
  double mean() const;
  /// exp(mu + sigma x normal_quantile(p)).
  double quantile(double p) const;
};

/// A published percentile: P(X <= value) = probability.
struct QuantilePoint {
  double probability = 0.5;
  double value = 1;
};

/// Least-squares fit of ln(value) = mu + sigma x z(probability) over at least two points with
/// positive values and distinct probabilities; throws std::invalid_argument otherwise.
Lognormal fit_lognormal(std::span<const QuantilePoint> points);

/// Philly job runtimes (CALIBRATION.md: p25 131 s, p50 1,186 s, p75 3,340 s, p90 12,858 s,
/// p99 287,239 s), in seconds.
std::vector<QuantilePoint> philly_runtime_percentiles();

/// GPUs per job in pollux_philly.csv (counted by `tidesim trace stats`): pairs (gpus, jobs).
std::vector<std::pair<int, double>> philly_gpu_counts();

/// A sampled quantity: a fixed value, a lognormal (clamped to [min, max]) or a weighted choice.
struct Distribution {
  enum class Kind { kFixed, kLognormal, kChoice };
  Kind kind = Kind::kFixed;
  double value = 0;
  Lognormal lognormal;
  double min = 0;
  double max = 0;  // 0 = no upper clamp
  std::vector<double> values;
  std::vector<double> weights;
  /// One draw (one uniform or normal draw from `rng`; none for a fixed value).
  double sample(RandomStream& rng) const;
};

}  // namespace tidesim::workloads
