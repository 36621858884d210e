// Kueue's TestScheduleForTASPreemption cases: victims chosen so that the preemptor's topology
// fits once they are gone (Kueue's preemptor simulates the TAS placement without each
// candidate), run through the quota walk a run uses and Kueue's placement
// (tests/sim/admission/kueue_cycle_harness.hpp). Upstream: kubernetes-sigs/kueue
// @ff69552e79ad21652c36caa97038382e55625cf7, pkg/scheduler/scheduler_tas_test.go,
// TestScheduleForTASPreemption. Each test compares the workloads upstream preempts (its
// Evicted/Preempted conditions) and the refusal that led to the preemption (upstream's
// QuotaReserved message up to ". Pending the preemption of N workload(s)"). Upstream's preemptor
// then waits for its victims to end and is placed at a later cycle; a run's walk admits it at
// once, so each test also checks where it goes then (worked by hand: the nodes as the victims
// leave them).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim/admission/kueue_cycle_harness.hpp"

namespace tidesim::tas {
namespace {

TasNode node(const std::string& host) {
  TasNode n;
  n.name = host;
  n.labels = {{"tas-node", "true"}, {kHostnameLabel, host}};
  n.allocatable = {{"cpu", 5000}, {"memory", 5 * kGi}, {"pods", 10}};
  return n;
}

// The cases' defaultSingleNode / defaultTwoNodes (5 CPUs, 5Gi, 10 pods each), the
// single-level topology, flavour tas-default and ClusterQueue tas-main (withinClusterQueue
// LowerPriority, `cpu` and `memory` quotas: 50 and 50Gi unless given).
CycleCase tas_case(std::vector<std::string> hosts, std::int64_t cpu = 50000,
                   std::int64_t memory = 50 * kGi) {
  CycleCase c;
  for (const std::string& host : hosts) {
    c.nodes.push_back(node(host));
  }
  c.topologies = {{"tas-single-level", {kHostnameLabel}}};
  c.flavors = {{"tas-default", {{"tas-node", "true"}}, "tas-single-level"}};
  c.queues = {CycleQueue{.name = "tas-main",
                         .flavors = {{"tas-default", {{"cpu", cpu}, {"memory", memory}}}},
                         .within = WithinClusterQueue::kLowerPriority}};
  return c;
}

enum class Level { kPreferred, kRequired };

CycleWorkload pending(const std::string& name, std::int32_t priority, std::int32_t count,
                      ResourceMap per_pod, Level level, int queue = 0) {
  CycleWorkload w{.name = name, .queue = queue, .priority = priority};
  w.podset.name = "one";
  w.podset.count = count;
  w.podset.requests = std::move(per_pod);
  w.podset.topology = TopologyRequest();
  (level == Level::kRequired ? w.podset.topology->required : w.podset.topology->preferred) =
      kHostnameLabel;
  return w;
}

CycleWorkload admitted(const std::string& name, std::int32_t priority, std::int32_t count,
                       ResourceMap per_pod, TopologyAssignment where,
                       const std::string& flavor = "tas-default", int queue = 0) {
  CycleWorkload w = pending(name, priority, count, std::move(per_pod), Level::kRequired, queue);
  w.admitted_flavor = flavor;
  w.admitted_assignment = std::move(where);
  return w;
}

// Runs the cycle in Kueue's order and checks: `preemptor` needed preemption for `refusal` ("":
// for its quota, with no placement tried), exactly `victims` were preempted, and the preemptor
// was then placed at `then` in `flavor`.
void expect_preemption(const CycleCase& c, const std::string& preemptor, const std::string& refusal,
                       const std::vector<std::string>& victims, const TopologyAssignment& then,
                       const std::string& flavor = "tas-default") {
  const auto got = run_cycle(c, kueue_cycle_order(c));
  std::vector<std::string> preempted;
  for (const auto& [name, o] : got) {
    if (o.preempted) {
      preempted.push_back(name);
    }
  }
  EXPECT_EQ(preempted, victims);
  ASSERT_TRUE(got.contains(preemptor));
  const CycleOutcome& o = got.at(preemptor);
  EXPECT_EQ(o.refusal, refusal);
  EXPECT_TRUE(o.admitted) << o.reason;
  EXPECT_EQ(o.flavor, flavor);
  EXPECT_EQ(o.assignment, std::optional<TopologyAssignment>(then));
}

// "workload preempted due to quota is using deleted Node": the victim (by quota: foo's 10 CPUs
// need its 5) is placed on z1, a node no longer in the cluster; its usage there is counted
// nowhere, so foo's 10 pods fit x1 and y1 once its quota is free.
TEST(TasKueuePreemption, WorkloadPreemptedDueToQuotaIsUsingDeletedNode) {
  CycleCase c = tas_case({"x1", "y1"}, 10000, 10 * kGi);
  c.workloads = {pending("foo", 3, 10, {{"cpu", 1000}}, Level::kPreferred),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 5000}}, on_hosts({{"z1", 1}}))};
  expect_preemption(c, "foo", "", {"low-priority-admitted"}, on_hosts({{"x1", 5}, {"y1", 5}}));
}

