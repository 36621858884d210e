// The descheduler: its planners on numbers worked out by hand (LowNodeUtilization,
// HighNodeUtilization, LSCS, the eviction limits), a run with a hot spot (migrations, the
// migration rate, the GPU time they lose, the LSCS falling), and the section's checks.
#include "tidesim/sim/model/descheduler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "tests/common/errors.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/metrics/interruptions.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/metrics/lscs.hpp"
#include "tidesim/workloads/memory.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

NodeUsage gpu_node(double capacity, double used, bool schedulable = true) {
  NodeUsage n;
  n.capacity["gpu"] = capacity;
  n.usage["gpu"] = used;
  n.schedulable = schedulable;
  return n;
}

EvictionCandidate candidate(int job, int node, double gpus, int order, int priority = 0) {
  EvictionCandidate c;
  c.job = job;
  c.node = node;
  c.usage["gpu"] = gpus;
  c.order = order;
  c.priority = priority;
  return c;
}

// Four nodes of 8 GPUs with 8, 6, 1 and 0 requested; thresholds 25% (2 GPUs), targets 50%
// (4 GPUs). Underutilized: nodes 2 (1/8) and 3 (0/8); overutilized: 0 (8/8) and 1 (6/8).
// Room under the targets: (4 - 1) + (4 - 0) = 7 GPUs. Node 0 first (100% > 75%): evict job 10
// (2 GPUs: node 6/8, room 5), job 11 (2: node 4/8, room 3), then node 0 is at its target: stop.
// Node 1: job 20 (2: node 4/8, room 1): at its target: stop. Job 21 stays.
TEST(Descheduler, LowNodeUtilizationByHand) {
  const std::vector<NodeUsage> nodes{gpu_node(8, 8), gpu_node(8, 6), gpu_node(8, 1),
                                     gpu_node(8, 0)};
  const std::vector<EvictionCandidate> cands{candidate(10, 0, 2, 0), candidate(11, 0, 2, 1),
                                             candidate(12, 0, 4, 2), candidate(20, 1, 2, 0),
                                             candidate(21, 1, 4, 1)};
  const Thresholds low{{"gpu", 0.25}};
  const Thresholds high{{"gpu", 0.50}};
  {
    EvictionBudget budget(0, 0);
    EXPECT_EQ(plan_low_node(nodes, cands, low, high, 0, false, budget),
              (std::vector<int>{10, 11, 20}));
    EXPECT_EQ(budget.total(), 3);
  }
  {  // one pod per node: 10 from node 0, 20 from node 1
    EvictionBudget budget(1, 0);
    EXPECT_EQ(plan_low_node(nodes, cands, low, high, 0, false, budget), (std::vector<int>{10, 20}));
  }
  {  // two pods in all
    EvictionBudget budget(0, 2);
    EXPECT_EQ(plan_low_node(nodes, cands, low, high, 0, false, budget), (std::vector<int>{10, 11}));
  }
  {  // a lower priority goes first: 12 (4 GPUs: node 4/8) is enough for node 0
    std::vector<EvictionCandidate> prio = cands;
    prio[2].priority = -1;
    EvictionBudget budget(0, 0);
    EXPECT_EQ(plan_low_node(nodes, prio, low, high, 0, false, budget), (std::vector<int>{12, 20}));
  }
  {  // numberOfNodes 2: two underutilized nodes are not more than 2
    EvictionBudget budget(0, 0);
    EXPECT_TRUE(plan_low_node(nodes, cands, low, high, 2, false, budget).empty());
  }
  {  // a cordoned node is no destination: node 2 alone has room 3; 10 and 11 take it all
    std::vector<NodeUsage> cordoned = nodes;
    cordoned[3].schedulable = false;
    EvictionBudget budget(0, 0);
    EXPECT_EQ(plan_low_node(cordoned, cands, low, high, 0, false, budget),
              (std::vector<int>{10, 11}));
  }
}

