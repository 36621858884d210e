// NodeResourcesFit / BalancedAllocation / sampling: Kubernetes' own examples.
#include <gtest/gtest.h>

#include <limits>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/plugins/noderesources.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

using testing::make_node;
using testing::make_pod;

const PluginScore* score_of(const NodeDetail& d, const std::string& plugin) {
  for (const auto& s : d.scores) {
    if (s.plugin == plugin) {
      return &s;
    }
  }
  return nullptr;
}

// least_allocated_test.go, "nothing scheduled, resources requested, differently sized nodes":
// pod cpu 3000m / memory 5000 on node1 (4000m, 10000) and node2 (6000m, 10000).
// node1: cpu (4000-3000)*100/4000 = 25, memory (10000-5000)*100/10000 = 50 -> (25+50)/2 = 37
// node2: cpu (6000-3000)*100/6000 = 50, memory 50 -> 50.
TEST(NodeResources, LeastAllocatedUpstreamExample) {
  ClusterView c;
  c.nodes = {make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)};
  auto s = make_scheduler("default-k8s", 1);
  s->set_record_details(true);
  const auto pod = make_pod("p", 3000, 5000);
  const auto r = s->schedule_one(*pod, c, nullptr, TimePoint{});
  ASSERT_EQ(r.details.size(), 2u);
  EXPECT_EQ(score_of(r.details[0], "NodeResourcesFit")->raw, 37);
  EXPECT_EQ(score_of(r.details[1], "NodeResourcesFit")->raw, 50);
  // balanced_allocation_test.go, same pod and nodes: node1 fractions 0.75 / 0.5,
  // std = 0.125 -> int((1 - 0.125) * 100) = 87; node2 0.5 / 0.5 -> 100.
  EXPECT_EQ(score_of(r.details[0], "NodeResourcesBalancedAllocation")->raw, 87);
  EXPECT_EQ(score_of(r.details[1], "NodeResourcesBalancedAllocation")->raw, 100);
  // node2 wins: 50*1 + 100*1 (+ TaintToleration 100*3, ImageLocality 0) > 37 + 87 (+300).
  EXPECT_EQ(r.node, 1);
  EXPECT_EQ(r.details[1].total, 50 + 100 + 300);
}

// most_allocated_test.go, "nothing scheduled, resources requested, differently sized nodes":
// node1: cpu 3000*100/4000 = 75, memory 50 -> 62; node2: 50, 50 -> 50.
TEST(NodeResources, MostAllocatedUpstreamExample) {
  ClusterView c;
  c.nodes = {make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)};
  auto s = make_scheduler("most-allocated", 1);
  s->set_record_details(true);
  const auto r = s->schedule_one(*make_pod("p", 3000, 5000), c, nullptr, TimePoint{});
  EXPECT_EQ(score_of(r.details[0], "NodeResourcesFit")->raw, 62);
  EXPECT_EQ(score_of(r.details[1], "NodeResourcesFit")->raw, 50);
}

TEST(NodeResources, ScoreFunctions) {
  EXPECT_EQ(least_requested_score(3000, 4000), 25);
  EXPECT_EQ(least_requested_score(5000, 4000), 0);  // over capacity
  EXPECT_EQ(least_requested_score(1, 0), 0);
  EXPECT_EQ(most_requested_score(5000, 4000), 100);  // capped at capacity
  EXPECT_EQ(most_requested_score(1, 3), 33);         // 100 / 3 truncated
  // Three resources: population std-dev of (0.5, 0.25, 0.75) = sqrt(1/24) = 0.2041 -> 79.
  const std::int64_t req[] = {2, 1, 3};
  const std::int64_t alloc[] = {4, 4, 4};
  EXPECT_EQ(balanced_resource_score(req, alloc), 79);
}

// Capacities near 2^63 (memory of a node read as 8Ei - 1 bytes): `x * 100` overflowed 64 bits
// (undefined; UBSan aborts) once x passed 2^63 / 100. The scores are Kubernetes' formulas with
// the product kept in 128 bits; M = 2^63 - 1.
TEST(NodeResources, ScoresOfHugeCapacitiesDoNotOverflow) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(least_requested_score(0, kMax), 100);  // M * 100 / M
  EXPECT_EQ(least_requested_score(kMax / 2 + 1, kMax),
            49);  // (M - 2^62) = 2^62 - 1: just under half
  EXPECT_EQ(most_requested_score(kMax, kMax), 100);
  EXPECT_EQ(most_requested_score(kMax / 2, kMax), 49);  // (2^62 - 1) / (2^63 - 1) < 1/2
  // RequestedToCapacityRatio: utilisation floor(2^62 * 100 / M) = 50 (just over half) on the
  // identity shape (scores already scaled to 0-100).
  const ResourceSpec spec[] = {make_resource_spec("memory", 1)};
  const ShapePoint shape[] = {{0, 0}, {100, 100}};
  const std::int64_t req[] = {std::int64_t{1} << 62};
  const std::int64_t alloc[] = {kMax};
  EXPECT_EQ(resource_allocation_score(ScoringStrategy::kRequestedToCapacityRatio, spec, shape, req,
                                      alloc),
            50);
}

