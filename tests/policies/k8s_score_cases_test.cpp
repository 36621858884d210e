// Kubernetes' own score test cases for NodeResourcesFit (LeastAllocated, MostAllocated,
// RequestedToCapacityRatio) and NodeResourcesBalancedAllocation, case by case, from
// pkg/scheduler/framework/plugins/noderesources/ in github.com/kubernetes/kubernetes:
//   least_allocated_test.go             TestLeastAllocatedScoringStrategy   (commit 008b3652)
//   most_allocated_test.go              TestMostAllocatedScoringStrategy    (commit 030880a5)
//   requested_to_capacity_ratio_test.go TestRequestedToCapacityRatioScoringStrategy,
//                                       TestBrokenLinearFunction,
//                                       TestResourceBinPackingSingleExtended,
//                                       TestResourceBinPackingMultipleExtended (commit 00b9ead0)
//   balanced_allocation_test.go         TestNodeResourcesBalancedAllocation (commit 00fdb4ff)
// Each test names its case. The nodes, pods and expected scores are the upstream ones; the
// plugins are built from v1 plugin args exactly as a KubeSchedulerConfiguration (and so
// `tidesim explain -s FILE`) builds them, and run PreScore then Score on every node as the
// upstream tests do (no Filter: "requested resources exceed node capacity" scores a node the
// Filter would reject). Quantities go through the same reader as Pod and Node objects.
//
// Upstream test helpers, rebuilt here: st.MakePod() is a pod with NO containers (it requests
// nothing, not even the non-zero defaults); each .Req(map) appends one container with exactly
// those requests (an explicit "0" is a set key); .Container(name) appends one with none.
// st.MakeNode().Capacity(map) sets capacity = allocatable; makeNode(name, milliCPU, memory, ext)
// takes CPU in millicores. extendedRes is the package's "abc.com/xyz".
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/plugins/noderesources.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

using Quantities = std::map<std::string, std::string>;
constexpr const char* kExt = "abc.com/xyz";

ResourceList quantities(const Quantities& q) {
  ConfigNode m = ConfigNode::empty_map();
  for (const auto& [k, v] : q) {
    m.set(k, load_yaml_string("'" + v + "'", "case"));
  }
  return read_resource_list(m, "case", "resources");
}

// st.MakeNode().Name(name).Capacity(q).
NodeInfo node(const std::string& name, const Quantities& q = {}) {
  NodeInfo n;
  n.node.name = name;
  n.node.labels["kubernetes.io/hostname"] = name;
  n.node.allocatable = quantities(q).amounts;
  return n;
}

// makeNode(name, milliCPU, memory, extended): CPU in millicores.
NodeInfo make_node(const std::string& name, std::int64_t milli_cpu, std::int64_t memory,
                   const std::map<std::string, std::int64_t>& extended = {}) {
  Quantities q{{"cpu", std::to_string(milli_cpu) + "m"}, {"memory", std::to_string(memory)}};
  for (const auto& [k, v] : extended) {
    q[k] = std::to_string(v);
  }
  return node(name, q);
}

// st.MakePod(): no containers; .Req() / .Container() append containers.
class Pod {
 public:
  Pod() { pod_->containers.emplace(); }
  Pod& req(const Quantities& q) {
    const ResourceList l = quantities(q);
    Container c;
    c.requests = l.amounts;
    c.cpu_set = l.cpu;
    c.memory_set = l.memory;
    return add(c);
  }
  Pod& container() { return add(Container{}); }
  Pod& node(const std::string& name) {
    pod_->node_name = name;
    return *this;
  }
  std::shared_ptr<PodSpec> obj() const { return std::make_shared<PodSpec>(*pod_); }

 private:
  Pod& add(const Container& c) {
    pod_->containers->push_back(c);
    pod_->requests = pod_requests(*pod_);
    return *this;
  }
  std::shared_ptr<PodSpec> pod_ = std::make_shared<PodSpec>();
};

