// The per-card utilisation samples of the observation model (sim/model/observation.cpp), read
// from whole one-node runs: GPU utilisation of a job whose step time is measured, and NVLink
// utilisation of an all-reduce ring.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/pollux.hpp"

namespace tidesim {
namespace {

using test::Observed;

// The samples taken while the one job runs (its cards allocated), at least one.
std::vector<NodeState> while_running(const Observed& o) {
  std::vector<NodeState> out;
  for (const ClusterSample& c : o.samples) {
    if (c.running_jobs == 1) {
      out.push_back(c.nodes.at(0));
    }
  }
  return out;
}

std::vector<double> descending(std::vector<double> v) {
  std::sort(v.begin(), v.end(), std::greater<>());
  return v;
}

// The toy application of the Pollux tests (tests/workloads/data/pollux/toy), measured on one GPU
// ("1": local batch 4, step 1.0 s, sync 0 s) and on two GPUs of one node ("2": local batch 4,
// step 1.2 s, sync 0.2 s).
std::shared_ptr<const workloads::PolluxApplication> toy() {
  return std::make_shared<const workloads::PolluxApplication>("tests/workloads/data/pollux", "toy",
                                                              5, 0);
}

Observed run_measured(int replicas, int batch_size, std::int64_t steps) {
  const Scenario s = load_scenario("tests/sim/data/measured_one_node.yaml");
  Workload w = make_jobs(s, 1);
  EXPECT_EQ(w.jobs.size(), 1u);
  auto& job = w.jobs[0];
  job.replicas = replicas;
  job.steps = steps;
  const auto speed = std::make_shared<const workloads::PolluxSpeed>(toy(), batch_size, replicas);
  EXPECT_EQ(speed->local().atomic, 4);
  EXPECT_EQ(speed->local().accum_steps, 0);
  job.measured = speed;
  return test::run(s, w);
}

// A measured job alone on one T4 whose placement syncs nothing (toy "1": step 1.0 s, of which
// sync 0 s) keeps its card busy the whole step: (1.0 - 0) / 1.0 = 100%. The catalogue model
// (resnet50, batch 32, only there for memory) would give its own compute seconds / 1.0 s.
TEST(Observation, AMeasuredJobIsBusyForItsMeasuredComputeAlone) {
  const Observed o = run_measured(1, 4, 200);
  const auto samples = while_running(o);
  ASSERT_FALSE(samples.empty());
  for (const NodeState& n : samples) {
    const auto u = descending(n.gpu_utilization);
    ASSERT_EQ(u.size(), 4u);
    EXPECT_DOUBLE_EQ(u[0], 1.0);
    EXPECT_EQ(u[1], 0.0);
  }
}

// Two replicas on two T4 of one node (toy "2", batch 8 = 2 x local 4: step 1.2 s, sync 0.2 s):
// each card computes 1.2 - 0.2 = 1.0 s of every 1.2 s step, 1.0 / 1.2 = 83.3%.
TEST(Observation, AMeasuredJobIsBusyForItsStepLessTheGradientSync) {
  const Observed o = run_measured(2, 8, 200);
  const auto samples = while_running(o);
  ASSERT_FALSE(samples.empty());
  for (const NodeState& n : samples) {
    const auto u = descending(n.gpu_utilization);
    ASSERT_EQ(u.size(), 4u);
    EXPECT_NEAR(u[0], 1.0 / 1.2, 1e-12);
    EXPECT_NEAR(u[1], 1.0 / 1.2, 1e-12);
    EXPECT_EQ(u[2], 0.0);
  }
}

// A GPT-2 124M pair (batch 8, amp) alone on an NVLink A10 node (a10x4-nvlink-mesh: NV4 between
// every pair, 4 x 14.0625 GB/s = 56.25 GB/s per pair and direction, so each card has
// C = 3 x 56.25 = 168.75 GB/s of NVLink). Each card sends the ring's all-reduce volume
// V = 2 (n - 1) / n x S = S (n = 2) = 4 x 124,439,808 = 497,759,232 bytes once per step; the burst
// takes sync = V / 56.25 GB/s = 8.85 ms, the step is compute + sync (compute: the catalogue's
// seconds on an A10, about 0.226 s; its input is 16 KiB), about 0.235 s, and the ring's flow is
// capped at its average demand V / step, about 2.11 GB/s, which it gets (nothing else shares the
// links). The card's links carry that on average: utilisation = V / step / C, about 1.25% on each
// of the two cards, 0 on the others. Discounting it again by sync / step (8.85 ms / 0.236 s) gave
// about 0.05%.
TEST(Observation, NvlinkUtilisationIsTheRingsAverageRateOverTheCardsCapacity) {
  const Scenario s = load_scenario("tests/sim/data/nvlink_pair.yaml");
  const Workload w = make_jobs(s, 1);
  const Observed o = test::run(s, w);
  const auto samples = while_running(o);
  ASSERT_FALSE(samples.empty());

  const workloads::ModelProfile profile = workloads::profile_for("gpt2-124m", 8, "amp", "A10");
  const double volume = 4.0 * 124'439'808.0;
  ASSERT_EQ(static_cast<double>(profile.gradient_bytes), volume);
  const double pair = 4 * 112.5e9 / 4 / 2;
  const double step = profile.compute_seconds + volume / pair;
  const double expected = volume / step / (3 * pair);
  EXPECT_NEAR(expected, 0.0125, 0.0002);
  for (const NodeState& n : samples) {
    const auto v = descending(n.nvlink_utilization);
    ASSERT_EQ(v.size(), 4u);
    EXPECT_NEAR(v[0], expected, 1e-9 * expected);
    EXPECT_NEAR(v[1], expected, 1e-9 * expected);
    EXPECT_EQ(v[2], 0.0);
    EXPECT_EQ(v[3], 0.0);
  }
}

}  // namespace
}  // namespace tidesim
