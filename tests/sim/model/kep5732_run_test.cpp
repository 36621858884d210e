// Kubernetes' Workload API gangs with a KEP-5732 topology constraint inside runs, under the
// built-in profile default-k8s-gang: hand-worked runs on tests/sim/data/kep5732-run.yaml (four
// one-GPU nodes, gpu-01/gpu-02 in leaf-0000 and gpu-03/gpu-04 in leaf-0001) with a 2-pod gang
// (minCount 2, one leaf) and one-pod fillers pinned to a node.
#include <gtest/gtest.h>

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

// The gang G (2 pods x 1 GPU, 100 s) submitted at 1 s, after one-pod fillers F1, F2, ...
// submitted at 0 s on their nodes.
Outcome run_gang(const std::vector<Filler>& fillers) {
  return test::run_gang_after_fillers("tests/sim/data/kep5732-run.yaml", "", fillers);
}

// Within 1 s of the hand-worked times (binds take scheduling cycles; steps are whole).
constexpr double kTol = 1.0;

TEST(Kep5732Run, TheGangLandsInTheLeafThatHoldsIt) {
  // F1 holds gpu-02: leaf-0000 holds 1 pod of G, leaf-0001 both. TopologyPlacement's only
  // feasible placement is leaf-0001: G binds on gpu-03 and gpu-04 at 1 s (GangScheduling lets
  // both bind in the second pod's cycle).
  const Outcome o = run_gang({{"gpu-02", 3}});
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
}

TEST(Kep5732Run, AGangThatFitsNoLeafWaitsForOne) {
  // F1 holds gpu-02 for 100 s, F2 gpu-04 for 300 s: each leaf has room for 1 pod of G's 2 while
  // the cluster has 2 free GPUs. G stays pending (no pod reserved) until F1 ends at 100 s; then
  // leaf-0000 holds both: G binds on gpu-01 and gpu-02 at 100 s.
  const Outcome o = run_gang({{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
}

// The same runs under default-k8s-gang-v136 (KEP-4671's pod group cycle at v1.36,
// policies/pod_group_cycle.hpp): both pods of G are tried in each leaf in one cycle.
Outcome run_gang_v136(const std::vector<Filler>& fillers) {
  return test::run_gang_after_fillers("tests/sim/data/kep5732-run.yaml", "kep5732-leaf-v136",
                                      fillers);
}

TEST(Kep5732Run, V136TheGangLandsInTheLeafThatHoldsIt) {
  // F1 holds gpu-02: in leaf-0000 only pod 0 fits (gpu-01), so Permit never says Success there;
  // in leaf-0001 both fit. G binds on gpu-03 and gpu-04 at 1 s, both in that one cycle.
  const Outcome o = run_gang_v136({{"gpu-02", 3}});
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
}

TEST(Kep5732Run, V136AGangThatFitsNoLeafIsRejectedAndRetried) {
  // F1 holds gpu-02 for 100 s, F2 gpu-04 for 300 s: each leaf places 1 pod of G, so the group is
  // rejected at 1 s, holding nothing. F1's end at 100 s is a cluster event: leaf-0000 then holds
  // both, and G binds on gpu-01 and gpu-02 at 100 s.
  const Outcome o = run_gang_v136({{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
}

}  // namespace
}  // namespace tidesim
