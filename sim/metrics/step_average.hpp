#pragma once
/// Time-weighted mean of a piecewise-constant quantity observed at sample instants.
#include <algorithm>
#include <optional>
#include <span>

#include "tidesim/sim/engine/time.hpp"

namespace tidesim::metrics {

/// A value observed at t_i holds over [t_i, t_{i+1}); the last one holds until the `end` given to
/// mean(). An observation without a value (std::nullopt) ends the previous interval and
/// contributes no time (the quantity is undefined there). The mean is
///   sum_i v_i * (t_{i+1} - t_i) / sum_i (t_{i+1} - t_i)   over the intervals that carry a value.
/// Two observations at the same instant: the later replaces the earlier (zero-length interval).
class StepAverage {
 public:
  /// Records value `v` (or no value) from instant `t` on. Throws std::logic_error when `t` is
  /// earlier than the previous observation.
  void add(TimePoint t, std::optional<double> v);
  /// Records the value `v` from instant `t` on: add(t, std::optional<double>(v)), the same
  /// arithmetic, for the per-node loops of the collectors (an optional built for the call and
  /// read back as a whole stalled the store buffer there).
  void add(TimePoint t, double v) {
    close_interval(t);
    last_v_ = v;
    max_ = max_ ? std::max(*max_, v) : v;
    last_defined_ = v;
  }
  /// Records the value `v` at each of `times` (ascending, none before the previous
  /// observation): add(t, v) for each t in order, the same arithmetic in a tighter loop, for
  /// the collectors that add a node's unchanged value for many samples at once.
  void add_repeated(std::span<const TimePoint> times, double v) {
    if (times.empty()) {
      return;
    }
    add(times.front(), v);
    double sum = weighted_sum_;
    for (std::size_t i = 1; i < times.size(); ++i) {
      sum += v * to_seconds(times[i] - times[i - 1]);
    }
    weighted_sum_ = sum;
    total_ += times.back() - times.front();
    last_t_ = times.back();
  }

  /// The time-weighted mean over [first observation, end]; when the defined intervals have zero
  /// total length, the mean of the values seen at that length (the last value). std::nullopt when
  /// no value was ever observed. `end` earlier than the last observation is treated as equal.
  std::optional<double> mean(TimePoint end) const;

  /// Total length of the intervals that carry a value, up to `end`.
  Duration weight(TimePoint end) const;

  /// Largest value observed; std::nullopt when none.
  std::optional<double> max() const { return max_; }

 private:
  [[noreturn]] static void earlier_than_previous();
  // Ends the interval of the previous observation at `t` and starts the next one there.
  void close_interval(TimePoint t) {
    if (last_t_) {
      if (t < *last_t_) {
        earlier_than_previous();
      }
      if (last_v_) {
        const Duration dt = t - *last_t_;
        weighted_sum_ += *last_v_ * to_seconds(dt);
        total_ += dt;
      }
    }
    last_t_ = t;
  }

  std::optional<TimePoint> last_t_;
  std::optional<double> last_v_;
  double weighted_sum_ = 0.0;  // sum of v * seconds
  Duration total_{0};
  std::optional<double> max_;
  std::optional<double> last_defined_;
};

}  // namespace tidesim::metrics
