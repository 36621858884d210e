#include "tidesim/sim/input/units.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tidesim {
namespace {

struct Prefix {
  std::string_view text;
  double factor;
};

// Longest first so that "GiB" wins over "Gi" and "G".
constexpr std::array<Prefix, 24> kBytePrefixes{{
    {"KiB", 1024.0},
    {"MiB", 1048576.0},
    {"GiB", 1073741824.0},
    {"TiB", 1099511627776.0},
    {"PiB", 1125899906842624.0},
    {"Ki", 1024.0},
    {"Mi", 1048576.0},
    {"Gi", 1073741824.0},
    {"Ti", 1099511627776.0},
    {"Pi", 1125899906842624.0},
    {"kB", 1e3},
    {"KB", 1e3},
    {"MB", 1e6},
    {"GB", 1e9},
    {"TB", 1e12},
    {"PB", 1e15},
    {"k", 1e3},
    {"K", 1e3},
    {"M", 1e6},
    {"G", 1e9},
    {"T", 1e12},
    {"P", 1e15},
    {"B", 1.0},
    {"", 1.0},
}};

// Splits "12.5GiB" into 12.5 and "GiB". Throws when there is no leading number.
double leading_number(std::string_view text, std::string_view& rest, const char* what) {
  std::size_t i = 0;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.' ||
                             text[i] == 'e' || text[i] == '-' || text[i] == '+')) {
    // 'e' only as an exponent after a digit: stop at a unit that starts with e.
    if ((text[i] == 'e') &&
        (i + 1 >= text.size() || !(text[i + 1] == '-' || text[i + 1] == '+' ||
                                   (text[i + 1] >= '0' && text[i + 1] <= '9')))) {
      break;
    }
    ++i;
  }
  std::string number(text.substr(0, i));
  std::size_t used = 0;
  double value = 0.0;
  try {
    value = std::stod(number, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
  }
  if (used != number.size() || !std::isfinite(value)) {
    throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
  }
  rest = text.substr(i);
  while (!rest.empty() && rest.front() == ' ') {
    rest.remove_prefix(1);
  }
  return value;
}

double byte_factor(std::string_view unit, std::string_view original, const char* what) {
  for (const auto& p : kBytePrefixes) {
    if (unit == p.text) {
      return p.factor;
    }
  }
  throw std::invalid_argument("'" + std::string(original) + "' is not " + what +
                              " (units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB, Ki, Mi, Gi, Ti)");
}

// Kubernetes quantities (units.hpp). Messages name the text and the kind of value expected.
struct Kind {
  const char* malformed;  // "is not ..."
  const char* negative;   // "is negative; ..."
};
constexpr Kind kQuantity{"is not a Kubernetes quantity (e.g. 500m, 2, 16Gi, 1e3)",
                         "is negative; resource quantities must be 0 or more"};
constexpr Kind kByteSize{"is not a byte size (e.g. 24GiB, 16Gi, 512MB)",
                         "is negative; sizes must be 0 or more"};

// Significant digits kept exactly; more than this cannot describe a resource amount.
constexpr std::size_t kMaxDigits = 400;
// |decimal exponent| beyond which the value is certainly out of range (or below one unit).
constexpr std::int64_t kMaxExponent = 1000;

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw QuantityError("'" + std::string(text) + "' " + why);
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A quantity split as quantity.go's grammar writes it: sign, number, suffix (not yet read).
struct Split {
  bool negative = false;
  std::string_view number;  // digits with at most one '.', at least one digit
  std::string_view suffix;  // the rest
};

Split split(std::string_view text, std::string_view original, const Kind& kind) {
  Split out;
  std::size_t i = 0;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    out.negative = text[0] == '-';
    ++i;
  }
  const std::size_t start = i;
  bool seen_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    if (text[i] == '.' && !seen_point) {
      seen_point = true;
    } else if (is_digit(text[i])) {
      seen_digit = true;
    } else {
      break;
    }
  }
  if (!seen_digit) {
    bad(original,
        original.empty() ? std::string(kind.malformed) + ": it is empty" : kind.malformed);
  }
  out.number = text.substr(start, i - start);
  out.suffix = text.substr(i);
  return out;
}

