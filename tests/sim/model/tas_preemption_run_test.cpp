// Kueue's topology-aware preemption inside a run (sim/admission/quota.hpp TopologyCheck,
// sim/model/topology_admission.hpp simulate/preempt; docs/topology-aware.md "Preemption"):
// hand-worked runs on tests/sim/data/tas-run.yaml (four one-GPU nodes, gpu-01/gpu-02 in
// leaf-0000 and gpu-03/gpu-04 in leaf-0001, a quota of 4 GPUs) under the policy
// required-leaf-preempt (withinClusterQueue: LowerPriority). Fillers F1 on gpu-02 and F2 on
// gpu-04 (one pod each, 100 s and 300 s, submitted at 0 s) leave one free GPU in each leaf; the
// gang G (2 pods, required leaf, 100 s) comes at 1 s. Its quota fits (2 + 2 of 4), its topology
// does not: Kueue's preemptor simulates the placement without each candidate.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/gang_run.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

struct Outcome : test::GangOutcome {
  std::vector<std::pair<std::string, double>> released;  // (job, s): suspended or ended
  std::vector<std::string> topology_reasons;             // G's refusals
};

// G at `priority` after F1 and F2 at theirs.
Outcome run(std::int32_t g, std::int32_t f1, std::int32_t f2) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  Workload w = test::gang_after_fillers(s, {{"gpu-02", 1}, {"gpu-04", 3}});
  w.jobs[0].pod_template.priority = f1;
  w.jobs[1].pod_template.priority = f2;
  w.jobs[2].pod_template.priority = g;
  w.jobs[2].pod_template.annotations["kueue.x-k8s.io/podset-required-topology"] =
      "network.topology.nvidia.com/leaf";
  RunSignals signals;
  Outcome o;
  signals.quota.connect([&o](const QuotaEvent& e) {
    if (!e.admitted) {
      o.released.emplace_back(e.job, to_seconds(e.at));
    }
  });
  signals.topology.connect([&o](const TopologyEvent& e) {
    if (e.job == "G" && !e.admitted) {
      o.topology_reasons.push_back(e.reason);
    }
  });
  test::run_recording_binds(s, w, "required-leaf-preempt", signals, o);
  return o;
}

constexpr double kTol = 1.0;

TEST(TasPreemptionRun, ARequiredGangPreemptsTheLowerPriorityJobInTheRackItNeeds) {
  // G (priority 10) does not fit a leaf: each holds 1 of its 2 pods. Both fillers are lower
  // priority; the candidates are tried lower priority first: F1 (0) before F2 (5). Without F1
  // leaf-0000 holds both pods, so F1 alone is preempted at 1 s (F2 keeps running) and G's pods
  // go to gpu-01 and gpu-02. F1 comes back once G ends (101 s) and runs its 100 s again.
  const Outcome o = run(10, 0, 5);
  EXPECT_EQ(o.summary.succeeded, 3);
  ASSERT_FALSE(o.released.empty());
  EXPECT_EQ(o.released.front().first, "F1");
  EXPECT_NEAR(o.released.front().second, 1.0, kTol);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  EXPECT_EQ(o.nodes.at("F2"), (std::multiset<std::string>{"gpu-04"}));  // bound once
  EXPECT_EQ(o.nodes.at("F1"), (std::multiset<std::string>{"gpu-02", "gpu-02"}));
  EXPECT_GE(o.bound_s.at("F1"), 101.0 - kTol);
  // G's first placement was refused with Kueue's reason, which led to the preemption.
  ASSERT_FALSE(o.topology_reasons.empty());
  EXPECT_EQ(o.topology_reasons.front(),
            "topology \"default\" allows to fit only 1 out of 2 pod(s). Total nodes: 4; "
            "excluded: resource \"nvidia.com/gpu\": 2");
}

TEST(TasPreemptionRun, TheVictimIsTheOneWhoseRackThenHoldsTheGang) {
  // F2 (gpu-04) is now the lowest priority: it is the first candidate, and without it leaf-0001
  // holds G, which goes to gpu-03 and gpu-04; F1 keeps running.
  const Outcome o = run(10, 5, 0);
  ASSERT_FALSE(o.released.empty());
  EXPECT_EQ(o.released.front().first, "F2");
  EXPECT_NEAR(o.released.front().second, 1.0, kTol);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-04"}));
  EXPECT_EQ(o.nodes.at("F1"), (std::multiset<std::string>{"gpu-02"}));
}

TEST(TasPreemptionRun, EqualPriorityWaits) {
  // Everyone at priority 0: no candidate (withinClusterQueue LowerPriority). G waits with
  // Kueue's reason until F1 ends at 100 s, then takes leaf-0000 (gpu-01, gpu-02); nothing is
  // released before F1's end.
  const Outcome o = run(0, 0, 0);
  EXPECT_EQ(o.summary.succeeded, 3);
  ASSERT_FALSE(o.released.empty());
  EXPECT_EQ(o.released.front().first, "F1");
  EXPECT_NEAR(o.released.front().second, 100.0, kTol);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-02"}));
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
  ASSERT_FALSE(o.topology_reasons.empty());
}

}  // namespace
}  // namespace tidesim
