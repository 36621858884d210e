// The packing variants of Gavel's policies (PolicyWithPacking and FIFOPolicy's packing mode;
// docs/gavel.md, "Space sharing"), worked by hand: max_min_fairness_packed,
// max_min_fairness_water_filling_packed, finish_time_fairness_packed, min_total_duration_packed,
// max_sum_throughput_normalized_by_cost_packed_SLOs and fifo_packed.
#include <gtest/gtest.h>

#include "tidesim/sim/admission/gavel_fifo.hpp"
#include "tidesim/sim/admission/gavel_ftf.hpp"
#include "tidesim/sim/admission/gavel_lp_policies.hpp"
#include "tidesim/sim/admission/gavel_water_filling.hpp"

namespace tidesim::gavel {
namespace {

// One GPU, two single-GPU jobs of throughput 1 alone (proportional throughput 1 each) and `f`
// each when they share it. With x the time of each alone and y the pair's, x + x + y <= 1 and each
// job's normalised throughput is x + f y. By symmetry the best is x = (1 - y) / 2, so the level is
// 1/2 + (f - 1/2) y: packed all the time (y = 1, level f) when f > 1/2, never (x = 1/2) when
// f < 1/2. The tie-break (largest sum 2x + 2fy under 2x + y <= 1) picks the same point.
AllocationProblem two_jobs(double f) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {1}, .prices = {}};
  p.jobs = {{.id = 0, .throughput = {1.0}}, {.id = 1, .throughput = {1.0}}};
  p.colocated = [f](std::size_t, std::size_t, std::size_t) -> std::optional<Colocated> {
    return Colocated{f, f};
  };
  return p;
}

TEST(GavelMaxMinFairnessPacked, PacksWhenSharingPays) {
  const PackedAllocation good = max_min_fairness_packed(two_jobs(0.8));
  ASSERT_EQ(good.pairs.size(), 1U);
  EXPECT_NEAR(good.pairs[0].share[0], 1.0, 1e-6);
  EXPECT_NEAR(good.single[0][0], 0.0, 1e-6);
  EXPECT_NEAR(good.single[1][0], 0.0, 1e-6);
  const PackedAllocation bad = max_min_fairness_packed(two_jobs(0.4));
  for (const PairShare& pair : bad.pairs) {
    EXPECT_NEAR(pair.share[0], 0.0, 1e-6);
  }
  EXPECT_NEAR(bad.single[0][0], 0.5, 1e-6);
  EXPECT_NEAR(bad.single[1][0], 0.5, 1e-6);
}

// Without co-located throughputs, or with jobs of different scale factors, there is no pair and
// the allocation is max_min_fairness_perf's.
TEST(GavelMaxMinFairnessPacked, NoPairsIsMaxMinFairness) {
  AllocationProblem p = two_jobs(0.9);
  p.cluster.gpus = {2};
  p.jobs[1].scale_factor = 2;
  const PackedAllocation x = max_min_fairness_packed(p);
  EXPECT_TRUE(x.pairs.empty());
  const Allocation plain = max_min_fairness_perf(p);
  for (std::size_t j = 0; j < 2; ++j) {
    EXPECT_NEAR(x.single[j][0], plain[j][0], 1e-6);
  }
  p.colocated = nullptr;
  EXPECT_TRUE(max_min_fairness_packed(p).pairs.empty());
}

