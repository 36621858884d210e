// Volcano's allocate-action cases with HyperNodes, ported from volcano-sh/volcano @ed72c7c
// (pkg/scheduler/actions/allocate/allocate_test.go), each beside its upstream test and case name,
// run through volcano::Allocator (the code the `volcano` job-level policy runs). Upstream checks
// the number of binds (and for some the node of a pod, or the binds per HyperNode); so do these.
// Upstream's cases set the session's HyperNodes directly (HyperNodesSetByTier, HyperNodes: the
// real nodes of each, HyperNodesMap: the objects with their members); here each is written as
// the HyperNode objects that give the same tree. Nodes: 2 CPU, 4Gi memory, 10 pods unless said;
// pods request 2 CPU and 4G memory (api.BuildResourceList("2", "4G")).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

struct HN {
  HN(std::string n, int t, std::vector<std::string> ns, std::vector<std::string> hs,
     std::string tn = "")
      : name(std::move(n)),
        tier(t),
        nodes(std::move(ns)),
        hypernodes(std::move(hs)),
        tier_name(std::move(tn)) {}
  std::string name;
  int tier;
  std::vector<std::string> nodes;
  std::vector<std::string> hypernodes;
  std::string tier_name;
};

struct Pod {
  std::string node;  // running on; "" pending
  std::map<std::string, std::string> selector = {};
};

struct Case {
  Case(std::vector<std::string> ns, std::vector<HN> hs, std::vector<Pod> ps, int min,
       std::optional<NetworkTopology> t, std::string alloc)
      : nodes(std::move(ns)),
        hns(std::move(hs)),
        pods(std::move(ps)),
        min_available(min),
        topology(std::move(t)),
        allocated(std::move(alloc)) {}
  std::vector<std::string> nodes;
  std::vector<HN> hns;
  std::vector<Pod> pods;
  int min_available = 1;
  std::optional<NetworkTopology> topology;
  std::string allocated;
  std::map<std::string, std::map<std::string, std::string>> node_labels;
  std::int64_t node_cpu = 2000;
  std::int64_t node_memory = 4LL << 30;
  std::int64_t pod_cpu = 2000;
  std::int64_t pod_memory = 4'000'000'000;
};

struct Result {
  int binds = 0;
  std::vector<std::string> nodes;  // per pod, "" when not bound
};

std::vector<HyperNodeSpec> specs_of(const std::vector<HN>& hns) {
  std::vector<HyperNodeSpec> out;
  for (const HN& h : hns) {
    HyperNodeSpec s;
    s.name = h.name;
    s.tier = h.tier;
    s.tier_name = h.tier_name;
    for (const std::string& n : h.nodes) {
      s.members.push_back({MemberType::kNode, SelectorKind::kExact, n, {}, {}, ""});
    }
    for (const std::string& n : h.hypernodes) {
      s.members.push_back({MemberType::kHyperNode, SelectorKind::kExact, n, {}, {}, ""});
    }
    out.push_back(std::move(s));
  }
  return out;
}

Result run(const Case& c) {
  std::vector<NodeSpec> nodes;
  std::vector<std::map<std::string, std::string>> labels;
  std::vector<Amounts> alloc;
  std::vector<Amounts> used(c.nodes.size());
  for (const std::string& n : c.nodes) {
    NodeSpec s;
    s.name = n;
    if (const auto it = c.node_labels.find(n); it != c.node_labels.end()) {
      s.labels = it->second;
    }
    labels.push_back(s.labels);
    nodes.push_back(s);
    alloc.push_back({{"cpu", c.node_cpu}, {"memory", c.node_memory}, {"pods", 10}});
  }
  const HyperNodeTree tree(specs_of(c.hns), nodes);
  JobRequest job;
  job.min_available = c.min_available;
  job.topology = c.topology;
  job.allocated_hypernode = c.allocated;
  const Amounts request{{"cpu", c.pod_cpu}, {"memory", c.pod_memory}, {"pods", 1}};
  for (const Pod& p : c.pods) {
    Task t;
    t.request = request;
    t.node_selector = p.selector;
    if (!p.node.empty()) {
      t.node =
          static_cast<int>(std::find(c.nodes.begin(), c.nodes.end(), p.node) - c.nodes.begin());
      for (const auto& [k, v] : request) {
        used[static_cast<std::size_t>(t.node)][k] += v;
      }
    }
    job.tasks.push_back(t);
  }
  Allocator a(tree, labels, alloc, used, PluginArgs{});
  a.set_tier_names(tier_names(specs_of(c.hns)));
  const Allocation out = a.allocate(job);
  Result r;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    const bool bound = out.ready && job.tasks[t].node < 0 && out.nodes[t] >= 0;
    r.binds += bound ? 1 : 0;
    r.nodes.push_back(bound ? c.nodes[static_cast<std::size_t>(out.nodes[t])] : "");
  }
  return r;
}

