#pragma once
/// Gandiva as Gavel runs it (policies/gandiva.py, GandivaPolicy; docs/gavel.md): time sharing,
/// and packing (space sharing) when the jobs ask for more GPUs than there are.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/engine/random.hpp"

namespace tidesim::gavel {

class Gandiva {
 public:
  /// Pairs are drawn from the stream "gavel-gandiva" of `seed`.
  explicit Gandiva(std::uint64_t seed) : rng_(seed, "gavel-gandiva") {}

  /// First, pairs kept from the last call are broken when a job of theirs has left or when
  /// their normalised throughput, the sum over GPU types and both jobs of co-located /
  /// isolated throughput (0 when either co-located throughput is 0 or not measured on some type),
  /// is below 1. When the jobs' GPUs (sum of scale factors) fit the cluster, every job gets the
  /// equal split of `isolated`. Otherwise the jobs in no pair are paired at random (as many tries
  /// as there are such jobs; two jobs of different scale factors are not paired), and each
  /// combination (pair or single job) gets the equal split over the combinations:
  /// (GPUs of t / combinations) / scale factor, each row divided by max(1, its sum).
  PackedAllocation allocate(const AllocationProblem& p);

 private:
  RandomStream rng_;
  /// Job id -> the id of the job it is paired with, nullopt when alone.
  std::map<int, std::optional<int>> partner_;
};

}  // namespace tidesim::gavel
