#include "tidesim/sim/admission/artifact_placement.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tidesim {

ArtifactRounds::ArtifactRounds(Duration interval, std::string_view policy) : interval_(interval) {
  if (interval_ <= Duration::zero()) {
    throw std::invalid_argument(std::string(policy) + ": the interval must be positive");
  }
}

bool ArtifactRounds::at_round(TimePoint t) const {
  return t.time_since_epoch().count() % interval_.count() == 0;
}

bool ArtifactRounds::hold(const JobPolicyState& state, bool rounds, JobDecision& decision) {
  mark(state.now);
  if (!rounds || at_round(state.now)) {
    return false;
  }
  for (const JobView& j : state.jobs) {
    if (j.admitted) {
      decision.run.push_back(j.id);
    }
  }
  return true;
}

Duration ArtifactRounds::to_next() const {
  if (!last_) {
    return interval_;
  }
  const std::int64_t since = last_->time_since_epoch().count() % interval_.count();
  return interval_ - Duration(since);
}

std::map<int, int> ArtifactPlacement::planned(int id) const {
  const auto it = planned_.find(id);
  return it == planned_.end() ? std::map<int, int>{} : it->second;
}

void ArtifactPlacement::place(const JobPolicyState& state, const std::vector<const JobView*>& kept,
                              const std::vector<std::pair<const JobView*, int>>& fresh,
                              JobDecision& decision) {
  // The plans of the jobs not kept are void.
  for (auto it = planned_.begin(); it != planned_.end();) {
    const bool keeps = std::any_of(kept.begin(), kept.end(),
                                   [&it](const JobView* j) { return j->id == it->first; });
    it = keeps ? std::next(it) : planned_.erase(it);
  }
  if (state.cluster == nullptr) {
    return;
  }
  // Free GPUs per node: what the nodes advertise less what the kept jobs hold there, their bound
  // pods (by the consolidation label) and, for pods not bound yet, what their plan left.
  const std::vector<NodeInfo>& nodes = state.cluster->nodes;
  std::map<std::string, int> by_name;
  for (const JobView* j : kept) {
    by_name.emplace(j->name, j->id);
  }
  std::vector<std::int64_t> node_free(nodes.size());
  std::map<int, std::map<int, std::int64_t>> bound;  // job -> node -> GPUs bound
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    node_free[n] = nodes[n].node.allocatable.gpus;
    for (const auto& pod : nodes[n].pods) {
      const auto label = pod->labels.find(kJobLabel);
      if (label == pod->labels.end()) {
        continue;
      }
      if (const auto k = by_name.find(label->second); k != by_name.end()) {
        node_free[n] -= pod->requests.gpus;
        bound[k->second][static_cast<int>(n)] += pod->requests.gpus;
      }
    }
  }
  for (const JobView* j : kept) {
    std::map<int, std::int64_t>& on = bound[j->id];
    std::int64_t left = j->gpus;
    for (const auto& [n, g] : on) {
      left -= g;
    }
    for (const auto& [n, g] : planned_[j->id]) {
      const std::int64_t more = std::min<std::int64_t>(left, std::max<std::int64_t>(0, g - on[n]));
      node_free[static_cast<std::size_t>(n)] -= more;
      left -= more;
    }
  }
  // The fresh jobs in order, each from the node with the most free GPUs (Counter.most_common:
  // the first in node order among equals). The framework places a job's pods on its named nodes
  // but breaks ties its own way: of two named nodes that had the same free GPUs, either may be
  // the one filled, with the same GPUs per node in the end. Such nodes are interchangeable for
  // the rest of the round, and a later job's hint names all of a node's interchangeable ones.
  std::vector<std::size_t> group(nodes.size());
  for (std::size_t n = 0; n < group.size(); ++n) {
    group[n] = n;
  }
  const auto root = [&group](std::size_t n) {
    while (group[n] != n) {
      n = group[n] = group[group[n]];
    }
    return n;
  };
  for (const auto& [j, gpus] : fresh) {
    const std::vector<std::int64_t> before = node_free;
    std::map<int, int> plan;
    std::vector<int> taken;  // the nodes in the order the job took them
    std::int64_t need = gpus;
    while (need > 0) {
      const auto most = std::max_element(node_free.begin(), node_free.end());
      if (*most <= 0) {
        break;  // more than the nodes hold: the framework's filters keep the rest pending
      }
      const std::int64_t take = std::min(*most, need);
      taken.push_back(static_cast<int>(most - node_free.begin()));
      plan[taken.back()] += static_cast<int>(take);
      *most -= take;
      need -= take;
    }
    std::vector<std::string>& names = decision.nodes[j->id];
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      const bool named = std::any_of(plan.begin(), plan.end(), [&](const auto& p) {
        return root(static_cast<std::size_t>(p.first)) == root(n);
      });
      if (named) {
        names.push_back(nodes[n].node.name);
      }
    }
    for (const auto& [a, ga] : plan) {
      for (const auto& [b, gb] : plan) {
        const auto x = static_cast<std::size_t>(a);
        const auto y = static_cast<std::size_t>(b);
        if (before[x] == before[y]) {
          group[root(x)] = root(y);
        }
      }
    }
    // Each pod on its node, as the plan counts them (the artifact gives a job GPUs per node,
    // not a set of nodes), when the plan holds all of the job's pods; the pods (the job's ranks)
    // in the order the nodes were taken, as the artifact's allocation lists them (the order
    // the job's measured placement is read in: workloads/pollux.hpp).
    const int per_pod = std::max(1, j->gpus_per_replica);
    std::vector<std::string> pods;
    bool whole = need == 0;
    for (const int n : taken) {
      const int g = plan[n];
      whole = whole && g % per_pod == 0;
      for (int k = 0; k < g / per_pod; ++k) {
        pods.push_back(nodes[static_cast<std::size_t>(n)].node.name);
      }
    }
    if (whole) {
      decision.pod_nodes[j->id] = std::move(pods);
    }
    planned_[j->id] = std::move(plan);
  }
}

}  // namespace tidesim
