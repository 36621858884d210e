#pragma once
/// Statistics over seeds: mean, sample standard deviation, Student-t 95% confidence intervals,
/// and the paired difference between two policies run on the same seeds.
#include <cstddef>
#include <optional>
#include <span>

namespace tidesim::app {

/// Two-sided 95% quantile of Student's t distribution, t_{0.975, df}, for df > 0 (df may be
/// fractional, as Welch's df is): Boost.Math's students_t quantile. Throws std::invalid_argument
/// for df <= 0.
double t_quantile_975(double df);

/// Mean, spread and 95% confidence interval of a sample.
struct Summary {
  std::size_t n = 0;
  double mean = 0.0;
  /// Sample standard deviation (divide by n - 1); absent when n < 2.
  std::optional<double> sd;
  /// Half-width of the 95% CI of the mean, t_{0.975, n-1} sd / sqrt(n); absent when n < 2.
  std::optional<double> ci95_half;
};

/// Summary of `values`; std::nullopt when empty.
std::optional<Summary> summarize(std::span<const double> values);

/// Paired difference b - a over the same seeds: d_i = b_i - a_i.
struct PairedDifference {
  std::size_t n = 0;
  /// Mean of d_i.
  double mean = 0.0;
  /// Half-width of the 95% CI of the mean difference (t over n - 1 df); absent when n < 2.
  std::optional<double> ci95_half;
  /// Mean of a (the baseline of the relative change).
  double mean_a = 0.0;
  /// Relative change of the means, (mean_b - mean_a) / |mean_a|; absent when mean_a is 0.
  std::optional<double> relative;
  /// Two-sided p-value of the t test of "the difference is 0" (the paired t test over n - 1 df,
  /// or Welch's); 0 or 1 when the difference is exact (no spread: nonzero or zero); absent with
  /// fewer than two values on a side.
  std::optional<double> p_value;
};

/// Paired difference of `b` against `a`. Preconditions: same length (the i-th values come from
/// the same seed). std::nullopt when empty or the lengths differ.
std::optional<PairedDifference> paired_difference(std::span<const double> a,
                                                  std::span<const double> b);

/// Difference of the means of two independent samples, b - a, with Welch's 95% CI
/// (Welch-Satterthwaite df). ci95_half absent when either sample has n < 2 or both variances are
/// zero (then the difference is exact). relative as in PairedDifference.
std::optional<PairedDifference> welch_difference(std::span<const double> a,
                                                 std::span<const double> b);

}  // namespace tidesim::app
