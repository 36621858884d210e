// Elastic jobs of the Pollux applications (workloads/pollux_elastic.hpp), worked by hand on the
// toy application of pollux_test.cpp (tests/workloads/data/pollux/toy): validation at total
// batches 8 and 16 over two epochs (progress 10 then 20; grad_sqr 1, grad_var 1 then 3), measured
// placements "1" (local 4: 1.0 s, 8: 2.0 s, no sync) and "2" (local 4: 1.2 s, 8: 2.2 s, sync 0.2).
#include "tidesim/workloads/pollux_elastic.hpp"

#include <gtest/gtest.h>

#include <memory>

namespace tidesim::workloads {
namespace {

const char* kToy = "tests/workloads/data/pollux";

std::shared_ptr<const PolluxApplication> toy() {
  return std::make_shared<const PolluxApplication>(kToy, "toy", 5, 0);
}

TEST(PolluxElastic, AFixedBatchProgressesAtGainOverStepTime) {
  const PolluxElastic model(toy(), 16, 1, 0);
  // Work in progress units: progress(2) = 20. Replicas 1..16 / 4 (the smallest local batch).
  EXPECT_EQ(model.steps(), 20);
  EXPECT_EQ(model.min_replicas(), 1);
  EXPECT_EQ(model.max_replicas(), 4);
  const auto speed = model.speed(2, 0);
  // Batch 16 on "2": local 8, no accumulation, 2.2 s a step. Epoch 0: gain (1 + 1) / (1/2 + 1)
  // = 4/3, so 2.2 / (4/3) = 1.65 s per unit; epoch 1: gain (3 + 1) / (3/2 + 1) = 1.6, 1.375 s.
  EXPECT_NEAR(speed->step_seconds_at({2}, 0.0), 1.65, 1e-12);
  EXPECT_NEAR(speed->step_seconds_at({2}, 15.0), 1.375, 1e-12);
  // Its computed part: (2.2 - 0.2) / 2.2 of it.
  EXPECT_NEAR(speed->compute_seconds_at({2}, 0.0), 1.65 * 2.0 / 2.2, 1e-12);
  // The epoch ends at progress(1) = 10; the last has no change after it.
  EXPECT_EQ(speed->next_change(0.0), 10.0);
  EXPECT_EQ(speed->next_change(10.0), std::nullopt);
  // The mean over the job: (10 x 1.65 + 10 x 1.375) / 20 = 1.5125 (= W x 2.2 / 20 of
  // PolluxSpeed, W = 13.75).
  EXPECT_NEAR(speed->step_seconds({2}), 1.5125, 1e-12);
  // On one GPU: local 16 over the largest atomic 8, one accumulation step: 2.0 + 2.0 = 4.0 s,
  // 3.0 s per unit in epoch 0 and 2.5 s in epoch 1.
  EXPECT_NEAR(speed->step_seconds_at({1}, 0.0), 3.0, 1e-12);
  EXPECT_NEAR(speed->step_seconds_at({1}, 10.0), 2.5, 1e-12);
}

// With whole epochs each epoch ends at a whole second from where the job stands (the artifact's
// `delta = round((next_progress - progress) / goodput)`), the rounded time spread over the units
// left; the averages stay exact.
TEST(PolluxElastic, WholeEpochsEndAtAWholeSecond) {
  const PolluxElastic model(toy(), 16, 1, 0, 0, true);
  const auto speed = model.speed(2, 0);
  // Epoch 0 on "2" at 1.65 s a unit: from 1 unit done, 9 left take 14.85 s, 15.
  EXPECT_NEAR(speed->step_seconds_at({2}, 1.0), 15.0 / 9.0, 1e-12);
  // From 3 units done, 7 left: 11.55 s, 12.
  EXPECT_NEAR(speed->step_seconds_at({2}, 3.0), 12.0 / 7.0, 1e-12);
  EXPECT_NEAR(speed->compute_seconds_at({2}, 3.0), 12.0 / 7.0 * 2.0 / 2.2, 1e-12);
  // Epoch 1 (the last, to the job's 20 units) at 1.375 s a unit: 13.75 s, 14.
  EXPECT_NEAR(speed->step_seconds_at({2}, 10.0), 1.4, 1e-12);
  // A tenth of a unit left: 0.1375 s rounds to 0; the epoch ends within a microsecond.
  EXPECT_LE(speed->step_seconds_at({2}, 19.9) * 0.1, 1e-6 + 1e-12);
  EXPECT_GT(speed->step_seconds_at({2}, 19.9), 0.0);
  EXPECT_EQ(speed->next_change(3.0), 10.0);
  EXPECT_NEAR(speed->step_seconds({2}), 1.5125, 1e-12);
  // Without whole epochs, the exact speed.
  EXPECT_NEAR(PolluxElastic(toy(), 16, 1, 0).speed(2, 0)->step_seconds_at({2}, 3.0), 1.65, 1e-12);
}

TEST(PolluxElastic, AnAdaptiveBatchIsTheGoodputBestOfTheCandidates) {
  const auto app = toy();
  // On "2" in epoch 0 every candidate batch B in 8..16 splits into local B/2 <= 8 with no
  // accumulation, atomic a = ceil(B/2): goodput(a) = gain(2a) / step(a) = [2a / (4 + a)] /
  // (0.2 + 0.25 a), 0.833 at a = 4, 0.766 at 5, 0.606 at 8: the smallest batch, 8, wins.
  const PolluxConfig c = pollux_config(*app, {2}, 0, 0);
  EXPECT_EQ(c.batch_size, 8);
  EXPECT_EQ(c.local.atomic, 4);
  EXPECT_EQ(c.local.accum_steps, 0);
  EXPECT_NEAR(c.goodput, 1.0 / 1.2, 1e-12);
  EXPECT_LT(pollux_config(*app, {2}, 0, 16).goodput, c.goodput);
  // On "1": batch 8 is one atomic 8 (goodput 1 / 2.0 = 0.5); any larger batch needs an
  // accumulation step, total 2 x 0.25a for batch 2a, goodput 4 / (4 + a) <= 4/9 at a >= 5.
  const PolluxConfig one = pollux_config(*app, {1}, 0, 0);
  EXPECT_EQ(one.batch_size, 8);
  EXPECT_NEAR(one.goodput, 0.5, 1e-12);
  // The job's speed follows it, epoch by epoch.
  const PolluxElastic adaptive(app, 0, 1, 0);
  EXPECT_NEAR(adaptive.speed(1, 0)->step_seconds_at({1}, 0.0), 2.0, 1e-12);
}

TEST(PolluxElastic, ReplicasOutsideTheRangeAreRefused) {
  EXPECT_THROW(PolluxElastic(toy(), 16, 5, 4), std::invalid_argument);
  EXPECT_THROW((void)pollux_config(*toy(), {}, 0, 16), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim::workloads
