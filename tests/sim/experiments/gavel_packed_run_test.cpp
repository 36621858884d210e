// Space sharing in a run (docs/gavel.md, "Pairs in runs"): max_min_fairness_packed's pairs share
// a GPU for the round, each job at its co-located throughput. One time-sliced V100 (the table's
// `fast` type), two single-GPU jobs arriving at 0 (tests/sim/experiments/data/gavel-packed.yaml);
// the tests' small table gives A 4 steps/s alone, B 2 steps/s alone, and [3, 1.5] together.
//
// The allocation, by hand: with a share p of the pair and x_A, x_B alone (x_A + x_B + p <= 1),
// the normalised throughputs are x_A + 0.75 p (A: (4 x_A + 3 p) / 4) and x_B + 0.75 p; their sum
// x_A + x_B + 1.5 p <= 1 + 0.5 p <= 1.5, so the level is at most 0.75, reached only at p = 1:
// the pair runs all the time (gavel_packed_test.cpp checks the same allocation alone).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim {
namespace {

Scenario packed(const std::string& trace, const std::vector<std::string>& more = {}) {
  const std::string source = std::string(TIDESIM_SOURCE_DIR) + "/tests/";
  std::vector<ScenarioOverride> overrides = {
      parse_override("workload.gavel.trace=" + source + "sim/experiments/data/" + trace),
      parse_override("workload.gavel.throughputs=" + source +
                     "workloads/data/gavel/throughputs_small.json")};
  for (const std::string& o : more) {
    overrides.push_back(parse_override(o));
  }
  return load_scenario_with(source + "sim/experiments/data/gavel-packed.yaml", overrides);
}

// The run of `packed(trace, more)` under its policy number `policy`, seed 0.
test::Observed run_packed(const std::string& trace, std::size_t policy,
                          const std::vector<std::string>& more = {}) {
  const Scenario s = packed(trace, more);
  RunSignals signals;
  test::Observed o;
  metrics::JobMetricsCollector jobs;
  jobs.attach(signals);
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  o.summary = run_policy(s, make_jobs(s, 0), s.policies.at(policy), 0, signals);
  jobs.finish(o.summary.end, o.metrics);
  return o;
}

double end_of(const test::Observed& o, const std::string& job) {
  const auto done = o.of(JobEventKind::kSucceeded, job);
  return done.size() == 1 ? test::seconds(done[0].at) : -1.0;
}

TEST(GavelPackedRun, APairSharesTheGpuAtItsColocatedThroughputs) {
  // A (900 steps) at 3 steps/s and B (450 steps) at 1.5 steps/s, together from 0: both end at
  // 300 s, inside the first round (360 s). Gavel's simulator credits int(3 x 360) = 1,080 and
  // int(1.5 x 360) = 540 steps for the round, capped at the steps left: the same 300 s.
  const test::Observed o = run_packed("packed_pair.trace", 0);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_NEAR(end_of(o, "1"), 300.0, 1e-3);
  EXPECT_NEAR(end_of(o, "2"), 300.0, 1e-3);
}

TEST(GavelPackedRun, WithoutPairsTheJobsTakeTurns) {
  // max_min_fairness_perf: each job alone gets half the GPU (X = 0.5), so the rounds run them one
  // at a time: 900 / 4 = 225 s and 450 / 2 = 225 s, one after the other (a round ends when its
  // job does): the last ends at 450 s, where sharing ended both at 300 s.
  const test::Observed o = run_packed("packed_pair.trace", 1);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_NEAR(std::max(end_of(o, "1"), end_of(o, "2")), 450.0, 1e-3);
  EXPECT_NEAR(std::min(end_of(o, "1"), end_of(o, "2")), 225.0, 1e-3);
}

TEST(GavelPackedRun, AJobWhosePartnerEndedRunsAlone) {
  // B (300 steps) ends at 300 / 1.5 = 200 s; A has done 3 x 200 = 600 of its 1,200 steps and runs
  // the rest alone at 4 steps/s: 150 s more, ending at 350 s. (Gavel's simulator keeps the pair's
  // steps for the whole round, 1,080, and runs the last 120 in the next round: 390 s.)
  const test::Observed o = run_packed("packed_uneven.trace", 0);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_NEAR(end_of(o, "2"), 200.0, 1e-3);
  EXPECT_NEAR(end_of(o, "1"), 350.0, 1e-3);
}

// The other packing variants on the same two jobs, each by hand: the pair runs all the time.
// finish_time_fairness_packed: alone each job gets half the GPU (A 2 steps/s, B 1: 450 s
// isolated each); rho_A = 900 / (450 thr_A), rho_B = 450 / (450 thr_B), so it maximises the least
// of thr_A / 2 = 2 x_A + 1.5 p and thr_B = 2 x_B + 1.5 p: p = 1. min_total_duration_packed: A
// needs 900 / T steps/s, B 450 / T; alone x_A = x_B = 225 / T fill the GPU at T = 450 s, the pair
// (3 p >= 900 / T, 1.5 p >= 450 / T) at T = 300 s: p = 1. Water filling: max-min's level 0.75,
// both jobs bottlenecks at once. max_sum_throughput (by cost, no SLO): 4 x_A + 2 x_B + 4.5 p is
// largest at p = 1. fifo_packed at a threshold of 1.4: the pair's normalised throughput 3 / 4 +
// 1.5 / 2 = 1.5 exceeds it.
TEST(GavelPackedRun, EveryPackingVariantRunsThePair) {
  for (const std::size_t policy : {3U, 4U, 5U, 6U, 7U}) {
    const test::Observed o = run_packed("packed_pair.trace", policy);
    EXPECT_EQ(o.summary.succeeded, 2) << policy;
    EXPECT_NEAR(end_of(o, "1"), 300.0, 1e-3) << policy;
    EXPECT_NEAR(end_of(o, "2"), 300.0, 1e-3) << policy;
  }
}

TEST(GavelPackedRun, FifoPackedDoesNotPackAtItsThreshold) {
  // fifo_packed at Gavel's threshold 1.5: the pair's 1.5 does not exceed it, so A (the first by
  // id) runs alone, 900 / 4 = 225 s, then B, 450 / 2 = 225 s more.
  const test::Observed o = run_packed("packed_pair.trace", 2);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_NEAR(end_of(o, "1"), 225.0, 1e-3);
  EXPECT_NEAR(end_of(o, "2"), 450.0, 1e-3);
}

TEST(GavelPackedRun, SloViolationsCountTheJobsPastTheirDeadline) {
  // The same pair from a trace of Gavel's physical layout with SLOs: A's 2 x 225 s (its 900 steps
  // alone at 4 steps/s) = 450 s, B's 1.2 x 225 s = 270 s. Both end at 300 s: A within its
  // deadline, B past it.
  const test::Observed o = run_packed("packed_pair_slos.trace", 0);
  EXPECT_NEAR(end_of(o, "2"), 300.0, 1e-3);
  EXPECT_EQ(o.metrics.at("slo_jobs"), 2.0);
  EXPECT_EQ(o.metrics.at("slo_violations"), 1.0);
  EXPECT_EQ(o.metrics.at("slo_violation_share"), 0.5);
}

TEST(GavelPackedRun, APairOnAK80HoldsNoMemory) {
  // The same pair on a K80 (12 GiB a card): its jobs' catalogue model (the pod template's) would
  // hold about 7 GB each and OOM-kill the pair, but the table gives no memory and measured the pair
  // on its type, so they hold none (MeasuredSpeed::holds_memory) and run as on the V100.
  const test::Observed o =
      run_packed("packed_pair.trace", 0,
                 {"cluster.node_groups[0].gpu=K80", "workload.gavel.gpu_types={K80: fast}",
                  "workload.gavel.reference_gpu=K80", "policies[0].admission.args.gpu_order=K80"});
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_TRUE(o.of(JobEventKind::kOomKilled, "1").empty());
  EXPECT_NEAR(end_of(o, "1"), 300.0, 1e-3);
  EXPECT_NEAR(end_of(o, "2"), 300.0, 1e-3);
}

}  // namespace
}  // namespace tidesim
