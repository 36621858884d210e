#include "tidesim/policies/plugins/default_preemption.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace tidesim::policies {

bool more_important(std::int32_t a_priority, TimePoint a_start, std::int32_t b_priority,
                    TimePoint b_start) {
  if (a_priority != b_priority) {
    return a_priority > b_priority;
  }
  return a_start < b_start;
}

std::optional<NodeVictims> select_victims_on_node(const PodSpec& pod, ClusterView& view, int node,
                                                  FilterRunner& filters) {
  NodeInfo& info = view.nodes[static_cast<std::size_t>(node)];
  const NodeInfo saved = info;
  // Every pod of lower priority is a potential victim (selectVictimsOnNode: removePod for each).
  std::vector<std::size_t> potential;
  for (std::size_t i = 0; i < info.pods.size(); ++i) {
    if (info.pods[i]->priority < pod.priority) {
      potential.push_back(i);
    }
  }
  if (potential.empty()) {
    return std::nullopt;
  }
  std::vector<std::shared_ptr<const PodSpec>> pods;
  std::vector<TimePoint> started;
  for (const std::size_t i : potential) {
    pods.push_back(saved.pods[i]);
    started.push_back(saved.bound_at[i]);
  }
  for (const auto& p : pods) {
    info.remove_pod(p->name);
  }
  if (!filters.fits(pod, view, node)) {
    info = saved;
    return std::nullopt;
  }
  // Most important first (sort.Slice(potentialVictims, MoreImportantPod)); stable on the
  // binding order for equal pods.
  std::vector<std::size_t> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return more_important(pods[a]->priority, started[a], pods[b]->priority, started[b]);
  });
  // The reprieve: add each back; keep it when the pod still fits, else it is a victim.
  NodeVictims out;
  out.node = node;
  for (const std::size_t k : order) {
    info.add_pod(pods[k], started[k]);
    if (!filters.fits(pod, view, node)) {
      info.remove_pod(pods[k]->name);
      out.pods.push_back(pods[k]);
      out.started.push_back(started[k]);
    }
  }
  info = saved;
  return out;
}

std::size_t pick_one_node(const std::vector<NodeVictims>& candidates) {
  std::vector<std::size_t> left(candidates.size());
  std::iota(left.begin(), left.end(), 0);
  for (const std::size_t i : left) {
    if (candidates[i].pods.empty()) {
      return i;  // no victims needed
    }
  }
  // Keeps the candidates with the minimal (or, negated, maximal) key.
  const auto keep_min = [&](auto key) {
    auto best = key(candidates[left.front()]);
    for (const std::size_t i : left) {
      best = std::min(best, key(candidates[i]));
    }
    std::vector<std::size_t> kept;
    for (const std::size_t i : left) {
      if (key(candidates[i]) == best) {
        kept.push_back(i);
      }
    }
    left = std::move(kept);
  };
  // 1. Fewest PDB violations: none are modelled. 2. The lowest highest-victim priority.
  keep_min([](const NodeVictims& c) { return c.pods.front()->priority; });
  // 3. The smallest sum of priorities, each shifted by MaxInt32 + 1 so that it is positive.
  keep_min([](const NodeVictims& c) {
    std::int64_t sum = 0;
    for (const auto& p : c.pods) {
      sum += static_cast<std::int64_t>(p->priority) + std::numeric_limits<std::int32_t>::max() + 1;
    }
    return sum;
  });
  // 4. The fewest victims.
  keep_min([](const NodeVictims& c) { return c.pods.size(); });
  // 5. The latest start time among the highest-priority victims' earliest
  // (GetEarliestPodStartTime).
  keep_min([](const NodeVictims& c) {
    TimePoint earliest = c.started.front();
    for (std::size_t k = 0; k < c.pods.size(); ++k) {
      if (c.pods[k]->priority == c.pods.front()->priority) {
        earliest = std::min(earliest, c.started[k]);
      }
    }
    return -earliest.time_since_epoch().count();
  });
  return left.front();
}

namespace {

class DefaultPreemption final : public PostFilterPlugin {
 public:
  std::string_view name() const override { return "DefaultPreemption"; }

  PostFilterResult post_filter(CycleContext& ctx, const PodSpec& pod,
                               FilterRunner& filters) override {
    // PodEligibleToPreemptOthers: preemptionPolicy Never never preempts.
    if (pod.preemption_policy == "Never") {
      return {};
    }
    // A copy of the view the dry run edits (one node at a time, restored after each).
    ClusterView view = ctx.cluster;
    std::vector<NodeVictims> candidates;
    for (int n = 0; n < static_cast<int>(view.nodes.size()); ++n) {
      if (auto v = select_victims_on_node(pod, view, n, filters)) {
        candidates.push_back(std::move(*v));
      }
    }
    if (candidates.empty()) {
      return {};
    }
    NodeVictims& chosen = candidates[pick_one_node(candidates)];
    return PostFilterResult{chosen.node, std::move(chosen.pods)};
  }
};

}  // namespace

std::unique_ptr<Plugin> make_default_preemption() {
  return std::make_unique<DefaultPreemption>();
}

}  // namespace tidesim::policies
