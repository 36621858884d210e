// Gavel's linear-programming policies solved as an interior point (AllocationProblem::lp_method =
// interior; docs/gavel.md, "Solving them"): each program in one stage, as Gavel's
// scheduler/policies/*.py (stanford-futuredata/gavel @c4fa400) writes it and cvxpy's ECOS solves
// it, by CLP's barrier without crossover. Where the optimum is unique the answer is the simplex's
// (the cases of gavel_allocation_test.cpp); where it is a face, its centre by symmetry.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/sim/admission/gavel_three_jobs.hpp"
#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/admission/gavel_conic_centre.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"

namespace tidesim::gavel {
namespace {

constexpr double kTol = 1e-6;

using testing::expect_allocation;

// gavel_allocation_test.cpp's case (gavel_three_jobs.hpp), each program solved as an interior
// point.
AllocationProblem three_jobs() {
  AllocationProblem p = testing::three_jobs();
  p.lp_method = lp::Method::interior;
  return p;
}

// Unique optima (gavel_allocation_test.cpp derives them with the dual): max_min_fairness_perf's
// X = [[0.5, 0], [0.5, 0.2], [0, 0.8]], max_sum_throughput_perf's A to job 0 and B to job 2, and
// finish-time fairness of fresh jobs, whose program is 1.5 x max-min fairness's (the same X).
TEST(GavelInterior, UniqueOptimaAreTheSimplexs) {
  const AllocationProblem p = three_jobs();
  expect_allocation(max_min_fairness_perf(p), {{0.5, 0.0}, {0.5, 0.2}, {0.0, 0.8}});
  expect_allocation(max_sum_throughput_perf(p).x, {{1.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}});
  AllocationProblem fresh = p;
  for (AllocationJob& j : fresh.jobs) {
    j.steps_remaining = 1000.0;
  }
  FinishTimeFairness ftf;
  expect_allocation(ftf.allocate(fresh), {{0.5, 0.0}, {0.5, 0.2}, {0.0, 0.8}}, 1e-5);
  EXPECT_NEAR(ftf.last_rho(), 5.0 / 6.0, 1e-6);
}

// lp_method: centre (AllocationProblem::conic_centre): finish_time_fairness_perf's point is the
// centre of its optimal face under the barrier of Gavel's conic program (gavel_conic_centre.hpp).
// One type of 2 GPUs; jobs A and B of throughput 1 and 1,000 steps; the isolated X is 1 each. B
// has run 1,000 s, so rho_B = (1,000 + 1,000 / z_B) / 1,000 >= 2, the least rho, with X_B = 1;
// A (fresh) needs rho_A = 1 / X_A <= 2, X_A >= c = 1/2. With X_B at 1, phi's terms in X_A are
// -log X_A (X >= 0), -log(1 - X_A) twice (its row sum and the type's GPUs) and
// -(2 log(X_A - c) - log X_A): the logs of X_A cancel, and 2 / (1 - x) = 2 / (x - c) gives
// X_A = (1 + c) / 2 = 3/4. (CLP's barrier alone stops at 0.537; the face's centre under the
// linear program's own barrier would be (4 + sqrt 6) / 10 = 0.645.)
TEST(GavelInterior, CentreOfGavelsConicBarrier) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  p.jobs = {
      {.id = 0, .throughput = {1.0}, .steps_remaining = 1000.0},
      {.id = 1, .throughput = {1.0}, .time_since_start_s = 1000.0, .steps_remaining = 1000.0}};
  p.lp_method = lp::Method::interior;
  p.conic_centre = true;
  FinishTimeFairness ftf;
  const Allocation x = ftf.allocate(p);
  EXPECT_NEAR(ftf.last_rho(), 2.0, 1e-6);
  EXPECT_NEAR(x[1][0], 1.0, 1e-4);
  EXPECT_NEAR(x[0][0], 0.75, 1e-4);
}

// conic_centre on a face given directly, with GPUs to spare (the types' term is then nearly
// constant, 1e-3 of the others' slopes): with its logs of x cancelling, each job minimises
// -log(1 - x) - 2 log(x - c), so 1 / (1 - x) = 2 / (x - c), x = (2 + c) / 3: 5/6 for c = 1/2 and
// 0.99667 for c = 0.99. From a start outside the face there is no centre.
TEST(GavelInterior, ConicCentreOfAGivenFace) {
  const FtfFace face{
      .throughput = {{1.0}, {1.0}}, .scale_factor = {1, 1}, .bound = {0.5, 0.99}, .gpus = {1000.0}};
  const auto centre = conic_centre(face, {{0.6}, {0.995}});
  ASSERT_TRUE(centre);
  EXPECT_NEAR((*centre)[0][0], 5.0 / 6.0, 1e-3);
  EXPECT_NEAR((*centre)[1][0], (2.0 + 0.99) / 3.0, 1e-4);
  EXPECT_LT(conic_barrier(face, *centre), conic_barrier(face, {{0.6}, {0.995}}));
  EXPECT_FALSE(conic_centre(face, {{0.4}, {0.995}}));
  EXPECT_TRUE(std::isinf(conic_barrier(face, {{0.4}, {0.995}})));
}

// max_min_fairness (every throughput 1): each job's share is 2/3 (2 GPUs, 3 jobs), so both types
// are full, and any split of the shares between the types is optimal. The program is the same
// when the two types (one GPU each) are swapped or the jobs permuted, so the centre of that face
// is X = 1/3 everywhere; the simplex returns a vertex, some job on one type only.
TEST(GavelInterior, MaxMinFairnessSpreadsOverTheFace) {
  expect_allocation(max_min_fairness(three_jobs()),
                    {{1 / 3.0, 1 / 3.0}, {1 / 3.0, 1 / 3.0}, {1 / 3.0, 1 / 3.0}}, 1e-5);
  AllocationProblem simplex = three_jobs();
  simplex.lp_method = lp::Method::simplex;
  const Allocation vertex = max_min_fairness(simplex);
  bool on_one_type = false;
  for (const auto& row : vertex) {
    on_one_type = on_one_type || row[0] < kTol || row[1] < kTol;
  }
  EXPECT_TRUE(on_one_type);
}

// max_sum_throughput_perf with two jobs of 3 steps/s on one GPU (Shockwave's cluster has one
// type): 3 steps/s whichever runs, so the optimal face is x0 + x1 = 1; the simplex gives the GPU
// to one job, the barrier its centre, half to each.
TEST(GavelInterior, MaxSumThroughputSplitsATie) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {3.0}}, {.id = 1, .throughput = {3.0}}};
  p.lp_method = lp::Method::interior;
  expect_allocation(max_sum_throughput_perf(p).x, {{0.5}, {0.5}});
  p.lp_method = lp::Method::simplex;
  const Allocation vertex = max_sum_throughput_perf(p).x;
  EXPECT_NEAR(std::abs(vertex[0][0] - vertex[1][0]), 1.0, kTol);
}

