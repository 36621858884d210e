#include "tidesim/sim/input/quantity.hpp"

#include <array>
#include <cstddef>
#include <limits>
#include <vector>

namespace tidesim {
namespace {

// Digits kept exactly; more significant digits than this cannot describe a resource amount.
constexpr std::size_t kMaxDigits = 400;
// |decimal exponent| beyond which the value is certainly out of range (or below one unit).
constexpr std::int64_t kMaxExponent = 1000;

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw QuantityError("'" + std::string(text) + "' " + why);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

struct Suffix {
  std::int64_t exp10 = 0;  // decimal exponent
  int binary = 0;          // power of 1024
};

Suffix parse_suffix(std::string_view text, std::string_view s) {
  static constexpr std::array<std::pair<std::string_view, Suffix>, 13> kSuffixes{{
      {"", {0, 0}},
      {"m", {-3, 0}},
      {"k", {3, 0}},
      {"M", {6, 0}},
      {"G", {9, 0}},
      {"T", {12, 0}},
      {"P", {15, 0}},
      {"E", {18, 0}},
      {"Ki", {0, 1}},
      {"Mi", {0, 2}},
      {"Gi", {0, 3}},
      {"Ti", {0, 4}},
      {"Pi", {0, 5}},
  }};
  for (const auto& [name, suffix] : kSuffixes) {
    if (s == name) {
      return suffix;
    }
  }
  if (s == "Ei") {
    return {0, 6};
  }
  if (s.size() >= 2 && (s[0] == 'e' || s[0] == 'E')) {
    std::size_t i = 1;
    bool negative = false;
    if (s[i] == '+' || s[i] == '-') {
      negative = s[i] == '-';
      ++i;
    }
    if (i == s.size()) {
      bad(text, "has an exponent without digits");
    }
    std::int64_t e = 0;
    for (; i < s.size(); ++i) {
      if (!is_digit(s[i])) {
        bad(text, "is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3)");
      }
      // Saturate: anything past kMaxExponent is handled as "far out of range" below.
      e = std::min<std::int64_t>(e * 10 + (s[i] - '0'), 10 * kMaxExponent);
    }
    return {negative ? -e : e, 0};
  }
  bad(text, "is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3)");
}

// The quantity in units of 10^-milli_digits, rounded up; `*rounded` says whether it was.
std::int64_t parse(std::string_view text, int milli_digits, bool* rounded) {
  *rounded = false;
  if (text.empty()) {
    bad(text, "is not a Kubernetes quantity: it is empty");
  }
  std::size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') {
    negative = text[0] == '-';
    ++i;
  }
  // The number: digits with at most one '.', at least one digit.
  std::vector<char> digits;  // significant digits, no leading zeros
  std::int64_t exp10 = 0;
  bool seen_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !seen_point) {
      seen_point = true;
      continue;
    }
    if (!is_digit(c)) {
      break;
    }
    seen_digit = true;
    if (seen_point) {
      --exp10;
    }
    if (digits.empty() && c == '0') {
      continue;
    }
    if (digits.size() >= kMaxDigits) {
      bad(text, "has too many digits");
    }
    digits.push_back(c);
  }
  if (!seen_digit) {
    bad(text, "is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3)");
  }
  const Suffix suffix = parse_suffix(text, text.substr(i));
  if (digits.empty()) {
    return 0;  // zero, "-0" included
  }
  if (negative) {
    bad(text, "is negative; resource quantities must be 0 or more");
  }
  exp10 += suffix.exp10 + milli_digits;
  if (exp10 > kMaxExponent) {
    bad(text, "is out of range");
  }
  if (exp10 < -kMaxExponent) {
    *rounded = true;
    return 1;  // a positive amount far below one unit rounds up to 1
  }
  // Exact decimal arithmetic: multiply the digits by 1024^binary (least significant first).
  std::vector<int> n;
  n.reserve(digits.size() + 20 * static_cast<std::size_t>(suffix.binary) + 1);
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    n.push_back(*it - '0');
  }
  for (int b = 0; b < suffix.binary; ++b) {
    int carry = 0;
    for (int& d : n) {
      const int v = d * 1024 + carry;
      d = v % 10;
      carry = v / 10;
    }
    while (carry > 0) {
      n.push_back(carry % 10);
      carry /= 10;
    }
  }
  // Apply the decimal exponent: integer part, and whether a fraction is left (round up).
  bool fraction = false;
  std::size_t drop = 0;
  if (exp10 < 0) {
    drop = static_cast<std::size_t>(-exp10);
    for (std::size_t k = 0; k < std::min(drop, n.size()); ++k) {
      fraction = fraction || n[k] != 0;
    }
  }
  const std::size_t integer_digits =
      n.size() > drop ? n.size() - drop + static_cast<std::size_t>(std::max<std::int64_t>(exp10, 0))
                      : 0;
  if (integer_digits > 19) {
    bad(text, "is out of range");
  }
  // At most 19 digits: below 10^19 < 2^64, so neither the digits nor the rounding overflow.
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t v = 0;
  for (std::size_t k = n.size(); k > drop; --k) {
    v = v * 10 + static_cast<unsigned>(n[k - 1]);
  }
  for (std::int64_t k = 0; k < exp10; ++k) {
    v *= 10;
  }
  if (fraction) {
    ++v;
    *rounded = true;
  }
  if (v > kMax) {
    bad(text, "is out of range");
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace

std::int64_t parse_quantity(std::string_view text, int milli_digits) {
  bool rounded = false;
  return parse(text, milli_digits, &rounded);
}

std::int64_t parse_integer_quantity(std::string_view text) {
  bool rounded = false;
  const std::int64_t v = parse(text, 0, &rounded);
  if (rounded) {
    throw QuantityError("'" + std::string(text) + "' must be a whole number");
  }
  return v;
}

}  // namespace tidesim
