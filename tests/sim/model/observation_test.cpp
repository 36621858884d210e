// The per-card utilisation samples of the observation model (sim/model/observation.cpp), read
// from whole one-node runs: NVLink utilisation of an all-reduce ring.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <vector>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/workloads/catalogue.hpp"

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
