// The generic `pcie-N` presets used for trace nodes (docs/model-hardware.md "Generic PCIe
// nodes"): GPUs in pairs behind PCIe switches, all switches on one host bridge.
#include <gtest/gtest.h>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/topologies/gpu_node.hpp"
#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

TEST(PciePreset, NamesAreRecognised) {
  EXPECT_EQ(pcie_preset_gpus("pcie-0"), 0);
  EXPECT_EQ(pcie_preset_gpus("pcie-8"), 8);
  EXPECT_EQ(pcie_preset_gpus("pcie-16"), 16);
  EXPECT_FALSE(pcie_preset_gpus("pcie-17"));
  EXPECT_FALSE(pcie_preset_gpus("pcie-08"));
  EXPECT_FALSE(pcie_preset_gpus("pcie-"));
  EXPECT_FALSE(pcie_preset_gpus("pcie-x"));
  EXPECT_FALSE(pcie_preset_gpus("a10x4-pcie"));
  EXPECT_TRUE(is_preset("pcie-3"));
  EXPECT_FALSE(preset_description("pcie-3").empty());
  EXPECT_THROW(pcie_preset(17, TopologyParams{}), InputError);
}

TEST(PciePreset, PairsShareASwitch) {
  for (int n = 0; n <= 8; ++n) {
    const Topology t = load_topology("pcie-" + std::to_string(n), params_for_gpu("T4"));
    EXPECT_EQ(t.gpu_count(), n);
    EXPECT_TRUE(t.nvlink_groups().empty()) << n;
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        // GPU 2k and 2k+1 behind one switch; other pairs through the host bridge.
        EXPECT_EQ(t.link(a, b), a / 2 == b / 2 ? LinkType::kPix : LinkType::kPhb) << a << b;
      }
    }
  }
}

TEST(PciePreset, ZeroGpuNodeHoldsNothing) {
  const Topology t = preset("pcie-0");
  const GpuNodeState node(t, 1, GpuSharing{SharingMode::kFractional, 1});
  EXPECT_EQ(node.card_count(), 0);
  EXPECT_EQ(node.schedulable_units(), 0);
  EXPECT_EQ(node.free_units(), 0);
  EXPECT_FALSE(t.best_free_set(1, {}));
  EXPECT_EQ(t.gpu_count(), 0);
}

}  // namespace
}  // namespace tidesim
