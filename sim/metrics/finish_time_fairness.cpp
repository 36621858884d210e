#include "tidesim/sim/metrics/finish_time_fairness.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "tidesim/sim/engine/statistics.hpp"

namespace tidesim::metrics {

double isolated_seconds(double uncontended_s, int gpus, double mean_jobs, int cluster_gpus) {
  const int asked = std::min(gpus, cluster_gpus);
  return uncontended_s *
         std::max(1.0, static_cast<double>(asked) * mean_jobs / static_cast<double>(cluster_gpus));
}

int node_cards(const NodeState& node) {
  if (node.gpu_utilization.empty()) {
    return node.gpus_allocatable;
  }
  return std::min(node.gpus_allocatable, static_cast<int>(node.gpu_utilization.size()));
}

FinishTimeFairnessCollector::FinishTimeFairnessCollector(FinishTimeFairnessOptions options)
    : options_(options) {
  if (!std::isfinite(options_.unfair_threshold) || options_.unfair_threshold < 1.0) {
    throw std::invalid_argument(
        "finish-time fairness: the unfair threshold must be a finite number of at least 1");
  }
}

void FinishTimeFairnessCollector::advance(TimePoint at) {
  if (at > last_) {
    area_ += static_cast<double>(in_system_.size()) * to_seconds(at - last_);
    last_ = at;
  }
}

void FinishTimeFairnessCollector::on_job(const JobEvent& e) {
  switch (e.kind) {
    case JobEventKind::kSubmitted:
      advance(e.at);
      ++submitted_;
      in_system_[e.job] = Track{e.at, area_, e.gpus, e.uncontended_seconds};
      break;
    case JobEventKind::kSucceeded:
    case JobEventKind::kFailed: {
      advance(e.at);
      const auto it = in_system_.find(e.job);
      if (it == in_system_.end()) {
        break;
      }
      const Track& t = it->second;
      if (e.kind == JobEventKind::kSucceeded && t.uncontended_s > 0.0) {
        const double shared = to_seconds(e.at - t.submitted);
        // Over a zero-length lifetime the mean is the count at that instant (the job included).
        const double mean = shared > 0.0 ? (area_ - t.area_at_submit) / shared
                                         : static_cast<double>(in_system_.size());
        done_.push_back(Done{e.job, shared, std::max(1.0, mean), t.gpus, t.uncontended_s});
      }
      in_system_.erase(it);
      break;
    }
    default:
      break;
  }
}

void FinishTimeFairnessCollector::on_sample(const ClusterSample& sample) {
  int gpus = 0;
  for (const NodeState& n : sample.nodes) {
    gpus += node_cards(n);
  }
  cluster_gpus_ = std::max(cluster_gpus_, gpus);
}

std::vector<FinishTimeFairness> FinishTimeFairnessCollector::jobs() const {
  std::vector<FinishTimeFairness> out;
  if (cluster_gpus_ <= 0) {
    return out;
  }
  out.reserve(done_.size());
  for (const Done& d : done_) {
    const double isolated =
        options_.all_jobs_contention
            ? d.uncontended_s * std::max(1.0, static_cast<double>(submitted_) / cluster_gpus_)
            : isolated_seconds(d.uncontended_s, d.gpus, d.mean_jobs, cluster_gpus_);
    out.push_back(
        FinishTimeFairness{d.job, d.shared_s, d.mean_jobs, isolated, d.shared_s / isolated});
  }
  return out;
}

void FinishTimeFairnessCollector::finish(TimePoint /*end*/, MetricValues& out) const {
  const std::vector<FinishTimeFairness> all = jobs();
  if (all.empty()) {
    return;
  }
  std::vector<double> rho;
  rho.reserve(all.size());
  for (const FinishTimeFairness& f : all) {
    rho.push_back(f.rho);
  }
  const auto n = static_cast<double>(rho.size());
  out["ftf_rho_mean"] = std::accumulate(rho.begin(), rho.end(), 0.0) / n;
  out["ftf_rho_p50"] = *quantile(rho, 0.5);
  out["ftf_rho_p99"] = *quantile(rho, 0.99);
  out["ftf_rho_max"] = *std::max_element(rho.begin(), rho.end());
  const double threshold = options_.unfair_threshold;
  const auto above =
      std::count_if(rho.begin(), rho.end(), [threshold](double r) { return r > threshold; });
  out["ftf_unfair_share"] = static_cast<double>(above) / n;
}

}  // namespace tidesim::metrics
