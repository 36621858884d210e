#pragma once
/// Multiple-comparison corrections for a family of p-values (the metrics x policies `tidesim
/// check` tests at once): Holm's step-down method (family-wise error rate) and Benjamini and
/// Hochberg's step-up method (false discovery rate), as R's `p.adjust` defines the adjusted
/// p-values (stats/R/p.adjust.R, methods "holm" and "BH").
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tidesim::app {

enum class Correction {
  kNone,
  /// Holm (1979): p_(i) sorted ascending, adjusted min(1, max_{j <= i} (m - j + 1) p_(j)).
  kHolm,
  /// Benjamini and Hochberg (1995): adjusted min(1, min_{j >= i} m / j p_(j)).
  kBenjaminiHochberg,
};

/// "holm", "bh" or "none"; throws InputError naming `field` otherwise.
Correction parse_correction(std::string_view text, const std::string& field = "--correction");

/// The name printed in outputs: "Holm", "Benjamini-Hochberg", "none".
std::string_view to_string(Correction c);

/// The adjusted p-values of `p`, in the same order (each in [0, 1]); `p` unchanged for kNone.
std::vector<double> adjust_p_values(std::span<const double> p, Correction c);

}  // namespace tidesim::app
