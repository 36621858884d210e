// Gavel's water filling and its hierarchical form (sim/admission/gavel_water_filling.hpp), each
// case worked by hand below.
#include "tidesim/sim/admission/gavel_water_filling.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/sim/admission/gavel_three_jobs.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"

namespace tidesim::gavel {
namespace {

using testing::expect_allocation;

// Types V and K, one GPU each. Job 0 runs on V only (throughput 1, 0), job 1 on both (1, 1).
// Proportional throughputs: job 0 (1 x 1 + 0 x 1) / 2 = 0.5, job 1 1; levels 2 X0V and
// X1V + X1K. Round 1: max-min reaches c = 1 (job 1 can do no better: its shares sum to at most
// 1); job 0 could rise above 1.0001 with job 1 kept at 1, job 1 cannot: job 1 freezes at 1.
// Round 2: job 0 alone, job 1 kept at 1 (all of K): X0V = 1, level 2; it cannot rise further
// and freezes. Plain max-min fairness stops at level 1, where any X0V in [0.5, 1] is optimal.
AllocationProblem one_sided() {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100", "k80"}, .gpus = {1, 1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0, 0.0}}, {.id = 1, .throughput = {1.0, 1.0}}};
  return p;
}

TEST(GavelWaterFilling, GivesTheCapacityMaxMinLeavesToTheJobThatCanUseIt) {
  for (const lp::Method method : {lp::Method::simplex, lp::Method::interior}) {
    AllocationProblem p = one_sided();
    p.lp_method = method;
    const WaterFilling w = max_min_fairness_water_filling_perf(p);
    expect_allocation(w.x, {{1.0, 0.0}, {0.0, 1.0}});
    EXPECT_EQ(w.iterations, 2);
    ASSERT_EQ(w.levels.size(), 2U);
    EXPECT_NEAR(w.levels[0], 2.0, 1e-6);
    EXPECT_NEAR(w.levels[1], 1.0, 1e-6);
  }
}

TEST(GavelWaterFilling, AgnosticSeesEveryThroughputAsOne) {
  // Throughputs 1 everywhere: both jobs reach 1 (one GPU's worth each, of 2) in round 1 and
  // neither can rise: one round.
  const WaterFilling w = max_min_fairness_water_filling(one_sided());
  EXPECT_EQ(w.iterations, 1);
  for (const auto& row : w.x) {
    EXPECT_NEAR(row[0] + row[1], 1.0, 1e-6);
  }
}

// One type of 2 GPUs, throughput 1: jobs 0 and 1 of entity 0, job 2 of entity 1, both weight 1.
AllocationProblem two_entities(WaterFillingEntities& e, WaterFillingEntities::Rule first) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0}},
            {.id = 1, .throughput = {1.0}},
            {.id = 2, .throughput = {1.0}}};
  e = {.entity_of_job = {0, 0, 1},
       .weight = {1.0, 1.0},
       .rule = {first, WaterFillingEntities::Rule::kFairness}};
  return p;
}

TEST(GavelWaterFilling, EntitiesShareTheirWeightFairly) {
  // Weights 1/2, 1/2 and 1: max c with 2 X0, 2 X1, X2 >= c and X0 + X1 + X2 <= 2 gives c = 1,
  // X = (1/2, 1/2, 1): each entity one GPU. Without entities each job gets 2/3.
  WaterFillingEntities e;
  const AllocationProblem p = two_entities(e, WaterFillingEntities::Rule::kFairness);
  expect_allocation(max_min_fairness_water_filling_perf(p, &e).x, {{0.5}, {0.5}, {1.0}});
  expect_allocation(max_min_fairness_water_filling_perf(p).x, {{2.0 / 3}, {2.0 / 3}, {2.0 / 3}});
}

