// Kueue's scheduler-level TAS cases that fit one flavour, run on tidesim's placement library.
//
// Source: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/scheduler/scheduler_tas_test.go, TestScheduleForTAS. The cases whose ClusterQueue has one
// ResourceFlavor with a topology and that need no quota, admission check, partial admission or
// resource transformation (those run through `tidesim admit`:
// tests/tools/tas_admit_scheduler_cases_test.cpp) are ported by hand, one YAML document each with
// the upstream case name, to tests/sim/admission/data/kueue_schedule_for_tas.yaml, the three
// SchedulerLibraryIntegration cases included (docs/topology-aware.md says why the gate changes
// no placement here). Each runs through the same
// TasSnapshot::find_assignments that runs use (sim/model/topology_admission.cpp) and compares
// the topologyAssignment upstream expects in the workload's admission, or the event message
// upstream expects for a workload left pending: Kueue's flavor assigner writes "couldn't assign
// flavors to pod set NAME: " and the placement's reason. The node replacement cases (an
// admitted workload with status.unhealthyNodes, the scheduler's second pass) run through
// TasSnapshot::find_replacements, with the workload's own admission charged in the snapshot as
// Kueue's cache holds it; a PodSet whose replacement fails keeps its admission, and upstream's
// SecondPassFailed event carries the same message. Before any placement the case's flavor is
// checked as Kueue's flavor assigner checks it (checkPodSetAndFlavorMatchForTAS,
// sim/admission/tas_flavor_match.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/sim/admission/tas_case_reader.hpp"
#include "tidesim/sim/admission/tas_flavor_match.hpp"

