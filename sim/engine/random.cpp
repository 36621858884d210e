#include "tidesim/sim/engine/random.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

namespace tidesim {
namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t stable_hash(std::string_view text) {
  std::uint64_t h = 14695981039346656037ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

RandomStream::RandomStream(std::uint64_t raw_seed) {
  std::uint64_t x = raw_seed;
  for (auto& s : s_) {
    s = splitmix64(x);
  }
}

RandomStream::RandomStream(std::uint64_t seed, std::string_view name)
    : RandomStream(seed ^ rotl(stable_hash(name), 17) ^ 0x5DEECE66DULL) {}

double RandomStream::uniform(double lo, double hi) {
  return lo + (hi - lo) * uniform01();
}

double RandomStream::exponential(double rate) {
  assert(rate > 0);
  // 1 - U lies in (0, 1], so the log is finite.
  return -std::log(1.0 - uniform01()) / rate;
}

double RandomStream::normal(double mean, double stddev) {
  const double u1 = 1.0 - uniform01();  // (0, 1]
  const double u2 = uniform01();
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  return mean + stddev * z;
}

double RandomStream::lognormal(double mu, double sigma) {
  return std::exp(normal(mu, sigma));
}

std::size_t RandomStream::weighted_choice(std::span<const double> weights) {
  assert(!weights.empty());
  double total = 0.0;
  for (const double w : weights) {
    assert(w >= 0);
    total += w;
  }
  assert(total > 0);
  const double target = uniform01() * total;
  double acc = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    acc += weights[i];
    if (target < acc) {
      return i;
    }
  }
  // Rounding can leave target == total: return the last positive weight.
  for (std::size_t i = weights.size(); i-- > 0;) {
    if (weights[i] > 0) {
      return i;
    }
  }
  return weights.size() - 1;
}

}  // namespace tidesim
