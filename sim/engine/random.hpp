#pragma once
/// Reproducible randomness. Every component draws from its own stream, derived from the run seed
/// and the component's name, so adding a component never shifts another's draws (ns-3's
/// AssignStreams idea). The generator (xoshiro256**) and every distribution are the project's
/// own: std::*_distribution differ between standard libraries (SimGrid makes the same choice).
#include <cassert>
#include <cmath>
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
  /// A probability as the bound of an integer comparison: `draw(Chance(p))` is exactly
  /// `uniform01() < p`, one draw, without the conversion to double (uniform01() is k x 2^-53 for
  /// the draw's top 53 bits k, and k x 2^-53 < p exactly when k < ceil(p x 2^53), the product
  /// being exact).
  class Chance {
   public:
    explicit Chance(double p);

   private:
    friend class RandomStream;
    std::uint64_t below_;
  };
  /// True with the chance's probability: `uniform01() < p`, the same draw.
  bool draw(const Chance& chance);
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
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  std::uint64_t s_[4];
};

// The draws below are defined here so that hot loops (Pollux' search) inline them.

inline std::uint64_t RandomStream::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

inline double RandomStream::uniform01() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

inline RandomStream::Chance::Chance(double p)
    : below_(!(p > 0.0) ? 0
             : p >= 1.0 ? std::uint64_t{1} << 53
                        : static_cast<std::uint64_t>(std::ceil(p * 0x1.0p53))) {}

inline bool RandomStream::draw(const Chance& chance) {
  return (next_u64() >> 11) < chance.below_;
}

inline std::uint64_t RandomStream::uniform_int(std::uint64_t n) {
  assert(n > 0);
  // Lemire's multiply-and-shift with rejection ("Fast random integer generation in an interval",
  // ACM TOMACS 2019): unbiased, and a division only in the rare rejection case.
  __extension__ using u128 = unsigned __int128;
  u128 m = static_cast<u128>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<u128>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

}  // namespace tidesim
