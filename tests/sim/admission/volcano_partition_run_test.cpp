// Volcano's partition policy (a gang's partition_policy, its PodGroup's subGroupPolicy) inside
// runs of the `volcano` job-level policy (sim/admission/volcano_policy.hpp): hand-worked runs on
// tests/sim/data/volcano-partition-run.yaml (eight one-GPU nodes: leaves of two under two spines
// of four) with a 4-pod gang of 2 partitions of 2, each partition hard within a leaf (by
// highestTierName), submitted at 1 s after one-pod fillers pinned to a node at 0 s (placed by
// the same policy, without a topology).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/gang_run.hpp"

namespace tidesim {
namespace {

using test::Filler;
using Outcome = test::GangOutcome;

Outcome run_gang(const std::string& policy, const std::vector<Filler>& fillers) {
  return test::run_gang_after_fillers("tests/sim/data/volcano-partition-run.yaml", policy, fillers);
}

constexpr double kTol = 1.0;  // binds take scheduling cycles; steps are whole

TEST(VolcanoPartitionRun, EachPartitionTakesAWholeLeafAcrossSpines) {
  // F1 holds gpu-02 (first leaf), F2 gpu-07 (fourth leaf) for 100 s: the second and third
  // leaves are the only ones with 2 idle GPUs. The job has no topology of its own, so it is
  // tried once over the whole cluster: partition 0 (pods 0, 1) in the first eligible leaf of
  // its gradient, the second (binpack ties: both empty), gpu-03 and gpu-04; partition 1 then
  // finds only the third leaf with 2 idle GPUs: gpu-05 and gpu-06. Bound at 1 s.
  const Outcome o = run_gang("partitions", {{"gpu-02", 1}, {"gpu-07", 1}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04", "gpu-05", "gpu-06"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
}

TEST(VolcanoPartitionRun, PartitionsWithinOneSpineWaitForASpineWithTwoFreeLeaves) {
  // The policy gives the gang a hard networkTopology at the spine's tier, by its tierName (tier
  // 2). With F1 and F2 as above each spine has 3 idle GPUs, fewer than the gang's 4: no spine is
  // eligible and the gang waits. At 100 s both fillers end: both spines hold the gang with equal
  // scores and the first is taken, partition 0 in its first leaf (gpu-01, gpu-02), partition 1
  // in its second (gpu-03, gpu-04).
  const Outcome o = run_gang("partitions-in-a-spine", {{"gpu-02", 1}, {"gpu-07", 1}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02", "gpu-03", "gpu-04"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
}

}  // namespace
}  // namespace tidesim
