// KEP-5732's placement phases (policies/plugins/topology_placement.hpp): PlacementBinPacking's
// score ported from Kubernetes' own table tests, and hand-worked placement choices.
#include <gtest/gtest.h>

#include "tidesim/policies/plugins/topology_placement.hpp"

namespace tidesim::policies {
namespace {

struct NodeUse {
  std::int64_t cpu_alloc, mem_alloc, gpu_alloc;
  std::int64_t cpu_used = 0, mem_used = 0, gpu_used = 0;
};

ClusterView view_of(const std::vector<NodeUse>& nodes) {
  ClusterView v;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    NodeInfo n;
    n.node.name = "node" + std::to_string(i + 1);
    n.node.allocatable =
        Resources{nodes[i].cpu_alloc, nodes[i].mem_alloc, nodes[i].gpu_alloc, 0, {}};
    n.requested = Resources{nodes[i].cpu_used, nodes[i].mem_used, nodes[i].gpu_used, 0, {}};
    n.non_zero_requested = n.requested;
    v.nodes.push_back(n);
  }
  return v;
}

TopologyPlacementArgs args_of(ScoringStrategy type, std::vector<ResourceSpec> resources,
                              std::vector<ShapePoint> shape = {}) {
  TopologyPlacementArgs a;
  a.fit.strategy = type;
  a.fit.resources = std::move(resources);
  a.fit.shape = std::move(shape);
  return a;
}

std::vector<ResourceSpec> cpu_mem(std::int64_t cpu_weight = 1) {
  return {make_resource_spec("cpu", cpu_weight), make_resource_spec("memory", 1)};
}

// Ported from kubernetes/kubernetes
// pkg/scheduler/framework/plugins/noderesources/placement_bin_packing_test.go,
// TestPlacementBinPackingScore: two 5000m / 5000 nodes, pods foo (1000m, 0) and bar (2000m, 2000)
// proposed on them; `proposed` is their summed request.
TEST(PlacementBinPacking, UpstreamScoreCases) {
  const std::vector<int> both{0, 1};
  const Resources foo_bar{3000, 2000, 0, 0, {}};
  const auto two = view_of({{5000, 5000, 0}, {5000, 5000, 0}});
  const auto most = ScoringStrategy::kMostAllocated;
  // "Computes score based on total requests": cpu 0.3, memory 0.2 -> 25.
  EXPECT_EQ(placement_bin_packing_score(args_of(most, cpu_mem()), two, both, foo_bar), 25);
  // "Computes score using weights": (4 * 30 + 20) / 5 = 28.
  EXPECT_EQ(placement_bin_packing_score(args_of(most, cpu_mem(4)), two, both, foo_bar), 28);
  // "Handles multiple pods per node": the same totals on one node, 28.
  EXPECT_EQ(placement_bin_packing_score(args_of(most, cpu_mem(4)), two, both, foo_bar), 28);
  // "Does not include nodes from outside of placement": node3 is not counted, 25.
  const auto three = view_of({{5000, 5000, 0}, {5000, 5000, 0}, {5000, 5000, 0}});
  EXPECT_EQ(placement_bin_packing_score(args_of(most, cpu_mem()), three, both, foo_bar), 25);
  // "Includes pre-existing pods from outside of pod group": baz (1000m) on node1: cpu 0.4 -> 30.
  const auto with_baz = view_of({{5000, 5000, 0, 1000, 0, 0}, {5000, 5000, 0}});
  EXPECT_EQ(placement_bin_packing_score(args_of(most, cpu_mem()), with_baz, both, foo_bar), 30);
  auto gpu = cpu_mem();
  gpu.push_back(make_resource_spec("nvidia.com/gpu", 1));
  // "Includes scalar resources if any pod in pod group has nonzero requests": foo (1000m, 0, 0),
  // bar (1000m, 2000, 1), baz (1000m, 0, 0) on node1; 5 GPUs a node: cpu 30, memory 20, gpu 10 ->
  // 20.
  const auto gpus = view_of({{5000, 5000, 5, 1000, 0, 0}, {5000, 5000, 5}});
  EXPECT_EQ(
      placement_bin_packing_score(args_of(most, gpu), gpus, both, Resources{2000, 2000, 1, 0, {}}),
      20);
  // "Does not include scalar resources if all pods in pod group have zero requests": baz holds a
  // GPU, the group asks none: cpu 30, memory 20 -> 25.
  const auto baz_gpu = view_of({{5000, 5000, 5, 1000, 0, 1}, {5000, 5000, 5}});
  EXPECT_EQ(placement_bin_packing_score(args_of(most, gpu), baz_gpu, both,
                                        Resources{2000, 2000, 0, 0, {}}),
            25);
}

// Ported from the same file, TestPlacementBinPackingScore_Strategies: nodes 100m/100,
// 200m/200, 300m/300; foo (100m, 0) on node1 and bar (200m, 60) on node2: cpu 50 %, memory 10 %.
TEST(PlacementBinPacking, UpstreamStrategyCases) {
  const auto v = view_of({{100, 100, 0}, {200, 200, 0}, {300, 300, 0}});
  const std::vector<int> all{0, 1, 2};
  const Resources group{300, 60, 0, 0, {}};
  const auto score = [&](const TopologyPlacementArgs& a) {
    return placement_bin_packing_score(a, v, all, group);
  };
  EXPECT_EQ(score(args_of(ScoringStrategy::kLeastAllocated, cpu_mem())), 70);  // "LeastAllocated"
  EXPECT_EQ(score(args_of(ScoringStrategy::kMostAllocated, cpu_mem())), 30);   // "MostAllocated"
  const auto rtcr = ScoringStrategy::kRequestedToCapacityRatio;
  // "RequestedToCapacityRatio with shape equivalent to LeastAllocated" (shape scores x10).
  EXPECT_EQ(score(args_of(rtcr, cpu_mem(), {{0, 100}, {100, 0}})), 70);
  // "... equivalent to MostAllocated".
  EXPECT_EQ(score(args_of(rtcr, cpu_mem(), {{0, 0}, {100, 100}})), 30);
  // "... with custom shape": (0,0), (50,10), (100,0): cpu 100, memory 20 -> 60.
  EXPECT_EQ(score(args_of(rtcr, cpu_mem(), {{0, 0}, {50, 100}, {100, 0}})), 60);
}

// Racks a (n0, n1) and b (n2, n3) of 8-GPU nodes; `used` GPUs already requested per node.
ClusterView racks(const std::vector<std::int64_t>& used) {
  ClusterView v;
  const char* rack[] = {"a", "a", "b", "b"};
  for (std::size_t i = 0; i < 4; ++i) {
    NodeInfo n;
    n.node.name = "n" + std::to_string(i);
    n.node.labels["rack"] = rack[i];
    n.node.allocatable = Resources{64000, 256LL << 30, 8, 0, {}};
    n.requested.gpus = used[i];
    n.non_zero_requested.gpus = used[i];
    v.nodes.push_back(n);
  }
  return v;
}

PodGroupStatus group(int pods, int min_count) {
  PodGroupStatus g;
  g.name = "job";
  g.members = pods;
  g.min_member = min_count;
  g.topology_key = "rack";
  return g;
}

PodSpec pod_of(std::int64_t gpus) {
  PodSpec p;
  p.requests.gpus = gpus;
  return p;
}

// The KEP's choice: two 4-GPU pods, minCount 2. Rack a has 4 GPUs used on n0 (12 free), rack b
// none (16 free); both hold the 2 pods (PodGroupPodsCount 100 each). PlacementBinPacking on GPUs,
// MostAllocated: rack a (4 + 8) / 16 = 75, rack b 8 / 16 = 50: rack a, the tighter fit, wins.
TEST(TopologyPlacementChoice, TightestFeasibleRackWins) {
  const auto a =
      args_of(ScoringStrategy::kMostAllocated, {make_resource_spec("nvidia.com/gpu", 1)});
  const PlacementDecision d = decide_placement(a, racks({4, 0, 0, 0}), pod_of(4), group(2, 2));
  ASSERT_EQ(d.candidates.size(), 2u);
  EXPECT_EQ(d.candidates[0].bin_packing, 75);
  EXPECT_EQ(d.candidates[1].bin_packing, 50);
  EXPECT_EQ(d.candidates[0].pods_count, 100);
  EXPECT_EQ(d.candidates[1].pods_count, 100);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.candidates[*d.chosen].domain, "a");
}