// Gavel's layout has a column for every two jobs of the same scale factor, those of co-located
// throughput 0 included (x >= 0 and nothing more), and so has tidesim's: inside the optimal face
// an interior point (Gavel's ECOS, `lp_method: interior`) gives such a pair a share wherever the
// GPUs and both jobs' budgets are slack; the vertex's tie-break (the largest sum of normalised
// throughputs) gives it none. One K80 and four V100s: five jobs run on the K80 only, 1/5 of it
// each, a normalised throughput of (1/5) / (1/5) = 1, the level; B and C run on the V100s only
// (proportional throughput 4/5), so at the level each needs X >= 0.8 there, and the pair (B, C),
// of throughput 0, has room for up to 0.2 of a V100.
TEST(GavelMaxMinFairnessPacked, APairOfThroughputZeroIsAColumn) {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"k80", "v100"}, .gpus = {1, 4}, .prices = {}};
  for (int j = 0; j < 7; ++j) {
    const bool on_k80 = j < 5;
    p.jobs.push_back({.id = j, .throughput = {on_k80 ? 1.0 : 0.0, on_k80 ? 0.0 : 1.0}});
  }
  p.colocated = [](std::size_t, std::size_t, std::size_t) -> std::optional<Colocated> {
    return Colocated{0.0, 0.0};
  };
  const auto pair_bc = [](const PackedAllocation& x) {
    for (const PairShare& pair : x.pairs) {
      if (pair.a == 5 && pair.b == 6) {
        return pair.share[1];
      }
    }
    return 0.0;
  };
  p.lp_method = lp::Method::interior;
  const PackedAllocation inside = max_min_fairness_packed(p);
  for (int j = 0; j < 5; ++j) {
    EXPECT_NEAR(inside.single[j][0], 0.2, 1e-6);
  }
  for (int j = 5; j < 7; ++j) {
    EXPECT_GE(inside.single[j][1], 0.8 - 1e-6);
    EXPECT_LE(inside.single[j][1] + pair_bc(inside), 1.0 + 1e-6);
  }
  EXPECT_GT(pair_bc(inside), 1e-3);
  EXPECT_LE(pair_bc(inside), 0.2 + 1e-6);
  p.lp_method = lp::Method::simplex;
  const PackedAllocation vertex = max_min_fairness_packed(p);
  EXPECT_NEAR(pair_bc(vertex), 0.0, 1e-9);
  EXPECT_NEAR(vertex.single[5][1], 1.0, 1e-6);
}

// The pair's share on the one type, 0 when the answer has no pair.
double pair_share(const PackedAllocation& x) {
  return x.pairs.empty() ? 0.0 : x.pairs[0].share[0];
}

// Water filling over the packed layout: with two equal jobs its first round is max-min fairness
// and both are bottlenecks at once, so the answer is max_min_fairness_packed's: the pair all the
// time when f > 1/2 (each job's level f, its proportional throughput being 1).
TEST(GavelWaterFillingPacked, IsMaxMinFairnessPackedOnTwoEqualJobs) {
  for (const lp::Method method : {lp::Method::simplex, lp::Method::interior}) {
    AllocationProblem p = two_jobs(0.8);
    p.lp_method = method;
    const WaterFilling w = max_min_fairness_water_filling_packed(p);
    ASSERT_EQ(w.pairs.size(), 1U);
    EXPECT_NEAR(w.pairs[0].share[0], 1.0, 1e-6);
    ASSERT_EQ(w.levels.size(), 2U);
    EXPECT_NEAR(w.levels[0], 0.8, 1e-6);
    EXPECT_NEAR(w.levels[1], 0.8, 1e-6);
    p = two_jobs(0.4);
    p.lp_method = method;
    const WaterFilling alone = max_min_fairness_water_filling_packed(p);
    EXPECT_NEAR(alone.x[0][0], 0.5, 1e-6);
    EXPECT_NEAR(alone.x[1][0], 0.5, 1e-6);
    EXPECT_NEAR(alone.levels[0], 0.5, 1e-6);
  }
}

// finish_time_fairness_packed on two new jobs (no time since start, 1,000 steps each): alone
// each gets half the GPU, isolated throughput 1/2, isolated time 2,000 s, so rho_j = 1 / (2
// thr_j). Sharing at f = 0.8 gives each 0.8: rho 0.625 with the pair all the time.
TEST(GavelFinishTimeFairnessPacked, PacksWhenSharingPays) {
  for (const lp::Method method : {lp::Method::simplex, lp::Method::interior}) {
    AllocationProblem p = two_jobs(0.8);
    p.lp_method = method;
    for (AllocationJob& j : p.jobs) {
      j.steps_remaining = 1000.0;
    }
    FinishTimeFairness ftf(false, "v100", true);
    const PackedAllocation x = ftf.allocate_packed(p);
    EXPECT_NEAR(ftf.last_rho(), 0.625, 1e-6);
    EXPECT_NEAR(pair_share(x), 1.0, 1e-5);
  }
}