// cache.NewSnapshot(existingPods, nodes): pods bound by spec.nodeName (a pod bound nowhere, as
// some upstream cases have, is on no node).
ClusterView cluster(std::vector<NodeInfo> nodes, const std::vector<Pod>& existing = {}) {
  ClusterView c;
  c.nodes = std::move(nodes);
  for (const Pod& p : existing) {
    const auto spec = p.obj();
    const int i = c.index_of(spec->node_name);
    if (i >= 0) {
      c.nodes[static_cast<std::size_t>(i)].add_pod(spec);
    }
  }
  return c;
}

std::unique_ptr<Plugin> plugin(const std::string& name, const std::string& args) {
  const ConfigNode n = load_yaml_string(args, "args.yaml");
  const PluginArgs a{n, "args.yaml", "args"};
  return name == "NodeResourcesFit" ? make_node_resources_fit(parse_fit_args(a))
                                    : make_balanced_allocation(parse_balanced_allocation_args(a));
}

// PreScore (unless `pre_score` is false), then Score on every node; nullopt when PreScore skips.
std::optional<std::vector<std::int64_t>> scores(const std::string& name, const std::string& args,
                                                const PodSpec& pod, const ClusterView& c,
                                                bool pre_score = true) {
  auto p = plugin(name, args);
  CycleContext ctx = testing::make_context(c);
  std::vector<int> all(c.nodes.size());
  std::iota(all.begin(), all.end(), 0);
  if (pre_score) {
    const Status s = dynamic_cast<PreScorePlugin&>(*p).pre_score(ctx, pod, all);
    if (s.code == Code::kSkip) {
      return std::nullopt;
    }
    EXPECT_TRUE(s.ok()) << s.message();
  }
  std::vector<std::int64_t> out;
  for (int i : all) {
    out.push_back(dynamic_cast<ScorePlugin&>(*p).score(ctx, pod, i));
  }
  return out;
}

using Scores = std::vector<std::int64_t>;

std::string fit_args(const std::string& type, const std::string& resources,
                     const std::string& extra = "") {
  return "scoringStrategy:\n  type: " + type + "\n  resources: " + resources + "\n" + extra;
}

const std::string kCpuMem = "[{name: cpu, weight: 1}, {name: memory, weight: 1}]";
const std::string kExtSet =
    "[{name: cpu, weight: 1}, {name: memory, weight: 1}, {name: abc.com/xyz, weight: 1}]";

Scores least(const std::string& resources, const Pod& pod, const ClusterView& c) {
  return *scores("NodeResourcesFit", fit_args("LeastAllocated", resources), *pod.obj(), c);
}
Scores most(const std::string& resources, const Pod& pod, const ClusterView& c) {
  return *scores("NodeResourcesFit", fit_args("MostAllocated", resources), *pod.obj(), c);
}

std::string config_error(const std::string& type, const std::string& resources) {
  try {
    plugin("NodeResourcesFit", fit_args(type, resources));
  } catch (const InputError& e) {
    return e.field();
  }
  return "(no error)";
}

const Pod kTwoContainers =
    Pod().req({{"cpu", "1000"}, {"memory", "2000"}}).req({{"cpu", "2000"}, {"memory", "3000"}});

// ---- least_allocated_test.go -------------------------------------------------------------

TEST(K8sLeastAllocated, NothingScheduledNothingRequested) {
  // "nothing scheduled, nothing requested": a pod with no containers requests 0 -> 100 / 100.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "4000"}, {"memory", "10000"}})});
  EXPECT_EQ(least(kCpuMem, Pod(), c), (Scores{100, 100}));
}

TEST(K8sLeastAllocated, NothingScheduledResourcesRequestedDifferentlySizedNodes) {
  // cpu (4000-3000)*100/4000 = 25, memory 50 -> 37; node2 cpu 50, memory 50 -> 50.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(least(kCpuMem, kTwoContainers, c), (Scores{37, 50}));
}

