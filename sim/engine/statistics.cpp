#include "sim/engine/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim {

std::optional<double> quantile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) {
    return std::nullopt;
  }
  q = std::clamp(q, 0.0, 1.0);
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = static_cast<std::size_t>(std::ceil(h));
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::optional<double> quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, q);
}

}  // namespace tidesim
