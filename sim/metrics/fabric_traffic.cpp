#include "tidesim/sim/metrics/fabric_traffic.hpp"

#include <algorithm>
#include <string>

namespace tidesim::metrics {

void FabricTrafficCollector::add(Running& r, TimePoint to, std::vector<double>& bytes) const {
  if (to <= r.at || r.ring_rate <= 0) {
    return;
  }
  const double moved = r.ring_rate * to_seconds(to - r.at);
  if (bytes.size() < r.domains.size()) {
    bytes.resize(r.domains.size(), 0.0);
  }
  for (std::size_t t = 0; t < r.domains.size(); ++t) {
    if (r.domains[t] > 1) {
      bytes[t] += moved * r.domains[t];
    }
  }
}

void FabricTrafficCollector::on_job(const JobEvent& event) {
  if (event.kind != JobEventKind::kStarted || !event.fabric_span) {
    return;
  }
  const FabricSpan& span = *event.fabric_span;
  ++started_;
  if (tier_bytes_.size() < span.domains.size()) {
    tier_bytes_.resize(span.domains.size(), 0.0);
  }
  if (span.nodes > 1 && !span.domains.empty()) {
    ++spread_;
    tier0_sum_ += span.domains.front();
    bool excess = false;
    for (std::size_t t = 0; t < span.domains.size() && t < span.fewest.size(); ++t) {
      excess = excess || span.domains[t] > span.fewest[t];
    }
    excess_ += excess ? 1 : 0;
    Running& r = running_[event.job];
    add(r, event.at, tier_bytes_);
    r = Running{.domains = span.domains, .at = event.at, .ring_rate = 0.0};
  }
}

void FabricTrafficCollector::on_rate(const JobRate& rate) {
  if (running_.empty()) {
    return;  // no multi-node job runs on a fabric: no name to look up (every run without one)
  }
  const auto it = running_.find(rate.job);
  if (it == running_.end()) {
    return;
  }
  add(it->second, rate.at, tier_bytes_);
  if (!rate.running) {
    running_.erase(it);
    return;
  }
  it->second.at = rate.at;
  it->second.ring_rate = rate.ring_rate;
}

void FabricTrafficCollector::finish(TimePoint end, MetricValues& out) const {
  if (started_ == 0) {
    return;
  }
  std::vector<double> bytes = tier_bytes_;
  for (const auto& [name, running] : running_) {
    Running r = running;
    add(r, end, bytes);
  }
  if (spread_ > 0) {
    out["gang_span_tier0_mean"] = tier0_sum_ / static_cast<double>(spread_);
    out["gang_span_excess_share"] = static_cast<double>(excess_) / static_cast<double>(spread_);
  }
  const double seconds = to_seconds(end.time_since_epoch());
  const std::size_t tiers = std::min<std::size_t>(bytes.size(), kFabricTierMetrics);
  for (std::size_t t = 0; t < tiers; ++t) {
    out["fabric_tier" + std::to_string(t) + "_bytes"] = bytes[t];
    if (t < options_.tier_capacity.size() && options_.tier_capacity[t] > 0 && seconds > 0) {
      out["fabric_tier" + std::to_string(t) + "_utilization"] =
          bytes[t] / (options_.tier_capacity[t] * seconds);
    }
  }
}

}  // namespace tidesim::metrics
