// The physics of shared links: ring collectives as fluid flows over a node's directed links.
// Expected rates by hand: max-min shares of the per-direction link bandwidths (NVLink 25 GB/s
// per link; V100 hosts PCIe Gen3 12.4 GB/s; SMP 10 GB/s, an assumption).
#include "tidesim/topologies/link_flows.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

TEST(LinkFlows, TwoAllReducesSharingAnNvlinkGetHalfEach) {
  const Topology t = preset("dgx1-v100");
  FluidSolver solver;
  TopologyFlows flows(t, solver);
  const std::vector<int> pair{0, 3};  // joined by NV2: 50 GB/s each way
  const FlowId a = flows.add_ring(pair);
  solver.update();
  EXPECT_DOUBLE_EQ(solver.rate(a), 50e9);
  // A second job time-sliced onto the same two GPUs crosses the same NV2 link both ways.
  const FlowId b = flows.add_ring(pair);
  EXPECT_EQ(solver.update(), (std::vector<FlowId>{a, b}));
  EXPECT_DOUBLE_EQ(solver.rate(a), 25e9);
  EXPECT_DOUBLE_EQ(solver.rate(b), 25e9);
  // All-reduce of 1 GB over 2 GPUs: t = S / B x 2(n-1)/n = 1e9 / 25e9 x 1 = 40 ms (20 ms alone).
  EXPECT_DOUBLE_EQ(1e9 / solver.rate(a) * 2.0 * (2 - 1) / 2, 0.04);
}

TEST(LinkFlows, DisjointLinksDoNotSlowEachOther) {
  const Topology t = preset("dgx1-v100");
  FluidSolver solver;
  TopologyFlows flows(t, solver);
  const std::vector<int> left{0, 3};
  const std::vector<int> right{1, 2};  // another NV2 pair
  const FlowId a = flows.add_ring(left);
  solver.update();
  const FlowId b = flows.add_ring(right);
  // Only the new flow is re-solved and reported: a shares no link with it.
  EXPECT_EQ(solver.update(), (std::vector<FlowId>{b}));
  EXPECT_EQ(solver.last_component_flows(), 1);
  EXPECT_DOUBLE_EQ(solver.rate(a), 50e9);
  EXPECT_DOUBLE_EQ(solver.rate(b), 50e9);
  // The full 8-GPU ring (all NV2 hops) alone runs at 50 GB/s too.
  FluidSolver solo;
  TopologyFlows solo_flows(t, solo);
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  const FlowId ring = solo_flows.add_ring(all);
  solo.update();
  EXPECT_DOUBLE_EQ(solo.rate(ring), t.ring_bandwidth(all));
  EXPECT_DOUBLE_EQ(solo.rate(ring), 50e9);
}

TEST(LinkFlows, RingOverASysHopIsLimitedByIt) {
  const Topology t = preset("dgx1-v100");
  FluidSolver solver;
  TopologyFlows flows(t, solver);
  const std::vector<int> cross{0, 5};  // SYS: PCIe Gen3 (12.4) and the SMP link (10)
  const FlowId a = flows.add_ring(cross);
  solver.update();
  EXPECT_DOUBLE_EQ(solver.rate(a), 10e9);
  // A second cross-socket job (1 <-> 4) crosses the same SMP link in the same directions.
  const std::vector<int> other{1, 4};
  const FlowId b = flows.add_ring(other);
  solver.update();
  EXPECT_DOUBLE_EQ(solver.rate(a), 5e9);
  EXPECT_DOUBLE_EQ(solver.rate(b), 5e9);
  solver.remove_flow(b);
  EXPECT_EQ(solver.update(), (std::vector<FlowId>{a}));
  EXPECT_DOUBLE_EQ(solver.rate(a), 10e9);
}

TEST(LinkFlows, PcieJobsShareTheSwitchUplinks) {
  // a10x4-pcie: GPU0/1 behind one switch, GPU2/3 behind another, PCIe Gen4 25 GB/s.
  const Topology t = preset("a10x4-pcie");
  FluidSolver solver;
  TopologyFlows flows(t, solver);
  const std::vector<int> a_gpus{0, 2};
  const std::vector<int> b_gpus{1, 3};
  const FlowId a = flows.add_ring(a_gpus);
  const FlowId b = flows.add_ring(b_gpus);
  solver.update();
  // Both cross switch0 <-> host bridge <-> switch1 in both directions: 25 / 2 each.
  EXPECT_DOUBLE_EQ(solver.rate(a), 12.5e9);
  EXPECT_DOUBLE_EQ(solver.rate(b), 12.5e9);
}

TEST(LinkFlows, NvSwitchTransfersShareTheSenderPort) {
  const Topology t = preset("dgx-a100");
  FluidSolver solver;
  TopologyFlows flows(t, solver);
  const FlowId x = flows.add_transfer(0, 1);
  const FlowId y = flows.add_transfer(0, 2);
  const FlowId z = flows.add_transfer(4, 5);
  solver.update();
  // GPU0's 12 links into the switch (300 GB/s) carry x and y; z uses other ports.
  EXPECT_DOUBLE_EQ(solver.rate(x), 150e9);
  EXPECT_DOUBLE_EQ(solver.rate(y), 150e9);
  EXPECT_DOUBLE_EQ(solver.rate(z), 300e9);
}

}  // namespace
}  // namespace tidesim
