#include "tidesim/sim/input/units.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <stdexcept>

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

std::int64_t parse_bytes(std::string_view text) {
  constexpr const char* what = "a byte size (e.g. 24GiB, 16Gi, 512MB)";
  std::string_view unit;
  const double value = leading_number(text, unit, what);
  if (value < 0) {
    throw std::invalid_argument("'" + std::string(text) + "' is negative");
  }
  const double bytes = value * byte_factor(unit, text, what);
  if (bytes > 9.0e18) {
    throw std::invalid_argument("'" + std::string(text) + "' is out of range");
  }
  return static_cast<std::int64_t>(std::llround(bytes));
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
  return value * byte_factor(unit, text, what) * bits;
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

std::int64_t parse_cpu_millis(std::string_view text) {
  constexpr const char* what = "a CPU quantity (e.g. 500m, 4)";
  std::string_view rest;
  const double value = leading_number(text, rest, what);
  if (value < 0) {
    throw std::invalid_argument("'" + std::string(text) + "' is negative");
  }
  if (!rest.empty() && rest != "m") {
    throw std::invalid_argument("'" + std::string(text) + "' is not " + what);
  }
  const double millis = rest == "m" ? value : value * 1000.0;
  if (millis > 9.0e18) {  // llround of a value beyond int64 is undefined
    throw std::invalid_argument("'" + std::string(text) + "' is out of range");
  }
  return static_cast<std::int64_t>(std::llround(millis));
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
