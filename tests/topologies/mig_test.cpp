// MIG profiles and layouts (topologies/mig.hpp) and MIG instances on a node (GpuNodeState).
#include "tidesim/topologies/mig.hpp"

#include <gtest/gtest.h>

#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kMiB = 1024LL * 1024;

TEST(MigProfiles, FollowTheUserGuideTables) {
  const GpuModel& a40 = gpu_model("A100-SXM4-40");
  ASSERT_EQ(mig_profiles(a40).size(), 6u);
  const MigProfile* small = mig_profile(a40, "1g.5gb");
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->max_instances, 7);
  EXPECT_EQ(mig_profile(a40, "2g.10gb")->max_instances, 3);
  EXPECT_EQ(mig_profile(a40, "3g.20gb")->max_instances, 2);
  EXPECT_EQ(mig_profile(a40, "1g.10gb")->max_instances, 4);
  // 1/7 of the SMs; 1/8 of the 40,960 MiB the card reports = 5,120 MiB.
  EXPECT_DOUBLE_EQ(mig_compute_fraction(*small), 1.0 / 7.0);
  EXPECT_EQ(mig_slice_memory(*small, 40960 * kMiB), 5120 * kMiB);
  // 3g.20gb: 3/7 of the SMs, 4/8 of the memory.
  EXPECT_DOUBLE_EQ(mig_compute_fraction(*mig_profile(a40, "3g.20gb")), 3.0 / 7.0);
  EXPECT_EQ(mig_slice_memory(*mig_profile(a40, "3g.20gb"), 40960 * kMiB), 20480 * kMiB);
  EXPECT_EQ(mig_profile(a40, "1g.10gb_typo"), nullptr);
  EXPECT_NE(mig_profile(gpu_model("A100-SXM4-80"), "7g.80gb"), nullptr);
  EXPECT_NE(mig_profile(gpu_model("H100-SXM"), "1g.10gb"), nullptr);
  EXPECT_EQ(mig_profile(gpu_model("H100-SXM"), "1g.5gb"), nullptr);
  EXPECT_TRUE(mig_profiles(gpu_model("A10")).empty());
}

TEST(MigProfiles, LayoutsAreCheckedAgainstTheCard) {
  const GpuModel& a40 = gpu_model("A100-SXM4-40");
  EXPECT_EQ(mig_layout_error(a40, {"7g.40gb"}), std::nullopt);
  EXPECT_EQ(mig_layout_error(a40, std::vector<std::string>(7, "1g.5gb")), std::nullopt);
  EXPECT_EQ(mig_layout_error(a40, {"4g.20gb", "3g.20gb"}), std::nullopt);  // 7 compute, 8 memory
  EXPECT_EQ(mig_layout_error(a40, {"3g.20gb", "2g.10gb", "2g.10gb"}), std::nullopt);
  // Eight 1g.5gb: the profile allows 7 per card.
  EXPECT_EQ(*mig_layout_error(a40, std::vector<std::string>(8, "1g.5gb")),
            "a card holds at most 7 x 1g.5gb");
  // 4g + 4g: one 4g.20gb per card.
  EXPECT_EQ(*mig_layout_error(a40, {"4g.20gb", "4g.20gb"}), "a card holds at most 1 x 4g.20gb");
  // 3g + 3g + 1g.5gb: 7 compute slices but 4 + 4 + 1 = 9 memory slices.
  EXPECT_EQ(*mig_layout_error(a40, {"3g.20gb", "3g.20gb", "1g.5gb"}),
            "the layout takes 9 memory slices; a card has 8");
  // 4g + 2g + 2g: 8 compute slices.
  EXPECT_EQ(*mig_layout_error(a40, {"4g.20gb", "2g.10gb", "2g.10gb"}),
            "the layout takes 8 compute slices; a card has 7");
  EXPECT_NE(mig_layout_error(a40, {"1g.10gb.me"})->find("has no MIG profile '1g.10gb.me'"),
            std::string::npos);
  EXPECT_NE(mig_layout_error(gpu_model("A10"), {"1g.5gb"})->find("has no MIG"), std::string::npos);
}

TEST(MigProfiles, ARequestNamesItsProfile) {
  Resources r;
  EXPECT_EQ(mig_request(r), std::nullopt);
  r.extended["nvidia.com/gpumem"] = 100;
  EXPECT_EQ(mig_request(r), std::nullopt);
  r.extended["nvidia.com/mig-2g.10gb"] = 1;
  EXPECT_EQ(mig_request(r), "2g.10gb");
}

GpuNodeState node(const std::vector<std::string>& layout) {
  const GpuModel& a40 = gpu_model("A100-SXM4-40");
  GpuSharing sharing;
  sharing.mode = SharingMode::kMig;
  for (const auto& p : layout) {
    sharing.mig_layout.push_back(*mig_profile(a40, p));
  }
  // Four A100s (hgx-a100x4), each with `layout`.
  return GpuNodeState(load_topology("hgx-a100x4", params_for_gpu("A100-SXM4-40")), 40960 * kMiB,
                      sharing);
}

TEST(MigNode, InstancesHoldOneProcessEachWithTheirOwnMemoryAndCompute) {
  GpuNodeState n = node({"3g.20gb", "2g.10gb", "2g.10gb"});
  EXPECT_EQ(n.schedulable_units(), 12);  // 4 cards x 3 instances
  EXPECT_EQ(n.free_units(), 12);
  // The lowest free instance of the profile: card 0's first 2g.10gb, then its second.
  EXPECT_EQ(n.allocate_mig(1, "2g.10gb"), std::vector<int>{0});
  EXPECT_EQ(n.allocate_mig(2, "2g.10gb"), std::vector<int>{0});
  EXPECT_EQ(n.allocate_mig(3, "2g.10gb"), std::vector<int>{1});
  EXPECT_EQ(n.allocate_mig(4, "3g.20gb"), std::vector<int>{0});
  EXPECT_EQ(n.free_units(), 8);
  EXPECT_DOUBLE_EQ(n.compute_share(1, 0), 2.0 / 7.0);
  EXPECT_DOUBLE_EQ(n.compute_share(4, 0), 3.0 / 7.0);
  // No interference: a third process on card 0 leaves the others' shares as they were.
  EXPECT_DOUBLE_EQ(n.compute_share(2, 0), 2.0 / 7.0);
  EXPECT_EQ(n.memory_limit(1, 0), 10240 * kMiB);  // 2/8 of 40,960 MiB
  EXPECT_EQ(n.memory_limit(4, 0), 20480 * kMiB);
  // Process 1 passes its 10,240 MiB: it alone fails, though the card (40,960 MiB) has room.
  EXPECT_FALSE(n.set_memory(4, 0, 20000 * kMiB));
  EXPECT_FALSE(n.set_memory(2, 0, 10000 * kMiB));
  EXPECT_TRUE(n.set_memory(1, 0, 10241 * kMiB));
  EXPECT_FALSE(n.set_memory(2, 0, 10240 * kMiB));  // its neighbour still allocates
  // Released, the instance is free again and goes to the next request.
  n.release(1);
  EXPECT_EQ(n.allocate_mig(5, "2g.10gb"), std::vector<int>{0});
  // The single strategy's request (any profile) takes the lowest free instance: card 1's 3g.
  EXPECT_EQ(n.allocate_mig(6, ""), std::vector<int>{1});
  EXPECT_DOUBLE_EQ(n.compute_share(6, 1), 3.0 / 7.0);
  // No free 7g profile exists on this layout.
  EXPECT_EQ(n.allocate_mig(7, "7g.40gb"), std::nullopt);
}

}  // namespace
}  // namespace tidesim
