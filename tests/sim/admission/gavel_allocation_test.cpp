// Gavel's allocation policies (sim/admission/gavel_*.hpp, docs/gavel.md) on one small case worked
// by hand: three single-GPU jobs, two GPU types with one GPU each.
//
//   type:        A ("v100")  B ("k80")
//   job 0:       4 steps/s   1 steps/s    (4x faster on A)
//   job 1:       2           1            (2x)
//   job 2:       3           3            (indifferent)
//
// Each expected X is derived in the comment of its test from the policy's formulation in Gavel's
// scheduler/policies/*.py (stanford-futuredata/gavel @c4fa400); where the optimum is an LP's, its
// optimality is shown with the dual (the prices p_A, p_B of the GPU types and the weights y_j of
// the jobs' rows), and its uniqueness from complementary slackness.
#include <gtest/gtest.h>

#include "tests/sim/admission/gavel_three_jobs.hpp"
#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/admission/gavel_fifo.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"

namespace tidesim::gavel {
namespace {

constexpr double kTol = 1e-6;

using testing::expect_allocation;
using testing::three_jobs;

// Gavel's base constraints: rows <= 1, sum of scale_factor x X per type <= GPUs.
void expect_feasible(const AllocationProblem& p, const Allocation& x) {
  for (std::size_t t = 0; t < p.cluster.gpus.size(); ++t) {
    double used = 0.0;
    for (std::size_t j = 0; j < x.size(); ++j) {
      EXPECT_GE(x[j][t], 0.0);
      used += x[j][t] * p.jobs[j].scale_factor;
    }
    EXPECT_LE(used, p.cluster.gpus[t] + kTol);
  }
  for (const auto& row : x) {
    EXPECT_LE(row[0] + row[1], 1.0 + kTol);
  }
}

// isolated.py: X = (GPUs / 3 jobs) / scale factor = 1/3 everywhere (rows 2/3 <= 1, kept).
// With 4 A and 2 B GPUs and scale factors 1, 2, 4: raw rows (4/3, 2/3), (2/3, 1/3),
// (1/3, 1/6); the first sums to 2 and is halved, the others are below 1 and kept.
TEST(GavelIsolated, EqualSplit) {
  expect_allocation(isolated(three_jobs()),
                    {{1 / 3.0, 1 / 3.0}, {1 / 3.0, 1 / 3.0}, {1 / 3.0, 1 / 3.0}});
  AllocationProblem p = three_jobs();
  p.cluster.gpus = {4, 2};
  p.jobs[1].scale_factor = 2;
  p.jobs[2].scale_factor = 4;
  expect_allocation(isolated(p), {{2 / 3.0, 1 / 3.0}, {2 / 3.0, 1 / 3.0}, {1 / 3.0, 1 / 6.0}});
}

// max_min_fairness_perf: proportional throughputs (X = 1/2 on each type) 2.5, 1.5, 3; the
// coefficients throughput / proportional are (1.6, 0.4), (4/3, 2/3), (1, 1). With job 0 on A
// only and job 2 on B only, job 1 takes what is left: 1.6 a0 = t, b2 = t, (4/3)(1 - a0) +
// (2/3)(1 - b2) = t gives t = 0.8, a0 = 0.5, b2 = 0.8, job 1 (0.5, 0.2). Dual: y0 = 0.625 p_A,
// y1 = 0.75 p_A, y2 = p_B = 0.5 p_A, sum y = 1 gives p_A = 8/15 and p_A + p_B = 0.8 = t, so it is
// optimal; job 0 on B (0.4 y0 < p_B) and job 2 on A (y2 < p_A) price out, so X is unique. Each
// job gets 0.8 of its proportional throughput: 2.0, 1.2, 2.4 steps/s.
TEST(GavelMaxMinFairness, HeterogeneityAware) {
  const AllocationProblem p = three_jobs();
  const Allocation x = max_min_fairness_perf(p);
  expect_allocation(x, {{0.5, 0.0}, {0.5, 0.2}, {0.0, 0.8}});
  const auto tput = effective_throughputs(p, x);
  EXPECT_NEAR(tput[0], 2.0, kTol);
  EXPECT_NEAR(tput[1], 1.2, kTol);
  EXPECT_NEAR(tput[2], 2.4, kTol);
}

// max_min_fairness: every throughput 1, so each job's time share is its objective: 2 GPUs over
// 3 jobs is 2/3 each (which type is left to the solver). Weights (1, 1, 2) divide the
// objective: s0 = s1 = t, s2 = 2t, 4t <= 2, so shares (1/2, 1/2, 1).
TEST(GavelMaxMinFairness, AgnosticAndWeighted) {
  AllocationProblem p = three_jobs();
  Allocation x = max_min_fairness(p);
  expect_feasible(p, x);
  for (const auto& row : x) {
    EXPECT_NEAR(row[0] + row[1], 2 / 3.0, kTol);
  }
  p.jobs[2].priority_weight = 2.0;
  x = max_min_fairness(p);
  expect_feasible(p, x);
  EXPECT_NEAR(x[0][0] + x[0][1], 0.5, kTol);
  EXPECT_NEAR(x[1][0] + x[1][1], 0.5, kTol);
  EXPECT_NEAR(x[2][0] + x[2][1], 1.0, kTol);
}

// finish_time_fairness_perf, fresh jobs (no time since start, no isolated time yet): rho_j =
// isolated_throughput_j / throughput_j(X), isolated throughputs (X = 1/3) 5/3, 1, 2. Minimising
// the largest rho is maximising the least throughput / isolated throughput, whose coefficients
// (2.4, 0.6), (2, 1), (1.5, 1.5) are 1.5 x max-min fairness's: the same unique X, and rho =
// 1 / (1.5 x 0.8) = 5/6.
TEST(GavelFinishTimeFairness, HeterogeneityAware) {
  AllocationProblem p = three_jobs();
  for (auto& j : p.jobs) {
    j.steps_remaining = 100.0;
  }
  FinishTimeFairness ftf;
  expect_allocation(ftf.allocate(p), {{0.5, 0.0}, {0.5, 0.2}, {0.0, 0.8}});
  EXPECT_NEAR(ftf.last_rho(), 5 / 6.0, 1e-7);
  // Next call: 20, 0 and 50 steps done since; at the isolated throughputs of the last call that
  // is 20 / (5/3) = 12 s, 0 s and 50 / 2 = 25 s of isolated time (finish_time_fairness.py's
  // _cumulative_isolated_time).
  p.jobs[0].steps_remaining = 80.0;
  p.jobs[2].steps_remaining = 50.0;
  for (auto& j : p.jobs) {
    j.time_since_start_s = 30.0;
  }
  const Allocation x = ftf.allocate(p);
  expect_feasible(p, x);
  EXPECT_NEAR(ftf.cumulative_isolated_time(0), 12.0, 1e-9);
  EXPECT_NEAR(ftf.cumulative_isolated_time(1), 0.0, 1e-9);
  EXPECT_NEAR(ftf.cumulative_isolated_time(2), 25.0, 1e-9);
  // Every job's rho at the X returned is at most the least max rho found.
  const auto tput = effective_throughputs(p, x);
  const double iso[] = {5 / 3.0, 1.0, 2.0};
  double worst = 0.0;
  for (std::size_t j = 0; j < 3; ++j) {
    const double isolated_time =
        ftf.cumulative_isolated_time(p.jobs[j].id) + p.jobs[j].steps_remaining / iso[j];
    worst = std::max(worst, (30.0 + p.jobs[j].steps_remaining / tput[j]) / isolated_time);
  }
  EXPECT_NEAR(worst, ftf.last_rho(), 1e-6);
}

// A job whose steps left grow (a Shockwave job back at its initial batch: 4 times the steps at 4
// times the steps per second) after the first call of the test above: its cumulative isolated
// time is (100 - 400) / (5/3) = -180 s and its isolated time -180 + 400 / (4 x 5/3) = -120 s.
// Gavel's program divides by it and is then not convex: cvxpy refuses it (DCPError) and
// finish_time_fairness.py returns the isolated allocation, as here, keeping the cumulative time.
TEST(GavelFinishTimeFairness, ANegativeIsolatedTimeGivesTheIsolatedAllocation) {
  AllocationProblem p = three_jobs();
  for (auto& j : p.jobs) {
    j.steps_remaining = 100.0;
  }
  FinishTimeFairness ftf;
  (void)ftf.allocate(p);
  p.jobs[0].throughput = {16.0, 4.0};
  p.jobs[0].steps_remaining = 400.0;
  for (auto& j : p.jobs) {
    j.time_since_start_s = 30.0;
  }
  expect_allocation(ftf.allocate(p), isolated(p));
  EXPECT_NEAR(ftf.cumulative_isolated_time(0), -180.0, 1e-9);
}

// finish_time_fairness: every job's throughput is its v100 one on both types, so rho_j =
// (2/3) / s_j with s_j its time share: the best is s_j = 2/3 for all, rho = 1.
TEST(GavelFinishTimeFairness, AgnosticUsesTheReferenceType) {
  AllocationProblem p = three_jobs();
  for (auto& j : p.jobs) {
    j.steps_remaining = 100.0;
  }
  FinishTimeFairness ftf(true);
  const Allocation x = ftf.allocate(p);
  expect_feasible(p, x);
  for (const auto& row : x) {
    EXPECT_NEAR(row[0] + row[1], 2 / 3.0, kTol);
  }
  EXPECT_NEAR(ftf.last_rho(), 1.0, 1e-7);
  FinishTimeFairness other(true, "a100");
  EXPECT_THROW((void)other.allocate(p), AllocationError);
}

// finish_time_fairness_perf where the isolated X is already the fairest: two V100s, two jobs, each
// alone on a GPU at isolation. Job 0 (2 steps/s, 100 steps left, 50 s since it started) has
// isolated time 50 s and rho (50 + 50) / 50 = 2 at its full throughput; job 1 (1 step/s, 10
// steps, just started) rho 1. No rho below 2 is feasible (job 0 would need more than its GPU):
// the answer is job 0's whole GPU, and job 1's too by the tie-break (the largest sum of throughput
// / isolated throughput). CLP accepts a row violated within its primal tolerance (1e-7), so the
// bisection ends just below 2 (1.99999990 here), with the same allocation.
TEST(GavelFinishTimeFairness, IsolatedRhoIsTheLeast) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {2.0}, .time_since_start_s = 50.0, .steps_remaining = 100.0},
            {.id = 1, .throughput = {1.0}, .steps_remaining = 10.0}};
  FinishTimeFairness ftf;
  const Allocation x = ftf.allocate(p);
  ASSERT_EQ(x.size(), 2u);
  EXPECT_NEAR(x[0][0], 1.0, kTol);
  EXPECT_NEAR(x[1][0], 1.0, kTol);
  EXPECT_NEAR(ftf.last_rho(), 2.0, 1e-6);
}

