// Gavel's inputs from tidesim's (sim/admission/gavel_inputs): GPU types and servers from a
// cluster's nodes, a problem from a throughput table.
#include "tidesim/sim/admission/gavel_inputs.hpp"

#include <gtest/gtest.h>

#include "tidesim/sim/admission/gavel_lp_policies.hpp"

namespace tidesim::gavel {
namespace {

NodeInfo node(const std::string& name, const std::string& model, int gpus) {
  NodeInfo info;
  info.node.name = name;
  if (!model.empty()) {
    info.node.labels["nvidia.com/gpu.product"] = model;
  }
  info.node.allocatable.gpus = gpus;
  return info;
}

// Nodes a (4 V100), b (2 K80), c (no GPU), d (2 V100): V100 first (Gavel's walk order), its
// servers a and d in node order with GPU ids 0-3 and 4-5; K80 after, ids 6-7.
TEST(GavelInputs, GpuTypesFromNodes) {
  ClusterView view;
  view.nodes = {node("a", "Tesla-V100", 4), node("b", "Tesla-K80", 2), node("c", "", 0),
                node("d", "Tesla-V100", 2)};
  const GpuTypes t = gpu_types_of(view, {{"Tesla-V100", "v100"}, {"Tesla-K80", "k80"}});
  EXPECT_EQ(t.types, (std::vector<std::string>{"v100", "k80"}));
  EXPECT_EQ(t.gpus, (std::vector<int>{6, 2}));
  ASSERT_EQ(t.servers.size(), 2U);
  EXPECT_EQ(t.servers[0], (std::vector<std::vector<int>>{{0, 1, 2, 3}, {4, 5}}));
  EXPECT_EQ(t.servers[1], (std::vector<std::vector<int>>{{6, 7}}));
  EXPECT_EQ(t.node_of_gpu, (std::vector<std::string>{"a", "a", "a", "a", "d", "d", "b", "b"}));
  // A model the names do not map keeps its own name, after the ordered types.
  const GpuTypes own = gpu_types_of(view, {{"Tesla-K80", "k80"}});
  EXPECT_EQ(own.types, (std::vector<std::string>{"k80", "Tesla-V100"}));
  view.nodes.push_back(node("e", "", 8));
  EXPECT_THROW((void)gpu_types_of(view, {}), AllocationError);
}

// A time-sliced node advertises cards x replicas (here 1 card x 2); its GPUs for Gavel are its
// cards, the label nvidia.com/gpu.count. A count that is not a number is an error.
TEST(GavelInputs, TimeSlicedNodesCountTheirCards) {
  ClusterView view;
  view.nodes = {node("a", "Tesla-V100", 2), node("b", "Tesla-V100", 2)};
  view.nodes[0].node.labels["nvidia.com/gpu.count"] = "1";
  const GpuTypes t = gpu_types_of(view, {{"Tesla-V100", "v100"}});
  EXPECT_EQ(t.gpus, (std::vector<int>{3}));
  EXPECT_EQ(t.servers[0], (std::vector<std::vector<int>>{{0}, {1, 2}}));
  view.nodes[1].node.labels["nvidia.com/gpu.count"] = "two";
  EXPECT_THROW((void)gpu_types_of(view, {}), AllocationError);
}

// The small table of tests/workloads/data/gavel: A alone 4 (fast) and 1 (slow), B 2 and 1; on
// "fast" A with B is [3, 1.5]; "slow" has no pair entries.
TEST(GavelInputs, ProblemFromTable) {
  const auto table = workloads::read_throughput_table(
      std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/gavel/throughputs_small.json");
  GpuTypes types;
  types.types = {"fast", "slow"};
  types.gpus = {1, 1};
  const std::vector<TableJob> jobs = {{.id = 7, .key = {"A (batch size 8)", 1}},
                                      {.id = 9, .key = {"B", 1}, .priority_weight = 2.0}};
  const AllocationProblem p = problem_from_table(table, jobs, types);
  ASSERT_EQ(p.jobs.size(), 2U);
  EXPECT_EQ(p.jobs[0].throughput, (std::vector<double>{4.0, 1.0}));
  EXPECT_EQ(p.jobs[1].throughput, (std::vector<double>{2.0, 1.0}));
  EXPECT_EQ(p.jobs[1].priority_weight, 2.0);
  const auto fast = p.colocated(0, 1, 0);
  ASSERT_TRUE(fast);
  EXPECT_EQ(fast->first, 3.0);
  EXPECT_EQ(fast->second, 1.5);
  EXPECT_FALSE(p.colocated(0, 1, 1));
  const PackedAllocation x = max_min_fairness_packed(p);
  EXPECT_EQ(x.single.size(), 2U);
  EXPECT_THROW((void)problem_from_table(table, {{.id = 1, .key = {"Z", 1}}}, types), InputError);
}

}  // namespace
}  // namespace tidesim::gavel