// "preemption; TAS uses podspec memory for fit": the quota fits, x1's free 3Gi does not hold
// the pod's 4Gi.
TEST(TasKueuePreemption, TasUsesPodspecMemoryForFit) {
  CycleCase c = tas_case({"x1"});
  c.workloads = {pending("foo", 3, 1, {{"cpu", 1000}, {"memory", 4 * kGi}}, Level::kPreferred),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 1000}, {"memory", 2 * kGi}},
                          on_hosts({{"x1", 1}}))};
  expect_preemption(c, "foo",
                    "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total "
                    "nodes: 1; excluded: resource \"memory\": 1",
                    {"low-priority-admitted"}, on_hosts({{"x1", 1}}));
}

// "only low priority workload is preempted".
TEST(TasKueuePreemption, OnlyLowPriorityWorkloadIsPreempted) {
  CycleCase c = tas_case({"x1"});
  c.workloads = {pending("foo", 3, 1, {{"cpu", 2000}}, Level::kPreferred),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 5000}}, on_hosts({{"x1", 1}}))};
  expect_preemption(c, "foo",
                    "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total "
                    "nodes: 1; excluded: resource \"cpu\": 1",
                    {"low-priority-admitted"}, on_hosts({{"x1", 1}}));
}

// "With pods count usage pressure on nodes: only low priority workload is preempted": x1
// allows one pod, which the victim holds.
TEST(TasKueuePreemption, WithPodsCountUsagePressureOnlyLowPriorityIsPreempted) {
  CycleCase c = tas_case({"x1"});
  c.nodes[0].allocatable["pods"] = 1;
  c.workloads = {pending("high-priority-waiting", 3, 1, {{"cpu", 2000}}, Level::kPreferred),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 5000}}, on_hosts({{"x1", 1}}))};
  expect_preemption(c, "high-priority-waiting",
                    "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total "
                    "nodes: 1; excluded: resource \"cpu\": 1",
                    {"low-priority-admitted"}, on_hosts({{"x1", 1}}));
}

// "low priority workload is preempted, mid-priority workload survives": lower priority first;
// the low one's 2 CPUs leave x1 3 free, enough.
TEST(TasKueuePreemption, LowPriorityPreemptedMidPrioritySurvives) {
  CycleCase c = tas_case({"x1"});
  c.workloads = {pending("foo", 3, 1, {{"cpu", 2000}}, Level::kPreferred),
                 admitted("mid-priority-admitted", 2, 1, {{"cpu", 2000}}, on_hosts({{"x1", 1}})),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 2000}}, on_hosts({{"x1", 1}}))};
  expect_preemption(c, "foo",
                    "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total "
                    "nodes: 1; excluded: resource \"cpu\": 1",
                    {"low-priority-admitted"}, on_hosts({{"x1", 1}}));
}

