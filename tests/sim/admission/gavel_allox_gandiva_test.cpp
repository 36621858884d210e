// AlloX and Gandiva as Gavel runs them (sim/admission/gavel_allox, gavel_gandiva; docs/gavel.md),
// on the case of gavel_allocation_test.cpp: types A ("v100") and B ("k80") with one GPU each,
// jobs of throughputs (4, 1), (2, 1), (3, 3).
#include <gtest/gtest.h>

#include "tests/sim/admission/gavel_three_jobs.hpp"
#include "tidesim/sim/admission/gavel_allox.hpp"
#include "tidesim/sim/admission/gavel_gandiva.hpp"

namespace tidesim::gavel {
namespace {

// gavel_three_jobs.hpp's case, the jobs 30, 20 and 10 s old with 400, 240 and 480 steps left.
AllocationProblem three_jobs() {
  AllocationProblem p = testing::three_jobs();
  const double since[] = {30.0, 20.0, 10.0};
  const double steps[] = {400.0, 240.0, 480.0};
  for (std::size_t j = 0; j < 3; ++j) {
    p.jobs[j].time_since_start_s = since[j];
    p.jobs[j].steps_remaining = steps[j];
  }
  return p;
}

// allox.py: processing times steps / throughput are (100, 400), (120, 240), (160, 160) s on
// (A, B). A queue of jobs on one GPU costs sum over its jobs of (position from the end) x
// processing time (the waiting times are the same whatever the assignment). Of the 2^3 x 3!
// queue arrangements (enumerated in Python) the least cost, 480, is unique: A runs job 0 then
// job 1 (2 x 100 + 120), B runs job 2 (160). So job 0 gets A now and job 2 gets B; job 1 waits.
// Next call: jobs 0 and 2 keep their GPUs (rows summing to 1), no GPU is free, job 1 still waits.
// When job 0 has ended, job 1 is matched alone to the free A.
TEST(GavelAlloX, MinCostMatching) {
  AllocationProblem p = three_jobs();
  AlloX allox;
  const Allocation first = allox.allocate(p);
  EXPECT_EQ(first, (Allocation{{1, 0}, {0, 0}, {0, 1}}));
  EXPECT_EQ(allox.allocate(p), first);
  p.jobs.erase(p.jobs.begin());
  EXPECT_EQ(allox.allocate(p), (Allocation{{1, 0}, {0, 1}}));
}

// With three free GPUs of one type and five waiting jobs whose processing time is the same on
// it, the least cost puts two queues of 2 and one of 1: three run now, and the cost leaves which
// of a level's jobs run first open; tidesim takes the oldest.
TEST(GavelAlloX, FirstToRunPerGpu) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {3}, .prices = {}};
  for (int i = 0; i < 5; ++i) {
    p.jobs.push_back({.id = i,
                      .throughput = {1.0},
                      .time_since_start_s = 10.0 * (5 - i),
                      .steps_remaining = 100.0});
  }
  AlloX allox;
  const Allocation x = allox.allocate(p);
  int running = 0;
  for (const auto& row : x) {
    running += static_cast<int>(row[0]);
  }
  EXPECT_EQ(running, 3);
}

TEST(GavelAlloX, SingleGpuJobsOnly) {
  AllocationProblem p = three_jobs();
  p.jobs[1].scale_factor = 2;
  AlloX allox;
  EXPECT_THROW((void)allox.allocate(p), AllocationError);
}

// Shockwave's allox.py (the assertion commented out; X = 1.0 / scale_factors[job_id]): job 0 on 2
// GPUs takes one position like the others, so the matching is MinCostMatching's and job 0 runs
// first on A with X = 1/2. Its row does not sum to 1, so the next call matches it again, with
// job 1, to the one free A (job 2 keeps B): positions k = 1 (last), 2 cost 100k + 30 for job 0 and
// 120k + 20 for job 1; job 1 last and job 0 first costs 140 + 230 = 370 < 130 + 260, so job 0
// runs again.
TEST(GavelAlloX, ShockwavesMultiGpuJobs) {
  AllocationProblem p = three_jobs();
  p.jobs[0].scale_factor = 2;
  AlloX allox(1.0, true);
  const Allocation first = allox.allocate(p);
  EXPECT_EQ(first, (Allocation{{0.5, 0}, {0, 0}, {0, 1}}));
  EXPECT_EQ(allox.allocate(p), first);
}

// gandiva.py: 3 GPUs asked for, 2 there: packing. With every job of scale factor 1 the first
// random draw pairs two of them; the pair and the job left alone are 2 combinations, each
// (1/2, 1/2). Next call, the pair is kept only if its normalised throughput (co-located /
// isolated, summed over both types and both jobs) is at least 1.
TEST(GavelGandiva, PacksWhenTheJobsDoNotFit) {
  AllocationProblem p = three_jobs();
  // Every pair keeps 60% of each job's speed on both types (normalised 0.6 x 2 x 2 = 2.4), but
  // a pair with job 1 only 20% (0.8 in all): such a pair is broken at the next call.
  p.colocated = [&](std::size_t a, std::size_t b, std::size_t t) -> std::optional<Colocated> {
    const double f = (a == 1 || b == 1) ? 0.2 : 0.6;
    return Colocated{f * p.jobs[a].throughput[t], f * p.jobs[b].throughput[t]};
  };
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    Gandiva gandiva(seed);
    const PackedAllocation first = gandiva.allocate(p);
    ASSERT_EQ(first.pairs.size(), 1U);
    EXPECT_EQ(first.pairs[0].share, (std::vector<double>{0.5, 0.5}));
    int alone = 0;
    for (const auto& row : first.single) {
      alone += row[0] > 0 ? 1 : 0;
      EXPECT_TRUE(row == (std::vector<double>{0.5, 0.5}) || row == (std::vector<double>{0, 0}));
    }
    EXPECT_EQ(alone, 1);
    const PackedAllocation second = gandiva.allocate(p);
    ASSERT_EQ(second.pairs.size(), 1U);
    const bool good = first.pairs[0].a != 1 && first.pairs[0].b != 1;
    if (good) {  // kept
      EXPECT_EQ(second.pairs[0].a, first.pairs[0].a);
      EXPECT_EQ(second.pairs[0].b, first.pairs[0].b);
    }
  }
}

// Two jobs on two GPUs fit: no packing, each job the equal split (1/2, 1/2). Jobs of different
// scale factors are never paired: with GPUs for 2 and jobs of 1, 2 and 2 GPUs, only the two
// 2-GPU jobs can pair.
TEST(GavelGandiva, TimeSharingAndScaleFactors) {
  AllocationProblem p = three_jobs();
  p.jobs.pop_back();
  Gandiva gandiva(3);
  const PackedAllocation x = gandiva.allocate(p);
  EXPECT_TRUE(x.pairs.empty());
  EXPECT_EQ(x.single, (Allocation{{0.5, 0.5}, {0.5, 0.5}}));
  AllocationProblem q = three_jobs();
  q.jobs[1].scale_factor = 2;
  q.jobs[2].scale_factor = 2;
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    Gandiva g(seed);
    for (const PairShare& pair : g.allocate(q).pairs) {
      EXPECT_EQ(q.jobs[pair.a].scale_factor, q.jobs[pair.b].scale_factor);
    }
  }
}

}  // namespace
}  // namespace tidesim::gavel
