#include "tidesim/workloads/step_time.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/core.h>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/collectives.hpp"

namespace tidesim::workloads {

double ring_allreduce_seconds(std::int64_t bytes, int gpus, double bandwidth) {
  if (gpus <= 1 || bytes <= 0) {
    return 0.0;
  }
  if (!(bandwidth > 0)) {
    throw std::invalid_argument("all-reduce bandwidth must be positive");
  }
  return collective_seconds(Collective::kAllReduce, bytes, gpus, bandwidth);
}

double ring_allreduce_volume(std::int64_t bytes, int gpus) {
  return collective_volume(Collective::kAllReduce, bytes, gpus);
}

namespace {

void check(const StepConditions& c) {
  if (!(c.compute_share > 0.0 && c.compute_share <= 1.0)) {
    throw std::invalid_argument("compute_share must lie in (0, 1]");
  }
  if (!(c.input_bandwidth > 0.0)) {
    throw std::invalid_argument("input_bandwidth must be positive");
  }
  if (!(c.allreduce_average_bandwidth > 0.0)) {
    throw std::invalid_argument("allreduce_average_bandwidth must be positive");
  }
  if (!(c.allreduce_latency >= 0.0 && std::isfinite(c.allreduce_latency))) {
    throw std::invalid_argument("allreduce_latency must be finite and not negative");
  }
  if (c.gpus < 1) {
    throw std::invalid_argument("gpus must be at least 1");
  }
}

// The step without the links' average limit: max(compute, input) + sync.
StepTime burst_step(const ModelProfile& profile, const StepConditions& c) {
  StepTime s;
  s.compute_seconds = profile.compute_seconds / c.compute_share;
  s.input_seconds = static_cast<double>(profile.input_bytes) / c.input_bandwidth;
  s.sync_seconds = ring_allreduce_seconds(profile.gradient_bytes, c.gpus, c.allreduce_bandwidth);
  if (s.sync_seconds > 0 && c.allreduce_latency > 0) {
    s.sync_seconds += c.allreduce_latency;
  }
  s.seconds = std::max(s.compute_seconds, s.input_seconds) + s.sync_seconds;
  return s;
}

}  // namespace

double allreduce_average_demand(const ModelProfile& profile, const StepConditions& c) {
  check(c);
  const double volume = ring_allreduce_volume(profile.gradient_bytes, c.gpus);
  const StepTime s = burst_step(profile, c);
  return volume > 0 && s.seconds > 0 ? volume / s.seconds : 0.0;
}

StepTime step_time(const ModelProfile& profile, const StepConditions& c) {
  check(c);
  StepTime s = burst_step(profile, c);
  const double volume = ring_allreduce_volume(profile.gradient_bytes, c.gpus);
  if (volume > 0) {
    s.seconds = std::max(s.seconds, volume / c.allreduce_average_bandwidth);
    const double sync = s.seconds - std::max(s.compute_seconds, s.input_seconds);
    s.allreduce_effective_bandwidth = sync > 0 ? volume / sync : c.allreduce_bandwidth;
  }
  s.gpu_utilization = s.seconds > 0 ? std::min(1.0, profile.compute_seconds / s.seconds) : 0.0;
  return s;
}

std::int64_t steps_for_duration(Duration duration, double step_seconds) {
  if (!(step_seconds > 0)) {
    throw std::invalid_argument("step_seconds must be positive");
  }
  const double steps = std::round(to_seconds(duration) / step_seconds);
  if (!(steps <= static_cast<double>(kMaxJobSteps))) {
    throw InputError(SourceLocation{}, "duration",
                     fmt::format("a run time of {} at {:g} s per step is {:g} steps; at most 2^50",
                                 format_duration(duration), step_seconds, steps));
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(steps));
}

}  // namespace tidesim::workloads