// "low priority workload is preempted even though there is enough capacity, but fragmented":
// x1 and y1 each have 1 CPU free, enough for foo's two pods but not on one host as it
// requires.
TEST(TasKueuePreemption, LowPriorityPreemptedThoughEnoughCapacityButFragmented) {
  CycleCase c = tas_case({"x1", "y1"});
  c.workloads = {pending("foo", 3, 2, {{"cpu", 1000}}, Level::kRequired),
                 admitted("mid-priority-admitted", 2, 1, {{"cpu", 4000}}, on_hosts({{"x1", 1}})),
                 admitted("low-priority-admitted", 1, 1, {{"cpu", 4000}}, on_hosts({{"y1", 1}}))};
  expect_preemption(c, "foo", "topology \"tas-single-level\" allows to fit only 1 out of 2 pod(s)",
                    {"low-priority-admitted"}, on_hosts({{"y1", 2}}));
}

// "workload with equal priority awaits for other workloads to complete": the admitted
// workload has the same priority, so it is no candidate and the waiting one stays pending with
// the placement's reason, nothing preempted. Kueue's cycle takes one head per ClusterQueue
// (the higher priority one); the lower one is left in the queue for a later cycle, where it
// fits. A run's walk (BestEffortFIFO) goes on to it in the same decision.
TEST(TasKueuePreemption, EqualPriorityAwaitsForOtherWorkloadsToComplete) {
  CycleCase c = tas_case({"x1"});
  c.workloads = {pending("low-priority-which-would-fit", 1, 1, {{"cpu", 1000}}, Level::kRequired),
                 pending("mid-priority-waiting", 2, 2, {{"cpu", 1000}}, Level::kRequired),
                 admitted("mid-priority-admitted", 2, 1, {{"cpu", 4000}}, on_hosts({{"x1", 1}}))};
  ASSERT_EQ(kueue_cycle_order(c).front(), 1U);  // the ClusterQueue's head
  const auto got = run_cycle(c, {1});
  const CycleOutcome& o = got.at("mid-priority-waiting");
  EXPECT_FALSE(o.admitted);
  EXPECT_EQ(o.reason, "topology \"tas-single-level\" allows to fit only 1 out of 2 pod(s)");
  for (const auto& [name, outcome] : got) {
    EXPECT_FALSE(outcome.preempted) << name;
  }
}

// "preempt in multiple flavors out of which one requires update Fit -> Preempt due to
// fragmentation": memory needs preemption by quota (10Gi used of 10Gi), CPU fits its quota
// (6.02 of 10) but neither host has 3 CPUs free. Kueue then marks every resource of the TAS
// PodSet Preempt, so low-cpu (which uses no memory) is a candidate too, and both go: without
// low-mem the quota still lacks memory, without low-cpu no host has 3 CPUs. Both hosts are
// then empty; BestFit's tie goes to the first by name.
TEST(TasKueuePreemption, PreemptInMultipleFlavorsFitToPreemptDueToFragmentation) {
  CycleCase c = tas_case({"x1", "y1"}, 10000, 10 * kGi);
  c.workloads = {
      admitted("low-cpu", -1000, 2, {{"cpu", 3000}}, on_hosts({{"x1", 1}, {"y1", 1}})),
      admitted("low-mem", -1000, 2, {{"cpu", 10}, {"memory", 5 * kGi}},
               on_hosts({{"x1", 1}, {"y1", 1}})),
      pending("high-priority", 0, 1, {{"cpu", 3000}, {"memory", 5 * kGi}}, Level::kRequired)};
  expect_preemption(c, "high-priority", "", {"low-cpu", "low-mem"}, on_hosts({{"x1", 1}}));
}