// Through the scheduler: a node of cpu 4000m and memory M = 2^63 - 1 already holds a pod of
// cpu 1000m and memory M - 100. The incoming pod asks cpu 1000m and no memory, so Fit's filter
// lets it through, but its score counts the non-zero default of 200Mi: the node's memory
// (M - 100) + 200Mi passed 2^63 (signed overflow). Now it stops at M: memory scores
// (M - M) * 100 / M = 0, cpu (4000 - 2000) * 100 / 4000 = 50, LeastAllocated (50 + 0) / 2 = 25.
// An empty twin node (scoring needs two feasible nodes) scores cpu 75 and memory
// floor((M - 200Mi) * 100 / M) = 99: (75 + 99) / 2 = 87, and wins.
TEST(NodeResources, NodeRequestsPlusThePodsSaturateInTheScore) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  ClusterView c;
  c.nodes = {make_node("node1", 4000, kMax), make_node("node2", 4000, kMax)};
  c.nodes[0].add_pod(make_pod("held", 1000, kMax - 100));
  auto s = make_scheduler("default-k8s", 1);
  s->set_record_details(true);
  const auto r = s->schedule_one(*make_pod("p", 1000, 0), c, nullptr, TimePoint{});
  ASSERT_EQ(r.node, 1);
  ASSERT_EQ(r.details.size(), 2u);
  ASSERT_NE(score_of(r.details[0], "NodeResourcesFit"), nullptr);
  EXPECT_EQ(score_of(r.details[0], "NodeResourcesFit")->raw, 25);
  EXPECT_EQ(score_of(r.details[1], "NodeResourcesFit")->raw, 87);
}

// RequestedToCapacityRatio with shape (0,0) (100,10): score = utilisation. cpu 75, memory 50:
// round((75 + 50) / 2) = round(62.5) = 63 (math.Round, not integer division).
TEST(NodeResources, RequestedToCapacityRatio) {
  const std::vector<ShapePoint> shape{{0, 0}, {100, 100}};
  EXPECT_EQ(broken_linear(shape, 50), 50);
  const std::vector<ResourceSpec> specs{make_resource_spec("cpu", 1),
                                        make_resource_spec("memory", 1)};
  const std::int64_t req[] = {3000, 5000};
  const std::int64_t alloc[] = {4000, 10000};
  EXPECT_EQ(resource_allocation_score(ScoringStrategy::kRequestedToCapacityRatio, specs, shape, req,
                                      alloc),
            63);
  EXPECT_EQ(resource_allocation_score(ScoringStrategy::kLeastAllocated, specs, shape, req, alloc),
            37);
  // Broken line between points: (0,100) (50,0) (100,100): at 25 -> 100 + (0-100)*25/50 = 50.
  const std::vector<ShapePoint> vee{{0, 100}, {50, 0}, {100, 100}};
  EXPECT_EQ(broken_linear(vee, 25), 50);
  EXPECT_EQ(broken_linear(vee, 75), 50);
}

// schedule_one_test.go TestNumFeasibleNodesToFind.
TEST(NodeResources, SamplingRule) {
  EXPECT_EQ(num_feasible_nodes_to_find(10, 0), 10);
  EXPECT_EQ(num_feasible_nodes_to_find(10, 40), 10);
  EXPECT_EQ(num_feasible_nodes_to_find(1000, 0), 420);  // 50 - 1000/125 = 42%
  EXPECT_EQ(num_feasible_nodes_to_find(1000, 40), 400);
  EXPECT_EQ(num_feasible_nodes_to_find(6000, 0), 300);  // 50 - 48 = 2% -> floor 5%
  EXPECT_EQ(num_feasible_nodes_to_find(6000, 40), 2400);
  EXPECT_EQ(num_feasible_nodes_to_find(150, 0), 100);  // 150 * 49 / 100 = 73 -> at least 100
}

// Sampling and the round-robin start: 200 feasible nodes, adaptive 48% -> 96 -> 100 nodes per
// cycle; the next cycle starts where this one stopped.
TEST(NodeResources, SamplingRoundRobin) {
  ClusterView c;
  for (int i = 0; i < 200; ++i) {
    c.nodes.push_back(make_node("n" + std::to_string(i), 4000, 1 << 30));
  }
  auto s = make_scheduler("default-k8s", 1);
  s->set_record_details(true);
  const auto pod = make_pod("p", 100, 1000);
  const auto r1 = s->schedule_one(*pod, c, nullptr, TimePoint{});
  EXPECT_EQ(r1.evaluated_nodes, 100);
  EXPECT_TRUE(r1.details[99].evaluated);
  EXPECT_FALSE(r1.details[100].evaluated);
  ASSERT_TRUE(r1.node);
  EXPECT_LT(*r1.node, 100);
  const auto r2 = s->schedule_one(*pod, c, nullptr, TimePoint{});
  EXPECT_FALSE(r2.details[99].evaluated);
  EXPECT_TRUE(r2.details[100].evaluated);
  EXPECT_GE(*r2.node, 100);
}

// fit.go: every insufficient resource is a reason; FitError sorts "<count> <reason>" strings.
TEST(NodeResources, FitErrorMessage) {
  ClusterView c;
  c.nodes = {make_node("a", 8000, 1LL << 34, 4), make_node("b", 8000, 1LL << 34, 4),
             make_node("c", 8000, 1LL << 34, 4)};
  c.nodes[0].add_pod(make_pod("x", 0, 0, 4));
  c.nodes[1].add_pod(make_pod("y", 0, 0, 3));
  c.nodes[2].node.taints.push_back(Taint{"gpu", "busy", "NoSchedule"});
  auto s = make_scheduler("default-k8s", 1);
  const auto r = s->schedule_one(*make_pod("p", 1000, 1 << 20, 2), c, nullptr, TimePoint{});
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.reason,
            "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: busy}, 2 Insufficient "
            "nvidia.com/gpu.");
  const auto r2 = s->schedule_one(*make_pod("q", 9000, 1LL << 35, 5), c, nullptr, TimePoint{});
  EXPECT_EQ(r2.reason,
            "0/3 nodes are available: 1 node(s) had untolerated taint {gpu: busy}, 2 Insufficient "
            "cpu, 2 Insufficient memory, 2 Insufficient nvidia.com/gpu.");
}

}  // namespace
}  // namespace tidesim::policies
