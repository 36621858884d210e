#pragma once
/// Order statistics shared by every folder: the run's collectors (wait and JCT percentiles) and
/// the trace summary (duration percentiles) compute their quantiles with this one definition.
#include <optional>
#include <span>
#include <vector>

namespace tidesim {

/// Quantile q in [0, 1] of `sorted` (ascending) by linear interpolation between closest ranks
/// (Hyndman & Fan 1996 type 7, "R-7", the default of R and NumPy): with the values x_0..x_{n-1},
/// h = (n - 1) q, the result is x_floor(h) + (h - floor(h)) (x_ceil(h) - x_floor(h)). q is clamped
/// to [0, 1], so q = 0 gives the minimum and q = 1 the maximum. std::nullopt when empty.
std::optional<double> quantile_of_sorted(std::span<const double> sorted, double q);

/// quantile_of_sorted() of `values` after sorting them (they need not be sorted).
std::optional<double> quantile(std::vector<double> values, double q);

}  // namespace tidesim
