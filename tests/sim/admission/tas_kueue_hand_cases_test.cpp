// Kueue TAS cases whose nodes upstream builds with Go code, ported by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {
namespace {

// kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_cache_test.go,
// TestFindTopologyAssignments, case "multi-layer topology: mimic a real-world GB200 cluster,
// with NVL36 arch (2GPUs/node); dc required; aizone slices of 48; rack slices of 16;
// TASMultiLayerTopology": 1 dc x 2 aizones x 2 blocks x 2 racks, 18 nodes of 2 GPUs per rack;
// 96 pods of 2 GPUs in aizone slices of 48 and rack slices of 16 use 6 racks, 16 pods each.
TEST(TasKueueHandCases, Gb200MultiLayerSlices) {
  struct Rack {
    const char* az;
    const char* block;
    const char* rack;
  };
  const Rack racks[] = {{"aizone0", "block0", "r0"}, {"aizone0", "block0", "r1"},
                        {"aizone0", "block1", "r2"}, {"aizone0", "block1", "r3"},
                        {"aizone1", "block2", "r4"}, {"aizone1", "block2", "r5"},
                        {"aizone1", "block3", "r6"}, {"aizone1", "block3", "r7"}};
  const std::string dc = "cloud.com/datacenter";
  const std::string az = "cloud.com/aizone";
  const std::string block = "cloud.com/topology-block";
  const std::string rack = "cloud.com/topology-rack";
  std::vector<TasNode> nodes;
  for (const Rack& r : racks) {
    for (int i = 0; i < 18; ++i) {
      TasNode n;
      n.name = std::string(r.block) + "-" + r.rack + "-" + r.az + "-n" + std::to_string(i);
      n.labels = {{dc, "dc0"}, {az, r.az}, {block, r.block}, {rack, r.rack}};
      n.allocatable = {{"nvidia.com/gpu", 2}, {"pods", 110}};
      nodes.push_back(n);
    }
  }
  TasSnapshot snapshot("default", {dc, az, block, rack}, nodes, {});
  TasPodSet ps;
  ps.count = 96;
  ps.requests = {{"nvidia.com/gpu", 2}};
  ps.topology = TopologyRequest{};
  ps.topology->required = dc;
  ps.topology->slice_layers = {{.topology = az, .size = 48}, {.topology = rack, .size = 16}};
  std::vector<PodSetResult> got = snapshot.find_assignments({ps}, TasFeatureGates{});
  ASSERT_EQ(got.size(), 1U);
  ASSERT_EQ(got[0].reason, "");
  TopologyAssignment want{.levels = {dc, az, block, rack},
                          .domains = {{{"dc0", "aizone0", "block0", "r0"}, 16},
                                      {{"dc0", "aizone0", "block0", "r1"}, 16},
                                      {{"dc0", "aizone0", "block1", "r2"}, 16},
                                      {{"dc0", "aizone1", "block2", "r4"}, 16},
                                      {{"dc0", "aizone1", "block2", "r5"}, 16},
                                      {{"dc0", "aizone1", "block3", "r6"}, 16}}};
  EXPECT_EQ(*got[0].assignment, want);
}

}  // namespace
}  // namespace tidesim::tas
