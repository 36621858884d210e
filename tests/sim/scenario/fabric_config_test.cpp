// The `cluster.fabric` section: presets, overrides, and bad input refused at its place.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "tests/common/errors.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

using test::message_of;

// A scenario of two 8-GPU H100 nodes whose `cluster:` section starts at line 2 with `fabric:`
// (its lines from line 4, indented by four spaces) and `group_extra` appended to the group.
std::string scenario_file(const std::string& name, const std::string& fabric,
                          const std::string& group_extra = "") {
  return test::temp_file("fabric-" + name,
                         "name: fabric\ncluster:\n  fabric:\n" + fabric +
                             "  node_groups:\n"
                             "    - {name: gpu, count: 2, gpu: H100-SXM, topology: hgx-h100x8" +
                             group_extra + "}\n" + test::kOneJobWorkload);
}

std::string error_of(const std::string& name, const std::string& fabric,
                     const std::string& group_extra = "") {
  const std::string file = scenario_file(name, fabric, group_extra);
  const std::string message = message_of([&] {
    const Scenario s = load_scenario(file);
    FluidSolver fluid;
    const Cluster cluster(s, fluid);
  });
  std::filesystem::remove(file);
  return message;
}

TEST(FabricConfig, APresetWithAFigureReplaced) {
  const std::string file =
      scenario_file("preset", "    preset: meta-roce\n    nic_bandwidth: 200Gbit/s\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  ASSERT_TRUE(s.cluster.fabric);
  const Fabric& f = s.cluster.fabric->fabric;
  EXPECT_EQ(f.preset, "meta-roce");
  EXPECT_DOUBLE_EQ(f.nic_bandwidth, 25e9);
  ASSERT_EQ(f.tiers.size(), 2u);
  EXPECT_EQ(f.tiers[1].nodes, 384);
  EXPECT_DOUBLE_EQ(f.tiers[1].oversubscription, 7.0);
}

TEST(FabricConfig, TiersThatDoNotAddUpAreRefusedAtTheTier) {
  const std::string e = error_of("tiers",
                                 "    tiers:\n"
                                 "      - {name: leaf, nodes: 4}\n"
                                 "      - {name: spine, nodes: 6}\n");
  EXPECT_NE(e.find(":6:30: cluster.fabric.tiers[1].nodes: the tiers do not add up"),
            std::string::npos)
      << e;
}

TEST(FabricConfig, AnUnknownPresetNamesThePresets) {
  const std::string e = error_of("unknown", "    preset: dgx-superpod\n");
  EXPECT_NE(e.find(":4:13: cluster.fabric.preset: unknown fabric preset 'dgx-superpod'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("dgx-superpod-h100"), std::string::npos) << e;
}

TEST(FabricConfig, MoreGpusThanRailsIsRefused) {
  const std::string e = error_of("rails", "    nics_per_node: 4\n");
  EXPECT_NE(
      e.find(":4:20: cluster.fabric.nics_per_node: node group 'gpu' has 8 GPUs per node, more "
             "than the fabric's 4 rails"),
      std::string::npos)
      << e;
  // Not rail-optimised, four NICs serve eight GPUs.
  EXPECT_EQ(error_of("shared", "    nics_per_node: 4\n    rail_optimized: false\n"), "(no error)");
}

TEST(FabricConfig, AnUplinkBesideAFabricIsRefusedAtTheUplink) {
  const std::string e = error_of("uplink", "    preset: alibaba-hpn\n", ", uplink: 100Gbit/s");
  EXPECT_NE(e.find(":6:74: cluster.node_groups[0].uplink: an uplink and cluster.fabric both set"),
            std::string::npos)
      << e;
}

TEST(FabricConfig, FiguresOutOfRangeAreRefused) {
  EXPECT_NE(error_of("eff", "    efficiency: 1.2\n").find("cluster.fabric.efficiency"),
            std::string::npos);
  EXPECT_NE(error_of("over", "    tiers:\n      - {name: leaf, nodes: 2, oversubscription: 0.5}\n")
                .find("cluster.fabric.tiers[0].oversubscription"),
            std::string::npos);
  EXPECT_NE(error_of("key", "    nics: 8\n").find("cluster.fabric.nics: unknown key"),
            std::string::npos);
}

}  // namespace
}  // namespace tidesim