// max_sum_throughput_perf: each GPU to the job fastest on it, rows permitting: A to job 0 (4),
// B to job 2 (3): 7 steps/s. With an SLO of 150 steps in 100 s on job 1 (1.5 steps/s): a unit of
// job 1's throughput costs 1 from A (2a1 at the loss of 4a1) and 2 from B (b1 at the loss of
// 3b1), so a1 = 0.75, a0 = 0.25, b2 = 1 (5.5 steps/s). An SLO of 3 steps/s cannot be met (at most
// 2): Gavel drops the SLOs and solves again.
TEST(GavelMaxSumThroughput, AwareWithSlos) {
  AllocationProblem p = three_jobs();
  SumThroughputResult r = max_sum_throughput_perf(p);
  expect_allocation(r.x, {{1.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}});
  EXPECT_FALSE(r.slos_dropped);
  p.jobs[1].steps_remaining = 150.0;
  p.jobs[1].slo_s = 100.0;
  r = max_sum_throughput_perf(p, false, true);
  expect_allocation(r.x, {{0.25, 0.0}, {0.75, 0.0}, {0.0, 1.0}});
  EXPECT_FALSE(r.slos_dropped);
  p.jobs[1].steps_remaining = 300.0;
  r = max_sum_throughput_perf(p, false, true);
  EXPECT_TRUE(r.slos_dropped);
  expect_allocation(r.x, {{1.0, 0.0}, {0.0, 0.0}, {0.0, 1.0}});
}