// "sibling-flavor usage on the shared node forces same-flavor preemption": flavours a and b
// share x1 (their node taints, which pin each workload to its flavour, are not modelled; the
// pending workload's flavour is a, the first whose quota holds it). x1 holds w1 (flavour a, 1
// CPU) and w2 (flavour b, 3 CPUs): 1 CPU free. Only w1 uses flavour a's quota, so it is the
// only candidate, and giving back its CPU is enough.
TEST(TasKueuePreemption, SiblingFlavorUsageOnTheSharedNodeForcesSameFlavorPreemption) {
  CycleCase c = tas_case({"x1"});
  c.flavors = {{"flavor-a", {{"tas-node", "true"}}, "tas-single-level"},
               {"flavor-b", {{"tas-node", "true"}}, "tas-single-level"}};
  c.queues[0].flavors = {{"flavor-a", {{"cpu", 5000}}}, {"flavor-b", {{"cpu", 5000}}}};
  c.workloads = {
      pending("w3-pending", 5, 1, {{"cpu", 2000}, {"memory", 2 * kGi}}, Level::kPreferred),
      admitted("w1-low-prio-a", 1, 1, {{"cpu", 1000}, {"memory", kGi}}, on_hosts({{"x1", 1}}),
               "flavor-a"),
      admitted("w2-sibling-b", 1, 1, {{"cpu", 3000}, {"memory", 3 * kGi}}, on_hosts({{"x1", 1}}),
               "flavor-b")};
  expect_preemption(c, "w3-pending",
                    "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total "
                    "nodes: 1; excluded: resource \"cpu\": 1",
                    {"w1-low-prio-a"}, on_hosts({{"x1", 1}}), "flavor-a");
}

// "preempting workload recomputes both overlapping preemption targets and TAS topology
// assignment; both features enabled": tas-cq-c (nominal 0) borrows 6 CPUs for wl-low (x1) and
// wl-mid (y1); wl-high-1 (tas-cq-a) and wl-high-2 (tas-cq-b) each fit their quota but no host
// has 3 CPUs. Upstream's second preemptor recomputes its targets after the first's
// (RecomputeAssignmentUponPreemptionTargetsOverlap) and both borrowers are reclaimed; the walk
// reaches the same: wl-high-1 reclaims wl-low (lower priority first) and takes x1, then
// wl-high-2 finds x1 full again and reclaims wl-mid for y1. The cohort's own quota (0 CPUs) and
// the queues' borrowingLimit (10) do not bind.
TEST(TasKueuePreemption, RecomputesOverlappingPreemptionTargetsAndTopologyAssignment) {
  CycleCase c = tas_case({"x1", "y1"});
  c.queues.clear();
  for (const auto& [name, nominal] :
       {std::pair{"tas-cq-a", 5000}, std::pair{"tas-cq-b", 5000}, std::pair{"tas-cq-c", 0}}) {
    c.queues.push_back(CycleQueue{.name = name,
                                  .cohort = "tas-cohort-main",
                                  .flavors = {{"tas-default", {{"cpu", nominal}}}},
                                  .within = WithinClusterQueue::kLowerPriority,
                                  .reclaim = ReclaimWithinCohort::kAny});
  }
  c.workloads = {
      admitted("wl-low-admitted", 1, 1, {{"cpu", 3000}}, on_hosts({{"x1", 1}}), "tas-default", 2),
      admitted("wl-mid-admitted", 2, 1, {{"cpu", 3000}}, on_hosts({{"y1", 1}}), "tas-default", 2),
      pending("wl-high-1", 10, 1, {{"cpu", 3000}}, Level::kRequired, 0),
      pending("wl-high-2", 10, 1, {{"cpu", 3000}}, Level::kRequired, 1)};
  const auto got = run_cycle(c, kueue_cycle_order(c));
  EXPECT_TRUE(got.at("wl-low-admitted").preempted);
  EXPECT_TRUE(got.at("wl-mid-admitted").preempted);
  const std::string refusal =
      "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total nodes: 2; "
      "excluded: resource \"cpu\": 2";
  for (const auto& [name, host] : {std::pair{"wl-high-1", "x1"}, std::pair{"wl-high-2", "y1"}}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(got.at(name).refusal, refusal);
    EXPECT_TRUE(got.at(name).admitted) << got.at(name).reason;
    EXPECT_EQ(got.at(name).assignment, std::optional<TopologyAssignment>(on_hosts({{host, 1}})));
  }
}

}  // namespace
}  // namespace tidesim::tas
