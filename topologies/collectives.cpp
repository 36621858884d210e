#include "tidesim/topologies/collectives.hpp"

#include <array>
#include <stdexcept>

namespace tidesim {

namespace {

constexpr std::array<std::string_view, 6> kNames = {
    "all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast", "point-to-point"};

// The factor's two parts, so that S / B x a x (n - 1) / n is computed in one order everywhere.
double scalar(Collective c) {
  return c == Collective::kAllReduce ? 2.0 : 1.0;
}

bool scales_with_ranks(Collective c) {
  return c != Collective::kBroadcast && c != Collective::kPointToPoint;
}

bool moves(Collective c, std::int64_t bytes, int ranks) {
  return bytes > 0 && (ranks > 1 || c == Collective::kPointToPoint);
}

}  // namespace

std::string_view to_string(Collective c) {
  return kNames[static_cast<std::size_t>(c)];
}

std::optional<Collective> parse_collective(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) {
      return static_cast<Collective>(i);
    }
  }
  return std::nullopt;
}

double bus_factor(Collective c, int ranks) {
  if (ranks <= 1) {
    return c == Collective::kPointToPoint ? 1.0 : 0.0;
  }
  const double n = ranks;
  return scales_with_ranks(c) ? scalar(c) * (n - 1.0) / n : 1.0;
}

double collective_seconds(Collective c, std::int64_t bytes, int ranks, double bus_bandwidth,
                          double latency) {
  if (!moves(c, bytes, ranks)) {
    return 0.0;
  }
  if (!(bus_bandwidth > 0)) {
    throw std::invalid_argument("collective bandwidth must be positive");
  }
  const double n = ranks;
  const double s = static_cast<double>(bytes);
  const double t =
      scales_with_ranks(c) ? s / bus_bandwidth * scalar(c) * (n - 1.0) / n : s / bus_bandwidth;
  return t + latency;
}

double collective_volume(Collective c, std::int64_t bytes, int ranks) {
  if (!moves(c, bytes, ranks)) {
    return 0.0;
  }
  const double n = ranks;
  const double s = static_cast<double>(bytes);
  return scales_with_ranks(c) ? s * scalar(c) * (n - 1.0) / n : s;
}

}  // namespace tidesim
