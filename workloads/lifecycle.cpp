#include "workloads/lifecycle.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim::workloads {

const char* to_string(JobState state) {
  switch (state) {
    case JobState::kPending:
      return "pending";
    case JobState::kBound:
      return "bound";
    case JobState::kRunning:
      return "running";
    case JobState::kSucceeded:
      return "succeeded";
    case JobState::kOomKilled:
      return "oom-killed";
    case JobState::kEvicted:
      return "evicted";
    case JobState::kFailed:
      return "failed";
  }
  return "unknown";
}

Duration backoff_delay(int failures) {
  using namespace std::chrono_literals;
  if (failures <= 0) {
    return Duration::zero();
  }
  constexpr Duration kCap = 6min;
  Duration d = 10s;
  for (int i = 1; i < failures && d < kCap; ++i) {
    d *= 2;
  }
  return std::min(d, kCap);
}

bool backoff_exhausted(int failures, int backoff_limit) {
  return failures > backoff_limit;
}

Duration last_checkpoint(Duration ran, Duration interval) {
  if (interval <= Duration::zero() || ran <= Duration::zero()) {
    return Duration::zero();
  }
  return (ran / interval) * interval;
}

std::int64_t resume_step(std::int64_t steps_before_attempt, std::int64_t steps_done, Duration ran,
                         Duration checkpoint_interval, double step_seconds) {
  if (checkpoint_interval <= Duration::zero()) {
    return 0;
  }
  const Duration saved_at = last_checkpoint(ran, checkpoint_interval);
  if (saved_at == Duration::zero() || !(step_seconds > 0)) {
    return std::min(steps_before_attempt, steps_done);
  }
  const auto during = static_cast<std::int64_t>(std::floor(to_seconds(saved_at) / step_seconds));
  return std::min(steps_done, steps_before_attempt + during);
}

}  // namespace tidesim::workloads
