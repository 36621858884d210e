#include "workloads/memory.hpp"

#include <algorithm>

namespace tidesim::workloads {
namespace {

bool has_peaks(const ModelProfile& p) {
  return p.peak.extra_bytes != 0 && p.peak.period > Duration::zero() &&
         p.peak.duration > Duration::zero();
}

}  // namespace

std::int64_t memory_at(const ModelProfile& p, Duration since_start) {
  const Duration t = std::max(since_start, Duration::zero());
  if (t < p.ramp_up) {
    return p.context_bytes + p.model_state_bytes;
  }
  if (!has_peaks(p)) {
    return p.steady_bytes();
  }
  const Duration after = t - p.ramp_up;
  const auto k = after / p.peak.period;  // whole periods elapsed
  const Duration into = after - k * p.peak.period;
  const bool in_peak = k >= 1 && into < std::min(p.peak.duration, p.peak.period);
  return p.steady_bytes() + (in_peak ? p.peak.extra_bytes : 0);
}

std::optional<Duration> next_memory_change(const ModelProfile& p, Duration since_start) {
  const Duration t = std::max(since_start, Duration::zero());
  const bool ramp_changes = p.context_bytes + p.model_state_bytes != p.steady_bytes();
  if (t < p.ramp_up && (ramp_changes || has_peaks(p))) {
    if (ramp_changes) {
      return p.ramp_up;
    }
  }
  if (!has_peaks(p)) {
    return std::nullopt;
  }
  const Duration start = std::max(t, p.ramp_up);
  const Duration after = start - p.ramp_up;
  const auto k = after / p.peak.period;
  const Duration into = after - k * p.peak.period;
  const Duration window = std::min(p.peak.duration, p.peak.period);
  Duration next;
  if (k >= 1 && into < window) {
    next = p.ramp_up + k * p.peak.period + window;  // end of the current peak
  } else {
    next = p.ramp_up + (k + 1) * p.peak.period;  // start of the next peak
  }
  if (next <= t) {  // t is exactly on a boundary handled above; move one period on
    next += p.peak.period;
  }
  return next;
}

std::int64_t peak_memory(const ModelProfile& p) {
  return p.steady_bytes() + (has_peaks(p) ? std::max<std::int64_t>(p.peak.extra_bytes, 0) : 0);
}

}  // namespace tidesim::workloads
