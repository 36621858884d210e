// Gangs on a fabric (tests/sim/data/fabric_two_gangs.yaml): rings across an oversubscribed leaf
// up-link share it max-min, rings inside their own leaves do not meet, and a gang's step time is
// the hand-worked one. Each node reaches the fabric at 400 GB/s; a leaf's up-link is 50 GB/s.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/collector_options.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/placement_speed.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim {
namespace {

using test::Observed;
using test::run;
using test::run_seconds;

constexpr double kLeafUplink = 50e9;  // 2 nodes x 400 GB/s / 16
constexpr double kNodeNics = 400e9;   // 8 NICs x 50 GB/s, efficiency 1

// The step of one gang of 16 GPUs whose ring bursts at `burst` bytes/s and averages at most
// `average` bytes/s (workloads::step_time, the formula of docs/model-workloads.md).
double expected_step(double burst, double average) {
  const auto profile = workloads::profile_for("gpt2-1.5b", 1, "fp32", "H100-SXM");
  workloads::StepConditions c;
  c.gpus = 16;
  c.input_bandwidth = 7e9;  // the node's NVMe, alone
  c.allreduce_bandwidth = burst;
  c.allreduce_average_bandwidth = average;
  return workloads::step_time(profile, c).seconds;
}

// The scenario's two gangs: "a" on the nodes selected by `a`, "b" on those selected by `b`.
Workload two_gangs(const Scenario& s, std::map<std::string, std::string> a,
                   std::map<std::string, std::string> b) {
  Workload w = make_jobs(s, 1);
  w.jobs[0].name = "a";
  w.jobs[0].pod_template.node_selector = std::move(a);
  w.jobs[1].name = "b";
  w.jobs[1].pod_template.node_selector = std::move(b);
  return w;
}

TEST(FabricRun, TheFabricsDomainsAreNodeLabels) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  FluidSolver fluid;
  const Cluster cluster(s, fluid);
  const std::vector<std::string> leaves = {"leaf-0000", "leaf-0000", "leaf-0001", "leaf-0001"};
  for (std::size_t n = 0; n < leaves.size(); ++n) {
    EXPECT_EQ(cluster.view().nodes[n].node.labels.at("network.topology.nvidia.com/leaf"),
              leaves[n]);
    EXPECT_DOUBLE_EQ(fluid.capacity(cluster.node(static_cast<int>(n)).uplink), kNodeNics);
  }
  ASSERT_NE(cluster.fabric(), nullptr);
  EXPECT_DOUBLE_EQ(fluid.capacity(cluster.fabric()->uplink(0, 0)), kLeafUplink);
}

TEST(FabricRun, AGangAcrossAnOversubscribedLeafRunsAtTheLeafsUplink) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  Workload w = two_gangs(s, {{"pair", "a"}}, {});
  w.jobs.resize(1);
  const Observed o = run(s, w);
  EXPECT_NEAR(run_seconds(o, "a"), 1000 * expected_step(kLeafUplink, kLeafUplink),
              1e-3 * run_seconds(o, "a"));
}

TEST(FabricRun, TwoGangsAcrossOneOversubscribedLeafShareItsUplink) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  // Premise: a ring alone would move more than half the up-link on average, so that the two
  // rings' max-min share (25 GB/s each) decides their steps.
  const double alone = expected_step(kLeafUplink, kLeafUplink);
  const double shared = expected_step(kLeafUplink, kLeafUplink / 2);
  ASSERT_GT(shared, alone * 1.05);
  const Observed o = run(s, two_gangs(s, {{"pair", "a"}}, {{"pair", "b"}}));
  for (const std::string job : {"a", "b"}) {
    // Each runs alone for a cycle or two (10 ms) at one end: within 0.1%.
    EXPECT_NEAR(run_seconds(o, job), 1000 * shared, 1e-3 * 1000 * shared) << job;
  }
}

TEST(FabricRun, TwoGangsInsideTheirOwnLeavesDoNotMeet) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  const std::string leaf = "network.topology.nvidia.com/leaf";
  const Observed o = run(s, two_gangs(s, {{leaf, "leaf-0000"}}, {{leaf, "leaf-0001"}}));
  // Each ring crosses only its two nodes' NICs: 400 GB/s alone, and nothing shared.
  const double step = expected_step(kNodeNics, kNodeNics);
  for (const std::string job : {"a", "b"}) {
    EXPECT_NEAR(run_seconds(o, job), 1000 * step, 1e-6 * 1000 * step) << job;
  }
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

// Runs `w` on `s` under default-k8s with `collector` attached; its metrics and the run's end.
std::pair<metrics::MetricValues, TimePoint> measured(const Scenario& s, const Workload& w,
                                                     metrics::Collector& collector) {
  RunSignals signals;
  collector.attach(signals);
  const RunSummary summary =
      run_policy(s, w, make_policy("default-k8s", "default-k8s"), 1, signals);
  metrics::MetricValues m;
  collector.finish(summary.end, m);
  return {m, summary.end};
}

