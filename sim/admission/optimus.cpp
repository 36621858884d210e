#include "tidesim/sim/admission/optimus.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

namespace tidesim {

OptimusPolicy::OptimusPolicy(const AdmissionConfig& config) : rounds_(config.interval, "optimus") {
  const ArtifactArgs args = job_args<ArtifactArgs>(config);
  at_rounds_ = args.rounds;
  place_ = args.artifact_placement;
}

std::optional<Duration> OptimusPolicy::interval() const {
  return at_rounds_ ? rounds_.to_next() : rounds_.interval();
}

std::vector<int> OptimusPolicy::packed(int gpus, int gpus_per_node) {
  std::vector<int> p;
  for (int left = gpus; left > 0; left -= gpus_per_node) {
    p.push_back(std::min(left, gpus_per_node));
  }
  return p;
}

JobDecision OptimusPolicy::decide(const JobPolicyState& state) {
  JobDecision decision;
  if (rounds_.hold(state, at_rounds_, decision)) {
    return decision;
  }
  if (!state.remaining_seconds) {
    throw std::logic_error("optimus needs JobPolicyState::remaining_seconds");
  }
  int node_gpus = 1;
  if (state.cluster != nullptr) {
    for (const NodeInfo& n : state.cluster->nodes) {
      node_gpus = std::max(node_gpus, static_cast<int>(n.node.allocatable.gpus));
    }
  }
  const auto remaining = [&](const JobView& j, int gpus) {
    return state.remaining_seconds(j.id, packed(gpus, node_gpus), 0);
  };
  // One GPU each (a fixed-size job its size), in submission order, while they last.
  std::int64_t free = state.capacity_gpus;
  std::vector<int> gpus(state.jobs.size(), 0);
  std::vector<double> gain(state.jobs.size(), 0.0);
  const auto gain_of = [&](std::size_t i) {
    const JobView& j = state.jobs[i];
    const int r = gpus[i] / j.gpus_per_replica;
    if (!j.elastic || r + 1 > j.max_replicas) {
      return 0.0;
    }
    return remaining(j, gpus[i]) - remaining(j, gpus[i] + j.gpus_per_replica);
  };
  for (std::size_t i = 0; i < state.jobs.size(); ++i) {
    const JobView& j = state.jobs[i];
    const int first = (j.elastic ? j.min_replicas : j.replicas) * j.gpus_per_replica;
    if (first > free) {
      continue;
    }
    gpus[i] = first;
    free -= first;
    gain[i] = free >= 1 ? gain_of(i) : 0.0;
  }
  // Then by the largest marginal gain.
  while (free > 0) {
    const auto best = std::max_element(gain.begin(), gain.end());
    if (best == gain.end() || *best <= 0) {
      break;
    }
    const auto i = static_cast<std::size_t>(best - gain.begin());
    const JobView& j = state.jobs[i];
    if (j.gpus_per_replica > free) {
      *best = 0;
      continue;
    }
    gpus[i] += j.gpus_per_replica;
    gain[i] = gain_of(i);
    free -= j.gpus_per_replica;
  }
  // The jobs that keep their size keep their GPUs; the others are placed, fewest GPUs first.
  std::vector<const JobView*> kept;
  std::vector<std::pair<const JobView*, int>> fresh;
  for (std::size_t i = 0; i < state.jobs.size(); ++i) {
    const JobView& j = state.jobs[i];
    if (gpus[i] == 0) {
      continue;
    }
    decision.run.push_back(j.id);
    if (j.elastic) {
      decision.replicas[j.id] = gpus[i] / j.gpus_per_replica;
    }
    if (j.admitted && gpus[i] == j.gpus) {
      kept.push_back(&j);
    } else if (place_) {
      fresh.emplace_back(&j, gpus[i]);
    }
  }
  std::stable_sort(fresh.begin(), fresh.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  placement_.place(state, kept, fresh, decision);
  return decision;
}

}  // namespace tidesim