// What a suffix multiplies by: 10^exp10 * 1024^binary.
struct Scale {
  std::int64_t exp10 = 0;
  int binary = 0;
};

Scale scale_of(std::string_view suffix, std::string_view original, const Kind& kind) {
  static constexpr std::array<std::pair<std::string_view, Scale>, 16> kSuffixes{{
      {"", {0, 0}},
      {"n", {-9, 0}},
      {"u", {-6, 0}},
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
      {"Ei", {0, 6}},
  }};
  for (const auto& [name, scale] : kSuffixes) {
    if (suffix == name) {
      return scale;
    }
  }
  // A decimal exponent: "E" alone is exa (above), "E" or "e" followed by a signed integer is 10^n.
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::size_t i = 1;
    bool negative = false;
    if (suffix[i] == '+' || suffix[i] == '-') {
      negative = suffix[i] == '-';
      ++i;
    }
    if (i == suffix.size()) {
      bad(original, "has an exponent without digits");
    }
    std::int64_t e = 0;
    for (; i < suffix.size(); ++i) {
      if (!is_digit(suffix[i])) {
        bad(original, kind.malformed);
      }
      // Saturate: anything past kMaxExponent is handled as "far out of range" below.
      e = std::min<std::int64_t>(e * 10 + (suffix[i] - '0'), 10 * kMaxExponent);
    }
    return {negative ? -e : e, 0};
  }
  bad(original, kind.malformed);
}

// number * 10^exp10 * 1024^binary in units of 10^-milli_digits, rounded up; `*rounded` says
// whether it was. Exact: the digits are multiplied as a decimal string.
std::int64_t value_of(const Split& q, Scale scale, int milli_digits, std::string_view original,
                      const Kind& kind, bool* rounded) {
  *rounded = false;
  std::vector<int> n;  // significant digits, least significant first
  std::int64_t exp10 = 0;
  bool after_point = false;
  for (const char c : q.number) {
    if (c == '.') {
      after_point = true;
      continue;
    }
    if (after_point) {
      --exp10;
    }
    if (n.empty() && c == '0') {
      continue;  // a leading zero
    }
    if (n.size() >= kMaxDigits) {
      bad(original, "has too many digits");
    }
    n.push_back(c - '0');
  }
  if (n.empty()) {
    return 0;  // zero, "-0" included
  }
  if (q.negative) {
    bad(original, kind.negative);
  }
  std::reverse(n.begin(), n.end());
  exp10 += scale.exp10 + milli_digits;
  if (exp10 > kMaxExponent) {
    bad(original, "is out of range");
  }
  if (exp10 < -kMaxExponent) {
    *rounded = true;
    return 1;  // a positive amount far below one unit rounds up to 1
  }
  for (int b = 0; b < scale.binary; ++b) {
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
  // The integer part, and whether a fraction is left (round up).
  const std::size_t drop = exp10 < 0 ? static_cast<std::size_t>(-exp10) : 0;
  bool fraction = false;
  for (std::size_t k = 0; k < std::min(drop, n.size()); ++k) {
    fraction = fraction || n[k] != 0;
  }
  const std::size_t integer_digits =
      n.size() > drop ? n.size() - drop + static_cast<std::size_t>(std::max<std::int64_t>(exp10, 0))
                      : 0;
  if (integer_digits > 19) {
    bad(original, "is out of range");
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
    bad(original, "is out of range");
  }
  return static_cast<std::int64_t>(v);
}

std::int64_t quantity(std::string_view text, int milli_digits, bool* rounded) {
  const Split q = split(text, text, kQuantity);
  return value_of(q, scale_of(q.suffix, text, kQuantity), milli_digits, text, kQuantity, rounded);
}

std::string trim_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s(buf);
  while (!s.empty() && s.back() == '0') {
    s.pop_back();
  }
  if (!s.empty() && s.back() == '.') {
    s.pop_back();
  }
  return s;
}

}  // namespace

