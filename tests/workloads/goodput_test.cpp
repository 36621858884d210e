// Pollux's goodput model (workloads/goodput.hpp, speedup.hpp): each formula worked by hand, the
// batch search on small cases whose best candidate follows from the geometric spacing, and the
// speedup's base and memo.
#include "tidesim/workloads/goodput.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tidesim/workloads/speedup.hpp"

namespace tidesim::workloads {
namespace {

// A compute time of 0.1 + 0.01 x atomic; across nodes 0.3 + 0.05 per replica beyond 2, within a
// node 0.04 + 0.01 per replica beyond 2; no overlap (gamma 1).
PerfParams params() {
  return {.alpha_c = 0.1,
          .beta_c = 0.01,
          .alpha_n = 0.3,
          .beta_n = 0.05,
          .alpha_r = 0.04,
          .beta_r = 0.01,
          .gamma = 1};
}

TEST(Goodput, AccumTimeIsLinearInTheAtomicBatch) {
  EXPECT_DOUBLE_EQ(predict_accum_time(params(), 32), 0.1 + 0.32);
}

TEST(Goodput, NetworkTimeTakesTheSlowestLink) {
  const PerfParams p = params();
  // Across nodes: 0.3 + 0.05 x (4 - 2).
  EXPECT_DOUBLE_EQ(predict_network_time(p, 2, 4), 0.4);
  // Within a node: 0.04 + 0.01 x (4 - 2).
  EXPECT_DOUBLE_EQ(predict_network_time(p, 1, 4), 0.06);
  // Two replicas: no retrogression, max(0, 1e-8) replicas beyond 2.
  EXPECT_DOUBLE_EQ(predict_network_time(p, 2, 2), 0.3 + 0.05 * 1e-8);
  EXPECT_DOUBLE_EQ(predict_network_time(p, 1, 2), 0.04 + 0.01 * 1e-8);
  // One replica: the artifact's near-zero, 1e-8 + 1e-8 x max(1 - 2, 1e-8).
  EXPECT_DOUBLE_EQ(predict_network_time(p, 1, 1), 1e-8 + 1e-16);
}

TEST(Goodput, OptimTimeIsAGammaNormOfComputeAndNetwork) {
  PerfParams p = params();
  // gamma 1: no overlap, 0.3 + 0.4.
  EXPECT_DOUBLE_EQ(predict_optim_time(p, 0.3, 0.4), 0.7);
  // gamma 2: sqrt(0.09 + 0.16) = 0.5.
  p.gamma = 2;
  EXPECT_NEAR(predict_optim_time(p, 0.3, 0.4), 0.5, 1e-15);
  EXPECT_NEAR(predict_log_optim_time(p, 0.3, 0.4), std::log(0.5), 1e-15);
  // gamma 10: close to the max, 0.4 x (1 + 0.75^10)^(1/10).
  p.gamma = 10;
  EXPECT_NEAR(predict_optim_time(p, 0.3, 0.4), 0.4 * std::pow(1 + std::pow(0.75, 10), 0.1), 1e-15);
  // Large times do not overflow: 1e40 x 2^(1/10) (1e400 would be infinite).
  EXPECT_NEAR(predict_log_optim_time(p, 1e40, 1e40), std::log(1e40) + std::log(2.0) / 10, 1e-12);
}

TEST(Goodput, StepTimeAddsTheAccumulationPasses) {
  PerfParams p = params();
  p.beta_c = 0.00625;  // atomic 32: 0.1 + 0.2 = 0.3
  p.gamma = 2;         // 2 nodes, 4 replicas: network 0.4, optim step 0.5
  // Two passes without sync (0.3 each) and the optimizer step: 0.6 + 0.5.
  EXPECT_NEAR(predict_step_time(p, 2, 4, 32, 2), 1.1, 1e-15);
  const GoodputFunction fn(p, {.sqr = 1, .var = 3}, 8);
  // 4 replicas x 32 x 3 passes = 384 samples per 1.1 s.
  EXPECT_NEAR(fn.throughput(2, 4, 32, 2), 384 / 1.1, 1e-12);
}

TEST(Goodput, EfficiencyFollowsTheGradientNoiseScale) {
  const GoodputFunction fn(params(), {.sqr = 1, .var = 3}, 8);
  // Batch 16: scale 2, gain (3 + 1) / (3/2 + 1) = 1.6, efficiency 1.6 / 2 = 0.8; the same as
  // (PGNS + 8) / (PGNS + 16) with PGNS = 8 x 3 / 1 = 24: 32 / 40.
  EXPECT_DOUBLE_EQ(fn.efficiency(16), 0.8);
  EXPECT_DOUBLE_EQ(fn.efficiency(8), 1.0);
  // Goodput = throughput x efficiency; 1 replica x 16 x 1 pass: 16 / (0.26 + optim(0.26, ~0)).
  const double step = predict_step_time(params(), 1, 1, 16, 0);
  EXPECT_NEAR(step, 0.26 + 1e-8, 1e-15);
  EXPECT_DOUBLE_EQ(fn.evaluate(1, 1, 16, 0), 16 / step * 0.8);
  // A non-positive denominator var / scale + sqr: gain 1, efficiency 1 / scale.
  const GoodputFunction negative(params(), {.sqr = -1, .var = 0.5}, 8);
  EXPECT_DOUBLE_EQ(negative.efficiency(16), 0.5);  // 0.5 / 2 - 1 < 0
}

TEST(Goodput, EvaluateRefusesABatchBelowTheInitialOne) {
  const GoodputFunction fn(params(), {.sqr = 1, .var = 3}, 8);
  EXPECT_THROW(fn.evaluate(1, 1, 4, 0), std::invalid_argument);
  EXPECT_NO_THROW(fn.evaluate(1, 2, 4, 0));
  EXPECT_THROW(GoodputFunction(params(), {}, 0), std::invalid_argument);
}

// With sqr = 0 the efficiency is 1 at every batch (gain = var / (var / scale) = scale), so the
// best candidate is the one of highest throughput.
constexpr GradParams kNoiseOnly{.sqr = 0, .var = 1};

TEST(Goodput, OptimizeTakesTheLargestBatchWhenEfficiencyIsPerfect) {
  const GoodputFunction fn(params(), kNoiseOnly, 8);
  // 1 node, 2 replicas, batches 8 .. 64: throughput 2a / (0.1 + 0.01a + 0.04 + 1e-10) grows with
  // the atomic batch a, the largest is 64 / 2 = 32: 64 / 0.46.
  const GoodputChoice best = fn.optimize(1, 2, {.max_batch_size = 64});
  EXPECT_EQ(best.atomic_bsz, 32);
  EXPECT_EQ(best.accum_steps, 0);
  EXPECT_NEAR(best.goodput, 64 / (0.46 + 1e-10), 1e-9);
}

TEST(Goodput, OptimizeSplitsTheLocalBatchWithAccumulation) {
  const GoodputFunction fn(params(), kNoiseOnly, 8);
  // Atomic at most 16: a local batch in (16, 32] accumulates once, atomic ceil(local / 2):
  // throughput 4a / (0.1 + 0.01a + (0.1 + 0.01a + 0.04)) is largest at a = 16: 64 / 0.56 (the
  // unsplit local batches up to 16 reach at most 32 / 0.3).
  const GoodputChoice best =
      fn.optimize(1, 2, {.max_batch_size = 64, .max_atomic_bsz = 16, .accumulation = true});
  EXPECT_EQ(best.atomic_bsz, 16);
  EXPECT_EQ(best.accum_steps, 1);
  EXPECT_NEAR(best.goodput, 64 / (0.56 + 1e-10), 1e-9);
}

TEST(Goodput, OptimizeGivesOneReplicaAboveTheInitialBatchOneAccumulation) {
  const GoodputFunction fn(params(), kNoiseOnly, 8);
  // 1 replica, batch 32 > 8: accum max(ceil(32 / 32) - 1, 1) = 1, atomic 16:
  // 32 / (0.26 + 0.26 + 1e-8 + 1e-16).
  const GoodputChoice best = fn.optimize(1, 1, {.max_batch_size = 32, .accumulation = true});
  EXPECT_EQ(best.atomic_bsz, 16);
  EXPECT_EQ(best.accum_steps, 1);
  EXPECT_NEAR(best.goodput, 32 / (0.52 + 1e-8 + 1e-16), 1e-9);
}

TEST(Goodput, OptimizeGivesZeroToAtomicBatchesOutOfRange) {
  const GoodputFunction fn(params(), kNoiseOnly, 4);
  // 1 replica, no accumulation, batches 4 x 16^(i/49): atomic ceil(batch). The largest with
  // atomic <= 20 is i = 28 (4 x 16^(28/49) = 19.50; i = 29 gives 20.63, atomic 21, goodput 0):
  // 20 / (0.1 + 0.2 + 1e-8 + 1e-16).
  const GoodputChoice best = fn.optimize(1, 1, {.max_batch_size = 64, .max_atomic_bsz = 20});
  EXPECT_EQ(best.atomic_bsz, 20);
  EXPECT_EQ(best.accum_steps, 0);
  EXPECT_NEAR(best.goodput, 20 / (0.3 + 1e-8 + 1e-16), 1e-9);
  // No accumulation and atomic at most 4 on 1 replica: every candidate (batch 4 .. 64) has an
  // atomic batch of at least 4, valid only at the first: 4 / (0.14 + 1e-8 + 1e-16).
  const GoodputChoice first = fn.optimize(1, 1, {.max_batch_size = 64, .max_atomic_bsz = 4});
  EXPECT_EQ(first.atomic_bsz, 4);
  EXPECT_NEAR(first.goodput, 4 / (0.14 + 1e-8 + 1e-16), 1e-9);
}

TEST(Goodput, OptimizeStartsAtMinAtomicTimesReplicasEvenAboveTheMaxBatch) {
  // As numpy's geomspace does, the candidates run downwards from max(4, 40 x 1) = 40 to 32; the
  // first, atomic 40, is in [40, 40], the others (33 .. 39) below: 40 / (0.5 + 1e-8 + 1e-16).
  const GoodputFunction fn(params(), kNoiseOnly, 4);
  const GoodputChoice best =
      fn.optimize(1, 1, {.max_batch_size = 32, .min_atomic_bsz = 40, .max_atomic_bsz = 40});
  EXPECT_EQ(best.atomic_bsz, 40);
  EXPECT_NEAR(best.goodput, 40 / (0.5 + 1e-8 + 1e-16), 1e-9);
}

TEST(Goodput, OptimizeTakesTheSmallestBatchWhenEfficiencyFallsFast) {
  // var = 0: gain 1, efficiency init / batch, goodput init / step time: the smallest atomic
  // batch wins, the first candidate max(4, 6 x 1) = 6.
  const GoodputFunction fn(params(), {.sqr = 1, .var = 0}, 4);
  const GoodputChoice best = fn.optimize(1, 1, {.max_batch_size = 64, .min_atomic_bsz = 6});
  EXPECT_EQ(best.atomic_bsz, 6);
  EXPECT_NEAR(best.goodput, 4 / (0.16 + 1e-8 + 1e-16), 1e-9);
}

TEST(Goodput, OptimizeRefusesBadArguments) {
  const GoodputFunction fn(params(), kNoiseOnly, 8);
  EXPECT_THROW(fn.optimize(0, 1, {}), std::invalid_argument);
  EXPECT_THROW(fn.optimize(2, 1, {}), std::invalid_argument);
  EXPECT_THROW(fn.optimize(1, 1, {.max_batch_size = 4}), std::invalid_argument);
  EXPECT_THROW(fn.optimize(1, 1, {.max_batch_size = 16, .min_atomic_bsz = 0}),
               std::invalid_argument);
  EXPECT_THROW(fn.optimize(1, 1, {.max_batch_size = 16, .min_atomic_bsz = 8, .max_atomic_bsz = 4}),
               std::invalid_argument);
}

TEST(Speedup, IsGoodputOverTheBaseAllocation) {
  const GoodputFunction fn(params(), {.sqr = 1, .var = 3}, 8);
  const BatchSearch search{.max_batch_size = 64, .max_atomic_bsz = 16, .accumulation = true};
  SpeedupFunction speedup(fn, search);
  EXPECT_EQ(speedup(0, 0), 0.0);
  EXPECT_DOUBLE_EQ(speedup(1, 1), 1.0);
  const double base = fn.optimize(1, 1, search).goodput;
  EXPECT_DOUBLE_EQ(speedup.base_goodput(), base);
  EXPECT_DOUBLE_EQ(speedup(2, 4), fn.optimize(2, 4, search).goodput / base);
  // Memoised: the same choice object on a second query.
  EXPECT_EQ(&speedup.best(2, 4), &speedup.best(2, 4));
  // Pollux's fair share as the base: speedup 1 there, the others rescaled.
  speedup.set_base(1, 2);
  EXPECT_DOUBLE_EQ(speedup(1, 2), 1.0);
  EXPECT_DOUBLE_EQ(speedup(2, 4),
                   fn.optimize(2, 4, search).goodput / fn.optimize(1, 2, search).goodput);
  EXPECT_THROW(speedup(0, 1), std::invalid_argument);
  EXPECT_THROW(speedup(1, 0), std::invalid_argument);
  EXPECT_THROW(speedup(3, 2), std::invalid_argument);
}

TEST(Speedup, RefusesABaseWithoutGoodput) {
  // 1 replica, batch 8 = init: no accumulation, atomic 8 > max_atomic 4: goodput 0.
  const GoodputFunction fn(params(), {.sqr = 1, .var = 3}, 8);
  const GoodputChoice none = fn.optimize(1, 1, {.max_batch_size = 8, .max_atomic_bsz = 4});
  EXPECT_EQ(none.goodput, 0.0);
  EXPECT_EQ(none.atomic_bsz, 8) << "all tie at 0: the first candidate";
  EXPECT_THROW(SpeedupFunction(fn, {.max_batch_size = 8, .max_atomic_bsz = 4}), std::domain_error);
}

}  // namespace
}  // namespace tidesim::workloads
