#include "workloads/step_time.hpp"

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
