#include "tidesim/workloads/trace_parts.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

namespace tidesim::workloads {
namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

// Days in month `m` (1-12) of year `y` of the proleptic Gregorian calendar.
int days_in_month(int y, int m) {
  static constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

// The seconds east of UTC of offset "+HH:MM" / "-HH:MM"; nullopt when `s` is not one.
std::optional<std::int64_t> utc_offset(const std::string& s) {
  const auto digit = [&](std::size_t i) { return std::isdigit(static_cast<unsigned char>(s[i])); };
  if (s.size() != 6 || (s[0] != '+' && s[0] != '-') || !digit(1) || !digit(2) || s[3] != ':' ||
      !digit(4) || !digit(5)) {
    return std::nullopt;
  }
  const int h = (s[1] - '0') * 10 + (s[2] - '0');
  const int m = (s[4] - '0') * 10 + (s[5] - '0');
  if (h > 23 || m > 59) {
    return std::nullopt;
  }
  const std::int64_t seconds = std::int64_t{h} * 3600 + std::int64_t{m} * 60;
  return s[0] == '-' ? -seconds : seconds;
}

}  // namespace

std::optional<std::int64_t> parse_timestamp(const std::string& text, std::string& problem,
                                            bool offset_allowed) {
  std::int64_t offset = 0;
  std::string s = text;
  if (offset_allowed && s.size() == 25) {
    const auto o = utc_offset(s.substr(19));
    if (!o) {
      problem = "'" + text + "' is not a time YYYY-MM-DD HH:MM:SS+HH:MM";
      return std::nullopt;
    }
    offset = *o;
    s.resize(19);
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, se = 0;
  char tail = 0;
  problem = "'" + text + "' is not a time YYYY-MM-DD HH:MM:SS" + (offset_allowed ? "[+HH:MM]" : "");
  if (s.size() != 19 ||
      std::sscanf(s.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%c", &y, &mo, &d, &h, &mi, &se, &tail) != 6) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) {
    return std::nullopt;
  }
  if (d > days_in_month(y, mo)) {
    problem = fmt::format("'{}' is not a calendar date ({:04d}-{:02d} has {} days)", text, y, mo,
                          days_in_month(y, mo));
    return std::nullopt;
  }
  return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 +
         std::int64_t{h} * 3600 + std::int64_t{mi} * 60 + se - offset;
}

int pods_for(int gpus, int min_pods, int per_pod_max) {
  if (gpus <= 0) {
    return std::max(min_pods, 1);
  }
  int pods = std::max({min_pods, 1, (gpus + per_pod_max - 1) / per_pod_max});
  if (pods > gpus) {
    return gpus;
  }
  while (gpus % pods != 0) {
    ++pods;
  }
  return pods;
}

}  // namespace tidesim::workloads
