// Kueue's scheduler-level TAS cases that fit one flavour, run on tidesim's placement library.
//
// Source: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/scheduler/scheduler_tas_test.go, TestScheduleForTAS. The cases whose ClusterQueue has one
// ResourceFlavor with a topology and that need no admission check, node replacement, partial
// admission, resource transformation or SchedulerLibraryIntegration are ported by hand, one
// YAML document each with the upstream case name, to
// tests/sim/admission/data/kueue_schedule_for_tas.yaml (docs/topology-aware.md lists the rest
// and why). Each runs through the same TasSnapshot::find_assignments that runs use
// (sim/model/topology_admission.cpp) and compares the topologyAssignment upstream expects in
// the workload's admission, or the event message upstream expects for a workload left pending:
// Kueue's flavor assigner writes "couldn't assign flavors to pod set NAME: " and the
// placement's reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim/admission/tas_case_reader.hpp"

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
  const std::vector<PodSetResult> got = snapshot.find_assignments(c.podsets, c.gates);
  for (const KueueCase::Want& want : c.want) {
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

INSTANTIATE_TEST_SUITE_P(Kueue, TasKueueSchedulerCases, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<KueueCase>& info) {
                           return gtest_name(info.index, info.param.name);
                         });

TEST(TasKueueSchedulerCasesFile, HoldsThePortedCases) {
  EXPECT_EQ(all_cases().size(), 26U);
}

}  // namespace
}  // namespace tidesim::tas
