#include "tidesim/policies/plugins/topology_placement.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "tidesim/policies/plugins/basic.hpp"
#include "tidesim/sim/engine/checked.hpp"

namespace tidesim::policies {
namespace {

// How many more copies of `pod` node `info` takes, by its free cpu, memory and GPUs (the
// NodeResourcesFit filter), if it is schedulable and matches the pod's nodeSelector and required
// node affinity (NodeUnschedulable, NodeAffinity); at most `cap`.
int copies_on(const NodeInfo& info, const PodSpec& pod, int cap) {
  if (info.node.unschedulable || !matches_required_node_affinity(pod, info.node)) {
    return 0;
  }
  std::int64_t n = cap;
  const auto limit = [&](std::int64_t alloc, std::int64_t used, std::int64_t req) {
    if (req > 0) {
      n = std::min(n, std::max<std::int64_t>(0, alloc - used) / req);
    }
  };
  const Resources& a = info.node.allocatable;
  limit(a.cpu_milli, info.requested.cpu_milli, pod.requests.cpu_milli);
  limit(a.memory_bytes, info.requested.memory_bytes, pod.requests.memory_bytes);
  limit(a.gpus, info.requested.gpus, pod.requests.gpus);
  return static_cast<int>(n);
}

// Phase 1: the nodes of each value of `key` (nodes without the label are in no placement).
std::vector<PlacementCandidate> generate(const ClusterView& view, const std::string& key) {
  std::map<std::string, std::vector<int>> by_value;
  for (std::size_t i = 0; i < view.nodes.size(); ++i) {
    const auto& labels = view.nodes[i].node.labels;
    if (const auto it = labels.find(key); it != labels.end()) {
      by_value[it->second].push_back(static_cast<int>(i));
    }
  }
  std::vector<PlacementCandidate> out;
  for (auto& [value, nodes] : by_value) {
    out.push_back(PlacementCandidate{value, std::move(nodes), 0, false, 0, 0});
  }
  return out;
}

class TopologyPlacement final : public PreFilterPlugin,
                                public FilterPlugin,
                                public PlacementPlugin {
 public:
  explicit TopologyPlacement(TopologyPlacementArgs args) : args_(std::move(args)) {}
  std::string_view name() const override { return "TopologyPlacement"; }

  Status pre_filter(CycleContext& ctx, const PodSpec& pod) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr || g->topology_key.empty() || g->placement != nullptr) {
      return Status::success();  // in a pod group cycle the placement is already assumed
    }
    // Pods of the group already assigned: only their domain (the generator's requiredDomain).
    if (g->assigned > 0 && domains_.count(g->name) != 0) {
      return Status::success();
    }
    const PlacementDecision d = decide_placement(args_, ctx.cluster, pod, *g);
    if (!d.chosen) {
      domains_.erase(g->name);
      return Status::make(Code::kUnschedulable, d.reason);
    }
    domains_[g->name] = d.candidates[*d.chosen].domain;
    return Status::success();
  }

  Status filter(CycleContext& ctx, const PodSpec& /*pod*/, int node_index) override {
    const PodGroupStatus* g = ctx.pod_group;
    if (g == nullptr || g->topology_key.empty()) {
      return Status::success();
    }
    if (g->placement != nullptr) {
      // The pod group cycle's placement: upstream lists only its nodes (AssumePlacement).
      if (std::binary_search(g->placement->begin(), g->placement->end(), node_index)) {
        return Status::success();
      }
      return reject(ctx, Code::kUnschedulable,
                    [] { return std::string("node(s) outside the placement being evaluated"); });
    }
    const auto d = domains_.find(g->name);
    if (d == domains_.end()) {
      return Status::success();
    }
    const auto& labels = ctx.cluster.nodes[static_cast<std::size_t>(node_index)].node.labels;
    const auto it = labels.find(g->topology_key);
    if (it != labels.end() && it->second == d->second) {
      return Status::success();
    }
    return reject(ctx, Code::kUnschedulable, [&] {
      return fmt::format("node(s) outside the pod group's {}={} placement", g->topology_key,
                         d->second);
    });
  }

  // TopologyPlacementGenerator: one placement per value of the group's topology label.
  std::optional<std::vector<Placement>> generate(const ClusterView& view,
                                                 const PodGroupStatus& group) const override {
    if (group.topology_key.empty()) {
      return std::nullopt;
    }
    std::vector<Placement> out;
    for (auto& c : tidesim::policies::generate(view, group.topology_key)) {
      out.push_back(Placement{std::move(c.domain), std::move(c.nodes)});
    }
    return out;
  }

