// Kueue's own TAS placement cases, run against tidesim's port of the algorithm.
//
// Source: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/cache/scheduler/tas_cache_test.go, TestFindTopologyAssignments and
// TestFindTopologyAssignmentsMultiLayerReplacement. Every case of those tables is one YAML
// document of tests/sim/admission/data/kueue_find_topology_assignments.yaml, written
// from the Go file by tools/port-kueue-tas-cases.py and keeping the upstream case name; each
// runs here as TasKueueCases/<index>_<name> and compares the assignment (levels, domains with
// values and pod counts, in order) or Kueue's refusal message. A case the script cannot convert
// (one whose nodes upstream builds with Go code, ported by hand in
// tas_kueue_hand_cases_test.cpp) carries `not_converted: <why>` and is skipped with that reason.
#include <gtest/gtest.h>

#include <algorithm>
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
  // Kueue's result is a map by PodSet name; after the first group that fails, or for a PodSet
  // without an assignment to replace, there is none.
  for (const KueueCase::Want& want : c.want) {
    SCOPED_TRACE("podset " + want.name);
    auto it = std::find_if(got.begin(), got.end(),
                           [&](const PodSetResult& r) { return r.name == want.name; });
    if (it == got.end()) {
      EXPECT_TRUE(want.reason.empty() && !want.assignment) << "no result for this PodSet";
      continue;
    }
    EXPECT_EQ(it->reason, want.reason) << describe(*it);
    if (want.reason.empty()) {
      ASSERT_TRUE(it->assignment.has_value());
      if (want.assignment) {
        EXPECT_EQ(*it->assignment, *want.assignment) << describe(*it);
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
