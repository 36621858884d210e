#include "tidesim/sim/admission/artifact_placement.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace tidesim {

ArtifactArgs decode_artifact_args(Fields& args) {
  ArtifactArgs a;
  a.rounds = args.boolean("rounds", true);
  a.artifact_placement =
      args.choice("placement", "artifact", {"artifact", "framework"}) == "artifact";
  return a;
}

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

namespace {

// Nodes that are interchangeable for the rest of a round (union-find over node indices).
class NodeGroups {
 public:
  explicit NodeGroups(std::size_t nodes) : group_(nodes) {
    for (std::size_t n = 0; n < group_.size(); ++n) {
      group_[n] = n;
    }
  }
  std::size_t root(std::size_t n) {
    while (group_[n] != n) {
      n = group_[n] = group_[group_[n]];
    }
    return n;
  }
  void join(std::size_t a, std::size_t b) { group_[root(a)] = root(b); }

 private:
  std::vector<std::size_t> group_;
};

// A fresh job's GPUs per node, and the nodes in the order it took them.
struct Taken {
  std::map<int, int> plan;
  std::vector<int> order;
  bool whole = false;  // all its GPUs found
};

// `gpus` GPUs, each time from the node with the most free (Counter.most_common: the first in node
// order among equals), taken from `node_free`.
Taken take_most_free(std::vector<std::int64_t>& node_free, std::int64_t gpus) {
  Taken t;
  std::int64_t need = gpus;
  while (need > 0) {
    const auto most = std::max_element(node_free.begin(), node_free.end());
    if (*most <= 0) {
      break;  // more than the nodes hold: the framework's filters keep the rest pending
    }
    const std::int64_t take = std::min(*most, need);
    t.order.push_back(static_cast<int>(most - node_free.begin()));
    t.plan[t.order.back()] += static_cast<int>(take);
    *most -= take;
    need -= take;
  }
  t.whole = need == 0;
  return t;
}

// The job's node hint: the nodes of its plan and every node interchangeable with one of them,
// in node order.
std::vector<std::string> named_nodes(const std::vector<NodeInfo>& nodes, const Taken& t,
                                     NodeGroups& groups) {
  std::vector<std::string> names;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const bool named = std::any_of(t.plan.begin(), t.plan.end(), [&](const auto& p) {
      return groups.root(static_cast<std::size_t>(p.first)) == groups.root(n);
    });
    if (named) {
      names.push_back(nodes[n].node.name);
    }
  }
  return names;
}

// Each pod on its node, as the plan counts them (the artifact gives a job GPUs per node, not a
// set of nodes), when the plan holds all of the job's pods; the pods (the job's ranks) in the
// order the nodes were taken, as the artifact's allocation lists them (the order the job's
// measured placement is read in: workloads/pollux.hpp). Nothing when the plan does not.
std::optional<std::vector<std::string>> pod_nodes(const std::vector<NodeInfo>& nodes,
                                                  const Taken& t, int gpus_per_replica) {
  const int per_pod = std::max(1, gpus_per_replica);
  std::vector<std::string> pods;
  bool whole = t.whole;
  for (const int n : t.order) {
    const int g = t.plan.at(n);
    whole = whole && g % per_pod == 0;
    for (int k = 0; k < g / per_pod; ++k) {
      pods.push_back(nodes[static_cast<std::size_t>(n)].node.name);
    }
  }
  if (!whole) {
    return std::nullopt;
  }
  return pods;
}

}  // namespace

void ArtifactPlacement::forget_unkept(const std::vector<const JobView*>& kept) {
  for (auto it = planned_.begin(); it != planned_.end();) {
    const bool keeps = std::any_of(kept.begin(), kept.end(),
                                   [&it](const JobView* j) { return j->id == it->first; });
    it = keeps ? std::next(it) : planned_.erase(it);
  }
}

std::vector<std::int64_t> ArtifactPlacement::free_gpus(const std::vector<NodeInfo>& nodes,
                                                       const std::vector<const JobView*>& kept) {
  // What the nodes advertise less what the kept jobs hold there, their bound pods (by the
  // consolidation label) and, for pods not bound yet, what their plan left.
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
  return node_free;
}

void ArtifactPlacement::place(const JobPolicyState& state, const std::vector<const JobView*>& kept,
                              const std::vector<std::pair<const JobView*, int>>& fresh,
                              JobDecision& decision) {
  // The plans of the jobs not kept are void.
  forget_unkept(kept);
  if (state.cluster == nullptr) {
    return;
  }
  const std::vector<NodeInfo>& nodes = state.cluster->nodes;
  std::vector<std::int64_t> node_free = free_gpus(nodes, kept);
  // The fresh jobs in order, each from the node with the most free GPUs. The framework places a
  // job's pods on its named nodes but breaks ties its own way: of two named nodes that had the
  // same free GPUs, either may be the one filled, with the same GPUs per node in the end. Such
  // nodes are interchangeable for the rest of the round, and a later job's hint names all of a
  // node's interchangeable ones.
  NodeGroups groups(nodes.size());
  for (const auto& [j, gpus] : fresh) {
    const std::vector<std::int64_t> before = node_free;
    Taken taken = take_most_free(node_free, gpus);
    std::vector<std::string>& names = decision.nodes[j->id];
    for (std::string& name : named_nodes(nodes, taken, groups)) {
      names.push_back(std::move(name));
    }
    for (const auto& [a, ga] : taken.plan) {
      for (const auto& [b, gb] : taken.plan) {
        const auto x = static_cast<std::size_t>(a);
        const auto y = static_cast<std::size_t>(b);
        if (before[x] == before[y]) {
          groups.join(x, y);
        }
      }
    }
    if (auto pods = pod_nodes(nodes, taken, j->gpus_per_replica)) {
      decision.pod_nodes[j->id] = std::move(*pods);
    }
    planned_[j->id] = std::move(taken.plan);
  }
}

}  // namespace tidesim
