#pragma once
/// The time of a collective over a group of GPUs from its size, the group and the bus bandwidth
/// it gets: nccl-tests' busbw definitions (doc/PERFORMANCE.md), the cost of the ring algorithm
/// (docs/model-fabric.md, "Collectives").
#include <cstdint>
#include <optional>
#include <string_view>

namespace tidesim {

enum class Collective {
  kAllReduce,
  kReduceScatter,
  kAllGather,
  kAllToAll,
  kBroadcast,
  kPointToPoint
};

/// "all-reduce", "reduce-scatter", "all-gather", "all-to-all", "broadcast", "point-to-point".
std::string_view to_string(Collective c);
/// The collective a name above names, nullopt otherwise.
std::optional<Collective> parse_collective(std::string_view name);

/// busbw / algbw of `c` over `ranks` ranks (nccl-tests): all-reduce 2(n - 1)/n; reduce-scatter,
/// all-gather and all-to-all (n - 1)/n; broadcast and point-to-point 1. 0 for one rank (nothing
/// moves), except point-to-point.
double bus_factor(Collective c, int ranks);

/// Seconds for `c` of `bytes` (the collective's size S: each rank's buffer) over `ranks` ranks
/// at bus bandwidth `bus_bandwidth` bytes/s, plus `latency` seconds: S / B x bus_factor + latency;
/// 0 when nothing moves (one rank, or no bytes). Throws std::invalid_argument for a bandwidth
/// that is not positive where something moves.
double collective_seconds(Collective c, std::int64_t bytes, int ranks, double bus_bandwidth,
                          double latency = 0.0);

/// Bytes each rank sends over the collective, S x bus_factor (0 when nothing moves).
double collective_volume(Collective c, std::int64_t bytes, int ranks);

}  // namespace tidesim
