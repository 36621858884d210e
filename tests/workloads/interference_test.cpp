// Co-location on one time-sliced card with interference (GpuSharing::interference) through the
// step-time model: sharing raises the pair's total throughput when each job leaves the card half
// idle, and lowers it when both are compute-bound. Numbers derived by hand below.
#include <gtest/gtest.h>

#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/presets.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::workloads {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;

// Steps per second of each of two jobs of `profile` sharing card 0 of a time-sliced node with
// `interference`, each reading input at `input_bandwidth`.
double shared_rate(const ModelProfile& profile, double input_bandwidth, double interference) {
  const Topology t = preset("a10x4-pcie");
  GpuSharing s{.mode = SharingMode::kTimeSlicing, .replicas = 2};
  s.interference = interference;
  GpuNodeState node(t, 24 * kGiB, s);
  EXPECT_TRUE(node.allocate_on(1, {0}, 0).has_value());
  EXPECT_TRUE(node.allocate_on(2, {0}, 0).has_value());
  node.set_running(1, true);
  node.set_running(2, true);
  StepConditions c;
  c.input_bandwidth = input_bandwidth;
  // Each process keeps the card busy for its step's compute (the execution model's rule).
  node.divide_time(0, [&](std::uint64_t, double share) {
    StepConditions at = c;
    at.compute_share = share;
    return step_time(profile, at).gpu_utilization;
  });
  c.compute_share = node.compute_share(1, 0);
  return 1.0 / step_time(profile, c).seconds;
}

double alone_rate(const ModelProfile& profile, double input_bandwidth) {
  StepConditions c;
  c.input_bandwidth = input_bandwidth;
  return 1.0 / step_time(profile, c).seconds;
}

ModelProfile profile(double compute_seconds, std::int64_t input_bytes) {
  ModelProfile p;
  p.compute_seconds = compute_seconds;
  p.input_bytes = input_bytes;
  return p;
}

TEST(Interference, HalfIdleJobsGainFromSharing) {
  // 0.1 s of compute per step, 0.2 s of input (2e8 B at 1e9 B/s) overlapped with it: alone a
  // step takes max(0.1, 0.2) = 0.2 s (5 steps/s) and the card is busy half the time.
  const ModelProfile p = profile(0.1, 200'000'000);
  EXPECT_DOUBLE_EQ(alone_rate(p, 1e9), 5.0);
  // Shared with interference 0.1: each gets (1 - 0.1) / 2 = 0.45 of the card, compute takes
  // 0.1 / 0.45 = 0.2222 s > 0.2 s of input: 4.5 steps/s each, 9 for the pair. One after the
  // other (exclusive) the card gives 5 steps/s: sharing raises the total by 80%.
  const double each = shared_rate(p, 1e9, 0.1);
  EXPECT_NEAR(each, 4.5, 1e-9);
  EXPECT_GT(2.0 * each, alone_rate(p, 1e9));
}

TEST(Interference, ComputeBoundJobsLoseFromSharing) {
  // 0.1 s of compute, no input: alone 10 steps/s, the card always busy. Shared with interference
  // 0.1: 0.1 / 0.45 = 0.2222 s a step, 4.5 steps/s each, 9 for the pair < 10 alone: sharing
  // lowers the total by the 10% the card loses.
  const ModelProfile p = profile(0.1, 0);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(alone_rate(p, inf), 10.0);
  const double each = shared_rate(p, inf, 0.1);
  EXPECT_NEAR(each, 4.5, 1e-9);
  EXPECT_LT(2.0 * each, alone_rate(p, inf));
  // Without interference (ideal time-slicing, the default) the pair gets exactly the card: 10.
  EXPECT_NEAR(2.0 * shared_rate(p, inf, 0.0), 10.0, 1e-9);
}

}  // namespace
}  // namespace tidesim::workloads
