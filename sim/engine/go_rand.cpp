// Port of Go's math/rand generator (go1.19): see the notice in go_rand.hpp.
#include "tidesim/sim/engine/go_rand.hpp"

#include <stdexcept>

namespace tidesim {
namespace {

constexpr int kLen = 607;   // rngLen
constexpr int kTap = 273;   // rngTap
constexpr int kSteps = 20;  // LCG steps before the first word
constexpr std::int32_t kInt32Max = 2147483647;

// seedrand: x' = 48271 x mod (2^31 - 1) by Schrage's method (q = 44488, r = 3399).
std::int32_t seedrand(std::int32_t x) {
  const std::int32_t hi = x / 44488;
  const std::int32_t lo = x % 44488;
  x = 48271 * lo - 3399 * hi;
  if (x < 0) {
    x += kInt32Max;
  }
  return x;
}

using Poly = std::array<std::uint64_t, kLen>;

// a * b mod P(t) = t^607 - t^334 - 1 over Z / 2^64 (the recurrence y[k+607] = y[k+334] + y[k]).
Poly mulmod(const Poly& a, const Poly& b) {
  std::array<std::uint64_t, 2 * kLen - 1> r{};
  for (int i = 0; i < kLen; ++i) {
    if (a[i] == 0) {
      continue;
    }
    for (int j = 0; j < kLen; ++j) {
      r[i + j] += a[i] * b[j];
    }
  }
  for (int d = 2 * kLen - 2; d >= kLen; --d) {
    const std::uint64_t c = r[d];  // t^d = t^(d-273) + t^(d-607)
    r[d - kTap] += c;
    r[d - kLen] += c;
  }
  Poly out{};
  for (int i = 0; i < kLen; ++i) {
    out[i] = r[i];
  }
  return out;
}

// t * a mod P(t).
Poly shiftmod(const Poly& a) {
  Poly out{};
  const std::uint64_t top = a[kLen - 1];
  for (int i = kLen - 1; i > 0; --i) {
    out[i] = a[i - 1];
  }
  out[0] = top;             // t^607 = t^334 + 1
  out[kLen - kTap] += top;  // 607 - 273 = 334
  return out;
}

// gen_cooked.go: srand(1) (the LCG words combined with shifts 20 and 10), then 7.8e12 calls of
// vrand (x = vec[feed] + vec[tap], both indices counting down). Instead of stepping, the window
// of the last 607 outputs is computed as t^N mod P applied to the first 1,214 terms.
std::array<std::uint64_t, kLen> compute_cooked() {
  std::array<std::uint64_t, kLen> vec0{};
  std::int32_t x = 1;
  for (int i = -kSteps; i < kLen; ++i) {
    x = seedrand(x);
    if (i >= 0) {
      std::uint64_t u = static_cast<std::uint64_t>(x) << 20;
      x = seedrand(x);
      u ^= static_cast<std::uint64_t>(x) << 10;
      x = seedrand(x);
      u ^= static_cast<std::uint64_t>(x);
      vec0[static_cast<std::size_t>(i)] = u;
    }
  }
  // Output n (n = 1, 2, ...) is written at index (334 - n) mod 607 and reads the values written
  // 607 and 273 outputs earlier; the initial words are outputs -606..0: x[m] = vec0[(334 - m) mod
  // 607]. y[j] = x[j - 606].
  std::vector<std::uint64_t> y(2 * kLen);
  for (int j = 0; j < kLen; ++j) {
    y[static_cast<std::size_t>(j)] =
        vec0[static_cast<std::size_t>(((940 - j) % kLen + kLen) % kLen)];
  }
  for (int j = kLen; j < 2 * kLen; ++j) {
    y[static_cast<std::size_t>(j)] =
        y[static_cast<std::size_t>(j - kLen)] + y[static_cast<std::size_t>(j - kTap)];
  }
  const std::uint64_t n = 7'800'000'000'000ULL;  // 7.8e12 steps
  Poly c{};
  c[0] = 1;
  for (int bit = 63; bit >= 0; --bit) {
    c = mulmod(c, c);
    if ((n >> bit) & 1U) {
      c = shiftmod(c);
    }
  }
  // x[n - 606 + i] = y[n + i] = sum_j c[j] y[j + i]; it sits at index (334 - (n - 606 + i)) mod
  // 607.
  std::array<std::uint64_t, kLen> out{};
  for (int i = 0; i < kLen; ++i) {
    std::uint64_t v = 0;
    for (int j = 0; j < kLen; ++j) {
      v += c[static_cast<std::size_t>(j)] * y[static_cast<std::size_t>(j + i)];
    }
    const std::uint64_t step = n - 606 + static_cast<std::uint64_t>(i);
    const auto idx = static_cast<std::size_t>((334 + kLen - static_cast<int>(step % kLen)) % kLen);
    out[idx] = v;
  }
  return out;
}

}  // namespace

const std::array<std::uint64_t, 607>& go_rand_cooked() {
  static const std::array<std::uint64_t, 607> table = compute_cooked();
  return table;
}

GoRand::GoRand(std::int64_t s) {
  seed(s);
}

void GoRand::seed(std::int64_t s) {
  const auto& cooked = go_rand_cooked();
  tap_ = 0;
  feed_ = kLen - kTap;
  s = s % kInt32Max;
  if (s < 0) {
    s += kInt32Max;
  }
  if (s == 0) {
    s = 89482311;
  }
  auto x = static_cast<std::int32_t>(s);
  for (int i = -kSteps; i < kLen; ++i) {
    x = seedrand(x);
    if (i >= 0) {
      std::uint64_t u = static_cast<std::uint64_t>(x) << 40;
      x = seedrand(x);
      u ^= static_cast<std::uint64_t>(x) << 20;
      x = seedrand(x);
      u ^= static_cast<std::uint64_t>(x);
      u ^= cooked[static_cast<std::size_t>(i)];
      vec_[static_cast<std::size_t>(i)] = u;
    }
  }
}

std::uint64_t GoRand::uint64() {
  if (--tap_ < 0) {
    tap_ += kLen;
  }
  if (--feed_ < 0) {
    feed_ += kLen;
  }
  const std::uint64_t x =
      vec_[static_cast<std::size_t>(feed_)] + vec_[static_cast<std::size_t>(tap_)];
  vec_[static_cast<std::size_t>(feed_)] = x;
  return x;
}

std::int32_t GoRand::int31n(std::int32_t n) {
  if (n <= 0) {
    throw std::invalid_argument("GoRand::int31n: n must be > 0");
  }
  if ((n & (n - 1)) == 0) {
    return int31() & (n - 1);
  }
  const auto max = static_cast<std::int32_t>(
      (std::uint32_t{1} << 31) - 1 - (std::uint32_t{1} << 31) % static_cast<std::uint32_t>(n));
  std::int32_t v = int31();
  while (v > max) {
    v = int31();
  }
  return v % n;
}

std::int64_t GoRand::int63n(std::int64_t n) {
  if (n <= 0) {
    throw std::invalid_argument("GoRand::int63n: n must be > 0");
  }
  if ((n & (n - 1)) == 0) {
    return int63() & (n - 1);
  }
  const auto max = static_cast<std::int64_t>(
      (std::uint64_t{1} << 63) - 1 - (std::uint64_t{1} << 63) % static_cast<std::uint64_t>(n));
  std::int64_t v = int63();
  while (v > max) {
    v = int63();
  }
  return v % n;
}

std::int64_t GoRand::intn(std::int64_t n) {
  if (n <= 0) {
    throw std::invalid_argument("GoRand::intn: n must be > 0");
  }
  if (n <= kInt32Max) {
    return int31n(static_cast<std::int32_t>(n));
  }
  return int63n(n);
}

std::vector<int> GoRand::perm(int n) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const auto j = static_cast<std::size_t>(intn(i + 1));
    m[static_cast<std::size_t>(i)] = m[j];
    m[j] = i;
  }
  return m;
}

std::int32_t GoRand::lemire_int31n(std::int32_t n) {
  const auto un = static_cast<std::uint32_t>(n);
  std::uint64_t prod = static_cast<std::uint64_t>(uint32()) * un;
  auto low = static_cast<std::uint32_t>(prod);
  if (low < un) {
    const std::uint32_t thresh = (0U - un) % un;
    while (low < thresh) {
      prod = static_cast<std::uint64_t>(uint32()) * un;
      low = static_cast<std::uint32_t>(prod);
    }
  }
  return static_cast<std::int32_t>(prod >> 32);
}

}  // namespace tidesim
