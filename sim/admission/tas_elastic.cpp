// Kueue's placement of a resized elastic workload (ElasticJobsViaWorkloadSlicesWithTAS;
// kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_elastic_workloads.go and
// pkg/util/tas/tas_assignment.go TruncateAssignment): the pods of the previous workload slice
// keep their domains; a scale-up places only the new pods and merges them in, a scale-down
// drops pods from the end of the previous assignment. A previous assignment that names a domain
// no longer in the snapshot means a fresh placement.
#include "tidesim/sim/admission/tas_placement.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

namespace {

std::int32_t pods_in(const TopologyAssignment& ta) {
  std::int32_t total = 0;
  for (const DomainAssignment& d : ta.domains) {
    total += d.count;
  }
  return total;
}

TopologyAssignment truncate(const TopologyAssignment& ta, std::int32_t count) {
  TopologyAssignment out{.levels = ta.levels, .domains = {}};
  std::int32_t remaining = count;
  for (const DomainAssignment& d : ta.domains) {
    if (remaining <= 0) {
      break;
    }
    out.domains.push_back({.values = d.values, .count = std::min(d.count, remaining)});
    remaining -= out.domains.back().count;
  }
  return out;
}

}  // namespace

bool TasSnapshot::place_elastic(const TasPodSet& workers, const TasPodSet* leader,
                                UsageByDomain& assumed, std::map<std::string, PodSetResult>& out) {
  if (!workers.previous_assignment || stale(*workers.previous_assignment) ||
      (leader && leader->previous_assignment && stale(*leader->previous_assignment))) {
    return false;
  }
  const TopologyAssignment& previous = *workers.previous_assignment;
  const std::int32_t previous_count = pods_in(previous);
  auto keep_leader = [&] {
    if (leader) {
      out[leader->name] = {
          .name = leader->name, .assignment = leader->previous_assignment, .reason = ""};
      if (leader->previous_assignment) {
        add_assumed_usage(assumed, *leader->previous_assignment, leader->requests);
      }
    }
  };
  if (workers.count <= previous_count) {
    const TopologyAssignment kept =
        workers.count < previous_count ? truncate(previous, workers.count) : previous;
    out[workers.name] = {.name = workers.name, .assignment = kept, .reason = ""};
    add_assumed_usage(assumed, kept, workers.requests);
    keep_leader();
    return true;
  }
  // Scale up: the previous pods (and the previous leader) take their capacity first.
  TasPodSet delta = workers;
  delta.count = workers.count - previous_count;
  delta.previous_assignment.reset();
  add_assumed_usage(assumed, previous, workers.requests);
  const TasPodSet* placement_leader = leader;
  if (leader && leader->previous_assignment) {
    add_assumed_usage(assumed, *leader->previous_assignment, leader->requests);
    placement_leader = nullptr;
  }
  Placement placement(*this, assumed);
  Placement::Outcome outcome = placement.run(delta, placement_leader, !delta.topology);
  if (!outcome.reason.empty()) {
    out[workers.name] = {
        .name = workers.name, .assignment = std::nullopt, .reason = outcome.reason};
    return true;
  }
  const TopologyAssignment& placed = outcome.assignments[workers.name];
  out[workers.name] = {.name = workers.name, .assignment = merge(placed, previous), .reason = ""};
  if (leader) {
    if (leader->previous_assignment) {
      out[leader->name] = {
          .name = leader->name, .assignment = *leader->previous_assignment, .reason = ""};
    } else {
      out[leader->name] = {
          .name = leader->name, .assignment = outcome.assignments[leader->name], .reason = ""};
      add_assumed_usage(assumed, outcome.assignments[leader->name], leader->requests);
    }
  }
  add_assumed_usage(assumed, placed, workers.requests);
  return true;
}

}  // namespace tidesim::tas