// The packed variant divides a job's throughput by its priority weight (Gavel's
// PolicyWithPacking.flatten). Job 0 of weight 2: rho_0 = 1 / thr_0, rho_1 = 1 / (2 thr_1), with
// thr_0 = x_0 + 0.8 y, thr_1 = x_1 + 0.8 y, x_0 + x_1 + y <= 1. The least max needs thr_0 =
// 2 thr_1; per unit of time the pair gives 0.8 to each, so x_1 = 0, x_0 = 0.8 y and 1.8 y = 1:
// y = 5/9, x_0 = 4/9, thr_1 = 4/9 and rho = 9/8, the only X that reaches it (the sum of the two
// rows at 9/8 needs y >= 5/9, the budget y <= 5/9).
TEST(GavelFinishTimeFairnessPacked, PriorityWeightsDivideTheThroughputs) {
  for (const lp::Method method : {lp::Method::simplex, lp::Method::interior}) {
    AllocationProblem p = two_jobs(0.8);
    p.lp_method = method;
    for (AllocationJob& j : p.jobs) {
      j.steps_remaining = 1000.0;
    }
    p.jobs[0].priority_weight = 2.0;
    FinishTimeFairness ftf(false, "v100", true);
    const PackedAllocation x = ftf.allocate_packed(p);
    EXPECT_NEAR(ftf.last_rho(), 9.0 / 8.0, 1e-6);
    EXPECT_NEAR(pair_share(x), 5.0 / 9.0, 1e-5);
    EXPECT_NEAR(x.single[0][0], 4.0 / 9.0, 1e-5);
    EXPECT_NEAR(x.single[1][0], 0.0, 1e-5);
  }
}

// min_total_duration_packed, 1,000 steps each: alone the jobs need 2,000 s (half the GPU each);
// sharing at f = 0.8 ends both at 1,000 / 0.8 = 1,250 s, so T* = 1,250 and the pair runs all the
// time; at f = 0.4 sharing is slower (2,500 s) and the jobs share the GPU's time alone.
TEST(GavelMinTotalDurationPacked, PacksWhenSharingEndsSooner) {
  AllocationProblem p = two_jobs(0.8);
  for (AllocationJob& j : p.jobs) {
    j.steps_remaining = 1000.0;
  }
  EXPECT_NEAR(pair_share(min_total_duration_packed(p)), 1.0, 1e-6);
  p.colocated = two_jobs(0.4).colocated;
  const PackedAllocation alone = min_total_duration_packed(p);
  EXPECT_NEAR(pair_share(alone), 0.0, 1e-6);
  // Gavel's search stops at a T a little above 2,000 s, where each job needs 1,000 / T.
  const double need = 1000.0 / gavel_search_duration(2000.0);
  EXPECT_GT(alone.single[0][0], need - 1e-6);
  EXPECT_GT(alone.single[1][0], need - 1e-6);
  EXPECT_NEAR(alone.single[0][0] + alone.single[1][0], 1.0, 1e-6);
}

