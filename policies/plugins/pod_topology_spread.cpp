#include "tidesim/policies/plugins/pod_topology_spread.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "tidesim/policies/plugins/basic.hpp"

namespace tidesim::policies {
namespace {

const std::string kHostnameKey = "kubernetes.io/hostname";

// countPodsMatchSelector: pods of the same namespace whose labels match.
std::int64_t count_matching(const NodeInfo& info, const LabelSelector& selector,
                            const std::string& ns) {
  std::int64_t n = 0;
  for (const auto& p : info.pods) {
    if (p->namespace_name == ns && matches(selector, p->labels)) {
      ++n;
    }
  }
  return n;
}

bool has_all_keys(const NodeSpec& node, const std::vector<const TopologySpreadConstraint*>& cs) {
  return std::all_of(cs.begin(), cs.end(), [&](const TopologySpreadConstraint* c) {
    return node.labels.count(c->topology_key) != 0;
  });
}

class PodTopologySpread final : public PreFilterPlugin,
                                public FilterPlugin,
                                public PreScorePlugin,
                                public ScorePlugin {
 public:
  explicit PodTopologySpread(std::vector<TopologySpreadConstraint> defaults, bool system_defaulted)
      : defaults_(std::move(defaults)), system_defaulted_(system_defaulted) {}
  std::string_view name() const override { return "PodTopologySpread"; }

  // filtering.go calPreFilterState: counts of matching pods per domain over the nodes that pass
  // the pod's node affinity (nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore) and carry every
  // constraint's key; the global minimum per constraint.
  Status pre_filter(CycleContext& ctx, const PodSpec& pod) override {
    hard_.clear();
    for (const auto& c : pod.topology_spread) {
      if (c.when_unsatisfiable == "DoNotSchedule") {
        hard_.push_back(&c);
      }
    }
    if (hard_.empty()) {
      return Status{Code::kSkip, {}, {}};
    }
    counts_.assign(hard_.size(), {});
    for (const NodeInfo& info : ctx.cluster.nodes) {
      if (!matches_required_node_affinity(pod, info.node) || !has_all_keys(info.node, hard_)) {
        continue;
      }
      for (std::size_t i = 0; i < hard_.size(); ++i) {
        const std::string& value = info.node.labels.at(hard_[i]->topology_key);
        counts_[i][value] += count_matching(info, hard_[i]->label_selector, pod.namespace_name);
      }
    }
    min_.assign(hard_.size(), std::numeric_limits<std::int32_t>::max());
    for (std::size_t i = 0; i < hard_.size(); ++i) {
      for (const auto& [value, n] : counts_[i]) {
        min_[i] = std::min(min_[i], n);
      }
    }
    return Status::success();
  }

  // Filter: skew = matching pods in the node's domain + self-match - global minimum <= maxSkew.
  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    const NodeSpec& node = ctx.cluster.nodes[node_index].node;
    for (std::size_t i = 0; i < hard_.size(); ++i) {
      const auto it = node.labels.find(hard_[i]->topology_key);
      if (it == node.labels.end()) {
        return reject(ctx, Code::kUnschedulableAndUnresolvable,
                      "node(s) didn't match pod topology spread constraints (missing "
                      "required label)");
      }
      const std::int64_t self = matches(hard_[i]->label_selector, pod.labels) ? 1 : 0;
      const auto c = counts_[i].find(it->second);
      const std::int64_t match_num = c == counts_[i].end() ? 0 : c->second;
      if (match_num + self - min_[i] > hard_[i]->max_skew) {
        return reject(ctx, Code::kUnschedulable,
                      "node(s) didn't match pod topology spread constraints");
      }
    }
    return Status::success();
  }

  // scoring.go PreScore/initPreScoreState.
  Status pre_score(CycleContext& ctx, const PodSpec& pod, std::span<const int> feasible) override {
    soft_.clear();
    for (const auto& c : pod.topology_spread) {
      if (c.when_unsatisfiable == "ScheduleAnyway") {
        soft_.push_back(&c);
      }
    }
    if (pod.topology_spread.empty()) {
      // Default constraints need a selector from Services/ReplicaSets/StatefulSets, which tidesim
      // does not model: helper.DefaultSelector is empty, so buildDefaultConstraints returns none.
    }
    if (soft_.empty()) {
      return Status{Code::kSkip, {}, {}};
    }
    const bool require_all = !pod.topology_spread.empty() || !system_defaulted_;
    ignored_.assign(ctx.cluster.nodes.size(), false);
    pair_counts_.assign(soft_.size(), {});
    std::vector<std::size_t> topo_size(soft_.size(), 0);
    std::size_t ignored_count = 0;
    for (const int idx : feasible) {
      const NodeSpec& node = ctx.cluster.nodes[idx].node;
      if (require_all && !has_all_keys(node, soft_)) {
        ignored_[idx] = true;
        ++ignored_count;
        continue;
      }
      for (std::size_t i = 0; i < soft_.size(); ++i) {
        if (soft_[i]->topology_key == kHostnameKey) {
          continue;
        }
        const auto it = node.labels.find(soft_[i]->topology_key);
        const std::string value = it == node.labels.end() ? "" : it->second;
        if (pair_counts_[i].emplace(value, 0).second) {
          ++topo_size[i];
        }
      }
    }
    weights_.assign(soft_.size(), 0.0);
    for (std::size_t i = 0; i < soft_.size(); ++i) {
      std::size_t sz = topo_size[i];
      if (soft_[i]->topology_key == kHostnameKey) {
        sz = feasible.size() - ignored_count;
      }
      // topologyNormalizingWeight: log(size + 2).
      weights_[i] = std::log(static_cast<double>(sz + 2));
    }
    // processAllNode: count matching pods in every domain, over all nodes passing the pod's node
    // affinity.
    for (const NodeInfo& info : ctx.cluster.nodes) {
      if (require_all && !has_all_keys(info.node, soft_)) {
        continue;
      }
      if (!matches_required_node_affinity(pod, info.node)) {
        continue;
      }
      for (std::size_t i = 0; i < soft_.size(); ++i) {
        if (soft_[i]->topology_key == kHostnameKey) {
          continue;
        }
        const auto it = info.node.labels.find(soft_[i]->topology_key);
        if (it == info.node.labels.end()) {
          continue;
        }
        const auto pc = pair_counts_[i].find(it->second);
        if (pc == pair_counts_[i].end()) {
          continue;
        }
        pc->second += count_matching(info, soft_[i]->label_selector, pod.namespace_name);
      }
    }
    return Status::success();
  }