NetworkTopology hard(int tier) {
  NetworkTopology t;
  t.highest_tier = tier;
  return t;
}
NetworkTopology soft() {
  NetworkTopology t;
  t.hard = false;
  return t;
}

const std::vector<std::string> kFour = {"s0-n1", "s0-n2", "s1-n3", "s1-n4"};
// HyperNodesSetByTier {0: s0, s1; 1: s2} with only the real-node sets (no parents).
const std::vector<HN> kFlat = {{"s0", 0, {"s0-n1", "s0-n2"}, {}},
                               {"s1", 0, {"s1-n3", "s1-n4"}, {}},
                               {"s2", 1, {"s0-n1", "s0-n2", "s1-n3", "s1-n4"}, {}}};
// HyperNodesMap: s0, s1 (tier 1) members of s2 (tier 2).
const std::vector<HN> kTwoTier = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
                                  {"s1", 1, {"s1-n3", "s1-n4"}, {}},
                                  {"s2", 2, {}, {"s0", "s1"}}};
const std::vector<std::string> kEight = {"s3-n1", "s3-n2", "s4-n1", "s4-n2",
                                         "s5-n1", "s5-n2", "s6-n1", "s6-n2"};
// s3..s6 (tier 1) in s1, s2 (tier 2) in s0 (tier 3).
const std::vector<HN> kThreeTier = {
    {"s0", 3, {}, {"s1", "s2"}},       {"s1", 2, {}, {"s3", "s4"}},
    {"s2", 2, {}, {"s5", "s6"}},       {"s3", 1, {"s3-n1", "s3-n2"}, {}},
    {"s4", 1, {"s4-n1", "s4-n2"}, {}}, {"s5", 1, {"s5-n1", "s5-n2"}, {}},
    {"s6", 1, {"s6-n1", "s6-n2"}, {}}};

std::vector<Pod> pending(int n) {
  return std::vector<Pod>(static_cast<std::size_t>(n));
}
std::vector<Pod> rescheduled(const std::string& a, const std::string& b) {
  return {{a, {}}, {b, {}}, {"", {}}};
}

// allocate_test.go TestAllocateWithNetWorkTopologies: "soft network topology constrain, can
// allocate job when resources are enough"
TEST(VolcanoAllocate, SoftResourcesEnough) {
  EXPECT_EQ(run({kFour, kFlat, pending(3), 3, soft(), ""}).binds, 3);
}

// TestAllocateWithNetWorkTopologies: "soft network topology constrain, can allocate job when
// minavailable < replicas"
TEST(VolcanoAllocate, SoftMinAvailableBelowReplicas) {
  EXPECT_EQ(run({kFour, kTwoTier, pending(2), 1, soft(), ""}).binds, 2);
}

// TestAllocateWithNetWorkTopologies: "soft network topology constrain, two available hyperNodes,
// can allocate job to nodes with affinity"
TEST(VolcanoAllocate, SoftAffinity) {
  Case c{{"s0-n1", "s1-n2"},
         {{"s0", 0, {"s0-n1"}, {}}, {"s1", 0, {"s1-n2"}, {}}},
         {{"", {{"nodeRole", "master"}}}},
         1,
         soft(),
         ""};
  c.node_labels["s1-n2"] = {{"nodeRole", "master"}};
  const Result r = run(c);
  EXPECT_EQ(r.binds, 1);
  EXPECT_EQ(r.nodes[0], "s1-n2");
}

