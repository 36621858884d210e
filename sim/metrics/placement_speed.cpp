#include "tidesim/sim/metrics/placement_speed.hpp"

#include <algorithm>
#include <cmath>

namespace tidesim::metrics {

void PlacementSpeedCollector::add(const PlacementSpeedOptions& options, State& s, TimePoint to,
                                  Sums& sums) {
  const Rate& r = s.last;
  if (!s.has_last || !r.running || to <= r.at || r.step_s <= 0) {
    return;
  }
  const double dt = to_seconds(to - r.at);
  const double gpu_s = dt * std::max(1, r.gpus);
  if (r.reference_step_s > 0) {
    s.run_s += dt;
    s.ideal_s += dt * r.reference_step_s / r.step_s;
  }
  if (r.gpus > 1) {
    const double comm = gpu_s * std::clamp(r.comm_s / r.step_s, 0.0, 1.0);
    s.multi_gpu_s += gpu_s;
    s.comm_gpu_s += comm;
    sums.multi_gpu_s += gpu_s;
    sums.comm_gpu_s += comm;
  }
  if (r.multi_pod && r.ring_demand > 0 && std::isfinite(r.ring_demand)) {
    s.ring_gpu_s += gpu_s;
    sums.ring_gpu_s += gpu_s;
    if (r.ring_rate < options.contended_below * r.ring_demand) {
      s.contended_gpu_s += gpu_s;
      s.contended_s += dt;
      sums.contended_gpu_s += gpu_s;
    }
  }
  if (r.llm) {
    s.llm_gpu_s += gpu_s;
    s.mfu_gpu_s += gpu_s * r.mfu;
    sums.llm_gpu_s += gpu_s;
    sums.mfu_gpu_s += gpu_s * r.mfu;
  }
}

void PlacementSpeedCollector::on_rate(const JobRate& rate) {
  State& s = jobs_[rate.job];
  add(options_, s, rate.at, sums_);
  s.last = Rate{.at = rate.at,
                .running = rate.running,
                .multi_pod = rate.multi_pod,
                .llm = rate.llm,
                .gpus = rate.gpus,
                .step_s = rate.step_seconds,
                .reference_step_s = rate.reference_step_seconds,
                .comm_s = rate.comm_seconds,
                .mfu = rate.mfu,
                .ring_rate = rate.ring_rate,
                .ring_demand = rate.ring_demand};
  s.has_last = true;
}

std::unordered_map<std::string, JobPlacementSpeed> PlacementSpeedCollector::job_figures(
    TimePoint end) const {
  std::unordered_map<std::string, JobPlacementSpeed> out;
  out.reserve(jobs_.size());
  Sums ignored;
  for (const auto& [name, state] : jobs_) {
    State s = state;
    add(options_, s, end, ignored);
    JobPlacementSpeed& j = out[name];
    if (s.ideal_s > 0) {
      j.step_slowdown = s.run_s / s.ideal_s;
    }
    if (s.multi_gpu_s > 0) {
      j.comm_share = s.comm_gpu_s / s.multi_gpu_s;
    }
    if (s.llm_gpu_s > 0) {
      j.mfu = s.mfu_gpu_s / s.llm_gpu_s;
    }
    if (s.ring_gpu_s > 0) {
      j.contended_s = s.contended_s;
    }
  }
  return out;
}

void PlacementSpeedCollector::finish(TimePoint end, MetricValues& out) const {
  Sums sums = sums_;
  double slowdown_sum = 0.0, slowdown_max = 0.0, slowed_sum = 0.0;
  long jobs = 0, slowed = 0, slowed_with_reference = 0;
  for (const auto& [name, state] : jobs_) {
    State s = state;
    add(options_, s, end, sums);
    const bool has_slowdown = s.ideal_s > 0;
    const double slowdown = has_slowdown ? s.run_s / s.ideal_s : 0.0;
    if (has_slowdown) {
      slowdown_sum += slowdown;
      slowdown_max = std::max(slowdown_max, slowdown);
      ++jobs;
    }
    if (s.contended_s > 0) {
      ++slowed;
      if (has_slowdown) {
        slowed_sum += slowdown;
        ++slowed_with_reference;
      }
    }
  }
  if (jobs > 0) {
    out["step_slowdown_mean"] = slowdown_sum / static_cast<double>(jobs);
    out["step_slowdown_max"] = slowdown_max;
  }
  if (sums.multi_gpu_s > 0) {
    out["comm_share_mean"] = sums.comm_gpu_s / sums.multi_gpu_s;
  }
  if (sums.ring_gpu_s > 0) {
    out["fabric_contended_share"] = sums.contended_gpu_s / sums.ring_gpu_s;
    out["fabric_slowed_jobs"] = static_cast<double>(slowed);
  }
  if (slowed_with_reference > 0) {
    out["fabric_slowed_step_slowdown_mean"] =
        slowed_sum / static_cast<double>(slowed_with_reference);
  }
  if (sums.llm_gpu_s > 0) {
    out["llm_mfu_mean"] = sums.mfu_gpu_s / sums.llm_gpu_s;
  }
}

}  // namespace tidesim::metrics
