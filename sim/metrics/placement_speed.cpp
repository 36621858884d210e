#include "tidesim/sim/metrics/placement_speed.hpp"

#include <algorithm>

namespace tidesim::metrics {

void PlacementSpeedCollector::add(const PlacementSpeedOptions& options, State& s, TimePoint to,
                                  Sums& sums) {
  const JobRate& r = s.last;
  if (!s.has_last || !r.running || to <= r.at || r.step_seconds <= 0) {
    return;
  }
  const double dt = to_seconds(to - r.at);
  const double gpu_s = dt * std::max(1, r.gpus);
  if (r.reference_step_seconds > 0) {
    s.run_s += dt;
    s.ideal_s += dt * r.reference_step_seconds / r.step_seconds;
  }
  if (r.gpus > 1) {
    sums.multi_gpu_s += gpu_s;
    sums.comm_gpu_s += gpu_s * std::clamp(r.comm_seconds / r.step_seconds, 0.0, 1.0);
  }
  if (r.multi_pod && r.alone_collective_bandwidth > 0) {
    sums.multi_pod_gpu_s += gpu_s;
    if (r.collective_bandwidth < options.contended_below * r.alone_collective_bandwidth) {
      sums.contended_gpu_s += gpu_s;
    }
  }
  if (r.llm) {
    sums.llm_gpu_s += gpu_s;
    sums.mfu_gpu_s += gpu_s * r.mfu;
  }
}

void PlacementSpeedCollector::on_rate(const JobRate& rate) {
  State& s = jobs_[rate.job];
  add(options_, s, rate.at, sums_);
  s.last = rate;
  s.has_last = true;
}

void PlacementSpeedCollector::finish(TimePoint end, MetricValues& out) const {
  Sums sums = sums_;
  double slowdown_sum = 0.0;
  double slowdown_max = 0.0;
  long jobs = 0;
  for (const auto& [name, state] : jobs_) {
    State s = state;
    add(options_, s, end, sums);
    if (s.ideal_s > 0) {
      const double slowdown = s.run_s / s.ideal_s;
      slowdown_sum += slowdown;
      slowdown_max = std::max(slowdown_max, slowdown);
      ++jobs;
    }
  }
  if (jobs > 0) {
    out["step_slowdown_mean"] = slowdown_sum / static_cast<double>(jobs);
    out["step_slowdown_max"] = slowdown_max;
  }
  if (sums.multi_gpu_s > 0) {
    out["comm_share_mean"] = sums.comm_gpu_s / sums.multi_gpu_s;
  }
  if (sums.multi_pod_gpu_s > 0) {
    out["fabric_contended_share"] = sums.contended_gpu_s / sums.multi_pod_gpu_s;
  }
  if (sums.llm_gpu_s > 0) {
    out["llm_mfu_mean"] = sums.mfu_gpu_s / sums.llm_gpu_s;
  }
}

}  // namespace tidesim::metrics