TEST(K8sLeastAllocated, ResourcesNotSetIsDefaultedByTheV1Config) {
  // "Resources not set, pods scheduled with error": the upstream case builds the plugin from
  // internal args with no resources and expects Score to fail. tidesim reads v1 args, where
  // SetDefaults_NodeResourcesFitArgs turns an empty list into cpu:1, memory:1, so the case
  // cannot arise; the defaulted plugin scores as "nothing scheduled, resources requested".
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(least("[]", kTwoContainers, c), (Scores{37, 50}));
}

TEST(K8sLeastAllocated, NoResourcesRequestedPodsScheduled) {
  // Pods without containers add nothing to the nodes' non-zero requests -> 100 / 100.
  const auto c =
      cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
               node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
              {Pod().node("node1"), Pod().node("node1"), Pod().node("node2"), Pod().node("node2")});
  EXPECT_EQ(least(kCpuMem, Pod(), c), (Scores{100, 100}));
}

TEST(K8sLeastAllocated, NoResourcesRequestedPodsScheduledWithResources) {
  // Existing pods set memory "0" explicitly: it stays 0. node1 cpu 40, memory 100 -> 70;
  // node2 cpu 40, memory (20000-5000)*100/20000 = 75 -> 57.
  const auto c = cluster({node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(least(kCpuMem, Pod(), c), (Scores{70, 57}));
}

TEST(K8sLeastAllocated, ResourcesRequestedPodsScheduledWithResources) {
  const auto c = cluster({node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(least(kCpuMem, kTwoContainers, c), (Scores{57, 45}));
}

TEST(K8sLeastAllocated, ResourcesRequestedPodsScheduledWithResourcesDifferentlySizedNodes) {
  const auto c = cluster({node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "50000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(least(kCpuMem, kTwoContainers, c), (Scores{57, 60}));
}

TEST(K8sLeastAllocated, RequestedResourcesExceedNodeCapacity) {
  // cpu 6000 > 4000 -> 0; memory 100 (node1) and 50 (node2) -> 50, 25.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(least(kCpuMem, Pod().req({{"cpu", "3000"}, {"memory", "0"}}), c), (Scores{50, 25}));
}

TEST(K8sLeastAllocated, ZeroNodeResourcesPodsScheduledWithResources) {
  const auto c = cluster({node("node1"), node("node2")},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(least(kCpuMem, Pod(), c), (Scores{0, 0}));
}

TEST(K8sLeastAllocated, DifferentWeightOnCpuAndMemoryDifferentlySizedNodes) {
  // "nothing scheduled, resources requested with different weight on CPU and memory,
  // differently sized nodes": (25*1 + 50*2)/3 = 41; (50 + 100)/3 = 50.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(least("[{name: memory, weight: 2}, {name: cpu, weight: 1}]", kTwoContainers, c),
            (Scores{41, 50}));
}

TEST(K8sLeastAllocated, ResourceWeightValidation) {
  // "resource with negative weight" and "resource weight larger than MaxNodeScore": rejected,
  // naming the weight.
  EXPECT_EQ(config_error("LeastAllocated", "[{name: memory, weight: -1}, {name: cpu, weight: 1}]"),
            "args.scoringStrategy.resources[0].weight");
  EXPECT_EQ(config_error("LeastAllocated", "[{name: memory, weight: 1}, {name: cpu, weight: 101}]"),
            "args.scoringStrategy.resources[1].weight");
}

TEST(K8sLeastAllocated, ResourceWithZeroWeightIsDefaultedByTheV1Config) {
  // "resource with zero weight": an error for internal args upstream; in v1 args (what tidesim
  // reads) SetDefaults_NodeResourcesFitArgs makes weight 0 a 1, so the case scores as equal
  // weights: node1 (25 + 50) / 2 = 37.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}})});
  EXPECT_EQ(least("[{name: memory, weight: 1}, {name: cpu, weight: 0}]", kTwoContainers, c),
            (Scores{37}));
}

TEST(K8sLeastAllocated, BypassExtendedResourceIfThePodDoesNotRequest) {
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}})});
  EXPECT_EQ(least(kExtSet, kTwoContainers, c), (Scores{50, 50}));
}

TEST(K8sLeastAllocated, HonorExtendedResourceIfThePodRequests) {
  // extended: node1 (4-2)/4 = 50, node2 (10-2)/10 = 80 -> (50+50+50)/3 = 50, (50+50+80)/3 = 60.
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "10"}})});
  EXPECT_EQ(least(kExtSet, Pod().req({{"cpu", "3000"}, {"memory", "5000"}, {kExt, "2"}}), c),
            (Scores{50, 60}));
}