// The two gangs across one oversubscribed leaf, measured by the placement metrics: each ran all
// its time contended, at the step of its max-min share, against its reference placement (both
// pods in one leaf: the nodes' NICs, 400 GB/s).
TEST(FabricRun, PlacementMetricsOfTwoGangsSharingAnUplink) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  metrics::PlacementSpeedCollector collector;
  const auto [m, end] = measured(s, two_gangs(s, {{"pair", "a"}}, {{"pair", "b"}}), collector);
  const double slowdown =
      expected_step(kLeafUplink, kLeafUplink / 2) / expected_step(kNodeNics, kNodeNics);
  EXPECT_NEAR(m.at("step_slowdown_mean"), slowdown, 1e-3 * slowdown);
  EXPECT_NEAR(m.at("fabric_contended_share"), 1.0, 1e-3);
  EXPECT_GT(m.at("comm_share_mean"), 0.5);
  EXPECT_EQ(m.count("llm_mfu_mean"), 0u);
  EXPECT_EQ(m.at("fabric_slowed_jobs"), 2.0);
  EXPECT_NEAR(m.at("fabric_slowed_step_slowdown_mean"), slowdown, 1e-3 * slowdown);
  // Per job: the same figures, and all its running time contended.
  const auto jobs = collector.job_figures(end);
  for (const std::string job : {"a", "b"}) {
    const metrics::JobPlacementSpeed& j = jobs.at(job);
    EXPECT_NEAR(*j.step_slowdown, slowdown, 1e-3 * slowdown) << job;
    EXPECT_GT(*j.comm_share, 0.5) << job;
    EXPECT_FALSE(j.mfu) << job;
    EXPECT_NEAR(*j.contended_s, 1000 * expected_step(kLeafUplink, kLeafUplink / 2), 1.0) << job;
  }
}

// Inside their own leaves the two gangs meet nowhere: no contended time, no slowed job.
TEST(FabricRun, PlacementMetricsOfTwoGangsInTheirOwnLeaves) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  const std::string leaf = "network.topology.nvidia.com/leaf";
  metrics::PlacementSpeedCollector collector;
  const auto [m, end] =
      measured(s, two_gangs(s, {{leaf, "leaf-0000"}}, {{leaf, "leaf-0001"}}), collector);
  EXPECT_NEAR(m.at("step_slowdown_mean"), 1.0, 1e-9);
  EXPECT_EQ(m.at("fabric_contended_share"), 0.0);
  EXPECT_EQ(m.at("fabric_slowed_jobs"), 0.0);
  EXPECT_EQ(m.count("fabric_slowed_step_slowdown_mean"), 0u);
}

// What the two gangs put on the leaves' up-links. Across both leaves each ring spans 2 leaves (1
// would do: excess) and crosses both up-links at its max-min share, 50/2 GB/s: together 2 x 2 x
// 25 = 100 GB/s on the tier's 2 x 50 GB/s, the whole run (both start at 0 and end together).
// Inside their own leaves nothing crosses an up-link.
TEST(FabricRun, WhatTwoGangsPutOnTheLeafUplinks) {
  const Scenario s = load_scenario("tests/sim/data/fabric_two_gangs.yaml");
  EXPECT_DOUBLE_EQ(collector_options(s).fabric_traffic.tier_capacity.at(0), 2 * kLeafUplink);
  metrics::FabricTrafficCollector across_collector(collector_options(s).fabric_traffic);
  const auto [across, end] =
      measured(s, two_gangs(s, {{"pair", "a"}}, {{"pair", "b"}}), across_collector);
  const double seconds = to_seconds(end.time_since_epoch());
  EXPECT_EQ(across.at("gang_span_tier0_mean"), 2.0);
  EXPECT_EQ(across.at("gang_span_excess_share"), 1.0);
  EXPECT_NEAR(across.at("fabric_tier0_utilization"), 1.0, 1e-3);
  EXPECT_NEAR(across.at("fabric_tier0_bytes"), 2 * kLeafUplink * seconds,
              1e-3 * kLeafUplink * seconds);
  const std::string leaf = "network.topology.nvidia.com/leaf";
  metrics::FabricTrafficCollector inside_collector(collector_options(s).fabric_traffic);
  const auto [inside, end2] =
      measured(s, two_gangs(s, {{leaf, "leaf-0000"}}, {{leaf, "leaf-0001"}}), inside_collector);
  EXPECT_EQ(inside.at("gang_span_tier0_mean"), 1.0);
  EXPECT_EQ(inside.at("gang_span_excess_share"), 0.0);
  EXPECT_EQ(inside.at("fabric_tier0_bytes"), 0.0);
  EXPECT_EQ(inside.at("fabric_tier0_utilization"), 0.0);
  EXPECT_EQ(inside.count("fabric_tier1_bytes"), 0u);  // the fabric has one tier
}

}  // namespace
}  // namespace tidesim
