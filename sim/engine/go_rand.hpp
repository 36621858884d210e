#pragma once
/// A port of Go's math/rand (go1.19 src/math/rand/rng.go, rand.go), for runs that must draw
/// exactly what a Go program seeded with rand.Seed(seed) draws (the FGD simulator's experiment:
/// hkust-adsl/kubernetes-scheduler-simulator @8f3d641; docs/fgd.md "Randomness").
///
/// Portions derived from the Go source, which carries this notice:
///
///   Copyright 2009 The Go Authors. All rights reserved.
///   Redistribution and use in source and binary forms, with or without modification, are
///   permitted provided that the following conditions are met:
///     * Redistributions of source code must retain the above copyright notice, this list of
///       conditions and the following disclaimer.
///     * Redistributions in binary form must reproduce the above copyright notice, this list of
///       conditions and the following disclaimer in the documentation and/or other materials
///       provided with the distribution.
///     * Neither the name of Google Inc. nor the names of its contributors may be used to
///       endorse or promote products derived from this software without specific prior written
///       permission.
///   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS
///   OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
///   MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE
///   COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL,
///   EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
///   SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION)
///   HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR
///   TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS
///   SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
///
/// The generator is Mitchell and Reeds' additive lagged Fibonacci generator (607 words, tap 273)
/// whose state is seeded through the Park-Miller LCG x' = 48271 x mod (2^31 - 1) and XORed with a
/// fixed 607-word table. Go ships that table ("rngCooked") as constants made by its
/// gen_cooked.go: the generator's state after 7.8e12 steps from srand(1). tidesim does not copy
/// the constants: go_rand_cooked() recomputes them once per process by jumping the recurrence
/// 7.8e12 steps ahead with polynomial arithmetic (milliseconds), and the tests check the result
/// against Go's published outputs.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace tidesim {

/// Go's rngCooked table (64-bit values), computed on first use; thread-safe.
const std::array<std::uint64_t, 607>& go_rand_cooked();

/// One Go math/rand generator (rand.New(rand.NewSource(seed)), or the global one after
/// rand.Seed(seed)). Methods are named after Go's and draw what Go's draw, in the same number.
class GoRand {
 public:
  explicit GoRand(std::int64_t seed);

  /// rngSource.Seed.
  void seed(std::int64_t seed);
  /// rngSource.Uint64: the next raw value.
  std::uint64_t uint64();
  /// Int63: uint64() & (2^63 - 1).
  std::int64_t int63() { return static_cast<std::int64_t>(uint64() & kMask63); }
  /// Int (64-bit platforms): one Int63.
  std::int64_t int_() { return int63(); }
  /// Uint32: int63() >> 31.
  std::uint32_t uint32() { return static_cast<std::uint32_t>(int63() >> 31); }
  /// Int31: int63() >> 32.
  std::int32_t int31() { return static_cast<std::int32_t>(int63() >> 32); }
  /// Int31n(n), n > 0: a mask for powers of two, else rejection on Int31.
  std::int32_t int31n(std::int32_t n);
  /// Int63n(n), n > 0.
  std::int64_t int63n(std::int64_t n);
  /// Intn(n), n > 0: Int31n when n fits in 31 bits, else Int63n.
  std::int64_t intn(std::int64_t n);
  /// Perm(n): j = Intn(i + 1); m[i] = m[j]; m[j] = i.
  std::vector<int> perm(int n);
  /// Shuffle(n, swap): Fisher-Yates from the end with the unexported int31n (Lemire's method on
  /// Uint32). `swap(i, j)` is called as Go calls it.
  template <class Swap>
  void shuffle(std::int64_t n, Swap&& swap) {
    std::int64_t i = n - 1;
    for (; i > (std::int64_t{1} << 31) - 1 - 1; --i) {
      swap(i, int63n(i + 1));
    }
    for (; i > 0; --i) {
      swap(i, static_cast<std::int64_t>(lemire_int31n(static_cast<std::int32_t>(i + 1))));
    }
  }

 private:
  static constexpr std::uint64_t kMask63 = (std::uint64_t{1} << 63) - 1;
  std::int32_t lemire_int31n(std::int32_t n);

  int tap_ = 0;
  int feed_ = 0;
  std::array<std::uint64_t, 607> vec_{};
};

}  // namespace tidesim
