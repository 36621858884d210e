#include "tidesim/policies/plugins/interpod_affinity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <span>
#include <utility>

namespace tidesim::policies {

bool affinity_term_matches(const PodAffinityTerm& term, const std::string& owner_ns,
                           const PodSpec& pod) {
  if (term.namespaces.empty()) {
    if (pod.namespace_name != owner_ns) {
      return false;
    }
  } else if (std::find(term.namespaces.begin(), term.namespaces.end(), pod.namespace_name) ==
             term.namespaces.end()) {
    return false;
  }
  return matches(term.label_selector, pod.labels);
}

namespace {

using TopologyPair = std::pair<std::string, std::string>;
using PairCounts = std::map<TopologyPair, std::int64_t>;

void update(PairCounts& m, const NodeSpec& node, const std::string& key, std::int64_t value) {
  const auto it = node.labels.find(key);
  if (it == node.labels.end()) {
    return;
  }
  auto& v = m[{key, it->second}];
  v += value;
  if (v == 0) {
    m.erase({key, it->second});
  }
}

bool matches_all(const std::vector<PodAffinityTerm>& terms, const std::string& owner_ns,
                 const PodSpec& pod) {
  if (terms.empty()) {
    return false;
  }
  return std::all_of(terms.begin(), terms.end(), [&](const PodAffinityTerm& t) {
    return affinity_term_matches(t, owner_ns, pod);
  });
}

class InterPodAffinity final : public PreFilterPlugin,
                               public FilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin {
 public:
  explicit InterPodAffinity(InterPodAffinityArgs args) : args_(args) {}
  std::string_view name() const override { return "InterPodAffinity"; }

  // filtering.go PreFilter: counts per topology pair.
  Status pre_filter(CycleContext& ctx, const PodSpec& pod) override {
    existing_anti_.clear();
    affinity_.clear();
    anti_.clear();
    prefilter_cycle_ = ctx.cycle;
    any_existing_affinity_ = false;
    const auto& req_aff = pod.pod_affinity.required;
    const auto& req_anti = pod.pod_anti_affinity.required;
    const bool incoming = !req_aff.empty() || !req_anti.empty();
    any_existing_affinity_ = !ctx.cluster.nodes_with_affinity().empty();
    // getExistingAntiAffinityCounts: existing pods' required anti-affinity terms that match the
    // incoming pod, over the snapshot's HavePodsWithRequiredAntiAffinityNodeInfoList (only the
    // nodes with such pods, and on them NodeInfo.PodsWithRequiredAntiAffinity).
    for (const int n : ctx.cluster.nodes_with_required_anti_affinity()) {
      const NodeInfo& info = ctx.cluster.nodes[static_cast<std::size_t>(n)];
      for (const auto& existing : info.pods_with_required_anti_affinity) {
        for (const auto& t : existing->pod_anti_affinity.required) {
          if (affinity_term_matches(t, existing->namespace_name, pod)) {
            update(existing_anti_, info.node, t.topology_key, 1);
          }
        }
      }
    }
    // getIncomingAffinityAntiAffinityCounts: nothing without required terms of the pod's own;
    // else over every node's pods.
    for (const NodeInfo& info :
         incoming ? std::span<const NodeInfo>(ctx.cluster.nodes) : std::span<const NodeInfo>()) {
      for (const auto& existing : info.pods) {
        if (!req_aff.empty() && matches_all(req_aff, pod.namespace_name, *existing)) {
          for (const auto& t : req_aff) {
            update(affinity_, info.node, t.topology_key, 1);
          }
        }
        for (const auto& t : req_anti) {
          if (affinity_term_matches(t, pod.namespace_name, *existing)) {
            update(anti_, info.node, t.topology_key, 1);
          }
        }
      }
    }
    if (existing_anti_.empty() && req_aff.empty() && req_anti.empty()) {
      return Status{Code::kSkip, {}, {}};
    }
    return Status::success();
  }

  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    const NodeSpec& node = ctx.cluster.nodes[node_index].node;
    // satisfyPodAffinity
    bool pods_exist = true;
    for (const auto& t : pod.pod_affinity.required) {
      const auto it = node.labels.find(t.topology_key);
      if (it == node.labels.end()) {
        return reject(ctx, Code::kUnschedulableAndUnresolvable,
                      "node(s) didn't match pod affinity rules");
      }
      const auto c = affinity_.find({t.topology_key, it->second});
      if (c == affinity_.end() || c->second <= 0) {
        pods_exist = false;
      }
    }
    if (!pods_exist) {
      // The first pod of a group with affinity to itself may go anywhere with the topology keys.
      if (!(affinity_.empty() && matches_all(pod.pod_affinity.required, pod.namespace_name, pod))) {
        return reject(ctx, Code::kUnschedulableAndUnresolvable,
                      "node(s) didn't match pod affinity rules");
      }
    }
    // satisfyPodAntiAffinity
    if (!anti_.empty()) {
      for (const auto& t : pod.pod_anti_affinity.required) {
        const auto it = node.labels.find(t.topology_key);
        if (it == node.labels.end()) {
          continue;
        }
        const auto c = anti_.find({t.topology_key, it->second});
        if (c != anti_.end() && c->second > 0) {
          return reject(ctx, Code::kUnschedulable, "node(s) didn't match pod anti-affinity rules");
        }
      }
    }
    // satisfyExistingPodsAntiAffinity
    if (!existing_anti_.empty()) {
      for (const auto& [k, v] : node.labels) {
        const auto c = existing_anti_.find({k, v});
        if (c != existing_anti_.end() && c->second > 0) {
          return reject(ctx, Code::kUnschedulable,
                        "node(s) didn't satisfy existing pods anti-affinity rules");
        }
      }
    }
    return Status::success();
  }