// Nodes of 8 GPUs with 1, 0, 6 and 8 requested; threshold 25%: nodes 0 and 1 are
// underutilized (drained, emptiest first: node 1 has no pod, then node 0), the others have
// (8 - 6) + (8 - 8) = 2 GPUs of room: job 1 (1 GPU) leaves node 0, room 1; job 2 (1 GPU) too,
// room 0.
TEST(Descheduler, HighNodeUtilizationByHand) {
  const std::vector<NodeUsage> nodes{gpu_node(8, 2), gpu_node(8, 0), gpu_node(8, 6),
                                     gpu_node(8, 8)};
  const std::vector<EvictionCandidate> cands{candidate(1, 0, 1, 0), candidate(2, 0, 1, 1),
                                             candidate(3, 2, 6, 0)};
  EvictionBudget budget(0, 0);
  EXPECT_EQ(plan_high_node(nodes, cands, {{"gpu", 0.25}}, 0, budget), (std::vector<int>{1, 2}));
  // No room on the others (node 2 full too): nothing moves.
  std::vector<NodeUsage> full = nodes;
  full[2].usage["gpu"] = 8;
  EvictionBudget none(0, 0);
  EXPECT_TRUE(plan_high_node(full, cands, {{"gpu", 0.25}}, 0, none).empty());
}

// Three nodes of 4 cards at GPU-memory shares 0.8, 0.2 and 0 (sums 3.2, 0.8, 0 cards). Mean
// 1/3; std-dev sqrt(((0.8 - 1/3)^2 + (0.2 - 1/3)^2 + (1/3)^2) / 3) = sqrt(0.34667 / 3) =
// 0.33993 > 0.15. Hottest node 0, coolest node 2. On node 0: A (0.8 card = share 0.2), B (1.6 =
// 0.4), C (0.8). Moving A leaves 0.6, 0.2, 0.2: std-dev sqrt(0.10667 / 3) = 0.18856; moving B
// leaves 0.4, 0.2, 0.4: sqrt(0.02667 / 3) = 0.09428, the lowest, and under 0.15: stop.
TEST(Descheduler, LscsReliefByHand) {
  auto node = [](double used) {
    NodeUsage n;
    n.capacity["gpu_memory"] = 4;
    n.usage["gpu_memory"] = used;
    return n;
  };
  const std::vector<NodeUsage> nodes{node(3.2), node(0.8), node(0.0)};
  EXPECT_NEAR(*gpu_memory_stddev(nodes), 0.33993, 1e-5);
  auto c = [](int job, double used, int order) {
    EvictionCandidate e;
    e.job = job;
    e.node = 0;
    e.usage["gpu_memory"] = used;
    e.order = order;
    return e;
  };
  const std::vector<EvictionCandidate> cands{c(1, 0.8, 0), c(2, 1.6, 1), c(3, 0.8, 2)};
  EvictionBudget budget(0, 0);
  EXPECT_EQ(plan_lscs(nodes, cands, 0.15, budget), (std::vector<int>{2}));
  // Limit 0.05: after B, 0.4, 0.2, 0.4 (0.094) is still over; hottest node 0 (ties: lower
  // index), coolest node 1: moving A (0.2) leaves 0.2, 0.4, 0.4, the same 0.094, not lower;
  // C likewise: stop.
  EvictionBudget more(0, 0);
  EXPECT_EQ(plan_lscs(nodes, cands, 0.05, more), (std::vector<int>{2}));
}

double secs(TimePoint t) {
  return to_seconds(t - TimePoint{});
}

