#include "tidesim/sim/engine/time.hpp"

#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>
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
  double total = 0.0;
  bool any = false;
  while (!text.empty()) {
    std::size_t i = 0;
    bool digits = false;
    bool dot = false;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || (text[i] == '.' && !dot))) {
      digits = digits || text[i] != '.';
      dot = dot || text[i] == '.';
      ++i;
    }
    if (!digits) {
      throw std::invalid_argument("'" + original +
                                  "' is not a duration (expected e.g. 10s, 250ms, 6h)");
    }
    // strtod, not stod: 400 digits give HUGE_VAL (refused as out of range below) instead of
    // std::out_of_range escaping from a parser.
    const double value = std::strtod(std::string(text.substr(0, i)).c_str(), nullptr);
    text.remove_prefix(i);
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      if (text.starts_with(u.suffix)) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr) {
      throw std::invalid_argument("'" + original +
                                  "' needs a unit: us, ms, s, m (or min), h, d or w");
    }
    if (unit->micros == 0) {
      throw std::invalid_argument("'" + original + "': the clock's resolution is 1us");
    }
    text.remove_prefix(unit->suffix.size());
    total += value * static_cast<double>(unit->micros);
    any = true;
  }
  if (!any) {
    throw std::invalid_argument("'" + original + "' is not a duration");
  }
  if (!(total <= static_cast<double>(kMaxInputDuration.count()))) {
    throw std::invalid_argument("'" + original + "' is out of range (at most " +
                                format_duration(kMaxInputDuration) + ", 1000 years)");
  }
  const auto micros = static_cast<std::int64_t>(std::llround(total));
  return Duration(negative ? -micros : micros);
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
