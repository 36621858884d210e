// Volcano's partition policy (a gang's partition_policy, its PodGroup's subGroupPolicy) inside
// runs of the `volcano` job-level policy (sim/admission/volcano_policy.hpp): hand-worked runs on
// tests/sim/data/volcano-partition-run.yaml (eight one-GPU nodes: leaves of two under two spines
// of four) with a 4-pod gang of 2 partitions of 2, each partition hard within a leaf (by
// highestTierName), submitted at 1 s after one-pod fillers pinned to a node at 0 s (placed by
// the same policy, without a topology).
#include <gtest/gtest.h>

#include <map>
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

// Each pod's node and bind time (by its replica index), and the gang's start, for the gang G of
// the scenario after `fillers` with its partition policy's min_partitions set to `min_partitions`.
struct PodBinds {
  std::map<int, std::string> node;
  std::map<int, double> at;
  double started = -1.0;
};

PodBinds run_binds(const std::string& file, int min_partitions,
                   const std::vector<Filler>& fillers) {
  const Scenario s = load_scenario(file);
  Workload w = test::gang_after_fillers(s, fillers);
  w.jobs.back().gang->partition_policy->min_partitions = min_partitions;
  RunSignals signals;
  PodBinds b;
  signals.job.connect([&b](const JobEvent& e) {
    if (e.job == "G" && e.kind == JobEventKind::kBound) {
      const int r = std::stoi(e.pod.substr(2));  // G-<replica>-<attempt>: its last bind
      b.node[r] = e.node;
      b.at[r] = to_seconds(e.at);
    } else if (e.job == "G" && e.kind == JobEventKind::kStarted) {
      b.started = to_seconds(e.at);  // its last start
    }
  });
  test::GangOutcome o;
  test::run_recording_binds(s, w, "partitions", signals, o);
  return b;
}

PodBinds run_min_partitions(int min_partitions, const std::vector<Filler>& fillers) {
  return run_binds("tests/sim/data/volcano-partition-run.yaml", min_partitions, fillers);
}

TEST(VolcanoPartitionRun, MinPartitionsBindsTheReadyPartitionsFirst) {
  // F1 holds gpu-03 for 100 s, F2 gpu-05 and F3 gpu-07 for 300 s: only the first leaf (gpu-01,
  // gpu-02) has 2 idle GPUs. Partition 0 (pods 0, 1) fits there; partition 1 fits no leaf until
  // F1 ends at 100 s, when the second leaf (gpu-03, gpu-04) holds it.
  const std::vector<Filler> fillers{{"gpu-03", 1}, {"gpu-05", 3}, {"gpu-07", 3}};
  // min_partitions 0 (minAvailable: every pod): the gang is ready only at 100 s; all four pods
  // bind then.
  const PodBinds all = run_min_partitions(0, fillers);
  for (int r = 0; r < 4; ++r) {
    EXPECT_NEAR(all.at.at(r), 100.0, kTol) << r;
  }
  // min_partitions 1 (minAvailable 2, minSubGroups 1): the gang is ready with partition 0 placed
  // (gang.go JobReadyFn), so allocate commits it at 1 s: pods 0 and 1 bind on gpu-01, gpu-02
  // then; pods 2 and 3 stay pending until the decision at 100 s places partition 1 in the
  // second leaf. The job computes once all four run: it starts after the last bind, as with 0.
  const PodBinds one = run_min_partitions(1, fillers);
  EXPECT_EQ(one.node.at(0), "gpu-01");
  EXPECT_EQ(one.node.at(1), "gpu-02");
  EXPECT_NEAR(one.at.at(0), 1.0, kTol);
  EXPECT_NEAR(one.at.at(1), 1.0, kTol);
  EXPECT_EQ(one.node.at(2), "gpu-03");
  EXPECT_EQ(one.node.at(3), "gpu-04");
  EXPECT_NEAR(one.at.at(2), 100.0, kTol);
  EXPECT_NEAR(one.at.at(3), 100.0, kTol);
  EXPECT_NEAR(one.started, all.started, 1e-6);
}

TEST(VolcanoPartitionRun, ARestartedPartitionIsPlacedAsAGroupInOneLeaf) {
  // tests/sim/data/volcano-partition-failure.yaml: F1 holds gpu-07 throughout. The gang (60 min
  // of work) takes the first two leaves at 1 s: partition 0 on gpu-01, gpu-02, partition 1 on
  // gpu-03, gpu-04. At 1,500 s gpu-01 fails (down until 3,300 s): partition 0 restarts, its pods
  // deleted; partition 1 keeps its nodes. The policy places the restarted partition as at the
  // first placement, a sub-job within one leaf: the first leaf has one healthy node (gpu-02), the
  // fourth one (gpu-08, F1 on gpu-07), the third both: pods 0 and 1 bind on gpu-05 and gpu-06 at
  // 1,500 s (placed one by one, the scheduler could have split them over gpu-02 and a free node
  // of another leaf). The gang restarts after detection 180 + rescheduling 600 + loading 120 s.
  const PodBinds b =
      run_binds("tests/sim/data/volcano-partition-failure.yaml", 0, {{"gpu-07", 100}});
  EXPECT_EQ(b.node.at(0), "gpu-05");
  EXPECT_EQ(b.node.at(1), "gpu-06");
  EXPECT_NEAR(b.at.at(0), 1500.0, 0.05);
  EXPECT_NEAR(b.at.at(1), 1500.0, 0.05);
  EXPECT_EQ(b.node.at(2), "gpu-03");
  EXPECT_EQ(b.node.at(3), "gpu-04");
  EXPECT_NEAR(b.at.at(2), 1.0, kTol);
  EXPECT_NEAR(b.started, 2400.0, 0.05);
}

}  // namespace
}  // namespace tidesim
