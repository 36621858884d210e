#pragma once
/// Simulated time: a 64-bit integer count of microseconds behind std::chrono.
/// Doubles appear only in rate arithmetic, never in the clock.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace tidesim {

/// A span of simulated time, in integer microseconds (range about +-292,000 years).
using Duration = std::chrono::duration<std::int64_t, std::micro>;

/// The simulation clock: time zero is the start of a run.
struct SimClock {
  using rep = std::int64_t;
  using period = std::micro;
  using duration = Duration;
  using time_point = std::chrono::time_point<SimClock, Duration>;
  static constexpr bool is_steady = true;
};

/// An instant of simulated time, measured from the start of the run.
using TimePoint = SimClock::time_point;

/// The longest duration any input may give: 1000 years of 365.25 days (3.16e16 us). Runs,
/// arrivals, job run times and the memory model add a few such durations and their multiples
/// up to the horizon; with every one at most 1000 years those sums stay below 2^63 us
/// (292,000 years), so the clock cannot overflow (docs/robustness.md, "Arithmetic").
inline constexpr Duration kMaxInputDuration = std::chrono::hours(24 * 365'250);

/// Parses a duration with a unit suffix: "250us" (or "250µs"), "250ms", "10s", "5m" or "5min",
/// "6h", "2d", decimals allowed ("1.5h"), and sums such as "1h30m". A bare number is an error (a
/// unit is required). The value is exact: one that is not a whole number of microseconds (the
/// clock's tick), such as "0.4us" or "0.0000004s", is refused rather than rounded (to 0, it
/// would read as "none" in a checkpoint interval). Throws std::invalid_argument with a message
/// naming the problem, also for a duration longer than kMaxInputDuration either way.
Duration parse_duration(std::string_view text);

/// Formats a duration with the largest units that keep it exact: "10s", "250ms", "1h30m", "0s".
std::string format_duration(Duration d);

/// Seconds as a double, for reporting and rate arithmetic.
inline double to_seconds(Duration d) {
  return static_cast<double>(d.count()) * 1e-6;
}

/// Nearest whole-microsecond duration of a number of seconds (rounding half away from zero).
Duration from_seconds(double seconds);

/// Seconds since the start of the run, as a double.
inline double to_seconds(TimePoint t) {
  return to_seconds(t.time_since_epoch());
}

}  // namespace tidesim
