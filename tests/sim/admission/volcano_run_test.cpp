// Volcano's network-topology-aware scheduling inside runs (sim/admission/volcano_policy.hpp):
// hand-worked runs on tests/sim/data/volcano-run.yaml (four one-GPU nodes, gpu-01/gpu-02 in
// leaf-0000 and gpu-03/gpu-04 in leaf-0001 under one spine) with a 2-pod gang submitted at 1 s
// after one-pod fillers pinned to a node at 0 s (placed by the same policy, without a topology).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/common/gang_run.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using test::Filler;
using Outcome = test::GangOutcome;

Outcome run_gang(const std::string& policy, const std::vector<Filler>& fillers) {
  return test::run_gang_after_fillers("tests/sim/data/volcano-run.yaml", policy, fillers);
}

constexpr double kTol = 1.0;  // binds take scheduling cycles; steps are whole

TEST(VolcanoRun, AHardGangLandsInTheLeafThatHoldsIt) {
  // F1 holds gpu-02: leaf-0000 has 1 idle GPU (not eligible: the gang's minimum is 2),
  // leaf-0001 has 2. G goes to leaf-0001: its first pod to gpu-03 (every node scores 0 before
  // the job has a HyperNode), the second to gpu-04 (same leaf: full score). Bound at 1 s.
  const Outcome o = run_gang("hard-leaf", {{"gpu-02", 3}});
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
}

TEST(VolcanoRun, AHardGangWaitsForALeafAndSoftFallsBackToTheSpine) {
  // F1 holds gpu-02 for 100 s, F2 gpu-04 for 300 s: each leaf has 1 idle GPU. Hard at tier 1
  // waits (the cluster's 2 idle GPUs are in two leaves) until F1 ends at 100 s, then takes
  // leaf-0000: gpu-01 and gpu-02.
  const Outcome hard = run_gang("hard-leaf", {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(hard.summary.succeeded, 3);
  EXPECT_EQ(hard.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(hard.bound_s.at("G"), 100.0, kTol);
  // Soft tries tier 1 (no leaf eligible), then the spine (tier 2): gpu-01, then gpu-03 (its LCA
  // with leaf-0000 is the spine, score (3 - 2) / (3 - 1) = 0.5, the only idle node left). Bound
  // at 1 s.
  const Outcome soft = run_gang("soft", {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(soft.summary.succeeded, 3);
  EXPECT_EQ(soft.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-03"}));
  EXPECT_NEAR(soft.bound_s.at("G"), 1.0, kTol);
}

}  // namespace
}  // namespace tidesim
