#include "tidesim/sim/engine/statistics.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>
#include <stdexcept>
#include <utility>

namespace tidesim {

namespace {
// GCC and Clang have 128-bit integers; __extension__ keeps -Wpedantic quiet about them.
__extension__ using u128 = unsigned __int128;
}  // namespace

std::optional<double> quantile_of_sorted(std::span<const double> sorted, double q) {
  if (sorted.empty()) {
    return std::nullopt;
  }
  q = std::clamp(q, 0.0, 1.0);
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = static_cast<std::size_t>(std::ceil(h));
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

std::optional<double> quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return quantile_of_sorted(values, q);
}

namespace {

// x = mantissa x 2^(shift - 1074) with a 53-bit integer mantissa and shift >= 0.
std::pair<std::uint64_t, int> fixed_point(double x) {
  if (!std::isfinite(x) || x < 0.0 || x >= 0x1p63) {
    throw std::invalid_argument("ExactSum: value must be finite, non-negative and below 2^63");
  }
  int e = 0;
  const double f = std::frexp(x, &e);  // x = f x 2^e, f in [0.5, 1)
  const auto mantissa = static_cast<std::uint64_t>(std::ldexp(f, 53));
  int shift = e - 53 + 1074;
  std::uint64_t m = mantissa;
  if (shift < 0) {  // subnormal: the low bits of the mantissa are zero
    m >>= -shift;
    shift = 0;
  }
  return {m, shift};
}

// Adds x's fixed-point value to the limbs (or, with subtract, takes it away), carrying (borrowing)
// upward only as far as a carry (borrow) remains; returns true when one is left over the top limb.
bool carry_through(std::span<std::uint64_t> limbs, double x, bool subtract) {
  const auto [m, shift] = fixed_point(x);
  if (m == 0) {
    return false;
  }
  const auto limb = static_cast<std::size_t>(shift / 64);
  const u128 wide = static_cast<u128>(m) << (shift % 64);
  std::uint64_t carry = 0;
  for (std::size_t i = limb; i < limbs.size(); ++i) {
    u128 operand = carry;
    if (i == limb) {
      operand += static_cast<std::uint64_t>(wide);
    } else if (i == limb + 1) {
      operand += static_cast<std::uint64_t>(wide >> 64);
    } else if (carry == 0) {
      return false;
    }
    const u128 old = limbs[i];
    if (subtract) {
      carry = old < operand ? 1 : 0;
      limbs[i] = static_cast<std::uint64_t>(old - operand);
    } else {
      const u128 t = old + operand;
      limbs[i] = static_cast<std::uint64_t>(t);
      carry = static_cast<std::uint64_t>(t >> 64);
    }
  }
  return carry != 0;
}

}  // namespace

void ExactSum::add(double x) {
  // A carry over the top limb (a sum of 2^77 or more) is dropped.
  carry_through(limbs_, x, /*subtract=*/false);
}

void ExactSum::remove(double x) {
  if (carry_through(limbs_, x, /*subtract=*/true)) {
    throw std::logic_error("ExactSum: removed more than was added");
  }
}

bool ExactSum::zero() const {
  for (const auto l : limbs_) {
    if (l != 0) {
      return false;
    }
  }
  return true;
}

double ExactSum::value() const {
  int top = kLimbs - 1;
  while (top >= 0 && limbs_[top] == 0) {
    --top;
  }
  if (top < 0) {
    return 0.0;
  }
  // The 64 bits below and including the highest set bit, then a sticky bit for anything lower:
  // converting that to double rounds exactly as rounding the whole sum would (64 > 53 + 2).
  const int high = 63 - std::countl_zero(limbs_[top]);  // highest set bit within limbs_[top]
  const int msb = top * 64 + high;                      // its index in the whole number
  const int low = msb - 63;                             // index of the lowest of the 64 bits
  auto bit_range = [&](int from) {                      // 64 bits starting at bit `from` >= 0
    const int l = from / 64;
    const int b = from % 64;
    std::uint64_t v = limbs_[l] >> b;
    if (b != 0 && l + 1 < kLimbs) {
      v |= limbs_[l + 1] << (64 - b);
    }
    return v;
  };
  if (low <= 0) {
    return std::ldexp(static_cast<double>(bit_range(0)), -1074);
  }
  std::uint64_t top64 = bit_range(low);
  bool sticky = false;
  for (int l = 0; l < low / 64 && !sticky; ++l) {
    sticky = limbs_[l] != 0;
  }
  if (!sticky && low % 64 != 0) {
    sticky = (limbs_[low / 64] & ((std::uint64_t{1} << (low % 64)) - 1)) != 0;
  }
  if (sticky) {
    top64 |= 1;
  }
  return std::ldexp(static_cast<double>(top64), low - 1074);
}

}  // namespace tidesim
