#pragma once
/// One GPU of a cluster and the networks it reaches, with Calculon's system fields
/// (calculon-ai/calculon: calculon/system.py, processor.py, memory.py, network.py).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/llm/places.hpp"

namespace tidesim::llm {

/// Efficiency by operation size: rows of (threshold, efficiency) in decreasing threshold order; an
/// operation of size x runs at the efficiency of the first row whose threshold is <= x.
struct EfficiencyTable {
  std::vector<std::pair<double, double>> rows;  ///< (threshold in flops or bytes, efficiency)
  /// The efficiency for size `amount` (the last row's below every threshold; 1 with no rows).
  double at(double amount) const;
};

/// One kind of compute unit (tensor cores or vector units) for one data type.
struct ComputeUnit {
  double peak_flops = 0;  ///< flop/s
  EfficiencyTable efficiency;
};

/// A memory tier: capacity in bytes, bandwidth in bytes/s and efficiency by bytes moved.
struct MemoryTier {
  double capacity = 0;
  double bandwidth = 0;
  EfficiencyTable efficiency;
};

/// The collectives a network prices.
enum class Collective { p2p, reduce_scatter, all_gather, all_reduce };
inline constexpr int kCollectives = 4;

/// How a collective's bytes on the wire scale: S x scalar x (1 + offset / n) for S bytes over n
/// participants; [2, -1] is the ring all-reduce's 2S(n-1)/n (Patarasuk and Yuan 2009).
struct CollectiveCost {
  double scalar = 1;
  double offset = 0;
};

/// A network a parallel group's traffic crosses. A caller that knows the bandwidth its group
/// really gets (the fabric tiers it spans, shared with other jobs) replaces `bandwidth` here.
struct Network {
  double bandwidth = 0;   ///< bytes/s per GPU, one direction
  double efficiency = 1;  ///< share of `bandwidth` a collective reaches
  std::int64_t size = 1;  ///< GPUs in one domain of this network
  double latency = 0;     ///< seconds per operation
  std::array<CollectiveCost, kCollectives> ops{};
  bool must_be_filled = false;  ///< a group mapped here must divide `size`
  double processor_usage = 0;   ///< share of compute lost while an overlapped transfer runs

  /// Seconds for `op` of `bytes` over `participants` GPUs: latency + bytes x scalar x (1 + offset
  /// / n) / (bandwidth x efficiency) (Calculon's network.py); 0 for fewer than 2 participants.
  double time(Collective op, double bytes, std::int64_t participants) const;
};

/// Whether a kernel's compute and memory times add (no_overlap) or the larger wins (roofline).
enum class ProcessingMode { no_overlap, roofline };

/// A GPU with its memories and networks.
struct System {
  std::string name;
  std::map<std::string, ComputeUnit> matrix;  ///< by data type
  std::map<std::string, ComputeUnit> vector;
  MemoryTier mem1;  ///< HBM
  MemoryTier mem2;  ///< the offload tier (host memory)
  ProcessingMode processing_mode = ProcessingMode::no_overlap;
  std::vector<Network> networks;
  FieldPlaces places;
};

/// The built-in system names, in a fixed order.
std::vector<std::string> system_preset_names();
/// The built-in system `name` (a100-80g, h100-80g), or nullopt.
std::optional<System> system_preset(const std::string& name);

}  // namespace tidesim::llm