std::int64_t parse_quantity(std::string_view text, int milli_digits) {
  bool rounded = false;
  return quantity(text, milli_digits, &rounded);
}

std::int64_t parse_integer_quantity(std::string_view text) {
  bool rounded = false;
  const std::int64_t v = quantity(text, 0, &rounded);
  if (rounded) {
    throw QuantityError("'" + std::string(text) + "' must be a whole number");
  }
  return v;
}

std::int64_t parse_bytes(std::string_view text) {
  const bool byte_unit = text.ends_with('B');
  Split q = split(byte_unit ? text.substr(0, text.size() - 1) : text, text, kByteSize);
  if (byte_unit) {
    if (q.suffix == "K") {
      q.suffix = "k";  // "KB", as kilobytes are often written
    } else if (q.suffix == "n" || q.suffix == "u" || q.suffix == "m") {
      bad(text, kByteSize.malformed);
    }
  }
  bool rounded = false;
  return value_of(q, scale_of(q.suffix, text, kByteSize), 0, text, kByteSize, &rounded);
}

double parse_bandwidth(std::string_view text) {
  constexpr const char* what = "a bandwidth (e.g. 25GB/s, 100Gbit/s)";
  if (!text.ends_with("/s")) {
    throw std::invalid_argument("'" + std::string(text) + "' is not " + what + ": it needs /s");
  }
  std::string_view unit;
  const double value = leading_number(text.substr(0, text.size() - 2), unit, what);
  if (value < 0) {
    throw std::invalid_argument("'" + std::string(text) + "' is negative");
  }
  double bits = 1.0;
  if (unit.ends_with("bit")) {
    unit.remove_suffix(3);
    bits = 1.0 / 8.0;
  } else if (unit.ends_with("b") && !unit.empty()) {
    unit.remove_suffix(1);
    bits = 1.0 / 8.0;
  }
  if (unit.empty() || unit.back() != 'B') {
    if (bits == 1.0) {
      throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
    }
  }
  const double bytes = value * byte_factor(unit, text, what) * bits;
  // 1e308PB/s is a finite number times a unit that overflows: more than any link (a link of
  // 10^18 B/s, 1 EB/s, is a million times today's fastest), refused here where its place is known.
  if (!(bytes <= kMaxBandwidth)) {
    throw std::invalid_argument("'" + std::string(text) + "' is more than the largest bandwidth, " +
                                format_bandwidth(kMaxBandwidth));
  }
  return bytes;
}

double parse_fraction(std::string_view text) {
  constexpr const char* what = "a fraction (e.g. 85% or 0.85)";
  std::string_view rest;
  const double value = leading_number(text, rest, what);
  if (rest == "%") {
    if (value < 0 || value > 100) {
      throw std::invalid_argument("'" + std::string(text) + "' must lie in [0%, 100%]");
    }
    return value / 100.0;
  }
  if (!rest.empty()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
  }
  if (value < 0 || value > 1) {
    throw std::invalid_argument("'" + std::string(text) +
                                "' must lie in [0, 1] (or write a percentage)");
  }
  return value;
}

std::string format_bytes(std::int64_t bytes) {
  const std::array<const char*, 5> names{"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  std::size_t i = 0;
  while (std::fabs(v) >= 1024.0 && i + 1 < names.size()) {
    v /= 1024.0;
    ++i;
  }
  return trim_number(v) + names[i];
}

std::string format_bandwidth(double bytes_per_second) {
  const std::array<const char*, 5> names{"B/s", "KB/s", "MB/s", "GB/s", "TB/s"};
  double v = bytes_per_second;
  std::size_t i = 0;
  while (std::fabs(v) >= 1000.0 && i + 1 < names.size()) {
    v /= 1000.0;
    ++i;
  }
  return trim_number(v) + names[i];
}

}  // namespace tidesim