TEST(GavelWaterFilling, AFifoEntityRunsItsFirstJobFirst) {
  // Entity 0 by FIFO: round 1 weights (1, 0, 1): jobs 0 and 2 take a GPU each (c = 1). Job 1, of
  // weight 0, cannot meet the search's bound below its level 0 (level <= -1e-5), so the search
  // has no answer and jobs 0 and 2 freeze at 1 (Gavel's caught exception). Round 2: job 1 alone,
  // the GPUs kept by jobs 0 and 2: c = 0; it could rise to 0 x 1.0001, so nothing freezes and
  // the loop ends: job 1 waits for job 0.
  WaterFillingEntities e;
  const AllocationProblem p = two_entities(e, WaterFillingEntities::Rule::kFifo);
  const WaterFilling w = max_min_fairness_water_filling_perf(p, &e);
  expect_allocation(w.x, {{1.0}, {0.0}, {1.0}});
  EXPECT_EQ(w.iterations, 2);
}

TEST(GavelWaterFilling, BadEntitiesAndProblemsAreErrors) {
  WaterFillingEntities e;
  AllocationProblem p = two_entities(e, WaterFillingEntities::Rule::kFairness);
  e.entity_of_job = {0, 0};
  EXPECT_THROW(max_min_fairness_water_filling_perf(p, &e), AllocationError);
  e.entity_of_job = {0, 0, 2};
  EXPECT_THROW(max_min_fairness_water_filling_perf(p, &e), AllocationError);
  e.entity_of_job = {0, 0, 1};
  e.weight = {1.0, 0.0};
  EXPECT_THROW(max_min_fairness_water_filling_perf(p, &e), AllocationError);
  p.jobs[0].throughput = {0.0};  // can run nowhere
  EXPECT_THROW(max_min_fairness_water_filling_perf(p), AllocationError);
  EXPECT_TRUE(max_min_fairness_water_filling_perf(
                  AllocationProblem{.jobs = {},
                                    .cluster = {.gpu_types = {"v100"}, .gpus = {1}, .prices = {}},
                                    .colocated = {},
                                    .lp_method = lp::Method::simplex})
                  .x.empty());
}

TEST(GavelWaterFilling, NoJobBelowTheMaxMinLevelAndTheBaseConstraintsHold) {
  // Random problems: round 1 is max-min fairness, so the least level is max_min_fairness_perf's,
  // and later rounds only raise jobs; X meets the base constraints.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> tput(0.0, 5.0);
  for (int trial = 0; trial < 30; ++trial) {
    AllocationProblem p;
    p.cluster = {.gpu_types = {"v100", "p100", "k80"}, .gpus = {2, 3, 1}, .prices = {}};
    const int jobs = 2 + trial % 6;
    for (int j = 0; j < jobs; ++j) {
      p.jobs.push_back({.id = j,
                        .throughput = {tput(rng) + 0.1, tput(rng), tput(rng)},
                        .scale_factor = 1 + (j % 3 == 2 ? 1 : 0)});
    }
    const WaterFilling w = max_min_fairness_water_filling_perf(p);
    const Allocation mm = max_min_fairness_perf(p);
    const std::vector<double> prop = proportional_throughputs(p);
    double mm_least = 1e300;
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      const double level = effective_throughputs(p, mm)[j] * p.jobs[j].scale_factor / prop[j];
      mm_least = std::min(mm_least, level);
    }
    for (std::size_t j = 0; j < p.jobs.size(); ++j) {
      EXPECT_GE(w.levels[j] * p.jobs[j].scale_factor, mm_least * (1 - 1e-5)) << trial;
      double share = 0.0;
      for (const double x : w.x[j]) {
        EXPECT_GE(x, 0.0);
        share += x;
      }
      EXPECT_LE(share, 1.0 + 1e-9);
    }
    for (std::size_t t = 0; t < 3; ++t) {
      double used = 0.0;
      for (std::size_t j = 0; j < p.jobs.size(); ++j) {
        used += w.x[j][t] * p.jobs[j].scale_factor;
      }
      EXPECT_LE(used, p.cluster.gpus[t] + 1e-9) << trial;
    }
  }
}

}  // namespace
}  // namespace tidesim::gavel