TEST(K8sLeastAllocated, IfTheNodeDoesntHaveAResource) {
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}})});
  EXPECT_EQ(least("[{name: abc.com/xyz, weight: 2}, {name: cpu, weight: 1}, "
                  "{name: memory, weight: 1}]",
                  Pod().req({{"cpu", "3000"}, {"memory", "4000"}}), c),
            (Scores{55, 55}));
}

// ---- most_allocated_test.go --------------------------------------------------------------

TEST(K8sMostAllocated, NothingScheduledNothingRequested) {
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "4000"}, {"memory", "10000"}})});
  EXPECT_EQ(most(kCpuMem, Pod(), c), (Scores{0, 0}));
}

TEST(K8sMostAllocated, NothingScheduledResourcesRequestedDifferentlySizedNodes) {
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(most(kCpuMem, kTwoContainers, c), (Scores{62, 50}));
}

TEST(K8sMostAllocated, ResourcesNotSetIsDefaultedByTheV1Config) {
  // "Resources not set, pods scheduled with error": see the LeastAllocated case.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(most("[]", kTwoContainers, c), (Scores{62, 50}));
}

TEST(K8sMostAllocated, NoResourcesRequestedPodsScheduledWithResources) {
  const auto c = cluster({node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(most(kCpuMem, Pod(), c), (Scores{30, 42}));
}

TEST(K8sMostAllocated, ResourcesRequestedPodsScheduledWithResources) {
  const auto c = cluster({node("node1", {{"cpu", "10000"}, {"memory", "20000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "20000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "0"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(most(kCpuMem, kTwoContainers, c), (Scores{42, 55}));
}

TEST(K8sMostAllocated, ResourcesRequestedEqualNodeCapacity) {
  const auto c = cluster({node("node1", {{"cpu", "5000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "10000"}, {"memory", "9000"}})});
  const Pod pod =
      Pod().req({{"cpu", "2000"}, {"memory", "4000"}}).req({{"cpu", "3000"}, {"memory", "5000"}});
  EXPECT_EQ(most(kCpuMem, pod, c), (Scores{95, 75}));
}

TEST(K8sMostAllocated, NothingScheduledResourcesRequestedDifferentlySizedNodesWeighted) {
  // The second case named "nothing scheduled, resources requested, differently sized nodes",
  // with weights memory 2, cpu 1: (75 + 50*2)/3 = 58; (50 + 100)/3 = 50.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})});
  EXPECT_EQ(most("[{name: memory, weight: 2}, {name: cpu, weight: 1}]", kTwoContainers, c),
            (Scores{58, 50}));
}

TEST(K8sMostAllocated, NoResourcesRequestedPodsScheduledNonzeroRequestForResource) {
  // Containers without requests count 100m and 200Mi each: node1 cpu 300m/250m -> 100, memory
  // 600Mi/1000Mi -> 60 -> 80; node2 cpu 100m/250m -> 40, memory 20 -> 30.
  const auto c = cluster({node("node1", {{"cpu", "250m"}, {"memory", "1000Mi"}}),
                          node("node2", {{"cpu", "250m"}, {"memory", "1000Mi"}})},
                         {Pod().node("node1").container(), Pod().node("node1").container()});
  EXPECT_EQ(most(kCpuMem, Pod().container(), c), (Scores{80, 30}));
}

TEST(K8sMostAllocated, ResourceWeightValidation) {
  // "resource with negative weight", "resource weight larger than MaxNodeScore".
  EXPECT_EQ(config_error("MostAllocated", "[{name: memory, weight: -1}, {name: cpu, weight: 1}]"),
            "args.scoringStrategy.resources[0].weight");
  EXPECT_EQ(config_error("MostAllocated", "[{name: memory, weight: 101}]"),
            "args.scoringStrategy.resources[0].weight");
}

TEST(K8sMostAllocated, ResourceWithZeroWeightIsDefaultedByTheV1Config) {
  // "resource with zero weight": weight 0 -> 1 in v1 args; node2 (4000, 10000): cpu 75,
  // memory 50 -> 62.
  const auto c = cluster({node("node2", {{"cpu", "4000"}, {"memory", "10000"}})});
  EXPECT_EQ(most("[{name: memory, weight: 1}, {name: cpu, weight: 0}]", kTwoContainers, c),
            (Scores{62}));
}

TEST(K8sMostAllocated, BypassExtendedResourceIfThePodDoesNotRequest) {
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}})});
  EXPECT_EQ(most(kExtSet, kTwoContainers, c), (Scores{50, 50}));
}

TEST(K8sMostAllocated, HonorExtendedResourceIfThePodRequest) {
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "10"}})});
  EXPECT_EQ(most(kExtSet, Pod().req({{"cpu", "3000"}, {"memory", "5000"}, {kExt, "2"}}), c),
            (Scores{50, 40}));
}

TEST(K8sMostAllocated, IfTheNodeDoesntHaveAResource) {
  const auto c = cluster({node("node1", {{"cpu", "6000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}, {kExt, "4"}})});
  EXPECT_EQ(most("[{name: abc.com/xyz, weight: 2}, {name: cpu, weight: 1}, "
                 "{name: memory, weight: 1}]",
                 Pod().req({{"cpu", "3000"}, {"memory", "4000"}}), c),
            (Scores{45, 45}));
}

// ---- requested_to_capacity_ratio_test.go -------------------------------------------------

Scores ratio(const std::string& resources, const std::string& shape, const Pod& pod,
             const ClusterView& c) {
  return *scores("NodeResourcesFit",
                 fit_args("RequestedToCapacityRatio", resources,
                          "  requestedToCapacityRatio:\n    shape: " + shape + "\n"),
                 *pod.obj(), c);
}

const std::string kFalling = "[{utilization: 0, score: 10}, {utilization: 100, score: 0}]";
const std::string kRising = "[{utilization: 0, score: 0}, {utilization: 100, score: 1}]";

TEST(K8sRequestedToCapacityRatio, NothingScheduledNothingRequested) {
  // "nothing scheduled, nothing requested (default - least requested nodes have priority)".
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "4000"}, {"memory", "10000"}})},
                         {Pod().node("node1"), Pod().node("node1")});
  EXPECT_EQ(ratio(kCpuMem, kFalling, Pod(), c), (Scores{100, 100}));
}

TEST(K8sRequestedToCapacityRatio, NothingScheduledResourcesRequestedDifferentlySizedNodes) {
  // "... (default - least requested nodes have priority)": node1 cpu 75% -> 25, memory 50% ->
  // 50, round(75 / 2) = 38; node2 50, 50 -> 50.
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
                         {Pod().node("node1"), Pod().node("node1")});
  EXPECT_EQ(ratio(kCpuMem, kFalling, kTwoContainers, c), (Scores{38, 50}));
}

TEST(K8sRequestedToCapacityRatio, NoResourcesRequestedPodsScheduledWithResources) {
  // "no resources requested, pods scheduled with resources (default - least requested nodes
  // have priority)".
  const auto c = cluster({node("node1", {{"cpu", "4000"}, {"memory", "10000"}}),
                          node("node2", {{"cpu", "6000"}, {"memory", "10000"}})},
                         {Pod().node("node1").req({{"cpu", "3000"}, {"memory", "5000"}}),
                          Pod().node("node2").req({{"cpu", "3000"}, {"memory", "5000"}})});
  EXPECT_EQ(ratio(kCpuMem, kFalling, Pod(), c), (Scores{38, 50}));
}

TEST(K8sRequestedToCapacityRatio, BrokenLinearFunction) {
  // TestBrokenLinearFunction, its three shapes (raw points, no x10 scaling) and assertions.
  const std::vector<ShapePoint> s0{{10, 1}, {90, 9}};
  for (const auto& [p, want] : std::vector<std::pair<std::int64_t, std::int64_t>>{{-10, 1},
                                                                                  {0, 1},
                                                                                  {9, 1},
                                                                                  {10, 1},
                                                                                  {15, 1},
                                                                                  {19, 1},
                                                                                  {20, 2},
                                                                                  {89, 8},
                                                                                  {90, 9},
                                                                                  {99, 9},
                                                                                  {100, 9},
                                                                                  {110, 9}}) {
    EXPECT_EQ(broken_linear(s0, p), want) << "case_0 p=" << p;
  }
  const std::vector<ShapePoint> s1{{0, 2}, {40, 10}, {100, 0}};
  for (const auto& [p, want] : std::vector<std::pair<std::int64_t, std::int64_t>>{
           {-10, 2}, {0, 2}, {20, 6}, {30, 8}, {40, 10}, {70, 5}, {100, 0}, {110, 0}}) {
    EXPECT_EQ(broken_linear(s1, p), want) << "case_1 p=" << p;
  }
  const std::vector<ShapePoint> s2{{0, 2}, {40, 2}, {100, 2}};
  for (std::int64_t p : {-10, 0, 20, 30, 40, 70, 100, 110}) {
    EXPECT_EQ(broken_linear(s2, p), 2) << "case_2 p=" << p;
  }
}

// TestResourceBinPackingSingleExtended: intel.com/foo weight 1, shape (0,0) (100,1); node1 has
// 8 foo, node2 4 (4000m CPU, 10000Mi memory each). A pod with no node is bound nowhere.
ClusterView single_extended(const std::vector<Pod>& existing) {
  const std::int64_t mem = 10000LL * 1024 * 1024;
  return cluster({make_node("node1", 4000, mem, {{"intel.com/foo", 8}}),
                  make_node("node2", 4000, mem, {{"intel.com/foo", 4}})},
                 existing);
}
const std::string kFoo = "[{name: intel.com/foo, weight: 1}]";

TEST(K8sResourceBinPackingSingleExtended, NothingScheduledNothingRequested) {
  EXPECT_EQ(ratio(kFoo, kRising, Pod(), single_extended({})), (Scores{0, 0}));
}

TEST(K8sResourceBinPackingSingleExtended, ResourcesRequestedPodsScheduledWithLessResources) {
  // 2/8 = 25% -> 10 * 25 / 100 = 2; 2/4 = 50% -> 5.
  EXPECT_EQ(ratio(kFoo, kRising, Pod().req({{"intel.com/foo", "2"}}), single_extended({Pod()})),
            (Scores{2, 5}));
}

TEST(K8sResourceBinPackingSingleExtended, ResourcesRequestedOnNodeWithExistingPodRunning) {
  // "resources requested, pods scheduled with resources, on node with existing pod running ":
  // node2 (2 + 2) / 4 = 100% -> 10.
  const auto c = single_extended({Pod().req({{"intel.com/foo", "2"}}).node("node2")});
  EXPECT_EQ(ratio(kFoo, kRising, Pod().req({{"intel.com/foo", "2"}}), c), (Scores{2, 10}));
}

TEST(K8sResourceBinPackingSingleExtended, ResourcesRequestedPodsScheduledWithMoreResources) {
  EXPECT_EQ(ratio(kFoo, kRising, Pod().req({{"intel.com/foo", "4"}}), single_extended({Pod()})),
            (Scores{5, 10}));
}

// TestResourceBinPackingMultipleExtended: foo weight 3, bar weight 5; node1 foo 8 / bar 4,
// node2 foo 4 / bar 8.
ClusterView multiple_extended(const std::vector<Pod>& existing) {
  const std::int64_t mem = 10000LL * 1024 * 1024;
  return cluster({make_node("node1", 4000, mem, {{"intel.com/foo", 8}, {"intel.com/bar", 4}}),
                  make_node("node2", 4000, mem, {{"intel.com/foo", 4}, {"intel.com/bar", 8}})},
                 existing);
}
const std::string kFooBar = "[{name: intel.com/foo, weight: 3}, {name: intel.com/bar, weight: 5}]";

TEST(K8sResourceBinPackingMultipleExtended, NothingScheduledNothingRequested) {
  EXPECT_EQ(ratio(kFooBar, kRising, Pod(), multiple_extended({})), (Scores{0, 0}));
}

TEST(K8sResourceBinPackingMultipleExtended, ResourcesRequestedPodsScheduledWithLessResources) {
  // node1: foo 25% -> 2, bar 50% -> 5: round((2*3 + 5*5) / 8) = round(3.875) = 4;
  // node2: foo 5, bar 2: round(25 / 8) = 3.
  const Pod pod = Pod().req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}});
  EXPECT_EQ(ratio(kFooBar, kRising, pod, multiple_extended({Pod()})), (Scores{4, 3}));
}