// max_sum_throughput_normalized_by_cost_packed_SLOs: the objective x_0 + x_1 + 2 f y (a price
// of 2 divides all of it) under x_0 + x_1 + y <= 1 is largest at y = 1 when f = 0.8. An SLO that
// needs 0.9 steps/s for job 0 (steps 900, 1,000 s left): x_0 + 0.8 y >= 0.9, so x_0 + y = 0.9 +
// 0.2 y <= 1 and y <= 1/2; the objective 1 + 0.6 y (x_1 = 0.1 - 0.2 y) is then largest at y =
// 1/2, x_0 = 1/2, x_1 = 0. An SLO no X meets (2 steps/s) is dropped, as Gavel drops them all.
TEST(GavelMaxSumThroughputPacked, SlosBoundThePairsShare) {
  AllocationProblem p = two_jobs(0.8);
  p.cluster.prices = {2.0};
  EXPECT_NEAR(pair_share({.single = {}, .pairs = max_sum_throughput_packed(p, true, true).pairs}),
              1.0, 1e-6);
  p.jobs[0].steps_remaining = 900.0;
  p.jobs[0].slo_s = 1000.0;
  const SumThroughputResult r = max_sum_throughput_packed(p, true, true);
  EXPECT_FALSE(r.slos_dropped);
  ASSERT_EQ(r.pairs.size(), 1U);
  EXPECT_NEAR(r.pairs[0].share[0], 0.5, 1e-6);
  EXPECT_NEAR(r.x[0][0], 0.5, 1e-6);
  EXPECT_NEAR(r.x[1][0], 0.0, 1e-6);
  p.jobs[0].steps_remaining = 2000.0;
  const SumThroughputResult dropped = max_sum_throughput_packed(p, true, true);
  EXPECT_TRUE(dropped.slos_dropped);
  ASSERT_EQ(dropped.pairs.size(), 1U);
  EXPECT_NEAR(dropped.pairs[0].share[0], 1.0, 1e-6);
}

// fifo_packed: jobs 0 and 1 each take one of two GPUs (the perf mode's walk), jobs 2 and 3 wait.
// Job 2 pairs with the placed job whose pair's normalised throughput (co-located / alone, summed
// over the two) is largest above the threshold 1.5: with job 0 it is 0.8 + 0.8 = 1.6, with job 1
// 0.9 + 0.9 = 1.8, so job 1. Job 3 could pair with job 0 (1.6) and does; with a threshold of 1.7
// job 2 still pairs with job 1 but job 3 then finds no partner.
AllocationProblem four_jobs() {
  AllocationProblem p;
  p.cluster = {.gpu_types = {"v100"}, .gpus = {2}, .prices = {}};
  for (int id = 0; id < 4; ++id) {
    p.jobs.push_back({.id = id, .throughput = {1.0}});
  }
  p.colocated = [](std::size_t a, std::size_t, std::size_t) -> std::optional<Colocated> {
    const double f = a == 1 ? 0.9 : 0.8;
    return Colocated{f, f};
  };
  return p;
}

TEST(GavelFifoPacked, EachWaitingJobTakesItsBestPartner) {
  Fifo fifo = Fifo::packing();
  const PackedAllocation x = fifo.allocate_packed(four_jobs());
  ASSERT_EQ(x.pairs.size(), 2U);
  EXPECT_EQ(x.pairs[0].a, 1U);
  EXPECT_EQ(x.pairs[0].b, 2U);
  EXPECT_EQ(x.pairs[1].a, 0U);
  EXPECT_EQ(x.pairs[1].b, 3U);
  for (std::size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(x.single[j][0], 0.0) << j;
  }
  Fifo strict = Fifo::packing(1.7);
  const PackedAllocation y = strict.allocate_packed(four_jobs());
  ASSERT_EQ(y.pairs.size(), 1U);
  EXPECT_EQ(y.pairs[0].a, 1U);
  EXPECT_EQ(y.pairs[0].b, 2U);
  EXPECT_EQ(y.single[0][0], 1.0);
}

// No job jumps ahead: when the head of the queue finds no partner the packing stops, even if a
// later job would find one (here job 2's pairs are all below the threshold, job 3's are not).
// A pair exactly at the threshold does not pack (Gavel's strict >).
TEST(GavelFifoPacked, TheFirstJobWithoutAPartnerStopsThePacking) {
  AllocationProblem p = four_jobs();
  p.colocated = [](std::size_t, std::size_t b, std::size_t) -> std::optional<Colocated> {
    const double f = b == 2 ? 0.75 : 0.9;
    return Colocated{f, f};
  };
  Fifo fifo = Fifo::packing();
  const PackedAllocation x = fifo.allocate_packed(p);
  EXPECT_TRUE(x.pairs.empty());
  EXPECT_EQ(x.single[0][0], 1.0);
  EXPECT_EQ(x.single[1][0], 1.0);
  EXPECT_EQ(x.single[2][0], 0.0);
  EXPECT_EQ(x.single[3][0], 0.0);
}

}  // namespace
}  // namespace tidesim::gavel
