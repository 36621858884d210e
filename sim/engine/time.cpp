#include "tidesim/sim/engine/time.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace tidesim {
namespace {

struct Unit {
  std::string_view suffix;
  std::int64_t micros;
};

// Longest suffixes first so that "ms" is not read as "m" followed by "s".
constexpr std::array<Unit, 9> kUnits{{{"min", 60'000'000},
                                      {"us", 1},
                                      {"ms", 1'000},
                                      {"ns", 0},  // rejected below: below the clock's resolution
                                      {"s", 1'000'000},
                                      {"m", 60'000'000},
                                      {"h", 3'600'000'000},
                                      {"d", 86'400'000'000},
                                      {"w", 604'800'000'000}}};

// `text` with "µs" (the micro sign) and "μs" (Greek mu), as people write microseconds, made "us".
std::string ascii_micro(std::string_view text) {
  std::string out(text);
  for (const std::string_view micro : {"\u00b5s", "\u03bcs"}) {
    for (auto at = out.find(micro); at != std::string::npos; at = out.find(micro, at)) {
      out.replace(at, micro.size(), "us");
    }
  }
  return out;
}

// The digits of one term of a duration, before and after its decimal point.
struct Decimal {
  std::string_view whole;
  std::string_view fraction;
};

// Reads a decimal number off the front of `text`; `original` (the whole input) names it in the
// error when there is none.
Decimal read_decimal(std::string_view& text, const std::string& original) {
  std::size_t i = 0;
  std::size_t dot = std::string_view::npos;
  bool digits = false;
  while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') ||
                             (text[i] == '.' && dot == std::string_view::npos))) {
    digits = digits || text[i] != '.';
    if (text[i] == '.') {
      dot = i;
    }
    ++i;
  }
  if (!digits) {
    throw std::invalid_argument("'" + original +
                                "' is not a duration (expected e.g. 10s, 250ms, 6h)");
  }
  Decimal d;
  d.whole = text.substr(0, std::min(i, dot));
  d.fraction = dot == std::string_view::npos ? "" : text.substr(dot + 1, i - dot - 1);
  text.remove_prefix(i);
  return d;
}

// Reads a unit off the front of `text`.
const Unit& read_unit(std::string_view& text, const std::string& original) {
  const Unit* unit = nullptr;
  for (const auto& u : kUnits) {
    if (text.starts_with(u.suffix)) {
      unit = &u;
      break;
    }
  }
  if (unit == nullptr && (text.starts_with('e') || text.starts_with('E')) && text.size() > 1 &&
      (text[1] == '+' || text[1] == '-' || (text[1] >= '0' && text[1] <= '9'))) {
    throw std::invalid_argument("'" + original +
                                "': a duration has no exponent; write the number in full "
                                "(e.g. 1000s, not 1e3s)");
  }
  if (unit == nullptr) {
    throw std::invalid_argument("'" + original +
                                "' needs a unit: us, ms, s, m (or min), h, d or w");
  }
  if (unit->micros == 0) {
    throw std::invalid_argument("'" + original + "': the clock's resolution is 1us");
  }
  text.remove_prefix(unit->suffix.size());
  return *unit;
}

// `d` units of `unit` in microseconds, exactly, saturating at `limit` + 1 (400 digits are out of
// range, not UB); a value the clock cannot hold is refused, not rounded ("0.4us" would be 0,
// and a checkpoint interval of 0 means none).
std::int64_t term_micros(Decimal d, const Unit& unit, std::int64_t limit,
                         const std::string& original) {
  std::int64_t n = 0;
  for (const char c : d.whole) {
    n = std::min(n * 10 + (c - '0'), limit + 1);
  }
  std::int64_t micros = n > limit / unit.micros ? limit + 1 : n * unit.micros;
  // The fraction F / 10^k of a unit of U us is whole microseconds only when 10^k divides F * U.
  // F has no trailing zero, so it lacks the factor 2 or 5 and U must hold 2^k or 5^k: no unit
  // holds more than 2^15, so more than 18 digits (10^18 fits in 64 bits) are never whole.
  std::string_view fraction = d.fraction;
  while (!fraction.empty() && fraction.back() == '0') {
    fraction.remove_suffix(1);
  }
  if (fraction.empty()) {
    return micros;
  }
  bool whole_micros = fraction.size() <= 18;
  if (whole_micros) {
    std::int64_t f = 0;
    std::int64_t ten_k = 1;
    for (const char c : fraction) {
      f = f * 10 + (c - '0');
      ten_k *= 10;
    }
    const std::int64_t g = std::gcd(unit.micros, ten_k);
    const std::int64_t p = ten_k / g;
    whole_micros = f % p == 0;
    micros = std::min(micros + (f / p) * (unit.micros / g), limit + 1);
  }
  if (!whole_micros) {
    throw std::invalid_argument("'" + original +
                                "' is not a whole number of microseconds (the clock's "
                                "resolution is 1us)");
  }
  return micros;
}

}  // namespace

Duration from_seconds(double seconds) {
  const double micros = std::round(seconds * 1e6);
  if (!std::isfinite(micros) || std::fabs(micros) > 9.0e18) {
    throw std::invalid_argument("duration out of range");
  }
  return Duration(static_cast<std::int64_t>(micros));
}

Duration parse_duration(std::string_view text) {
  if (text.empty()) {
    throw std::invalid_argument("empty duration");
  }
  const std::string original(text);
  const std::string ascii = ascii_micro(text);
  text = ascii;
  bool negative = false;
  if (text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  // Exact decimal arithmetic in microseconds, term by term ("1h30m"), saturating above the limit.
  const std::int64_t limit = kMaxInputDuration.count();
  std::int64_t total = 0;
  bool any = false;
  bool too_long = false;
  while (!text.empty()) {
    const Decimal number = read_decimal(text, original);
    const Unit& unit = read_unit(text, original);
    any = true;
    total = std::min(total + term_micros(number, unit, limit, original), limit + 1);
    too_long = too_long || total > limit;
  }
  if (!any) {
    throw std::invalid_argument("'" + original + "' is not a duration");
  }
  if (too_long) {
    throw std::invalid_argument("'" + original + "' is out of range (at most " +
                                format_duration(kMaxInputDuration) + ", 1000 years)");
  }
  return Duration(negative ? -total : total);
}

std::string format_duration(Duration d) {
  std::int64_t us = d.count();
  if (us == 0) {
    return "0s";
  }
  std::string out;
  if (us < 0) {
    out = "-";
    us = -us;
  }
  if (us % 1000 != 0 && us < 1'000'000) {
    return out + std::to_string(us) + "us";
  }
  if (us % 1'000'000 != 0) {
    if (us % 1000 == 0) {
      return out + std::to_string(us / 1000) + "ms";
    }
    return out + std::to_string(us) + "us";
  }
  std::int64_t s = us / 1'000'000;
  const std::array<std::pair<std::int64_t, const char*>, 4> parts{
      {{86'400, "d"}, {3'600, "h"}, {60, "m"}, {1, "s"}}};
  for (const auto& [size, name] : parts) {
    if (s >= size) {
      out += std::to_string(s / size) + name;
      s %= size;
    }
  }
  return out;
}

}  // namespace tidesim