// Normalised by cost: one job (4 on A, 3 on B), one GPU of each: 4 > 3 puts it on A; at A's
// price 2 (B's 1) the objective is 2 against 3, and it goes to B.
TEST(GavelMaxSumThroughput, ByCost) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100", "k80"}, .gpus = {1, 1}, .prices = {2.0, 1.0}};
  p.jobs = {{.id = 7, .throughput = {4.0, 3.0}}};
  expect_allocation(max_sum_throughput_perf(p).x, {{1.0, 0.0}});
  expect_allocation(max_sum_throughput_perf(p, true).x, {{0.0, 1.0}});
  p.cluster.prices.clear();
  EXPECT_THROW((void)max_sum_throughput_perf(p, true), AllocationError);
}

// min_total_duration_perf with 400, 240 and 480 steps left: finishing within T is throughput_j
// >= steps_j / T, the max-min program with coefficients (4, 1) / 400, (2, 1) / 240, (3, 3) / 480,
// max-min fairness's divided by 160: 1/T* = 0.8 / 160, T* = 200 s. Gavel's bisection from
// [100, 1e6] with the factor 1.05 stops at T = 206.80084228515625 s (its 17th step; the same loop
// run in Python). Agnostic (v100 throughputs 4, 2, 3 on both types): shares 100/T, 120/T, 160/T
// on 2 GPUs, T* = 190 s, Gavel's T = 191.5435791015625 s.
TEST(GavelMinTotalDuration, GavelsSearch) {
  AllocationProblem p = three_jobs();
  p.jobs[0].steps_remaining = 400.0;
  p.jobs[1].steps_remaining = 240.0;
  p.jobs[2].steps_remaining = 480.0;
  EXPECT_NEAR(least_total_duration(p), 200.0, 1e-6);
  const double t = gavel_search_duration(200.0);
  EXPECT_DOUBLE_EQ(t, 206.80084228515625);
  EXPECT_DOUBLE_EQ(gavel_search_duration(190.0), 191.5435791015625);
  EXPECT_DOUBLE_EQ(gavel_search_duration(3e6), 3109375.0);  // the next decade's search
  const Allocation x = min_total_duration_perf(p);
  expect_feasible(p, x);
  const auto tput = effective_throughputs(p, x);
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_GE(tput[j] * t, p.jobs[j].steps_remaining * (1 - 1e-6)) << j;
  }
  const Allocation agnostic = min_total_duration(p);
  expect_feasible(p, agnostic);
  const double shares[] = {100.0, 120.0, 160.0};
  for (std::size_t j = 0; j < 3; ++j) {
    EXPECT_GE(agnostic[j][0] + agnostic[j][1], shares[j] / 191.5435791015625 - 1e-6) << j;
  }
}

