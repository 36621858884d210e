#include "workloads/memory.hpp"

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

TEST(Memory, CatalogueProfileRampsToSteady) {
  const auto p = profile_for("resnet50", 64, "amp", "A10");
  EXPECT_EQ(memory_at(p, 0s), p.context_bytes + p.model_state_bytes);
  EXPECT_EQ(memory_at(p, p.ramp_up), p.steady_bytes());
}

}  // namespace
}  // namespace tidesim::workloads
