#include "tidesim/workloads/step_time.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/common/errors.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;

ModelProfile toy() {
  ModelProfile p;
  p.compute_seconds = 0.2;
  p.input_bytes = 10'000'000;
  p.gradient_bytes = 100'000'000;
  return p;
}

TEST(StepTime, RingAllReduceFormula) {
  // t = S / B x 2(n-1)/n: 100 MB at 10 GB/s over 4 GPUs = 0.01 x 1.5.
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(100'000'000, 4, 10e9), 0.015);
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(100'000'000, 2, 10e9), 0.01);
  EXPECT_DOUBLE_EQ(ring_allreduce_seconds(100'000'000, 1, 10e9), 0.0);
}

TEST(StepTime, ComputeBoundWithTimeSlicingAndSync) {
  // share 0.5 -> compute 0.4 s; input 10 MB at 50 MB/s = 0.2 s (hidden); sync 0.015 s.
  const StepTime s = step_time(
      toy(),
      {.compute_share = 0.5, .input_bandwidth = 50e6, .allreduce_bandwidth = 10e9, .gpus = 4});
  EXPECT_DOUBLE_EQ(s.compute_seconds, 0.4);
  EXPECT_DOUBLE_EQ(s.input_seconds, 0.2);
  EXPECT_DOUBLE_EQ(s.sync_seconds, 0.015);
  EXPECT_DOUBLE_EQ(s.seconds, 0.415);
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 0.2 / 0.415);  // its own compute over the step
}

TEST(StepTime, InputBoundJobLeavesTheGpuIdle) {
  // 10 MB at 20 MB/s = 0.5 s > 0.2 s compute: utilisation 0.2 / 0.5.
  const StepTime s = step_time(toy(), {.input_bandwidth = 20e6});
  EXPECT_DOUBLE_EQ(s.seconds, 0.5);
  EXPECT_DOUBLE_EQ(s.sync_seconds, 0.0);  // one GPU: no all-reduce
  EXPECT_DOUBLE_EQ(s.gpu_utilization, 0.4);
}

TEST(StepTime, RejectsImpossibleConditions) {
  EXPECT_THROW(step_time(toy(), {.compute_share = 0.0}), std::invalid_argument);
  EXPECT_THROW(step_time(toy(), {.compute_share = 1.5}), std::invalid_argument);
  EXPECT_THROW(step_time(toy(), {.gpus = 0}), std::invalid_argument);
  EXPECT_THROW(step_time(toy(), {.allreduce_bandwidth = 0.0, .gpus = 2}), std::invalid_argument);
}

TEST(StepTime, StepsForDuration) {
  EXPECT_EQ(steps_for_duration(100s, 0.25), 400);
  EXPECT_EQ(steps_for_duration(1s, 10.0), 1);  // at least one step
  // 1000 years (3.16e10 s) at 1 ns per step is 3.16e19 steps, past 2^63: the cast to int64 was
  // undefined; now refused (at most 2^50 steps, the bound of a scenario's `steps`).
  EXPECT_EQ(test::message_of([] { steps_for_duration(kMaxInputDuration, 1e-9); }),
            "duration: a run time of 365250d at 1e-09 s per step is 3.15576e+19 steps; at most "
            "2^50");
}

}  // namespace
}  // namespace tidesim::workloads

namespace tidesim::workloads {
namespace {

TEST(StepTime, AllReduceInBurstsIsLimitedOnlyByTheLinksAverageShare) {
  // 2 GPUs, S = 1e9 bytes: V = S x 2(2 - 1)/2 = 1e9 bytes per step. Compute 0.2 s, no input;
  // a burst at 10 GB/s takes 0.1 s, so the step is 0.3 s and the ring's average demand is
  // 1e9 / 0.3 = 3.33e9 bytes/s.
  ModelProfile p;
  p.compute_seconds = 0.2;
  p.gradient_bytes = 1'000'000'000;
  StepConditions c;
  c.gpus = 2;
  c.allreduce_bandwidth = 10e9;
  EXPECT_DOUBLE_EQ(ring_allreduce_volume(p.gradient_bytes, 2), 1e9);
  EXPECT_DOUBLE_EQ(allreduce_average_demand(p, c), 1e9 / 0.3);
  // Its links give it at least that on average: the step is the burst step, and the all-reduce
  // achieves the burst bandwidth.
  c.allreduce_average_bandwidth = 1e9 / 0.3;
  EXPECT_NEAR(step_time(p, c).seconds, 0.3, 1e-12);
  EXPECT_NEAR(step_time(p, c).allreduce_effective_bandwidth, 10e9, 1e-3);
  // Only 2e9 bytes/s on average: a step cannot be shorter than V / 2e9 = 0.5 s; the all-reduce
  // then effectively takes 0.5 - 0.2 = 0.3 s, 1e9 / 0.3 = 3.33e9 bytes/s.
  c.allreduce_average_bandwidth = 2e9;
  EXPECT_DOUBLE_EQ(step_time(p, c).seconds, 0.5);
  EXPECT_NEAR(step_time(p, c).allreduce_effective_bandwidth, 1e9 / 0.3, 1e-3);
  EXPECT_DOUBLE_EQ(step_time(p, c).gpu_utilization, 0.2 / 0.5);
  // One GPU: no ring, no demand.
  c.gpus = 1;
  EXPECT_EQ(allreduce_average_demand(p, c), 0.0);
  EXPECT_EQ(step_time(p, c).allreduce_effective_bandwidth, 0.0);
}

}  // namespace
}  // namespace tidesim::workloads