// fifo_perf: job 0 to its faster type A, job 1 to what is left (B), job 2 waits. When job 0 has
// ended the perf mode decides afresh: job 1 to A (2 > 1), job 2 to B.
// fifo (agnostic), as Gavel's FIFOPolicy(mode='base') runs (policies/fifo.py @c4fa400): the free
// types sorted by name are [k80, v100]; each job is placed on the last of them (v100 = A) and
// the index drawn by random.Random(seed).randrange(len(types with room)) names the type dropped
// from the list when A is full. Seed 0 draws 1 (A is dropped: job 1 goes to k80 = B); seed 1
// draws 0 (B is dropped while A stays, full: jobs 1 and 2 wait). CPython 3.11:
// [random.Random(s).randrange(2) for s in (0, 1)] == [1, 0]. When job 0 ends its type goes to
// the queue's head; seed 0: job 1 keeps B, job 2 takes A; seed 1: job 1 takes A, job 2 B.
TEST(GavelFifo, PerfAndAgnostic) {
  AllocationProblem p = three_jobs();
  Fifo perf(true, 1);
  expect_allocation(perf.allocate(p), {{1, 0}, {0, 1}, {0, 0}});
  AllocationProblem later = p;
  later.jobs.erase(later.jobs.begin());
  expect_allocation(perf.allocate(later), {{1, 0}, {0, 1}});
  Fifo seed0(false, 0);
  expect_allocation(seed0.allocate(p), {{1, 0}, {0, 1}, {0, 0}});
  expect_allocation(seed0.allocate(later), {{0, 1}, {1, 0}});
  Fifo seed1(false, 1);
  expect_allocation(seed1.allocate(p), {{1, 0}, {0, 0}, {0, 0}});
  expect_allocation(seed1.allocate(later), {{1, 0}, {0, 1}});
}

