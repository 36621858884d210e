// Volcano's binpack node-order plugin (sim/admission/volcano_binpack.hpp) and its score in the
// allocate action beside the network-topology-aware plugin's: the formula by hand, the
// arguments, and volcano-sh/volcano @ed72c7c pkg/scheduler/actions/allocate/allocate_test.go
// TestNodeLevelScoreWithNetWorkTopologies.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

constexpr std::int64_t kGi = std::int64_t{1} << 30;

Amounts amounts(std::int64_t cpu, std::int64_t memory, std::int64_t pods) {
  return {{"cpu", cpu}, {"memory", memory}, {"pods", pods}};
}

// binpack.go BinPackingScore: Σ w_r (used_r + request_r) / allocatable_r / Σ w_r x 100 x weight.
TEST(VolcanoBinpack, ScoreByHand) {
  const BinpackArgs args;
  const Amounts task = amounts(2000, 4 * kGi, 1);  // pods has no weight: not counted
  // A 4-CPU, 8Gi node with 2 CPUs and 4Gi used: (4/4 + 8/8) / 2 = 1.
  EXPECT_DOUBLE_EQ(
      binpack_node_score(args, task, amounts(4000, 8 * kGi, 10), amounts(2000, 4 * kGi, 1)), 100.0);
  // An 8-CPU, 16Gi node with 4 CPUs and 8Gi used: (6/8 + 12/16) / 2 = 0.75.
  EXPECT_DOUBLE_EQ(
      binpack_node_score(args, task, amounts(8000, 16 * kGi, 10), amounts(4000, 8 * kGi, 1)), 75.0);
  // Weights: cpu 3, memory 1, plugin weight 2 on an empty 8-CPU, 16Gi node:
  // (3 x 2/8 + 1 x 4/16) / 4 x 100 x 2 = 50.
  BinpackArgs weighted;
  weighted.weight = 2;
  weighted.resources = {{"cpu", 3}, {"memory", 1}};
  EXPECT_DOUBLE_EQ(binpack_node_score(weighted, task, amounts(8000, 16 * kGi, 10), {}), 50.0);
  // A request over what is left scores 0; a resource the node lacks adds 0 with its weight.
  EXPECT_DOUBLE_EQ(binpack_node_score(args, amounts(3000, kGi, 1), amounts(4000, 8 * kGi, 10),
                                      amounts(2000, 0, 0)),
                   0.0);
  BinpackArgs gpu;
  gpu.resources["nvidia.com/gpu"] = 2;
  EXPECT_DOUBLE_EQ(binpack_node_score(gpu, {{"cpu", 2000}, {"nvidia.com/gpu", 1}},
                                      amounts(4000, 8 * kGi, 10), {}),
                   (1 * 0.5 + 0) / 3 * 100);
}

TEST(VolcanoBinpack, ArgumentsAsVolcanoReadsThem) {
  EXPECT_FALSE(binpack_args({{"weight", "2"}}).has_value());  // the other plugin's key: off
  const std::optional<BinpackArgs> a =
      binpack_args({{"binpack.weight", "2"},
                    {"binpack.cpu", "-3"},
                    {"binpack.resources", "nvidia.com/gpu, example.com/foo"},
                    {"binpack.resources.nvidia.com/gpu", "5"}});
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->weight, 2);
  EXPECT_EQ(a->resources,
            (std::map<std::string, int>{
                {"cpu", 1}, {"example.com/foo", 1}, {"memory", 1}, {"nvidia.com/gpu", 5}}));
  EXPECT_THROW(binpack_args({{"binpack.weight", "two"}}), std::invalid_argument);
  EXPECT_TRUE(plugin_args({{"binpack.weight", "1"}}).node_binpack.has_value());
  EXPECT_FALSE(plugin_args({}).node_binpack.has_value());
}

struct Placed {
  std::vector<std::string> nodes;  // per pending task
};

