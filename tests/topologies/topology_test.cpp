// Topology queries on the presets. Expected bandwidths are computed by hand from the per-link
// figures (CALIBRATION.md): NVLink 25 GB/s per link per direction; PCIe Gen3 12.4 GB/s, Gen4
// 25 GB/s; the SMP (SYS) link 10 GB/s (assumption, TopologyParams::smp_bandwidth).
#include "tidesim/topologies/topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include "tidesim/topologies/presets.hpp"

namespace tidesim {
namespace {

std::vector<bool> all_free(int n) {
  return std::vector<bool>(static_cast<std::size_t>(n), true);
}

TEST(Topology, Dgx1PairBandwidths) {
  const Topology t = preset("dgx1-v100");
  ASSERT_EQ(t.gpu_count(), 8);
  EXPECT_EQ(t.nic_count(), 4);
  EXPECT_EQ(t.cell(0, 3), (LinkCell{LinkType::kNVLink, 2}));
  EXPECT_EQ(t.link(0, 5), LinkType::kSys);
  EXPECT_EQ(t.link(2, 2), LinkType::kSelf);
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 3), 50e9);  // NV2 = 2 x 25
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 1), 25e9);  // NV1
  // GPU0 -> switch -> host bridge -> CPU0 -> CPU1 -> ... -> GPU5: min(12.4 PCIe Gen3, 10 SMP).
  EXPECT_DOUBLE_EQ(t.bandwidth(0, 5), 10e9);
  EXPECT_TRUE(std::isinf(t.bandwidth(4, 4)));
  EXPECT_FALSE(t.has_nvswitch());
  EXPECT_EQ(t.socket_count(), 2);
}

TEST(Topology, Dgx1Rings) {
  const Topology t = preset("dgx1-v100");
  // The NV2 links form one 8-cycle 0-3-2-1-5-6-7-4: every hop 50 GB/s.
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_DOUBLE_EQ(t.ring_bandwidth(all), 50e9);
  // Every Hamiltonian cycle of GPUs 0-3 uses an NV1 edge (0-1, 0-2 or 1-3): 25 GB/s.
  const std::vector<int> quad{0, 1, 2, 3};
  EXPECT_DOUBLE_EQ(t.ring_bandwidth(quad), 25e9);
  // Two GPUs on different sockets: the ring crosses the SMP link once each way: 10 GB/s.
  const std::vector<int> cross{0, 5};
  EXPECT_DOUBLE_EQ(t.ring_bandwidth(cross), 10e9);
  // {0,3} and {5,6} are NV2 pairs, but any ring over the four needs two SYS hops.
  const std::vector<int> split{0, 3, 5, 6};
  EXPECT_DOUBLE_EQ(t.ring_bandwidth(split), 10e9);
  const std::vector<int> one{4};
  EXPECT_TRUE(std::isinf(t.ring_bandwidth(one)));
  // The best order's hops are NVLink all around.
  const auto ring = t.best_ring(all);
  for (std::size_t i = 0; i < ring.size(); ++i) {
    EXPECT_EQ(t.cell(ring[i], ring[(i + 1) % ring.size()]), (LinkCell{LinkType::kNVLink, 2}));
  }
}

