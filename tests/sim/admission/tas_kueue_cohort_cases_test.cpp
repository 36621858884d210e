// Kueue's TestScheduleForTASCohorts cases that need no nomination within a cycle and no capacity
// reserved by a preemptor: two ClusterQueues in a cohort (borrowing its unused quota, reclaiming
// it with TAS-aware preemption) and TAS placement with the earlier admissions of the cycle
// charged, run through the quota walk a run uses and Kueue's placement
// (tests/sim/admission/kueue_cycle_harness.hpp). Upstream: kubernetes-sigs/kueue
// @ff69552e79ad21652c36caa97038382e55625cf7, pkg/scheduler/scheduler_tas_test.go,
// TestScheduleForTASCohorts. The pending workloads are taken in the order of Kueue's cycle
// (classicalIterator: within nominal quota before borrowing, then higher priority); a run's
// walk takes its policy's order instead.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim/admission/kueue_cycle_harness.hpp"

namespace tidesim::tas {
namespace {

// The cases' defaultTwoNodes (x1: 3 CPUs, 5Gi; y1: 5 CPUs, 3Gi), the single-level topology,
// flavour tas-default, and ClusterQueues tas-cq-a and tas-cq-b in cohort tas-cohort-main with 4
// CPUs and 4Gi each.
CycleCase cohort_case() {
  CycleCase c;
  for (const auto& [host, cpu, memory] :
       {std::tuple{"x1", 3000, 5 * kGi}, std::tuple{"y1", 5000, 3 * kGi}}) {
    TasNode& n = c.nodes.emplace_back();
    n.name = host;
    n.labels = {{"tas-node", "true"}, {kHostnameLabel, host}};
    n.allocatable = {{"cpu", cpu}, {"memory", memory}, {"pods", 10}};
  }
  c.topologies = {{"tas-single-level", {kHostnameLabel}}};
  c.flavors = {{"tas-default", {{"tas-node", "true"}}, "tas-single-level"}};
  const ResourceMap quota = {{"cpu", 4000}, {"memory", 4 * kGi}};
  c.queues = {CycleQueue{.name = "tas-cq-a",
                         .cohort = "tas-cohort-main",
                         .flavors = {{"tas-default", quota}},
                         .within = WithinClusterQueue::kLowerPriority,
                         .reclaim = ReclaimWithinCohort::kAny},
              CycleQueue{.name = "tas-cq-b",
                         .cohort = "tas-cohort-main",
                         .flavors = {{"tas-default", quota}},
                         .reclaim = ReclaimWithinCohort::kAny}};
  return c;
}

CycleWorkload workload(const std::string& name, int queue, std::int32_t priority,
                       std::int32_t count, ResourceMap per_pod) {
  CycleWorkload w{.name = name, .queue = queue, .priority = priority};
  w.podset.name = "one";
  w.podset.count = count;
  w.podset.requests = std::move(per_pod);
  w.podset.topology = TopologyRequest();
  w.podset.topology->preferred = kHostnameLabel;
  return w;
}

void expect_on(const std::map<std::string, CycleOutcome>& got, const std::string& name,
               const TopologyAssignment& want) {
  SCOPED_TRACE("workload " + name);
  ASSERT_TRUE(got.contains(name));
  EXPECT_TRUE(got.at(name).admitted) << got.at(name).reason;
  EXPECT_EQ(got.at(name).flavor, "tas-default");
  EXPECT_EQ(got.at(name).assignment, std::optional<TopologyAssignment>(want));
}

std::map<std::string, CycleOutcome> run(const CycleCase& c) {
  return run_cycle(c, kueue_cycle_order(c));
}

// "workload which requires borrowing gets scheduled": 6 CPUs over tas-cq-a's 4 borrow from
// tas-cq-b; no host holds 6, so the preferred request spreads: y1 5, x1 1.
TEST(TasKueueCohorts, WorkloadWhichRequiresBorrowingGetsScheduled) {
  CycleCase c = cohort_case();
  c.workloads = {workload("a1", 0, 0, 6, {{"cpu", 1000}})};
  expect_on(run(c), "a1", on_hosts({{"x1", 1}, {"y1", 5}}));
}

// "two small workloads considered; both get scheduled on different nodes": b1 (within its
// quota) goes first and takes x1 (both hosts hold it; BestFit's tie by name); a1 borrows and
// needs 5 CPUs, which only y1 has.
TEST(TasKueueCohorts, TwoSmallWorkloadsOnDifferentNodes) {
  CycleCase c = cohort_case();
  c.workloads = {workload("a1", 0, 2, 1, {{"cpu", 5000}}),
                 workload("b1", 1, 1, 1, {{"memory", 5}})};
  ASSERT_EQ(kueue_cycle_order(c), (std::vector<std::size_t>{1, 0}));
  const auto got = run(c);
  expect_on(got, "a1", on_hosts({{"y1", 1}}));
  expect_on(got, "b1", on_hosts({{"x1", 1}}));
}

// "two small workloads considered; both get scheduled on the same node": a1 (higher priority)
// takes x1, the host with the fewest free CPUs that holds it; b1's two pods fit x1's other two.
TEST(TasKueueCohorts, TwoSmallWorkloadsOnTheSameNode) {
  CycleCase c = cohort_case();
  c.workloads = {workload("a1", 0, 2, 1, {{"cpu", 1000}}),
                 workload("b1", 1, 1, 2, {{"cpu", 1000}})};
  const auto got = run(c);
  expect_on(got, "a1", on_hosts({{"x1", 1}}));
  expect_on(got, "b1", on_hosts({{"x1", 2}}));
}

// "two workloads considered; there is enough space only for the first": both borrow; a1
// (higher priority) takes y1 and 5 of the cohort's 8 CPUs, so b1 no longer fits the quota and
// stays pending ("Workload no longer fits after processing another workload").
TEST(TasKueueCohorts, EnoughSpaceOnlyForTheFirst) {
  CycleCase c = cohort_case();
  c.workloads = {workload("a1", 0, 2, 5, {{"cpu", 1000}}),
                 workload("b1", 1, 1, 5, {{"cpu", 1000}})};
  const auto got = run(c);
  expect_on(got, "a1", on_hosts({{"y1", 5}}));
  EXPECT_FALSE(got.at("b1").admitted);
}

CycleWorkload admitted_on(const std::string& name, int queue, std::int32_t priority,
                          std::int32_t count, const TopologyAssignment& where) {
  CycleWorkload w = workload(name, queue, priority, count, {{"cpu", 1000}});
  w.podset.topology = TopologyRequest();
  w.podset.topology->required = kHostnameLabel;
  w.admitted_flavor = "tas-default";
  w.admitted_assignment = where;
  return w;
}

std::vector<std::string> preempted(const std::map<std::string, CycleOutcome>& got) {
  std::vector<std::string> out;
  for (const auto& [name, o] : got) {
    if (o.preempted) {
      out.push_back(name);
    }
  }
  return out;
}

// "reclaim within cohort; single borrowing workload gets preempted": a1 borrows 1 of tas-cq-b's
// CPUs (5 on x1, over x1's 3); b1's 4 CPUs lack 1 of its quota. a1 is reclaimed (the upstream
// message: "insufficient unused quota for cpu in flavor tas-default, 1 more needed. Pending the
// preemption of 1 workload(s)"); b1 then goes where its 4 pods fit one host: y1.
TEST(TasKueueCohorts, ReclaimWithinCohortSingleBorrowingWorkloadGetsPreempted) {
  CycleCase c = cohort_case();
  c.workloads = {admitted_on("a1-admitted", 0, 0, 5, on_hosts({{"x1", 5}})),
                 workload("b1", 1, 0, 4, {{"cpu", 1000}})};
  const auto got = run(c);
  EXPECT_EQ(preempted(got), (std::vector<std::string>{"a1-admitted"}));
  EXPECT_EQ(got.at("b1").refusal, "");  // short of quota: no placement tried before
  expect_on(got, "b1", on_hosts({{"y1", 4}}));
}

// "reclaim within cohort; single workload is preempted out three candidates": tas-cq-a uses the
// cohort's 8 CPUs (a1 5 on x1, a2 2 and a3 1 on y1); b1's 3 CPUs are all short. The candidates
// go lower priority first: a1 alone gives back 5 of the quota and x1's CPUs, so a2 and a3 stay.
// b1's 3 pods then fit x1, the host with the fewest free CPUs that holds them.
TEST(TasKueueCohorts, ReclaimWithinCohortSingleWorkloadIsPreemptedOutOfThreeCandidates) {
  CycleCase c = cohort_case();
  c.workloads = {admitted_on("a1-admitted", 0, 1, 5, on_hosts({{"x1", 5}})),
                 admitted_on("a2-admitted", 0, 2, 2, on_hosts({{"y1", 2}})),
                 admitted_on("a3-admitted", 0, 2, 1, on_hosts({{"y1", 1}})),
                 workload("b1", 1, 3, 3, {{"cpu", 1000}})};
  const auto got = run(c);
  EXPECT_EQ(preempted(got), (std::vector<std::string>{"a1-admitted"}));
  expect_on(got, "b1", on_hosts({{"x1", 3}}));
}

}  // namespace
}  // namespace tidesim::tas