// min_total_duration_perf with 400, 240 and 480 steps left: T* = 200 s and Gavel's search stops
// at T = 206.80 s (gavel_allocation_test.cpp). Gavel's program at T has no objective
// (Maximize(1)); its feasible set has an interior (T > T*), and the barrier's point is in it:
// every job strictly faster than steps / T. The same two jobs swapped give the same shares
// swapped.
TEST(GavelInterior, MinTotalDurationIsInsideTheFeasibleSet) {
  AllocationProblem p = three_jobs();
  p.jobs[0].steps_remaining = 400.0;
  p.jobs[1].steps_remaining = 240.0;
  p.jobs[2].steps_remaining = 480.0;
  const double t = 206.80084228515625;
  const Allocation x = min_total_duration_perf(p);
  const auto tput = effective_throughputs(p, x);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_GT(tput[j] * t / p.jobs[j].steps_remaining, 1.0 + 1e-4) << j;
    EXPECT_LE(x[j][0] + x[j][1], 1.0 + kTol);
  }
  for (std::size_t type = 0; type < 2; ++type) {
    EXPECT_LE(x[0][type] + x[1][type] + x[2][type], 1.0 + kTol);
  }
}

// Two identical jobs on two GPUs of one type, 600 steps each at 1 step/s: T* = 600 s, Gavel's T
// is above it, and the feasible set at T is symmetric in the jobs: each gets the same share,
// strictly between 600 / T and 1.
TEST(GavelInterior, MinTotalDurationTreatsEqualJobsEqually) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0}, .steps_remaining = 600.0},
            {.id = 1, .throughput = {1.0}, .steps_remaining = 600.0}};
  p.lp_method = lp::Method::interior;
  const double t = gavel_search_duration(least_total_duration(p));
  ASSERT_GT(t, 600.0);
  const Allocation x = min_total_duration_perf(p);
  EXPECT_NEAR(x[0][0], x[1][0], 1e-6);
  EXPECT_GT(x[0][0], 600.0 / t + 1e-4);
  EXPECT_LT(x[0][0], 1.0 - 1e-4);
}

