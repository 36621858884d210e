#pragma once
/// Reproducible randomness. Every component draws from its own stream, derived from the run seed
/// and the component's name, so adding a component never shifts another's draws (ns-3's
/// AssignStreams idea). The generator (xoshiro256**) and every distribution are the project's
/// own: std::*_distribution differ between standard libraries (SimGrid makes the same choice).
#include <cstdint>
#include <span>
#include <string_view>

namespace tidesim {

/// 64-bit FNV-1a hash of a string; stable across platforms and runs.
std::uint64_t stable_hash(std::string_view text);

/// One random stream: xoshiro256** seeded through splitmix64.
class RandomStream {
 public:
  /// The stream of component `name` in a run with seed `seed`.
  RandomStream(std::uint64_t seed, std::string_view name);
  /// A stream seeded directly (tests).
  explicit RandomStream(std::uint64_t raw_seed);

  /// Next raw 64-bit value.
  std::uint64_t next_u64();
  /// Uniform in [0, 1), 53 bits of precision.
  double uniform01();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi);
  /// Uniform integer in [0, n), unbiased (Lemire's method). Precondition: n > 0.
  std::uint64_t uniform_int(std::uint64_t n);
  /// Exponential with the given rate (mean 1/rate). Precondition: rate > 0.
  double exponential(double rate);
  /// Normal by the Box-Muller transform (one value per call, no cached spare, so the
  /// sequence does not depend on call history).
  double normal(double mean, double stddev);
  /// Lognormal: exp(normal(mu, sigma)).
  double lognormal(double mu, double sigma);
  /// Index i with probability weights[i] / sum(weights). Precondition: weights non-empty,
  /// non-negative, with a positive sum.
  std::size_t weighted_choice(std::span<const double> weights);

 private:
  std::uint64_t s_[4];
};

}  // namespace tidesim