// hot_spot.yaml: gpu-02 is drained 0-5 min, so default-k8s binds the four one-GPU jobs on
// gpu-01's four cards (started at s < 1 s). Descheduling cycles at 2 and 4 min find gpu-02
// cordoned (no destination); at 6 min gpu-01 requests 4/4 GPUs (> 50%) and gpu-02 0/4 (<= 25%),
// room 0.5 x 4 - 0 = 2: the first two jobs bound on gpu-01 are migrated (4/4 -> 3/4 -> 2/4, at
// the target). Each ran 360 s - s since its start and has no checkpoint yet (the first is at
// 10 min): it loses (360 - s) GPU-seconds. Its new pod binds on gpu-02 (LeastAllocated) and its
// work resumes restore_time = 60 s after the bind (pod_startup 0): 60 GPU-seconds each. Then
// both nodes hold 2 of 4 GPUs: nothing more moves. Migration rate = 2 evictions / 4 jobs = 0.5.
// The LSCS: until 6 min gpu-01's cards hold m each (m = one job's memory share of an A10) and
// gpu-02's nothing: node utilisations m and 0, std-dev m / 2; from the migrated jobs' restart
// on, both nodes hold two jobs: m / 2 and m / 2, std-dev 0.
TEST(Descheduler, HotSpotMigratesAndLscsFalls) {
  const Scenario s = load_scenario("tests/sim/data/hot_spot.yaml");
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  std::vector<JobEvent> events;
  signals.job.connect([&](const JobEvent& e) { events.push_back(e); });
  metrics::InterruptionsCollector interruptions;
  metrics::JobMetricsCollector jobs;
  metrics::LscsCollector lscs;
  interruptions.attach(signals);
  jobs.attach(signals);
  lscs.attach(signals);
  const RunSummary summary = run_policy(s, w, s.policies[0], 1, signals);
  EXPECT_EQ(summary.succeeded, 4);
  EXPECT_EQ(summary.unfinished, 0);

  std::map<std::string, double> started;  // first start
  std::map<std::string, TimePoint> last_bound;
  std::set<std::string> migrated;
  double lost = 0.0;
  double restart = 0.0;
  for (const auto& e : events) {
    if (e.kind == JobEventKind::kStarted) {
      if (!started.contains(e.job)) {
        started[e.job] = secs(e.at);
      } else {
        EXPECT_TRUE(migrated.contains(e.job));
        EXPECT_EQ(e.at - last_bound.at(e.job), 60s) << e.job;  // the restore
        restart += to_seconds(e.at - last_bound.at(e.job));
      }
    } else if (e.kind == JobEventKind::kBound) {
      last_bound[e.job] = e.at;
      if (migrated.contains(e.job)) {
        EXPECT_EQ(e.node, "gpu-02");
      } else {
        EXPECT_EQ(e.node, "gpu-01");
      }
    } else if (e.kind == JobEventKind::kEvicted) {
      EXPECT_EQ(e.cause, "migration");
      EXPECT_EQ(e.at, TimePoint(6min));
      EXPECT_EQ(e.node, "gpu-01");
      EXPECT_LT(started.at(e.job), 1.0);
      EXPECT_NEAR(e.lost_gpu_seconds, 360.0 - started.at(e.job), 1e-6);
      lost += e.lost_gpu_seconds;
      migrated.insert(e.job);
    }
  }
  ASSERT_EQ(migrated.size(), 2u);
  const TimePoint end = events.back().at;
  metrics::MetricValues out;
  interruptions.finish(end, out);
  jobs.finish(end, out);
  lscs.finish(end, out);
  EXPECT_EQ(out.at("interruptions_migration"), 2.0);
  EXPECT_NEAR(out.at("migration_gpu_hours_lost"), lost / 3600.0, 1e-9);
  EXPECT_NEAR(lost, 720.0, 2.0);  // (360 - s) x 2, s < 1 s
  EXPECT_NEAR(out.at("migration_restart_gpu_hours"), 120.0 / 3600.0, 1e-9);
  EXPECT_DOUBLE_EQ(restart, 120.0);
  EXPECT_GT(out.at("migration_goodput_loss"), 0.0);
  EXPECT_DOUBLE_EQ(out.at("migration_rate"), 0.5);

  // The LSCS (m: one job's memory share of an A10 card, resnet50 batch 64, amp: the default
  // precision): m / 2 over the hot spot (the window of the 5:50 sample, (0:50, 5:50], holds
  // samples after every job's ramp-up), 0 once both nodes hold two jobs in their steady state
  // (the window of the 30:00 sample).
  std::optional<double> before;
  std::optional<double> after;
  for (const auto& [t, v] : lscs.series()) {
    if (t == TimePoint(350s)) {
      before = v;
    }
    if (t == TimePoint(30min)) {
      after = v;
    }
  }
  ASSERT_TRUE(before && after);
  const auto profile = w.catalogue.profile("resnet50", 64, "amp", "A10");
  FluidSolver fluid;
  const Cluster cluster(s, fluid);
  const double m = static_cast<double>(workloads::memory_at(profile, 300s)) /
                   static_cast<double>(cluster.node(0).card_memory);
  EXPECT_NEAR(*before, m / 2.0, 1e-9);
  EXPECT_NEAR(*after, 0.0, 1e-9);
  EXPECT_LT(*after, *before);
}

