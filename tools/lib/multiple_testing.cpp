#include "tidesim/tools/lib/multiple_testing.hpp"

#include <algorithm>
#include <numeric>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {

Correction parse_correction(std::string_view text, const std::string& field) {
  if (text == "holm") {
    return Correction::kHolm;
  }
  if (text == "bh") {
    return Correction::kBenjaminiHochberg;
  }
  if (text == "none") {
    return Correction::kNone;
  }
  throw InputError(SourceLocation{}, field,
                   "unknown correction '" + std::string(text) +
                       "' (expected holm, bh (Benjamini-Hochberg) or none)");
}

std::string_view to_string(Correction c) {
  switch (c) {
    case Correction::kHolm:
      return "Holm";
    case Correction::kBenjaminiHochberg:
      return "Benjamini-Hochberg";
    case Correction::kNone:
      break;
  }
  return "none";
}

std::vector<double> adjust_p_values(std::span<const double> p, Correction c) {
  std::vector<double> out(p.begin(), p.end());
  const std::size_t m = p.size();
  if (c == Correction::kNone || m == 0) {
    return out;
  }
  // Ranks by ascending p; a stable sort keeps equal p-values in input order.
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&p](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  const auto md = static_cast<double>(m);
  if (c == Correction::kHolm) {
    double running = 0.0;
    for (std::size_t j = 0; j < m; ++j) {
      running = std::max(running, (md - static_cast<double>(j)) * p[order[j]]);
      out[order[j]] = std::min(1.0, running);
    }
    return out;
  }
  double running = 1.0;
  for (std::size_t j = m; j-- > 0;) {
    running = std::min(running, md / static_cast<double>(j + 1) * p[order[j]]);
    out[order[j]] = std::min(1.0, running);
  }
  return out;
}

}  // namespace tidesim::app
