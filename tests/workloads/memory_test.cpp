#include "tidesim/workloads/memory.hpp"

#include <gtest/gtest.h>

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;

ModelProfile toy() {
  ModelProfile p;
  p.context_bytes = 100;
  p.model_state_bytes = 200;
  p.workspace_bytes = 300;
  p.activation_bytes = 400;  // steady 1000
  p.ramp_up = 30s;
  p.peak = {.extra_bytes = 50, .period = 1h, .duration = 2min};
  p.ramp_window = 0s;   // one step at ramp_up
  p.keep_peak = false;  // a framework that gives peak memory back
  return p;
}

TEST(Memory, RampThenSteadyThenPeriodicPeaks) {
  const auto p = toy();
  EXPECT_EQ(memory_at(p, 0s), 300);
  EXPECT_EQ(memory_at(p, -5s), 300);
  EXPECT_EQ(memory_at(p, 29s), 300);
  EXPECT_EQ(memory_at(p, 30s), 1000);
  EXPECT_EQ(memory_at(p, 30s + 59min), 1000);
  // First peak: [30 s + 1 h, 30 s + 1 h + 2 min).
  EXPECT_EQ(memory_at(p, 30s + 1h), 1050);
  EXPECT_EQ(memory_at(p, 30s + 1h + 119s), 1050);
  EXPECT_EQ(memory_at(p, 30s + 1h + 2min), 1000);
  EXPECT_EQ(memory_at(p, 30s + 2h + 1min), 1050);
  EXPECT_EQ(peak_memory(p), 1050);
}

TEST(Memory, NextChangeWalksTheTimeline) {
  const auto p = toy();
  EXPECT_EQ(next_memory_change(p, 0s), 30s);
  EXPECT_EQ(next_memory_change(p, 30s), 30s + 1h);
  EXPECT_EQ(next_memory_change(p, 30s + 1h), 30s + 1h + 2min);
  EXPECT_EQ(next_memory_change(p, 30s + 1h + 2min), 30s + 2h);
  // Every value between two changes is constant.
  Duration t = 0s;
  for (int i = 0; i < 6; ++i) {
    const auto next = *next_memory_change(p, t);
    EXPECT_EQ(memory_at(p, next - 1us), memory_at(p, t));
    EXPECT_NE(memory_at(p, next), memory_at(p, t));
    t = next;
  }
}

TEST(Memory, NoPeaksMeansNoChangeAfterRampUp) {
  auto p = toy();
  p.peak = {};
  EXPECT_EQ(next_memory_change(p, 10s), 30s);
  EXPECT_EQ(next_memory_change(p, 30s), std::nullopt);
  EXPECT_EQ(memory_at(p, 100h), 1000);
  EXPECT_EQ(peak_memory(p), 1000);
}

TEST(Memory, RampGrowsInEqualStepsOverTheWindow) {
  auto p = toy();
  p.ramp_window = 10s;  // growth over [20 s, 30 s) in K = 5 steps of (1000 - 300) / 5 = 140
  EXPECT_EQ(memory_at(p, 19s), 300);
  EXPECT_EQ(memory_at(p, 20s), 300);  // floor(0 x 5 / 10) = 0 steps
  EXPECT_EQ(memory_at(p, 22s - 1us), 300);
  EXPECT_EQ(memory_at(p, 22s), 440);
  EXPECT_EQ(memory_at(p, 24s), 580);
  EXPECT_EQ(memory_at(p, 26s), 720);
  EXPECT_EQ(memory_at(p, 28s), 860);
  EXPECT_EQ(memory_at(p, 30s - 1us), 860);
  EXPECT_EQ(memory_at(p, 30s), 1000);
  EXPECT_EQ(next_memory_change(p, 0s), 22s);
  EXPECT_EQ(next_memory_change(p, 22s), 24s);
  EXPECT_EQ(next_memory_change(p, 29s), 30s);
  EXPECT_EQ(next_memory_change(p, 30s), 30s + 1h);
  // Ramping: growing, [20 s, 30 s).
  EXPECT_FALSE(ramping(p, 19s));
  EXPECT_TRUE(ramping(p, 20s));
  EXPECT_TRUE(ramping(p, 29s));
  EXPECT_FALSE(ramping(p, 30s));
  // A step (window 0) never ramps.
  EXPECT_FALSE(ramping(toy(), 29s));
}

TEST(Memory, CachingAllocatorKeepsThePeak) {
  auto p = toy();
  p.keep_peak = true;  // PyTorch's caching allocator: the peak's blocks stay reserved
  EXPECT_EQ(memory_at(p, 30s + 59min), 1000);
  EXPECT_EQ(memory_at(p, 30s + 1h), 1050);
  EXPECT_EQ(memory_at(p, 30s + 1h + 2min), 1050);  // not given back
  EXPECT_EQ(memory_at(p, 30s + 5h + 30min), 1050);
  EXPECT_EQ(next_memory_change(p, 30s), 30s + 1h);
  EXPECT_EQ(next_memory_change(p, 30s + 1h), std::nullopt);
  EXPECT_EQ(peak_memory(p), 1050);
}

TEST(Memory, WalkVisitsEveryChangeOfARampAndPeaks) {
  auto p = toy();
  p.ramp_window = 7s;  // a window that K does not divide: instants rounded up to the microsecond
  Duration t = 0s;
  int changes = 0;
  while (const auto next = next_memory_change(p, t)) {
    if (*next > 30s + 3h + 2min) {
      break;
    }
    EXPECT_EQ(memory_at(p, *next - 1us), memory_at(p, t));
    EXPECT_NE(memory_at(p, *next), memory_at(p, t));
    t = *next;
    ++changes;
  }
  EXPECT_EQ(changes, 5 + 2 * 3);  // five ramp steps, three peaks each up and down
}

TEST(Memory, CatalogueProfileRampsToSteady) {
  const auto p = profile_for("resnet50", 64, "amp", "A10");
  EXPECT_EQ(memory_at(p, 0s), p.context_bytes + p.model_state_bytes);
  EXPECT_EQ(memory_at(p, p.ramp_up), p.steady_bytes());
  // Built-in models: growth over the whole 10 s ramp-up (assumption), caching allocator.
  EXPECT_EQ(p.ramp_up, 10s);
  EXPECT_EQ(p.ramp_window, 10s);
  EXPECT_TRUE(p.keep_peak);
  EXPECT_TRUE(ramping(p, 0s));
}

}  // namespace
}  // namespace tidesim::workloads