TEST(Topology, Dgx1NvlinkQueries) {
  const Topology t = preset("dgx1-v100");
  EXPECT_EQ(t.nvlink_groups(), (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
  const std::vector<int> quad{0, 1, 2, 3};
  const std::vector<int> five{0, 1, 2, 3, 4};
  const std::vector<int> pair{0, 4};
  EXPECT_TRUE(t.fully_nvlink_connected(quad));
  EXPECT_FALSE(t.fully_nvlink_connected(five));  // 1-4 is SYS
  EXPECT_TRUE(t.fully_nvlink_connected(pair));
  // No CPU/NUMA column in the DGX-1 output: NUMA = inferred socket (GPUs 0-3 share PHB).
  EXPECT_EQ(t.numa_node(0), 0);
  EXPECT_EQ(t.numa_node(3), 0);
  EXPECT_EQ(t.numa_node(4), 1);
  EXPECT_EQ(t.cpu_affinity(5), "20-39,60-79");
}

TEST(Topology, Dgx1BestFreeSets) {
  const Topology t = preset("dgx1-v100");
  // Pairs: the NV2 pairs reach 50 GB/s; the lowest is {0,3}.
  EXPECT_EQ(t.best_free_set(2, all_free(8)), (std::vector<int>{0, 3}));
  // Fours: the NV2 edges form an 8-cycle, so no four-ring is all NV2; 25 GB/s is the best and
  // {0,1,2,3} is the lowest set reaching it.
  EXPECT_EQ(t.best_free_set(4, all_free(8)), (std::vector<int>{0, 1, 2, 3}));
  // With GPU1 busy, {0,2,4,6} (0-2 NV1, 2-6 NV1, 6-4 NV1, 4-0 NV2) is the lowest 25 GB/s ring;
  // {0,2,3,4} would need a SYS hop.
  auto free = all_free(8);
  free[1] = false;
  EXPECT_EQ(t.best_free_set(4, free), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(t.best_free_set(8, free), std::nullopt);
  EXPECT_EQ(t.best_free_set(0, free), (std::vector<int>{}));
  EXPECT_EQ(t.best_free_set(1, free), (std::vector<int>{0}));
  EXPECT_THROW(t.best_free_set(2, all_free(4)), std::invalid_argument);
}

TEST(Topology, NvSwitchPresets) {
  const Topology a = preset("dgx-a100");
  EXPECT_TRUE(a.has_nvswitch());
  // 12 NVLink3 links x 25 GB/s into the switch.
  EXPECT_DOUBLE_EQ(a.bandwidth(0, 7), 300e9);
  const std::vector<int> all{0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_DOUBLE_EQ(a.ring_bandwidth(all), 300e9);
  EXPECT_TRUE(a.fully_nvlink_connected(all));
  EXPECT_EQ(a.numa_node(5), 1);
  const Topology h = preset("hgx-h100x8");
  EXPECT_DOUBLE_EQ(h.bandwidth(2, 6), 450e9);  // 18 x 25 GB/s
  EXPECT_EQ(h.nic_count(), 8);
}

TEST(Topology, FourGpuPresets) {
  const Topology a = preset("hgx-a100x4");
  EXPECT_DOUBLE_EQ(a.bandwidth(0, 1), 100e9);  // NV4
  const std::vector<int> all{0, 1, 2, 3};
  EXPECT_DOUBLE_EQ(a.ring_bandwidth(all), 100e9);
  EXPECT_EQ(a.numa_node(2), 1);
  EXPECT_FALSE(a.has_nvswitch());

  const Topology pcie = preset("a10x4-pcie");
  EXPECT_TRUE(pcie.nvlink_groups().empty());
  EXPECT_EQ(pcie.link(0, 1), LinkType::kPix);
  EXPECT_EQ(pcie.link(1, 2), LinkType::kPhb);
  // Every hop of 0-1-2-3 crosses each directed PCIe link once: 25 GB/s (Gen4).
  EXPECT_DOUBLE_EQ(pcie.ring_bandwidth(all), 25e9);
  EXPECT_FALSE(pcie.fully_nvlink_connected(all));

  const Topology mesh = preset("a10x4-nvlink-mesh");
  // Hypothetical NV4 at GA102 bridge speed: 4 x 112.5 / 4 / 2 = 56.25 GB/s per pair.
  EXPECT_DOUBLE_EQ(mesh.bandwidth(0, 3), 56.25e9);
  EXPECT_DOUBLE_EQ(mesh.ring_bandwidth(all), 56.25e9);
  EXPECT_TRUE(mesh.fully_nvlink_connected(all));
}

TEST(Topology, NvidiaSmiBlock) {
  const Topology t = preset("hgx-a100x4");
  EXPECT_EQ(t.to_nvidia_smi(),
            "\tGPU0\tGPU1\tGPU2\tGPU3\n"
            "GPU0\t X \tNV4\tNV4\tNV4\n"
            "GPU1\tNV4\t X \tNV4\tNV4\n"
            "GPU2\tNV4\tNV4\t X \tNV4\n"
            "GPU3\tNV4\tNV4\tNV4\t X \n");
}

// Brute force through the public API: every order of the set, each directed link's bandwidth
// divided by the number of hops crossing it, minimum over links, maximum over orders.
double brute_ring(const Topology& t, std::vector<int> set) {
  double best = -1.0;
  do {
    std::map<int, int> uses;
    for (int l : t.ring_links(set)) {
      ++uses[l];
    }
    double bw = std::numeric_limits<double>::infinity();
    for (const auto& [l, c] : uses) {
      bw = std::min(bw, t.directed_link_bandwidth(l) / c);
    }
    best = std::max(best, bw);
  } while (std::next_permutation(set.begin(), set.end()));
  return best;
}

TEST(Topology, PrunedRingSearchMatchesBruteForce) {
  for (const char* name : {"dgx1-v100", "a10x4-pcie", "dgx-a100"}) {
    const Topology t = preset(name);
    const int n = t.gpu_count();
    for (int mask = 0; mask < (1 << n); ++mask) {
      std::vector<int> set;
      for (int g = 0; g < n; ++g) {
        if ((mask >> g) & 1) {
          set.push_back(g);
        }
      }
      if (set.size() < 2 || set.size() > 6) {
        continue;
      }
      EXPECT_DOUBLE_EQ(t.ring_bandwidth(set), brute_ring(t, set)) << name << " mask " << mask;
    }
  }
}

TEST(Topology, BadQueriesThrow) {
  const Topology t = preset("a10x4-pcie");
  EXPECT_THROW(t.link(0, 4), std::out_of_range);
  const std::vector<int> dup{1, 1};
  EXPECT_THROW(t.ring_bandwidth(dup), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
