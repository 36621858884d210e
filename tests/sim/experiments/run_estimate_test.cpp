// The resource estimate of a run (docs/robustness.md, "Resource guards"), derived by hand from
// the scenario and the documented per-item costs.
#include "tidesim/sim/experiments/run_estimate.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

// tests/tools/data/solo.yaml: one node of 4 A10s, one 1-pod job with the default checkpoint
// interval (30 min) and the default horizon and sample interval (30 d, 10 s).
//   samples     = 30 d / 10 s = 259,200
//   checkpoints = 1 job x 30 d / 30 min = 1,440
//   events      = 1 submission + 4 x 1 pod + 259,200 x (1 + 1 node) + 1,440 = 519,845
//   memory      = 1 seed x 1 job x 2,500 + 1 run x 1 job x 14,500 = 17,000 bytes; with series,
//                 + 1 policy x 259,200 x (1 node x 600 + 4 cards x 120) = 279,936,000 more.
TEST(RunEstimate, OneJobOnOneNodeByHand) {
  const Scenario s = load_scenario("tests/tools/data/solo.yaml");
  RunPlan plan;
  const RunEstimate e = estimate_run(s, plan);
  EXPECT_EQ(e.jobs, 1);
  EXPECT_EQ(e.pods, 1);
  EXPECT_EQ(e.nodes, 1);
  EXPECT_EQ(e.cards, 4);
  EXPECT_EQ(e.samples, 259'200);
  EXPECT_EQ(e.checkpoints, 1'440);
  EXPECT_EQ(e.telemetry, 0);
  EXPECT_EQ(e.events, 519'845);
  EXPECT_EQ(e.memory_bytes, 17'000);
  plan.series = true;
  EXPECT_EQ(estimate_run(s, plan).memory_bytes, 17'000 + 279'936'000);
  // Telemetry (a load-aware policy): 1 node x 30 d / 10 s agent samples + 30 d / 15 s scrapes
  // = 259,200 + 172,800.
  plan.telemetry = true;
  EXPECT_EQ(estimate_run(s, plan).telemetry, 432'000);
}

TEST(RunEstimate, OverTheBudgetSaysWhatAndByHowMuch) {
  RunEstimate e;
  e.jobs = 10;
  e.pods = 20;
  e.samples = 100;
  e.nodes = 3;
  e.checkpoints = 7;
  e.events = 2'000;
  e.memory_bytes = std::int64_t{3} << 30;
  RunBudget b;
  EXPECT_EQ(budget_problem(e, b), "");
  b.events = 1'000;
  b.memory_bytes = std::int64_t{1} << 30;
  EXPECT_EQ(budget_problem(e, b),
            "the run is estimated at 2,000 events per run (10 jobs, 20 pods, 100 samples x 3 "
            "nodes, 7 checkpoints, 0 telemetry events), over the budget of 1,000 (--max-events); "
            "and 3.0 GiB of memory, over the budget of 1.0 GiB (--max-memory); --force runs it "
            "anyway");
}

}  // namespace
}  // namespace tidesim