TEST(Descheduler, SectionIsChecked) {
  EXPECT_FALSE(parse_descheduler(ConfigNode(), "s.yaml").enabled);  // absent
  const auto on = parse_descheduler(
      load_yaml_string("{strategies: [{name: LSCS}, {name: LowNodeLoad, low_thresholds: "
                       "{gpu_memory: 20%}, high_thresholds: {gpu_memory: 70%}}]}",
                       "s.yaml"),
      "s.yaml");
  EXPECT_TRUE(on.enabled);
  EXPECT_EQ(on.interval, 2min);
  EXPECT_EQ(on.restore_time, 60s);
  ASSERT_EQ(on.strategies.size(), 2u);
  EXPECT_DOUBLE_EQ(on.strategies[0].limit, 0.15);
  EXPECT_EQ(on.strategies[0].window, 5min);
  EXPECT_EQ(on.strategies[0].sustained, 10min);
  EXPECT_TRUE(on.reads_metrics());
  auto error = [](const std::string& text) {
    return test::message_of([&] { parse_descheduler(load_yaml_string(text, "s.yaml"), "s.yaml"); });
  };
  // Each names the file, the line and the field.
  EXPECT_NE(error("{strategies: []}").find("s.yaml:1:"), std::string::npos);
  EXPECT_NE(error("{strategies: []}").find("descheduler.strategies"), std::string::npos);
  EXPECT_NE(error("{interval: 0s, strategies: [{name: LSCS}]}").find("descheduler.interval"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: Spread}]}").find("descheduler.strategies[0].name"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: LowNodeUtilization, thresholds: {gpu: 60%},\n"
                  "  target_thresholds: {gpu: 50%}}]}")
                .find("s.yaml:2:"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: LowNodeUtilization, thresholds: {gpu: 60%}, "
                  "target_thresholds: {gpu: 50%}}]}")
                .find("descheduler.strategies[0].target_thresholds.gpu"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: LowNodeUtilization, thresholds: {gpu: 20%}, "
                  "target_thresholds: {cpu: 50%}}]}")
                .find("descheduler.strategies[0].target_thresholds"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: LowNodeLoad, low_thresholds: {gpu: 20%}, "
                  "high_thresholds: {gpu: 50%}}]}")
                .find("descheduler.strategies[0].low_thresholds.gpu"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: HighNodeUtilization, thresholds: {gpu: 120%}}]}")
                .find("descheduler.strategies[0].thresholds.gpu"),
            std::string::npos);
  EXPECT_NE(
      error("{strategies: [{name: LSCS}, {name: LSCS}]}").find("descheduler.strategies[1].name"),
      std::string::npos);
  EXPECT_NE(error("{max_pods_per_node: -1, strategies: [{name: LSCS}]}")
                .find("descheduler.max_pods_per_node"),
            std::string::npos);
  EXPECT_NE(error("{strategies: [{name: LSCS, limit: 0}]}").find("descheduler.strategies[0].limit"),
            std::string::npos);
}

}  // namespace
}  // namespace tidesim
