#include "tidesim/workloads/memory.hpp"

#include <algorithm>

namespace tidesim::workloads {
namespace {

bool has_peaks(const ModelProfile& p) {
  return p.peak.extra_bytes != 0 && p.peak.period > Duration::zero() &&
         p.peak.duration > Duration::zero();
}

std::int64_t base_bytes(const ModelProfile& p) {
  return p.context_bytes + p.model_state_bytes;
}

Duration window(const ModelProfile& p) {
  return std::clamp(p.ramp_window, Duration::zero(), std::max(p.ramp_up, Duration::zero()));
}

// Start of the growth.
Duration ramp_start(const ModelProfile& p) {
  return p.ramp_up - window(p);
}

// Instant of the m-th increment (m = 1..K): the first t with (t - r0) x K >= m x w, so that
// memory_at's floor and this agree to the microsecond; the K-th is ramp_up itself.
Duration increment_at(const ModelProfile& p, int m) {
  const auto w = window(p).count();
  return ramp_start(p) + Duration((m * w + kRampIncrements - 1) / kRampIncrements);
}

}  // namespace

std::int64_t memory_at(const ModelProfile& p, Duration since_start) {
  const Duration t = std::max(since_start, Duration::zero());
  if (t < p.ramp_up) {
    if (t < ramp_start(p)) {
      return base_bytes(p);
    }
    // (t - r0) < w, so the product stays within int64 for any window below 2^60 us.
    const auto k = (t - ramp_start(p)).count() * kRampIncrements / window(p).count();
    return base_bytes(p) + (p.steady_bytes() - base_bytes(p)) * k / kRampIncrements;
  }
  if (!has_peaks(p)) {
    return p.steady_bytes();
  }
  const Duration after = t - p.ramp_up;
  const auto k = after / p.peak.period;  // whole periods elapsed
  if (p.keep_peak) {
    return p.steady_bytes() + (k >= 1 ? p.peak.extra_bytes : 0);
  }
  const Duration into = after - k * p.peak.period;
  const bool in_peak = k >= 1 && into < std::min(p.peak.duration, p.peak.period);
  return p.steady_bytes() + (in_peak ? p.peak.extra_bytes : 0);
}

std::optional<Duration> next_memory_change(const ModelProfile& p, Duration since_start) {
  const Duration t = std::max(since_start, Duration::zero());
  if (t < p.ramp_up && base_bytes(p) != p.steady_bytes()) {
    if (window(p) == Duration::zero() || t < ramp_start(p)) {
      return window(p) == Duration::zero() ? p.ramp_up : increment_at(p, 1);
    }
    for (int m = 1; m <= kRampIncrements; ++m) {
      if (increment_at(p, m) > t) {
        return increment_at(p, m);
      }
    }
  }
  if (!has_peaks(p)) {
    return std::nullopt;
  }
  const Duration start = std::max(t, p.ramp_up);
  const Duration after = start - p.ramp_up;
  const auto k = after / p.peak.period;
  if (p.keep_peak) {  // one change: the first peak, which is kept
    const Duration first = p.ramp_up + p.peak.period;
    return first > t ? std::optional<Duration>(first) : std::nullopt;
  }
  const Duration into = after - k * p.peak.period;
  const Duration window_len = std::min(p.peak.duration, p.peak.period);
  Duration next;
  if (k >= 1 && into < window_len) {
    next = p.ramp_up + k * p.peak.period + window_len;  // end of the current peak
  } else {
    next = p.ramp_up + (k + 1) * p.peak.period;  // start of the next peak
  }
  if (next <= t) {  // t is exactly on a boundary handled above; move one period on
    next += p.peak.period;
  }
  return next;
}

bool ramping(const ModelProfile& p, Duration since_start) {
  const Duration t = std::max(since_start, Duration::zero());
  return window(p) > Duration::zero() && t >= ramp_start(p) && t < p.ramp_up &&
         base_bytes(p) != p.steady_bytes();
}

std::int64_t peak_memory(const ModelProfile& p) {
  return p.steady_bytes() + (has_peaks(p) ? std::max<std::int64_t>(p.peak.extra_bytes, 0) : 0);
}

}  // namespace tidesim::workloads