  // Score: sum over constraints of cnt * log(size + 2) + (maxSkew - 1), rounded.
  std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    if (ignored_[node_index]) {
      return 0;
    }
    const NodeInfo& info = ctx.cluster.nodes[node_index];
    double s = 0.0;
    for (std::size_t i = 0; i < soft_.size(); ++i) {
      const auto it = info.node.labels.find(soft_[i]->topology_key);
      if (it == info.node.labels.end()) {
        continue;
      }
      std::int64_t cnt = 0;
      if (soft_[i]->topology_key == kHostnameKey) {
        cnt = count_matching(info, soft_[i]->label_selector, pod.namespace_name);
      } else {
        const auto pc = pair_counts_[i].find(it->second);
        cnt = pc == pair_counts_[i].end() ? 0 : pc->second;
      }
      s += static_cast<double>(cnt) * weights_[i] + static_cast<double>(soft_[i]->max_skew - 1);
    }
    return static_cast<std::int64_t>(std::round(s));
  }
  bool has_normalize() const override { return true; }
  // NormalizeScore: 100 * (max + min - s) / max; ignored nodes 0; all 100 when max is 0.
  void normalize(const CycleContext&, const PodSpec&, std::span<const int> feasible,
                 std::span<std::int64_t> scores) override {
    std::int64_t min_score = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_score = 0;
    for (std::size_t k = 0; k < scores.size(); ++k) {
      if (ignored_[feasible[k]]) {
        continue;
      }
      min_score = std::min(min_score, scores[k]);
      max_score = std::max(max_score, scores[k]);
    }
    for (std::size_t k = 0; k < scores.size(); ++k) {
      if (ignored_[feasible[k]]) {
        scores[k] = 0;
      } else if (max_score == 0) {
        scores[k] = kMaxNodeScore;
      } else {
        scores[k] = kMaxNodeScore * (max_score + min_score - scores[k]) / max_score;
      }
    }
  }

 private:
  std::vector<TopologySpreadConstraint> defaults_;
  bool system_defaulted_;
  std::vector<const TopologySpreadConstraint*> hard_;
  std::vector<std::map<std::string, std::int64_t>> counts_;
  std::vector<std::int64_t> min_;
  std::vector<const TopologySpreadConstraint*> soft_;
  std::vector<bool> ignored_;
  std::vector<std::map<std::string, std::int64_t>> pair_counts_;
  std::vector<double> weights_;
};
static_assert(
    Implements<PodTopologySpread, PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin>);

}  // namespace

std::vector<TopologySpreadConstraint> PodTopologySpreadArgs::system_default_constraints() {
  return {TopologySpreadConstraint{3, kHostnameKey, "ScheduleAnyway", {}},
          TopologySpreadConstraint{5, "topology.kubernetes.io/zone", "ScheduleAnyway", {}}};
}

PodTopologySpreadArgs parse_pod_topology_spread_args(const PluginArgs& args) {
  Fields f = args_fields(args);
  PodTopologySpreadArgs a;
  a.system_defaulted = f.choice("defaultingType", "System", {"System", "List"}) == "System";
  if (!a.system_defaulted) {
    a.default_constraints.clear();
  }
  if (f.has("defaultConstraints")) {
    if (a.system_defaulted) {
      throw f.error(f.get("defaultConstraints"), "defaultConstraints",
                    "must be empty when defaultingType is System");
    }
    const auto items =
        sequence_of(f.get("defaultConstraints"), f.file(), f.path_of("defaultConstraints"));
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields c(items[i], f.file(), f.path_of("defaultConstraints") + "[" + std::to_string(i) + "]");
      TopologySpreadConstraint t;
      t.max_skew = static_cast<std::int32_t>(c.integer("maxSkew", std::nullopt, 1, 1000000));
      t.topology_key = c.string("topologyKey");
      t.when_unsatisfiable =
          c.choice("whenUnsatisfiable", std::nullopt, {"DoNotSchedule", "ScheduleAnyway"});
      if (c.has("labelSelector")) {
        throw c.error(c.get("labelSelector"), "labelSelector",
                      "default constraints may not set a labelSelector");
      }
      c.finish();
      a.default_constraints.push_back(t);
    }
  }
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_pod_topology_spread(const PodTopologySpreadArgs& args) {
  return std::make_unique<PodTopologySpread>(args.default_constraints, args.system_defaulted);
}

}  // namespace tidesim::policies
