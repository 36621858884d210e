#pragma once
/// Where gangs land on the fabric and what crosses its tiers (docs/metrics.md, "Placement and the
/// fabric"): from each started job's span (JobEvent::fabric_span) and its ring's rate (JobRate).
/// A ring over nodes in k > 1 domains of a tier crosses the up-links of those k domains
/// (docs/model-fabric.md), so it puts its rate on each of them.
#include <string>
#include <unordered_map>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

/// The tiers metrics are reported for (fabric_tier0_* to fabric_tier2_*).
inline constexpr int kFabricTierMetrics = 3;

struct FabricTrafficOptions {
  /// Per tier (0 nearest the nodes): the up-link capacity of all its domains together, bytes/s
  /// in one direction (the utilisation's denominator); empty: no utilisation.
  std::vector<double> tier_capacity;
};

/// Metrics (absent when no job started on a fabric; per tier only for the tiers the fabric has,
/// up to kFabricTierMetrics):
/// - gang_span_tier0_mean: over attempts of jobs on more than one node, the mean number of
///   tier-0 domains (leaves) their nodes span.
/// - gang_span_excess_share: the share of those attempts that span more domains of some tier than
///   their node count needs (ceil(nodes / nodes per domain)): spread beyond need.
/// - fabric_tierT_bytes: bytes the rings put on tier T's up-links, in one direction (a ring
///   spanning k > 1 domains of the tier crosses k up-links).
/// - fabric_tierT_utilization: those bytes over the tier's capacity (options) x the run's end.
class FabricTrafficCollector : public Collector {
 public:
  explicit FabricTrafficCollector(FabricTrafficOptions options = {})
      : options_(std::move(options)) {}
  void on_job(const JobEvent& event) override;
  void on_rate(const JobRate& rate) override;
  void finish(TimePoint end, MetricValues& out) const override;

 private:
  struct Running {
    std::vector<int> domains;  // per tier, of its current attempt
    TimePoint at{};
    double ring_rate = 0.0;
  };
  // Adds the bytes of `r`'s ring from its last rate up to `to`.
  void add(Running& r, TimePoint to, std::vector<double>& bytes) const;
  FabricTrafficOptions options_;
  std::unordered_map<std::string, Running> running_;
  std::vector<double> tier_bytes_;
  long started_ = 0;  // attempts on a fabric
  long spread_ = 0, excess_ = 0;
  double tier0_sum_ = 0.0;
};

}  // namespace tidesim::metrics