namespace tidesim::tas {
namespace {

const char* kCasesFile = TIDESIM_SOURCE_DIR "/tests/sim/admission/data/kueue_schedule_for_tas.yaml";

std::vector<KueueCase> all_cases() {
  return read_kueue_cases(kCasesFile);
}

std::int32_t pod_count(const KueueCase& c, const std::string& podset) {
  for (const TasPodSet& ps : c.podsets) {
    if (ps.name == podset) {
      return ps.count;
    }
  }
  return -1;
}

void expect_same(const KueueCase& c, const std::vector<KueueCase::Want>& wants,
                 const std::vector<PodSetResult>& got) {
  for (const KueueCase::Want& want : wants) {
    SCOPED_TRACE("podset " + want.name);
    auto it = std::find_if(got.begin(), got.end(),
                           [&](const PodSetResult& r) { return r.name == want.name; });
    ASSERT_NE(it, got.end()) << "no result for this PodSet";
    if (!want.message.empty()) {
      EXPECT_EQ("couldn't assign flavors to pod set " + want.name + ": " + it->reason,
                want.message);
    } else if (!want.reason.empty()) {
      EXPECT_EQ(it->reason, want.reason);
    } else if (want.pending) {
      EXPECT_FALSE(it->admitted());
    } else if (want.assignment) {
      EXPECT_EQ(it->reason, "");
      ASSERT_TRUE(it->assignment.has_value());
      EXPECT_EQ(*it->assignment, *want.assignment);
    } else if (pod_count(c, want.name) == 0) {
      // Admitted with no topologyAssignment (a PodSet of zero pods).
      EXPECT_EQ(it->reason, "");
      EXPECT_TRUE(!it->assignment || it->assignment->domains.empty());
    }  // else a PodSet of a workload left pending by a later one: upstream compares nothing
  }
}

const TasPodSet& podset_named(const KueueCase& c, const std::string& name) {
  auto it = std::find_if(c.podsets.begin(), c.podsets.end(),
                         [&](const TasPodSet& ps) { return ps.name == name; });
  if (it == c.podsets.end()) {
    throw std::runtime_error("replacement names no PodSet " + name + " in " + c.name);
  }
  return *it;
}

// The second pass of an admitted workload with an unhealthy node: each PodSet's admission
// after the cycle (replaced, kept because it has no pod there, or kept because the
// replacement failed, with the SecondPassFailed message).
void expect_same_replacement(const KueueCase& c, TasSnapshot& snapshot) {
  const NodeReplacement& rep = *c.replacement;
  for (const auto& [name, assignment] : rep.assignments) {
    snapshot.add_usage(assignment, podset_named(c, name).requests);  // Kueue's cache holds it
  }
  const std::vector<PodSetResult> got = snapshot.find_replacements(c.podsets, rep, c.gates);
  for (const KueueCase::Want& want : c.want) {
    SCOPED_TRACE("podset " + want.name);
    auto it = std::find_if(got.begin(), got.end(),
                           [&](const PodSetResult& r) { return r.name == want.name; });
    const bool replaced = it != got.end() && it->admitted();
    if (it != got.end() && !want.message.empty()) {
      EXPECT_EQ("couldn't assign flavors to pod set " + want.name + ": " + it->reason,
                want.message);
    }
    EXPECT_EQ(want.pending || !want.message.empty(), it != got.end() && !replaced);
    ASSERT_TRUE(want.assignment.has_value());
    EXPECT_EQ(replaced ? *it->assignment : rep.assignments.at(want.name), *want.assignment);
  }
  for (const PodSetResult& r : got) {
    if (r.admitted()) {  // the scheduler adds the new admission's usage to the cycle's snapshot
      snapshot.add_usage(*r.assignment, podset_named(c, r.name).requests);
    }
  }
  if (!c.then_podsets.empty()) {
    expect_same(c, c.then_want, snapshot.find_assignments(c.then_podsets, c.gates));
  }
}

// Kueue's flavor assigner asks checkPodSetAndFlavorMatchForTAS of the case's one flavor (its
// ClusterQueue has only that one, so every PodSet without a request is implied) before any
// placement: the refusal of every PodSet when it refuses one, else nothing.
std::vector<PodSetResult> flavor_refusals(const KueueCase& c) {
  std::vector<PodSetResult> out;
  bool refused = false;
  for (const TasPodSet& ps : c.podsets) {
    const TopologyRequest* request = ps.topology ? &*ps.topology : nullptr;
    out.push_back(PodSetResult{.name = ps.name,
                               .assignment = std::nullopt,
                               .reason = flavor_mismatch(c.flavor, &c.levels, request, true)});
    refused = refused || !out.back().reason.empty();
  }
  return refused ? out : std::vector<PodSetResult>{};
}

class TasKueueSchedulerCases : public ::testing::TestWithParam<KueueCase> {};

TEST_P(TasKueueSchedulerCases, SameAdmissionAsKueue) {
  const KueueCase& c = GetParam();
  SCOPED_TRACE("upstream case: " + c.name);
  if (!c.deviation.empty()) {
    RecordProperty("deviation", c.deviation);
  }
  TasSnapshot snapshot(c.topology, c.levels, c.nodes, c.pods, c.flavor_node_labels,
                       c.flavor_tolerations);
  for (const KueueCase::Usage& u : c.tas_usage) {
    snapshot.add_usage(u.where, u.requests);
  }
  if (c.replacement) {
    expect_same_replacement(c, snapshot);
  } else if (std::vector<PodSetResult> refused = flavor_refusals(c); !refused.empty()) {
    expect_same(c, c.want, refused);
  } else {
    expect_same(c, c.want, snapshot.find_assignments(c.podsets, c.gates));
  }
}

INSTANTIATE_TEST_SUITE_P(Kueue, TasKueueSchedulerCases, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<KueueCase>& info) {
                           return gtest_name(info.index, info.param.name);
                         });

TEST(TasKueueSchedulerCasesFile, HoldsThePortedCases) {
  const std::vector<KueueCase> cases = all_cases();
  EXPECT_EQ(cases.size(), 48U);
  EXPECT_EQ(std::count_if(cases.begin(), cases.end(),
                          [](const KueueCase& c) { return c.replacement.has_value(); }),
            19);
}

}  // namespace
}  // namespace tidesim::tas
