// Hand-worked cases of Volcano's hard and soft network-topology modes and of the HyperNode
// binpack score (docs/topology-aware.md, "Volcano"), on four 8-GPU nodes: leaf0 = {n1, n2},
// leaf1 = {n3, n4} (tier 1) under spine (tier 2); the cluster top is tier 3. Pods ask 8 GPUs.
// The binpack score counts nvidia.com/gpu (hypernode.binpack.resources), CPU and memory are
// not asked for.
#include <gtest/gtest.h>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

NetworkTopology topo(bool hard, int tier) {
  NetworkTopology t;
  t.hard = hard;
  t.highest_tier = tier;
  return t;
}

HyperNodeMember member(MemberType type, const char* name) {
  HyperNodeMember m;
  m.type = type;
  m.value = name;
  return m;
}

HyperNodeSpec spec(const char* name, int tier, std::vector<HyperNodeMember> members) {
  HyperNodeSpec s;
  s.name = name;
  s.tier = tier;
  s.members = std::move(members);
  return s;
}

struct Cluster {
  std::vector<NodeSpec> nodes;
  std::unique_ptr<HyperNodeTree> tree;

  explicit Cluster(bool with_spine) {
    for (const char* n : {"n1", "n2", "n3", "n4"}) {
      NodeSpec s;
      s.name = n;
      nodes.push_back(s);
    }
    std::vector<HyperNodeSpec> specs = {
        spec("leaf0", 1, {member(MemberType::kNode, "n1"), member(MemberType::kNode, "n2")}),
        spec("leaf1", 1, {member(MemberType::kNode, "n3"), member(MemberType::kNode, "n4")})};
    if (with_spine) {
      specs.push_back(
          spec("spine", 2,
               {member(MemberType::kHyperNode, "leaf0"), member(MemberType::kHyperNode, "leaf1")}));
    }
    tree = std::make_unique<HyperNodeTree>(specs, nodes);
  }

  /// Places a gang of `pods` with `topology`; `busy`: nodes already holding 8 GPUs.
  Allocation place(int pods, std::optional<NetworkTopology> topology,
                   const std::vector<int>& busy = {}) const {
    std::vector<Amounts> used(4);
    for (const int b : busy) {
      used[static_cast<std::size_t>(b)] = {{"nvidia.com/gpu", 8}, {"pods", 1}};
    }
    PluginArgs args = plugin_args({{"hypernode.binpack.resources", "nvidia.com/gpu"}});
    const Allocator a(*tree, std::vector<std::map<std::string, std::string>>(4),
                      std::vector<Amounts>(4, {{"nvidia.com/gpu", 8}, {"pods", 110}}), used, args);
    JobRequest job;
    job.tasks.assign(static_cast<std::size_t>(pods),
                     Task{{{"nvidia.com/gpu", 8}, {"pods", 1}}, {}, -1});
    job.min_available = pods;
    job.topology = topology;
    return a.allocate(job);
  }
};

std::vector<int> nodes_of(const Allocation& a) {
  return a.nodes;
}

// n1 busy: no leaf has three free nodes. Hard at tier 1 refuses, with the gang's message; hard at
// tier 2 takes the spine: the first pod goes to the first free node (every node scores 0 before
// the job has a HyperNode), n2; then n3 and n4 score (3 - 2) / (3 - 1) = 0.5 (their LCA with
// leaf0 is the spine) and n3 comes first.
TEST(VolcanoHandCases, HardRefusesAboveItsTierAndTakesTheSpineAtTierTwo) {
  const Cluster c(true);
  const Allocation refused = c.place(3, topo(true, 1), {0});
  EXPECT_FALSE(refused.ready);
  EXPECT_EQ(refused.reason,
            "3/3 tasks in gang unschedulable: pod group is not ready, 3 Pending, 3 minAvailable");
  const Allocation spine = c.place(3, topo(true, 2), {0});
  ASSERT_TRUE(spine.ready);
  EXPECT_EQ(c.tree->name(spine.hypernode), "spine");
  EXPECT_EQ(nodes_of(spine), (std::vector<int>{1, 2, 3}));
}

// Soft mode is hard mode up to the cluster top: the same gang is placed (tier 1 cannot hold it,
// the spine can), and without a spine it falls back to the cluster top, where hard at tier 1
// waits.
TEST(VolcanoHandCases, SoftFallsBackAcrossTiers) {
  const Cluster spine(true);
  const Allocation soft = spine.place(3, topo(false, 0), {0});
  ASSERT_TRUE(soft.ready);
  EXPECT_EQ(spine.tree->name(soft.hypernode), "spine");
  const Cluster flat(false);
  EXPECT_FALSE(flat.place(3, topo(true, 1), {0}).ready);
  const Allocation across = flat.place(3, topo(false, 0), {0});
  ASSERT_TRUE(across.ready);
  EXPECT_EQ(flat.tree->name(across.hypernode), kClusterTop);
  EXPECT_EQ(nodes_of(across), (std::vector<int>{1, 2, 3}));
}

// Binpack: a one-pod gang fits both leaves. leaf0 (n1 busy) scores (8 + 8) / 16 = 1.0, leaf1
// 8 / 16 = 0.5: the partly used leaf wins, in both modes, and the pod lands on n2.
TEST(VolcanoHandCases, PacksThePartlyUsedHyperNode) {
  const Cluster c(true);
  for (const bool hard : {true, false}) {
    const Allocation a = c.place(1, topo(hard, 1), {0});
    ASSERT_TRUE(a.ready);
    EXPECT_EQ(c.tree->name(a.hypernode), "leaf0");
    EXPECT_EQ(nodes_of(a), (std::vector<int>{1}));
  }
  // With both leaves empty they tie at 0.5: the first (by name) is taken.
  const Allocation tie = c.place(2, topo(true, 1));
  EXPECT_EQ(c.tree->name(tie.hypernode), "leaf0");
  // Scores as the plugin's HyperNodeOrderFn gives them (x 100 x weight): 100 and 50.
  JobRequest job;
  job.tasks.assign(1, Task{{{"nvidia.com/gpu", 8}, {"pods", 1}}, {}, -1});
  const Allocator a(*c.tree, std::vector<std::map<std::string, std::string>>(4),
                    std::vector<Amounts>(4, {{"nvidia.com/gpu", 8}, {"pods", 110}}),
                    {{{"nvidia.com/gpu", 8}}, {}, {}, {}},
                    plugin_args({{"hypernode.binpack.resources", "nvidia.com/gpu"}}));
  EXPECT_EQ(a.hypernode_scores(job, {c.tree->find("leaf0"), c.tree->find("leaf1")}),
            (std::vector<double>{100.0, 50.0}));
}

// A gang without networkTopology is placed over every node; the normal-pod binpack score (tier
// weights 0.8^(tier-1) over tiers 1..3) prefers the node in the fuller leaf: for n2,
// (1 x 1.0 + 0.8 x 0.5 + 0.64 x 0.5) / 2.44 = 0.705; for n3, (0.5 + 0.4 + 0.32) / 2.44 = 0.5.
TEST(VolcanoHandCases, NormalPodsPackByTierWeights) {
  const Cluster c(true);
  const Allocation a = c.place(1, std::nullopt, {0});
  ASSERT_TRUE(a.ready);
  EXPECT_EQ(nodes_of(a), (std::vector<int>{1}));
}

}  // namespace
}  // namespace tidesim::volcano