// Gavel's agnostic FIFO on three types of one GPU each (sorted [k80, p100, v100]): job 0 goes to
// v100, and the drawn index names the type dropped. Seed 0 draws 1 (p100 dropped) and seed 1
// draws 0 (k80 dropped): v100 stays in the list with 0 GPUs free, so jobs 1 and 2 go to it too
// (its count goes to -2): X gives v100 three jobs. Seed 5 draws 2 (v100 dropped), then 1 of 2
// for job 1 (placed on p100, the last type, which is dropped): job 2 goes to k80. Seed 6 draws 2,
// then 0 (k80 dropped while p100, full, stays): job 2 waits. CPython 3.11:
// r = random.Random(s); r.randrange(3), then r.randrange(2) or r.randrange(1).
TEST(GavelFifo, AgnosticFollowsGavelsCode) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100", "p100", "k80"}, .gpus = {1, 1, 1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {4.0, 2.0, 1.0}},
            {.id = 1, .throughput = {4.0, 2.0, 1.0}},
            {.id = 2, .throughput = {4.0, 2.0, 1.0}}};
  for (const std::uint64_t seed : {0, 1}) {
    Fifo fifo(false, seed);
    expect_allocation(fifo.allocate(p), {{1, 0, 0}, {1, 0, 0}, {1, 0, 0}});
  }
  Fifo seed5(false, 5);
  expect_allocation(seed5.allocate(p), {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}});
  Fifo seed6(false, 6);
  expect_allocation(seed6.allocate(p), {{1, 0, 0}, {0, 1, 0}, {0, 0, 0}});
}

// A head job that fits no type (2 GPUs, types of 1) stops the walk: job 2 behind it waits too.
TEST(GavelFifo, TheHeadBlocks) {
  AllocationProblem p = three_jobs();
  p.jobs[0].scale_factor = 2;
  Fifo perf(true, 1);
  expect_allocation(perf.allocate(p), {{0, 0}, {0, 0}, {0, 0}});
}

TEST(GavelAllocation, BadProblemsAreErrors) {
  AllocationProblem p = three_jobs();
  p.jobs[1].throughput = {0.0, 0.0};
  try {
    (void)max_min_fairness_perf(p);
    FAIL();
  } catch (const AllocationError& e) {
    EXPECT_STREQ(e.what(),
                 "max_min_fairness_perf: job 1 has a zero throughput on every GPU type: it can run "
                 "nowhere");
  }
  p = three_jobs();
  p.jobs[0].throughput = {4.0};
  EXPECT_THROW((void)max_min_fairness_perf(p), AllocationError);
  p = three_jobs();
  p.jobs[2].id = 0;
  EXPECT_THROW((void)max_min_fairness_perf(p), AllocationError);
  p = three_jobs();
  p.cluster.gpus = {1, -1};
  EXPECT_THROW((void)isolated(p), AllocationError);
  p = three_jobs();
  p.jobs[0].priority_weight = 0.0;
  EXPECT_THROW((void)max_min_fairness(p), AllocationError);
  // Job 0 runs only on B, and the cluster has no B: no allocation can be fair to it.
  p = three_jobs();
  p.jobs[0].throughput = {0.0, 1.0};
  p.cluster.gpus = {2, 0};
  EXPECT_THROW((void)max_min_fairness_perf(p), AllocationError);
  for (auto& j : p.jobs) {
    j.steps_remaining = 10.0;
  }
  EXPECT_THROW((void)min_total_duration_perf(p), AllocationError);
  FinishTimeFairness ftf;
  EXPECT_THROW((void)ftf.allocate(p), AllocationError);
  EXPECT_THROW((void)min_total_duration(three_jobs(), "a100"), AllocationError);
}

TEST(GavelAllocation, NoJobsNoAllocation) {
  AllocationProblem p = three_jobs();
  p.jobs.clear();
  EXPECT_TRUE(max_min_fairness_perf(p).empty());
  EXPECT_TRUE(min_total_duration_perf(p).empty());
  EXPECT_TRUE(max_sum_throughput_perf(p).x.empty());
  FinishTimeFairness ftf;
  EXPECT_TRUE(ftf.allocate(p).empty());
}

}  // namespace
}  // namespace tidesim::gavel
