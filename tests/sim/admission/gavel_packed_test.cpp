// max_min_fairness_packed (sim/admission/gavel_packed; Gavel's policies/max_min_fairness.py,
// MaxMinFairnessPolicyWithPacking.get_allocation), worked by hand.
#include "tidesim/sim/admission/gavel_packed.hpp"

#include <gtest/gtest.h>

#include "tidesim/sim/admission/gavel_lp_policies.hpp"

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

}  // namespace
}  // namespace tidesim::gavel
