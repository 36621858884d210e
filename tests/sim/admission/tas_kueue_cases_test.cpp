// Kueue's own TAS placement cases, run against tidesim's port of the algorithm.
//
// Source: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/cache/scheduler/tas_cache_test.go, TestFindTopologyAssignments and
// TestFindTopologyAssignmentsMultiLayerReplacement. Every case of those tables is one YAML
// document of tests/sim/admission/data/kueue_find_topology_assignments.yaml, written
// from the Go file by tools/port-kueue-tas-cases.py and keeping the upstream case name; each
// runs here as TasKueueCases/<index>_<name> and compares the assignment (levels, domains with
// values and pod counts, in order) or Kueue's refusal message. A case that needs state tidesim
// does not model (elastic workload slices, or a case built by Go code, which
// tas_kueue_hand_cases_test.cpp ports by hand) carries `not_converted:
// <why>` and is skipped with that reason.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sim/admission/tas_case_reader.hpp"

namespace tidesim::tas {
namespace {

const char* kCasesFile =
    TIDESIM_SOURCE_DIR "/tests/sim/admission/data/kueue_find_topology_assignments.yaml";

std::vector<KueueCase> all_cases() {
  return read_kueue_cases(kCasesFile);
}

class TasKueueCases : public ::testing::TestWithParam<KueueCase> {};

std::string describe(const PodSetResult& r) {
  std::string out = r.reason.empty() ? "" : "reason: " + r.reason;
  if (r.assignment) {
    out += " levels:";
    for (const auto& l : r.assignment->levels) {
      out += " " + l;
    }
    for (const auto& d : r.assignment->domains) {
      out += " [";
      for (const auto& v : d.values) {
        out += v + " ";
      }
      out += "x" + std::to_string(d.count) + "]";
    }
  }
  return out;
}

TEST_P(TasKueueCases, SameAssignmentAsKueue) {
  const KueueCase& c = GetParam();
  SCOPED_TRACE("upstream case: " + c.name);
  if (!c.not_converted.empty()) {
    GTEST_SKIP() << "not ported: " << c.not_converted;
  }
  TasSnapshot snapshot("default", c.levels, c.nodes, c.pods, c.flavor_node_labels);
  for (const KueueCase::Usage& u : c.tas_usage) {
    snapshot.add_usage(u.where, u.requests);
  }
  std::vector<PodSetResult> got =
      c.replacement ? snapshot.find_replacements(c.podsets, *c.replacement, c.gates)
                    : snapshot.find_assignments(c.podsets, c.gates);
  // Kueue stops at the first PodSet group that fails; the later PodSets have no result.
  for (std::size_t i = 0; i < c.want.size(); ++i) {
    const KueueCase::Want& want = c.want[i];
    SCOPED_TRACE("podset " + want.name);
    if (i >= got.size()) {
      EXPECT_TRUE(want.reason.empty() && !want.assignment) << "no result for this PodSet";
      continue;
    }
    EXPECT_EQ(got[i].reason, want.reason) << describe(got[i]);
    if (want.reason.empty()) {
      ASSERT_TRUE(got[i].assignment.has_value());
      if (want.assignment) {
        EXPECT_EQ(*got[i].assignment, *want.assignment) << describe(got[i]);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kueue, TasKueueCases, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<KueueCase>& info) {
                           return gtest_name(info.index, info.param.name);
                         });

TEST(TasKueueCasesFile, HoldsEveryUpstreamCase) {
  // At @ff69552 TestFindTopologyAssignments has 140 cases and
  // TestFindTopologyAssignmentsMultiLayerReplacement 6.
  EXPECT_EQ(all_cases().size(), 146U);
}

}  // namespace
}  // namespace tidesim::tas