TEST(K8sResourceBinPackingMultipleExtended, ResourcesRequestedOnNodeWithExistingPodRunning) {
  // node2 already runs foo 4 / bar 2: foo over capacity -> 10, bar 4/8 -> 5: round(55/8) = 7.
  const Pod pod = Pod().req({{"intel.com/foo", "2"}, {"intel.com/bar", "2"}});
  const auto c = multiple_extended(
      {Pod().req({{"intel.com/foo", "4"}, {"intel.com/bar", "2"}}).node("node2")});
  EXPECT_EQ(ratio(kFooBar, kRising, pod, c), (Scores{4, 7}));
}

TEST(K8sResourceBinPackingMultipleExtended, ResourcesRequestedPodsScheduledWithMoreResources) {
  const Pod pod = Pod().req({{"intel.com/foo", "4"}, {"intel.com/bar", "2"}});
  EXPECT_EQ(ratio(kFooBar, kRising, pod, multiple_extended({Pod()})), (Scores{5, 5}));
}

// ---- balanced_allocation_test.go ---------------------------------------------------------

// The upstream pod specs: cpuAndMemory (1000m/2000 + 2000m/3000, on node2), cpuOnly
// (1000m/"0" + 2000m/"0", on node1), cpuAndMemoryAndGPU (cpuAndMemory with nvidia.com/gpu 3 in
// the second container, on node1).
Pod cpu_and_memory() {
  return Pod()
      .req({{"cpu", "1000m"}, {"memory", "2000"}})
      .req({{"cpu", "2000m"}, {"memory", "3000"}})
      .node("node2");
}
Pod cpu_only() {
  return Pod()
      .req({{"cpu", "1000m"}, {"memory", "0"}})
      .req({{"cpu", "2000m"}, {"memory", "0"}})
      .node("node1");
}
Pod cpu_and_memory_and_gpu() {
  return Pod()
      .req({{"cpu", "1000m"}, {"memory", "2000"}})
      .req({{"cpu", "2000m"}, {"memory", "3000"}, {"nvidia.com/gpu", "3"}})
      .node("node1");
}

