#pragma once
/// Order statistics shared by every folder: the run's collectors (wait and JCT percentiles) and
/// the trace summary (duration percentiles) compute their quantiles with this one definition.
#include <array>
#include <cstdint>
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

/// An exact running sum of non-negative finite doubles below 2^63, to which values can be added and
/// from which values added before can be removed (a sliding window) in constant time, without the
/// drift of `sum += x; sum -= y`. The sum is held as a 1,152-bit fixed-point integer in units of
/// 2^-1074 (the least subnormal), so every add and remove is exact; value() rounds it to the
/// nearest double (ties to even). That equals the left-to-right double sum whenever that sum
/// makes no rounding error, and is the correctly rounded sum otherwise.
class ExactSum {
 public:
  /// Adds x. Throws std::invalid_argument when x is negative, not finite, or >= 2^63.
  void add(double x);
  /// Removes x, which must have been added before and not yet removed (else std::logic_error).
  void remove(double x);
  /// The sum, rounded to the nearest double.
  double value() const;
  /// True when nothing (or only zeros) remains.
  bool zero() const;

 private:
  static constexpr int kLimbs = 18;  // 1,152 bits: 2^-1074 .. 2^77
  std::array<std::uint64_t, kLimbs> limbs_{};
};

}  // namespace tidesim