// TestAllocateWithNetWorkTopologies: "soft network topology constrain and tasks in job
// rescheduled, can allocate job when resources are enough"
TEST(VolcanoAllocate, SoftRescheduled) {
  EXPECT_EQ(run({kFour, kTwoTier, rescheduled("s0-n1", "s0-n2"), 2, soft(), "s0"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "soft network topology constrain and tasks in job
// rescheduled, can allocate job when resources are enough and minavailable = replicas"
TEST(VolcanoAllocate, SoftRescheduledMinAvailableReplicas) {
  EXPECT_EQ(run({kFour, kTwoTier, rescheduled("s0-n1", "s0-n2"), 3, soft(), "s0"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "soft network topology constrain and tasks in job
// rescheduled, can allocate job when cross highestTierAllowed tier and hyperNodesInfo has three
// tier"
TEST(VolcanoAllocate, SoftRescheduledThreeTier) {
  EXPECT_EQ(run({kEight, kThreeTier, rescheduled("s3-n1", "s3-n2"), 2, soft(), "s3"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can not allocate job when
// cross highestTierAllowed tier"
TEST(VolcanoAllocate, HardCrossTierRefused) {
  EXPECT_EQ(run({kFour, kTwoTier, pending(3), 3, hard(1), ""}).binds, 0);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can allocate job when
// highestTierAllowed not reached"
TEST(VolcanoAllocate, HardTierNotReached) {
  EXPECT_EQ(run({kFour, kTwoTier, pending(3), 3, hard(2), ""}).binds, 3);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can allocate job when
// multi hyperNodes are available"
TEST(VolcanoAllocate, HardMultiHyperNodes) {
  EXPECT_EQ(run({kFour, kTwoTier, pending(2), 2, hard(1), ""}).binds, 2);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can allocate job when
// minavailable < replicas"
TEST(VolcanoAllocate, HardMinAvailableBelowReplicas) {
  EXPECT_EQ(run({kFour, kTwoTier, pending(2), 1, hard(1), ""}).binds, 2);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, two available
// hyperNodes, can allocate job to nodes with affinity"
TEST(VolcanoAllocate, HardAffinity) {
  Case c{{"s0-n1", "s1-n2"},
         {{"s0", 0, {"s0-n1"}, {}}, {"s1", 0, {"s1-n2"}, {}}},
         {{"", {{"nodeRole", "master"}}}},
         1,
         hard(1),
         ""};
  c.node_labels["s1-n2"] = {{"nodeRole", "master"}};
  const Result r = run(c);
  EXPECT_EQ(r.binds, 1);
  EXPECT_EQ(r.nodes[0], "s1-n2");
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can allocate job when highestTierAllowed not reached"
TEST(VolcanoAllocate, HardRescheduledTierNotReached) {
  EXPECT_EQ(run({kFour, kTwoTier, rescheduled("s0-n1", "s0-n2"), 2, hard(2), "s0"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can allocate job when highestTierAllowed not reached and minavailable = replicas"
TEST(VolcanoAllocate, HardRescheduledMinAvailableReplicas) {
  EXPECT_EQ(run({kFour, kTwoTier, rescheduled("s0-n1", "s0-n2"), 3, hard(2), "s0"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can allocate job when highestTierAllowed not reached and hyperNodesInfo has three
// tier"
TEST(VolcanoAllocate, HardRescheduledThreeTier) {
  EXPECT_EQ(run({kEight, kThreeTier, rescheduled("s3-n1", "s3-n2"), 2, hard(2), "s3"}).binds, 1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can not allocate job when cross highestTierAllowed tier"
TEST(VolcanoAllocate, HardRescheduledCrossTierRefused) {
  EXPECT_EQ(run({kFour, kTwoTier, rescheduled("s0-n1", "s0-n2"), 2, hard(1), "s0"}).binds, 0);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can not allocate job when cross highestTierAllowed tier and hyperNodesInfo has
// three tier"
TEST(VolcanoAllocate, HardRescheduledThreeTierCrossRefused) {
  EXPECT_EQ(run({kEight, kThreeTier, rescheduled("s3-n1", "s3-n2"), 2, hard(1), "s3"}).binds, 0);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can allocate job when LCAHyperNode is empty"
TEST(VolcanoAllocate, HardRescheduledNoCommonAncestor) {
  const std::vector<HN> hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
                               {"s1", 1, {"s1-n3", "s1-n4"}, {}}};
  EXPECT_EQ(run({kFour, hns, rescheduled("s0-n1", "s0-n2"), 2, hard(2), "s0"}).binds, 1);
}

// allocate_test.go TestHyperNodeBinpackWithNetWorkTopologies: "hard network topology constrain,
// allocate task to node under LCAHyperNode" (nodes 4 CPU / 8Gi, pods 4 CPU / 8Gi: two binds in
// each of two HyperNodes).
TEST(VolcanoAllocate, TaskToNodeUnderLcaHyperNode) {
  Case c{{"s0-n1", "s0-n2", "s1-n3", "s1-n4", "s2-n5", "s2-n6"},
         {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
          {"s1", 1, {"s1-n3", "s1-n4"}, {}},
          {"s2", 1, {"s2-n5", "s2-n6"}, {}},
          {"s3", 2, {}, {"s0", "s1", "s2"}}},
         pending(4),
         4,
         hard(2),
         ""};
  c.node_cpu = c.pod_cpu = 4000;
  c.node_memory = c.pod_memory = 8LL << 30;
  const Result r = run(c);
  EXPECT_EQ(r.binds, 4);
  std::map<std::string, int> per;  // binds per HyperNode (the node name's prefix)
  for (const std::string& n : r.nodes) {
    ++per[n.substr(0, 2)];
  }
  std::vector<int> counts;
  for (const auto& [h, k] : per) {
    counts.push_back(k);
  }
  EXPECT_EQ(counts, (std::vector<int>{2, 2}));
}

// The cases that name the tier by highestTierName (HyperNodesTierNameMap {volcano.sh/task-spec:
// 1, volcano.sh/job-spec: 2}: the tierName of s0, s1 and of s2).
const std::vector<HN> kNamed = {{"s0", 1, {"s0-n1", "s0-n2"}, {}, "volcano.sh/task-spec"},
                                {"s1", 1, {"s1-n3", "s1-n4"}, {}, "volcano.sh/task-spec"},
                                {"s2", 2, {}, {"s0", "s1"}, "volcano.sh/job-spec"}};

NetworkTopology named(const std::string& tier_name) {
  NetworkTopology t;
  t.hard = true;
  t.highest_tier_name = tier_name;
  return t;
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can not allocate job when
// cross highestTierName tier"
TEST(VolcanoAllocate, HardCrossTierNameRefused) {
  EXPECT_EQ(run({kFour, kNamed, pending(3), 3, named("volcano.sh/task-spec"), ""}).binds, 0);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can allocate job when the
// tier corresponding to highestTierName not reached"
TEST(VolcanoAllocate, HardTierNameNotReached) {
  EXPECT_EQ(run({kFour, kNamed, pending(3), 3, named("volcano.sh/job-spec"), ""}).binds, 3);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain, can allocate job when
// multi hyperNodes are available" (the highestTierName case)
TEST(VolcanoAllocate, HardTierNameMultiHyperNodes) {
  EXPECT_EQ(run({kFour, kNamed, pending(2), 2, named("volcano.sh/task-spec"), ""}).binds, 2);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and task in job
// rescheduled, can allocate job when the tier corresponding to highestTierName not reached"
TEST(VolcanoAllocate, HardRescheduledTierNameNotReached) {
  EXPECT_EQ(
      run({kFour, kNamed, rescheduled("s0-n1", "s0-n2"), 2, named("volcano.sh/job-spec"), "s0"})
          .binds,
      1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and task in job
// rescheduled, can allocate job when the tier corresponding to highestTierName not reached and
// minavailable = replicas"
TEST(VolcanoAllocate, HardRescheduledTierNameMinAvailableReplicas) {
  EXPECT_EQ(
      run({kFour, kNamed, rescheduled("s0-n1", "s0-n2"), 3, named("volcano.sh/job-spec"), "s0"})
          .binds,
      1);
}

// TestAllocateWithNetWorkTopologies: "hard network topology constrain and tasks in job
// rescheduled, can not allocate job when cross the tier corresponding to highestTierName"
TEST(VolcanoAllocate, HardRescheduledCrossTierNameRefused) {
  EXPECT_EQ(
      run({kFour, kNamed, rescheduled("s0-n1", "s0-n2"), 2, named("volcano.sh/task-spec"), "s0"})
          .binds,
      0);
}

// TestAllocateWithNetWorkTopologies: "hard network topology with highestTierName constrain and
// tasks in job rescheduled, can allocate job when here is no corresponding highestTierAllowed for
// highestTierName" (only tier 1, named volcano.sh/task-spec; the job names
// volcano.sh/hypercluster)
TEST(VolcanoAllocate, HardUnknownTierNameIsNoHardTier) {
  const std::vector<HN> hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}, "volcano.sh/task-spec"},
                               {"s1", 1, {"s1-n3", "s1-n4"}, {}, "volcano.sh/task-spec"}};
  EXPECT_EQ(
      run({kFour, hns, rescheduled("s0-n1", "s0-n2"), 2, named("volcano.sh/hypercluster"), "s0"})
          .binds,
      1);
}

// pkg/scheduler/plugins/network-topology-aware/network_topology_aware_test.go TestHyperNodeOrderFn:
// the HyperNode scores of a two-task sub-job (4 CPU, 4G each) on the three-tier tree, nodes of
// 2 or 4 CPU and 4G or 8G; "with default plugin arguments" and "with customized plugin
// arguments" (weight 10, cpu 3, memory 4, example.com/foo 3; the pods also ask 8 foo).
std::vector<double> order_scores(const std::map<std::string, std::string>& args, bool foo) {
  const std::vector<std::int64_t> cpu = {2, 2, 4, 4, 2, 2, 4, 4};
  const std::vector<std::int64_t> mem = {4, 4, 4, 4, 8, 8, 8, 8};
  const std::vector<std::int64_t> foos = {8, 0, 8, 0, 16, 0, 16, 0};
  std::vector<NodeSpec> nodes;
  std::vector<Amounts> alloc;
  for (std::size_t i = 0; i < kEight.size(); ++i) {
    NodeSpec s;
    s.name = kEight[i];
    nodes.push_back(s);
    alloc.push_back({{"cpu", cpu[i] * 1000}, {"memory", mem[i] * 1'000'000'000}, {"pods", 10}});
    if (foo) {
      alloc.back()["example.com/foo"] = foos[i];
    }
  }
  const HyperNodeTree tree(specs_of(kThreeTier), nodes);
  const Allocator a(tree, std::vector<std::map<std::string, std::string>>(8), alloc,
                    std::vector<Amounts>(8), plugin_args(args));
  JobRequest job;
  Task t;
  t.request = {{"cpu", 4000}, {"memory", 4'000'000'000}};
  if (foo) {
    t.request["example.com/foo"] = 8;
  }
  job.tasks.assign(2, t);
  job.min_available = 2;
  job.topology = hard(2);
  std::vector<int> hs;
  for (const char* h : {"s0", "s1", "s2", "s3", "s4", "s5", "s6"}) {
    hs.push_back(tree.find(h));
  }
  std::vector<double> out;
  for (const double v : a.hypernode_scores(job, hs)) {
    out.push_back(std::round(v * 10) / 10);  // upstream compares within 0.1
  }
  return out;
}

TEST(VolcanoPluginScores, HyperNodeOrderDefaultArguments) {
  EXPECT_EQ(order_scores({}, false),
            (std::vector<double>{25.0, 58.3, 45.8, 0.0, 100.0, 0.0, 75.0}));
}

TEST(VolcanoPluginScores, HyperNodeOrderCustomizedArguments) {
  const std::map<std::string, std::string> args = {
      {"weight", "10"},
      {"hypernode.binpack.cpu", "3"},
      {"hypernode.binpack.memory", "4"},
      {"hypernode.binpack.resources", "nvidia.com/gpu, example.com/foo"},
      {"hypernode.binpack.resources.nvidia.com/gpu", "2"},
      {"hypernode.binpack.resources.example.com/foo", "3"},
      {"hypernode.binpack.normal-pod.enable", "true"},
      {"hypernode.binpack.normal-pod.fading", "0"}};
  EXPECT_EQ(order_scores(args, true),
            (std::vector<double>{266.7, 700.0, 450.0, 0.0, 0.0, 0.0, 800.0}));
}

}  // namespace
}  // namespace tidesim::volcano