// More pods placed wins when minCount < count: 4 pods of 4 GPUs, minCount 2. Rack a has n0 full:
// 2 pods fit on n1 (bin packing (8 + 8) / 16 = 100, PodGroupPodsCount 2 of the best 4 -> 50:
// 150); rack b holds all 4 (16 / 16 = 100, count 100: 200): rack b.
TEST(TopologyPlacementChoice, MorePodsPlacedOutweighsTighterFit) {
  const auto a =
      args_of(ScoringStrategy::kMostAllocated, {make_resource_spec("nvidia.com/gpu", 1)});
  const PlacementDecision d = decide_placement(a, racks({8, 0, 0, 0}), pod_of(4), group(4, 2));
  ASSERT_EQ(d.candidates.size(), 2u);
  EXPECT_EQ(d.candidates[0].pods, 2);
  EXPECT_EQ(d.candidates[1].pods, 4);
  EXPECT_EQ(d.candidates[0].bin_packing, 100);
  EXPECT_EQ(d.candidates[0].pods_count, 50);
  EXPECT_EQ(d.candidates[1].bin_packing, 100);
  EXPECT_EQ(d.candidates[1].pods_count, 100);
  ASSERT_TRUE(d.chosen);
  EXPECT_EQ(d.candidates[*d.chosen].domain, "b");
}

// No rack holds three 8-GPU pods: pending with the reason.
TEST(TopologyPlacementChoice, NoFeasibleRackGivesTheReason) {
  const auto a = args_of(ScoringStrategy::kMostAllocated, cpu_mem());
  const PlacementDecision d = decide_placement(a, racks({0, 0, 0, 0}), pod_of(8), group(3, 3));
  EXPECT_FALSE(d.chosen);
  EXPECT_EQ(d.reason,
            "no rack domain fits 3 pods of pod group job (minCount 3): 2 domains, at most 2 fit");
}

}  // namespace
}  // namespace tidesim::policies