  // PlacementBinPacking + PodGroupPodsCount (normalised to 0-100 by the best placement).
  std::int64_t score(const ClusterView& view, const Placement& placement,
                     std::span<const std::shared_ptr<const PodSpec>> proposed,
                     const PodGroupStatus& /*group*/, std::int64_t pods_total,
                     std::int64_t best_total) const override {
    Resources sum;
    for (const auto& p : proposed) {
      sum += non_zero_requests(*p);
    }
    const std::int64_t count = best_total > 0 ? pods_total * kMaxNodeScore / best_total : 0;
    return placement_bin_packing_score(args_, view, placement.nodes, sum) + count;
  }

 private:
  TopologyPlacementArgs args_;
  // The chosen domain (label value) of each group with a topology key, by group name.
  std::map<std::string, std::string> domains_;
};

}  // namespace

TopologyPlacementArgs parse_topology_placement_args(const PluginArgs& args) {
  TopologyPlacementArgs out;
  const bool strategy_given = args_fields(args).has("scoringStrategy");
  out.fit = parse_fit_args(args);
  if (!strategy_given) {
    out.fit.strategy = ScoringStrategy::kMostAllocated;
  }
  return out;
}

std::int64_t placement_bin_packing_score(const TopologyPlacementArgs& args, const ClusterView& view,
                                         std::span<const int> nodes, const Resources& proposed) {
  const auto& specs = args.fit.resources;
  std::vector<std::int64_t> req(specs.size(), 0);
  std::vector<std::int64_t> alloc(specs.size(), 0);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ResourceSpec& s = specs[i];
    const bool scalar = s.kind == ResourceKind::kGpu || s.kind == ResourceKind::kExtended;
    const std::int64_t asked = amount_of(proposed, s);
    if (scalar && asked == 0) {
      continue;
    }
    req[i] = asked;
    for (const int n : nodes) {
      const NodeInfo& info = view.nodes[static_cast<std::size_t>(n)];
      alloc[i] = saturating_add(alloc[i], amount_of(info.node.allocatable, s));
      req[i] =
          saturating_add(req[i], amount_of(scalar ? info.requested : info.non_zero_requested, s));
    }
  }
  return resource_allocation_score(args.fit.strategy, specs, args.fit.shape, req, alloc);
}

PlacementDecision decide_placement(const TopologyPlacementArgs& args, const ClusterView& view,
                                   const PodSpec& pod, const PodGroupStatus& group) {
  PlacementDecision d;
  d.candidates = generate(view, group.topology_key);
  const int unassigned = std::max(0, group.members - group.assigned);
  const int needed = std::max(1, group.min_member - group.assigned);
  const Resources one = non_zero_requests(pod);
  std::int64_t best_count = 0;
  for (auto& c : d.candidates) {
    // Phase 2: identical pods, one by one on the placement's nodes: as many as the nodes hold.
    int fit = 0;
    for (const int n : c.nodes) {
      fit += copies_on(view.nodes[static_cast<std::size_t>(n)], pod, unassigned - fit);
    }
    c.pods = fit;
    c.feasible = fit >= needed;
    if (c.feasible) {
      Resources proposed;
      for (int i = 0; i < fit; ++i) {
        proposed += one;
      }
      c.bin_packing = placement_bin_packing_score(args, view, c.nodes, proposed);
      c.pods_count = group.assigned + fit;
      best_count = std::max(best_count, c.pods_count);
    }
  }
  // Phase 3: PodGroupPodsCount normalised by the best count, plus PlacementBinPacking.
  std::int64_t best = std::numeric_limits<std::int64_t>::min();
  for (std::size_t i = 0; i < d.candidates.size(); ++i) {
    auto& c = d.candidates[i];
    if (!c.feasible) {
      continue;
    }
    c.pods_count = best_count > 0 ? c.pods_count * kMaxNodeScore / best_count : 0;
    if (c.bin_packing + c.pods_count > best) {
      best = c.bin_packing + c.pods_count;
      d.chosen = i;
    }
  }
  if (!d.chosen) {
    int most = 0;
    for (const auto& c : d.candidates) {
      most = std::max(most, c.pods);
    }
    d.reason = fmt::format(
        "no {} domain fits {} pods of pod group {} (minCount {}): {} domains, at most {} fit",
        group.topology_key, needed, group.name, group.min_member, d.candidates.size(), most);
  }
  return d;
}

std::unique_ptr<Plugin> make_topology_placement(const TopologyPlacementArgs& args) {
  return std::make_unique<TopologyPlacement>(args);
}

}  // namespace tidesim::policies