const std::string kBalancedCpuMem = "resources: " + kCpuMem + "\n";
const std::string kBalancedWithGpu =
    "resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}, "
    "{name: nvidia.com/gpu, weight: 1}]\n";

std::optional<Scores> balanced(const std::string& args, const Pod& pod, const ClusterView& c,
                               bool pre_score = true) {
  return scores("NodeResourcesBalancedAllocation", args, *pod.obj(), c, pre_score);
}

TEST(K8sBalancedAllocation, NothingScheduledNothingRequestedSkipInPreScore) {
  // A best-effort pod: PreScore returns Skip (kubernetes issue 129138).
  const auto c = cluster({make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)});
  EXPECT_FALSE(balanced(kBalancedCpuMem, Pod(), c));
}

TEST(K8sBalancedAllocation, NothingScheduledResourcesRequestedDifferentlySizedNodes) {
  const auto c = cluster({make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)});
  EXPECT_EQ(balanced(kBalancedCpuMem, cpu_and_memory(), c), (Scores{87, 100}));
}

TEST(K8sBalancedAllocation, ResourcesRequestedPodsScheduledWithResources) {
  const auto c = cluster({make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)},
                         {cpu_only(), cpu_and_memory()});
  EXPECT_EQ(balanced(kBalancedCpuMem, cpu_and_memory(), c), (Scores{82, 95}));
}