// Nodes (name, CPUs, memory) with what runs on them, HyperNodes of tier 1 with their nodes under
// one of tier 2, and a gang of `tasks` with networkTopology hard, highestTierAllowed 1.
Placed allocate(const std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>& nodes,
                const std::vector<Amounts>& used,
                const std::map<std::string, std::vector<std::string>>& tier1,
                const std::vector<Amounts>& tasks, bool binpack) {
  std::vector<NodeSpec> specs;
  std::vector<Amounts> alloc;
  for (const auto& [name, cpu, memory] : nodes) {
    NodeSpec n;
    n.name = name;
    specs.push_back(n);
    alloc.push_back(amounts(cpu, memory, 10));
  }
  std::vector<HyperNodeSpec> hns;
  HyperNodeSpec top;
  top.name = "top";
  top.tier = 2;
  for (const auto& [name, members] : tier1) {
    HyperNodeSpec h;
    h.name = name;
    h.tier = 1;
    for (const std::string& m : members) {
      h.members.push_back({MemberType::kNode, SelectorKind::kExact, m, {}, {}, ""});
    }
    hns.push_back(h);
    top.members.push_back({MemberType::kHyperNode, SelectorKind::kExact, name, {}, {}, ""});
  }
  hns.push_back(top);
  const HyperNodeTree tree(hns, specs);
  PluginArgs args;
  if (binpack) {
    args.node_binpack = BinpackArgs{};
  }
  Allocator a(tree, std::vector<std::map<std::string, std::string>>(nodes.size()), alloc, used,
              args);
  JobRequest job;
  job.min_available = static_cast<int>(tasks.size());
  job.topology = NetworkTopology{.hard = true, .highest_tier = 1, .highest_tier_name = ""};
  for (const Amounts& r : tasks) {
    job.tasks.push_back(Task{.request = r, .node_selector = {}, .node = -1, .labels = {}});
  }
  const Allocation out = a.allocate(job);
  Placed p;
  for (const int n : out.nodes) {
    p.nodes.push_back(out.ready && n >= 0 ? specs[static_cast<std::size_t>(n)].name : "");
  }
  return p;
}

// TestNodeLevelScoreWithNetWorkTopologies "hard network topology constrain, allocate job to
// highest score hypeNode with node level binpack": pg1 (minAvailable 2, hard, tier 1) of p1 (2
// CPUs, 4Gi) and p2 (4 CPUs, 8Gi); pg2's running p3 (2 CPUs, 4Gi) on s0-n1 and p4 (4 CPUs, 8Gi)
// on s0-n2. Upstream expects 2 binds, p1 on s0-n1 and p2 on s0-n2: s0 wins by the HyperNode
// binpack (it ends full), and in it p1 scores 100 on s0-n1 against 75 on s0-n2.
TEST(VolcanoBinpack, NodeLevelScoreWithNetworkTopologies) {
  const Placed p = allocate({{"s0-n1", 4000, 8 * kGi},
                             {"s0-n2", 8000, 16 * kGi},
                             {"s1-n3", 4000, 8 * kGi},
                             {"s1-n4", 8000, 16 * kGi}},
                            {amounts(2000, 4 * kGi, 1), amounts(4000, 8 * kGi, 1), {}, {}},
                            {{"s0", {"s0-n1", "s0-n2"}}, {"s1", {"s1-n3", "s1-n4"}}},
                            {amounts(2000, 4 * kGi, 1), amounts(4000, 8 * kGi, 1)}, true);
  EXPECT_EQ(p.nodes, (std::vector<std::string>{"s0-n1", "s0-n2"}));
}

// By hand: in one HyperNode an empty 8-CPU node listed first and a 4-CPU node with 2 CPUs used.
// The network-topology-aware score ties them (the task's sub-job has no HyperNode yet), so
// without binpack the first node takes the 2-CPU task; binpack scores 100 against 25 for the
// fuller node.
TEST(VolcanoBinpack, BinpackBreaksTheNetworkTopologyTie) {
  const auto nodes = std::vector<std::tuple<std::string, std::int64_t, std::int64_t>>{
      {"a-big", 8000, 16 * kGi}, {"b-used", 4000, 8 * kGi}};
  const std::vector<Amounts> used = {{}, amounts(2000, 4 * kGi, 1)};
  const std::map<std::string, std::vector<std::string>> hn = {{"s0", {"a-big", "b-used"}}};
  const std::vector<Amounts> task = {amounts(2000, 4 * kGi, 1)};
  EXPECT_EQ(allocate(nodes, used, hn, task, false).nodes, (std::vector<std::string>{"a-big"}));
  EXPECT_EQ(allocate(nodes, used, hn, task, true).nodes, (std::vector<std::string>{"b-used"}));
}

}  // namespace
}  // namespace tidesim::volcano
