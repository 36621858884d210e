// The device plugin's tie-break between equal-ranked cards under time-slicing
// (GpuSharing::tie_break) and the time-sliced share with interference.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kGiB = 1LL << 30;

GpuSharing sliced(TieBreak tie, std::uint64_t seed) {
  return GpuSharing{.mode = SharingMode::kTimeSlicing,
                    .replicas = 2,
                    .policy = ReplicaPolicy::kDistributed,
                    .tie_break = tie,
                    .tie_seed = seed};
}

TEST(DevicePluginTies, LowestIndexAlwaysTakesCardZeroFirst) {
  // Four empty cards tie (0 replicas allocated, none picked): the first unit goes to card 0.
  const Topology t = preset("a10x4-pcie");
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    GpuNodeState node(t, 24 * kGiB, sliced(TieBreak::kLowestIndex, seed));
    EXPECT_EQ(node.allocate(1, 1, 0), std::vector<int>{0});
  }
}

TEST(DevicePluginTies, DevicePluginOrderVariesButKeepsThePolicy) {
  const Topology t = preset("a10x4-pcie");
  std::set<int> first_cards;
  for (std::uint64_t seed = 1; seed <= 32; ++seed) {
    GpuNodeState node(t, 24 * kGiB, sliced(TieBreak::kDevicePlugin, seed));
    const auto a = node.allocate(1, 1, 0);
    ASSERT_TRUE(a.has_value());
    first_cards.insert(a->front());
    // Distributed still holds whatever the ties: three more one-unit pods land on the three
    // cards still at 0 replicas, so after four pods every card holds exactly one.
    for (std::uint64_t p = 2; p <= 4; ++p) {
      ASSERT_TRUE(node.allocate(p, 1, 0).has_value());
    }
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(node.occupants(c).size(), 1u) << "seed " << seed << " card " << c;
    }
  }
  // 32 independent uniform draws among 4 tied cards: all landing on card 0 has probability
  // 4^-31; with these fixed seeds more than one card is the first choice.
  EXPECT_GT(first_cards.size(), 1u);
}

TEST(DevicePluginTies, SameSeedSameChoices) {
  const Topology t = preset("a10x4-pcie");
  GpuNodeState a(t, 24 * kGiB, sliced(TieBreak::kDevicePlugin, 7));
  GpuNodeState b(t, 24 * kGiB, sliced(TieBreak::kDevicePlugin, 7));
  for (std::uint64_t p = 1; p <= 8; ++p) {
    EXPECT_EQ(a.allocate(p, 1, 0), b.allocate(p, 1, 0));
  }
}

TEST(Interference, TimeSlicedShare) {
  // Alone: the whole card. Two compute-bound processes with interference 0.1: (1 - 0.1) / 2 =
  // 0.45 each; without: 0.5. A process placed but not running (its pod starting up) gets nothing
  // and takes nothing from the one that runs.
  const Topology t = preset("a10x4-pcie");
  GpuSharing s = sliced(TieBreak::kLowestIndex, 0);
  s.interference = 0.1;
  GpuNodeState node(t, 24 * kGiB, s);
  const auto compute_bound = [](std::uint64_t, double share) { return share; };
  ASSERT_EQ(node.allocate_on(1, {0}, 0), std::vector<int>{0});
  node.set_running(1, true);
  node.divide_time(0, compute_bound);
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 1.0);
  ASSERT_EQ(node.allocate_on(2, {0}, 0), std::vector<int>{0});
  EXPECT_FALSE(node.needs_division(0));
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(node.compute_share(2, 0), 0.0);
  node.set_running(2, true);
  node.divide_time(0, compute_bound);
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 0.45);
  EXPECT_DOUBLE_EQ(node.compute_share(2, 0), 0.45);
  // The pod of process 2 crash-loops: its container is gone, process 1 has the card again.
  node.set_running(2, false);
  node.divide_time(0, compute_bound);
  EXPECT_DOUBLE_EQ(node.compute_share(1, 0), 1.0);
  EXPECT_DOUBLE_EQ(node.compute_share(2, 0), 0.0);
  s.interference = 1.0;
  EXPECT_THROW(GpuNodeState(t, kGiB, s), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