TEST(K8sBalancedAllocation, ResourcesRequestedPodsScheduledWithResourcesDifferentlySizedNodes) {
  const auto c = cluster({make_node("node1", 10000, 20000), make_node("node2", 10000, 50000)},
                         {cpu_only(), cpu_and_memory()});
  EXPECT_EQ(balanced(kBalancedCpuMem, cpu_and_memory(), c), (Scores{82, 80}));
}

TEST(K8sBalancedAllocation, RequestedResourcesAtNodeCapacity) {
  const auto c = cluster({make_node("node1", 6000, 10000), make_node("node2", 6000, 10000)},
                         {cpu_only(), cpu_and_memory()});
  EXPECT_EQ(balanced(kBalancedCpuMem, cpu_only(), c), (Scores{50, 75}));
}

TEST(K8sBalancedAllocation, IncludeScalarResourceOnANodeForBalancedResourceAllocation) {
  const auto c = cluster({make_node("node1", 3500, 40000, {{"nvidia.com/gpu", 8}}),
                          make_node("node2", 3500, 40000, {{"nvidia.com/gpu", 8}})},
                         {cpu_and_memory(), cpu_and_memory_and_gpu()});
  const Pod pod = Pod().req({{"memory", "0"}, {"nvidia.com/gpu", "1"}});
  EXPECT_EQ(balanced(kBalancedWithGpu, pod, c), (Scores{70, 65}));
}

TEST(K8sBalancedAllocation, NodeWithoutTheScalarResourceShouldSkipTheScalarResource) {
  const auto c = cluster(
      {make_node("node1", 3500, 40000, {{"nvidia.com/gpu", 8}}), make_node("node2", 3500, 40000)});
  EXPECT_EQ(balanced(kBalancedWithGpu, cpu_and_memory(), c), (Scores{63, 63}));
}

TEST(K8sBalancedAllocation, ResourcesRequestedPodsScheduledWithResourcesIfPreScoreNotCalled) {
  const auto c = cluster({make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)},
                         {cpu_only(), cpu_and_memory()});
  EXPECT_EQ(balanced(kBalancedCpuMem, cpu_and_memory(), c, false), (Scores{82, 95}));
}

// Not reproduced: "include DRA resource on a node for balanced resource allocation" and its
// "... if PreScore not called" twin. They score an extended resource backed by dynamic resource
// allocation (a DeviceClass with extendedResourceName and a ResourceSlice of 8 devices on
// node1), which tidesim does not model (pod resourceClaims are rejected by the manifest reader).

}  // namespace
}  // namespace tidesim::policies