// max_sum_throughput_perf on 2 GPUs of one type: jobs A (3 steps/s, 1 GPU), B (4, 2 GPUs), C
// (1, 1) and D (0.5, 1). The optimum gives A its GPU and B half of its two (X = 1, 0.5, 0, 0; the
// capacity's dual 2 = B's throughput per GPU), so C's and D's reduced costs are 2 - 1 = 1 and
// 2 - 0.5 = 1.5.
AllocationProblem four_jobs_on_two_gpus(lp::Method method) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {3.0}},
            {.id = 1, .throughput = {4.0}, .scale_factor = 2},
            {.id = 2, .throughput = {1.0}},
            {.id = 3, .throughput = {0.5}}};
  p.lp_method = method;
  return p;
}

// On the central path (lp_method: central) C's and D's X are not 0 but mu / reduced cost: C's
// crumb 1.5 times D's, both far below any share; the simplex gives both exactly 0.
TEST(GavelInterior, CentralLeavesCrumbsInTheOrderOfTheReducedCosts) {
  const Allocation x = max_sum_throughput_perf(four_jobs_on_two_gpus(lp::Method::central)).x;
  EXPECT_NEAR(x[0][0], 1.0, 1e-5);
  EXPECT_NEAR(x[1][0], 0.5, 1e-5);
  EXPECT_GT(x[3][0], 0.0);
  EXPECT_LT(x[2][0], 1e-5);
  EXPECT_NEAR(x[2][0] / x[3][0], 1.5, 1e-3);
  const Allocation vertex = max_sum_throughput_perf(four_jobs_on_two_gpus(lp::Method::simplex)).x;
  EXPECT_EQ(vertex[2][0], 0.0);
  EXPECT_EQ(vertex[3][0], 0.0);
}

// By ECOS's algorithm (lp_method: ecos, lp_ecos_test.cpp): ECOS 2.0.7 answers (1 - 3e-10, 0.5 +
// 2e-10, 7.107e-11, -5.539e-11), and Gavel clips the last crumb to 0, as here: C keeps a crumb,
// D has none.
TEST(GavelInterior, EcosLeavesTheCrumbsEcosLeaves) {
  const Allocation x = max_sum_throughput_perf(four_jobs_on_two_gpus(lp::Method::ecos)).x;
  EXPECT_NEAR(x[0][0], 1.0, 1e-8);
  EXPECT_NEAR(x[1][0], 0.5, 1e-8);
  EXPECT_NEAR(x[2][0], 7.1e-11, 2e-12);
  EXPECT_EQ(x[3][0], 0.0);
}

// Agnostic max-min fairness on the central path: five jobs alike and one of 2 GPUs on 4 GPUs of
// one type. The five get the same share to the last bit wherever they stand, so the rounds'
// order among them is Gavel's next keys (deficit, then arrival), not rounding.
TEST(GavelInterior, CentralGivesJobsAlikeTheSameBits) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {4}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0}},
            {.id = 1, .throughput = {1.0}},
            {.id = 2, .throughput = {2.0}, .scale_factor = 2},
            {.id = 3, .throughput = {1.0}},
            {.id = 4, .throughput = {1.0}},
            {.id = 5, .throughput = {1.0}}};
  p.lp_method = lp::Method::central;
  const Allocation x = max_min_fairness(p);
  for (const std::size_t j : {1U, 3U, 4U, 5U}) {
    EXPECT_EQ(x[j][0], x[0][0]) << j;
  }
  EXPECT_GT(x[0][0], 0.0);
  EXPECT_LE(5.0 * x[0][0] + 2.0 * x[2][0], 4.0 + 1e-9);
}

// max_min_fairness_packed's unique optima (gavel_packed_test.cpp): two jobs on one GPU, packed
// all the time when sharing gives each 0.8, never when it gives 0.4.
TEST(GavelInterior, PackedUniqueOptima) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0}}, {.id = 1, .throughput = {1.0}}};
  p.lp_method = lp::Method::interior;
  for (const double f : {0.8, 0.4}) {
    p.colocated = [f](std::size_t, std::size_t, std::size_t) -> std::optional<Colocated> {
      return Colocated{f, f};
    };
    const PackedAllocation x = max_min_fairness_packed(p);
    const double pair = x.pairs.empty() ? 0.0 : x.pairs[0].share[0];
    EXPECT_NEAR(pair, f > 0.5 ? 1.0 : 0.0, 1e-5) << f;
    EXPECT_NEAR(x.single[0][0], f > 0.5 ? 0.0 : 0.5, 1e-5) << f;
  }
}

}  // namespace
}  // namespace tidesim::gavel