  // scoring.go PreScore: topologyScore[key][value] from the preferred terms of both sides.
  Status pre_score(CycleContext& ctx, const PodSpec& pod, std::span<const int>) override {
    topology_score_.clear();
    const bool has_preferred =
        !pod.pod_affinity.preferred.empty() || !pod.pod_anti_affinity.preferred.empty();
    if (args_.ignore_preferred_terms_of_existing_pods && !has_preferred) {
      return Status{Code::kSkip, {}, {}};
    }
    // PreFilter of this cycle saw no pod with affinity terms: nothing can score.
    if (!has_preferred && prefilter_cycle_ == ctx.cycle && !any_existing_affinity_) {
      return Status{Code::kSkip, {}, {}};
    }
    // Without preferred terms of its own, only existing pods with affinity terms can score: the
    // snapshot's HavePodsWithAffinityNodeInfoList and on them NodeInfo.PodsWithAffinity.
    const auto visit = [&](const NodeInfo& info,
                           const std::vector<std::shared_ptr<const PodSpec>>& existing_pods) {
      if (info.node.labels.empty()) {
        return;
      }
      for (const auto& existing : existing_pods) {
        process_existing(pod, *existing, info.node);
      }
    };
    if (has_preferred) {
      for (const NodeInfo& info : ctx.cluster.nodes) {
        visit(info, info.pods);
      }
    } else {
      for (const int n : ctx.cluster.nodes_with_affinity()) {
        const NodeInfo& info = ctx.cluster.nodes[static_cast<std::size_t>(n)];
        visit(info, info.pods_with_affinity.pods());
      }
    }
    if (topology_score_.empty()) {
      return Status{Code::kSkip, {}, {}};
    }
    return Status::success();
  }

  std::int64_t score(CycleContext& ctx, const PodSpec&, int node_index) override {
    const NodeSpec& node = ctx.cluster.nodes[node_index].node;
    std::int64_t s = 0;
    for (const auto& [pair, value] : topology_score_) {
      const auto it = node.labels.find(pair.first);
      if (it != node.labels.end() && it->second == pair.second) {
        s += value;
      }
    }
    return s;
  }
  bool has_normalize() const override { return true; }
  // NormalizeScore: 100 * (score - min) / (max - min), truncated.
  void normalize(const CycleContext&, const PodSpec&, std::span<const int>,
                 std::span<std::int64_t> scores) override {
    if (topology_score_.empty() || scores.empty()) {
      return;
    }
    const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
    const std::int64_t min_count = *lo;
    const std::int64_t diff = *hi - *lo;
    for (auto& s : scores) {
      double f = 0.0;
      if (diff > 0) {
        f = static_cast<double>(kMaxNodeScore) *
            (static_cast<double>(s - min_count) / static_cast<double>(diff));
      }
      s = static_cast<std::int64_t>(f);
    }
  }

 private:
  void process_term(const PodAffinityTerm& term, std::int64_t weight, const std::string& owner_ns,
                    const PodSpec& target, const NodeSpec& node, std::int64_t multiplier) {
    if (!affinity_term_matches(term, owner_ns, target)) {
      return;
    }
    const auto it = node.labels.find(term.topology_key);
    if (it != node.labels.end()) {
      topology_score_[{term.topology_key, it->second}] += weight * multiplier;
    }
  }

  // scoring.go processExistingPod.
  void process_existing(const PodSpec& pod, const PodSpec& existing, const NodeSpec& node) {
    for (const auto& t : pod.pod_affinity.preferred) {
      process_term(t.term, t.weight, pod.namespace_name, existing, node, 1);
    }
    for (const auto& t : pod.pod_anti_affinity.preferred) {
      process_term(t.term, t.weight, pod.namespace_name, existing, node, -1);
    }
    if (args_.hard_pod_affinity_weight > 0) {
      for (const auto& t : existing.pod_affinity.required) {
        process_term(t, args_.hard_pod_affinity_weight, existing.namespace_name, pod, node, 1);
      }
    }
    for (const auto& t : existing.pod_affinity.preferred) {
      process_term(t.term, t.weight, existing.namespace_name, pod, node, 1);
    }
    for (const auto& t : existing.pod_anti_affinity.preferred) {
      process_term(t.term, t.weight, existing.namespace_name, pod, node, -1);
    }
  }

  InterPodAffinityArgs args_;
  std::uint64_t prefilter_cycle_ = 0;
  bool any_existing_affinity_ = false;
  PairCounts existing_anti_;
  PairCounts affinity_;
  PairCounts anti_;
  std::map<TopologyPair, std::int64_t> topology_score_;
};
static_assert(
    Implements<InterPodAffinity, PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin>);

}  // namespace

InterPodAffinityArgs parse_inter_pod_affinity_args(const PluginArgs& args) {
  const InterPodAffinityArgs defaults;
  Fields f = args_fields(args);
  InterPodAffinityArgs a;
  a.hard_pod_affinity_weight =
      f.integer("hardPodAffinityWeight", defaults.hard_pod_affinity_weight, 0, 100);
  a.ignore_preferred_terms_of_existing_pods = f.boolean(
      "ignorePreferredTermsOfExistingPods", defaults.ignore_preferred_terms_of_existing_pods);
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_inter_pod_affinity(const InterPodAffinityArgs& args) {
  return std::make_unique<InterPodAffinity>(args);
}

}  // namespace tidesim::policies
