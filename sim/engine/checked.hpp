#pragma once
/// Overflow-safe integer arithmetic for values that come from input (docs/robustness.md,
/// "Arithmetic"). Signed overflow is undefined behaviour in C++; these helpers either saturate
/// at the int64 limits or say that the exact result does not fit. GCC and Clang check with
/// __builtin_*_overflow, which computes the exact result and reports whether it was truncated.
#include <cstdint>
#include <limits>
#include <optional>

namespace tidesim {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

/// a + b, or nullopt when the exact sum does not fit in an int64.
constexpr std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return std::nullopt;
  }
  return r;
}

/// a * b, or nullopt when the exact product does not fit in an int64.
constexpr std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return std::nullopt;
  }
  return r;
}

/// a + b, clamped to [kInt64Min, kInt64Max].
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) {
    return b > 0 ? kInt64Max : kInt64Min;
  }
  return r;
}

/// a - b, clamped to [kInt64Min, kInt64Max].
constexpr std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) {
    return b < 0 ? kInt64Max : kInt64Min;
  }
  return r;
}

/// a * b, clamped to [kInt64Min, kInt64Max].
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) {
    return (a < 0) == (b < 0) ? kInt64Max : kInt64Min;
  }
  return r;
}

/// a * b / c computed exactly in 128 bits, for 0 <= a, 0 <= b and c > 0 whose quotient fits in
/// an int64 (Kubernetes' score formulas, `x * 100 / capacity` with x <= capacity, whose
/// intermediate product exceeds 64 bits once capacity passes 2^63 / 100).
inline std::int64_t mul_div(std::int64_t a, std::int64_t b, std::int64_t c) {
  __extension__ using i128 = __int128;
  return static_cast<std::int64_t>(static_cast<i128>(a) * b / c);
}

}  // namespace tidesim
