#pragma once
/// CPython's `random.Random` draws, bit for bit (Lib/random.py and Modules/_randommodule.c): the
/// Mersenne Twister MT19937 (std::mt19937) seeded as `random.seed(n)` seeds it for an integer `n`
/// (init_by_array over the 32-bit words of |n|, least significant first; one word 0 for n = 0),
/// and the draws that Gavel's job generator makes (docs/gavel.md, "The job generator").
#include <cstdint>
#include <random>

namespace tidesim::workloads {

class PythonRandom {
 public:
  /// `random.Random(seed)` / `random.seed(seed)` for a non-negative integer seed.
  explicit PythonRandom(std::uint64_t seed);

  /// `random()`: (a x 2^26 + b) / 2^53 for a = next >> 5, b = next >> 6 (53 bits, [0, 1)).
  double random();
  /// `uniform(a, b)`: a + (b - a) x random().
  double uniform(double a, double b);
  /// `getrandbits(k)` for 1 <= k <= 32: the next 32-bit output >> (32 - k).
  std::uint32_t getrandbits(int k);
  /// `_randbelow(n)` (`_randbelow_with_getrandbits`): getrandbits(n.bit_length()) redrawn while
  /// >= n; `choice(seq)` is seq[randbelow(len(seq))]. Precondition: 1 <= n < 2^32.
  std::uint32_t randbelow(std::uint32_t n);

 private:
  std::mt19937 mt_;
};

}  // namespace tidesim::workloads
