// TasSnapshot::find_assignments: Kueue's FindTopologyAssignmentsForFlavor over the PodSets of
// one workload (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_flavor_snapshot.go):
// PodSets of one podset-group-name are placed together, the one with fewer pods as the leader;
// each group's usage counts against the next groups; the first group that fails ends it.
#include <utility>

#include "tidesim/sim/admission/tas_placement.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

std::vector<PodSetResult> TasSnapshot::find_assignments(const std::vector<TasPodSet>& podsets,
                                                        const TasFeatureGates& gates) {
  gates_ = gates;
  std::vector<std::string> order;
  std::map<std::string, std::vector<const TasPodSet*>> groups;
  for (std::size_t i = 0; i < podsets.size(); ++i) {
    const auto& topo = podsets[i].topology;
    std::string key = topo && topo->group ? "g:" + *topo->group : "i:" + std::to_string(i);
    if (!groups.contains(key)) {
      order.push_back(key);
    }
    groups[key].push_back(&podsets[i]);
  }
  std::vector<PodSetResult> results;
  UsageByDomain assumed;
  for (const std::string& key : order) {
    const auto& members = groups[key];
    const TasPodSet* workers = members[0];
    const TasPodSet* leader = members.size() > 1 ? members[1] : nullptr;
    if (leader && leader->count > workers->count) {
      std::swap(leader, workers);
    }
    std::map<std::string, PodSetResult> elastic;
    if (gates.elastic_jobs_with_tas && place_elastic(*workers, leader, assumed, elastic)) {
      for (const TasPodSet* ps : members) {
        if (auto it = elastic.find(ps->name); it != elastic.end()) {
          results.push_back(it->second);
        }
      }
      if (!elastic[workers->name].reason.empty()) {
        return results;
      }
      continue;
    }
    Placement placement(*this, assumed);
    Placement::Outcome outcome = placement.run(*workers, leader, !workers->topology);
    for (const TasPodSet* ps : members) {
      PodSetResult r{.name = ps->name, .assignment = std::nullopt, .reason = outcome.reason};
      if (auto it = outcome.assignments.find(ps->name); it != outcome.assignments.end()) {
        r.assignment = it->second;
      }
      results.push_back(std::move(r));
    }
    if (!outcome.reason.empty()) {
      return results;
    }
    for (const TasPodSet* ps : members) {
      add_assumed_usage(assumed, outcome.assignments[ps->name], ps->requests);
    }
  }
  return results;
}

}  // namespace tidesim::tas
