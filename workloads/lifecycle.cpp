#include "tidesim/workloads/lifecycle.hpp"

#include <algorithm>

namespace tidesim::workloads {

namespace {

// first x 2^(n - 1), capped; 0 for n <= 0.
Duration doubling(int n, Duration first, Duration cap) {
  if (n <= 0) {
    return Duration::zero();
  }
  Duration d = first;
  for (int i = 1; i < n && d < cap; ++i) {
    d *= 2;
  }
  return std::min(d, cap);
}

}  // namespace

Duration backoff_delay(int failures) {
  return doubling(failures, std::chrono::seconds(10), std::chrono::minutes(6));
}

Duration crash_loop_delay(int restarts) {
  return doubling(restarts, std::chrono::seconds(10), std::chrono::minutes(5));
}

bool backoff_exhausted(int failures, int backoff_limit) {
  return failures > backoff_limit;
}

}  // namespace tidesim::workloads
