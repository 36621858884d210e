// Volcano's allocate-action cases with sub-group policies (a PodGroup's spec.subGroupPolicy, which
// Volcano's job controller writes from a task's partitionPolicy), ported from volcano-sh/volcano
// @ed72c7c pkg/scheduler/actions/allocate/allocate_test.go
// TestAllocateWithPartitionPolicyNetworkTopology (all 37 of its cases), each beside its upstream
// case name, run through volcano::Allocator (the code the `volcano` job-level policy runs).
// Upstream checks the number of binds, and for some the node of a pod (MinimalBindCheck: only
// those named); so do these. The HyperNodes are written as in volcano_allocate_test.cpp: a case
// with HyperNodesMap as those objects; one with only HyperNodesSetByTier and the real-node sets
// as HyperNodes of those tiers holding those nodes. Pods join sub-groups by their labels
// (util.BuildPod's labels); a running pod is on its node with its request counted there.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/admission/volcano_allocate.hpp"

namespace tidesim::volcano {
namespace {

using Labels = std::map<std::string, std::string>;

struct HN {
  std::string name;
  int tier;
  std::vector<std::string> nodes;
  std::vector<std::string> hypernodes;
};

struct NodeCase {
  std::string name;
  std::int64_t cpu;
  std::int64_t memory;
  Labels labels;
};
// util.BuildNode(name, api.BuildResourceList(cpu, memory, pods: 10), labels); "2", "4Gi" unless
// given.
NodeCase N(std::string name, std::int64_t cpu = 2000, std::int64_t memory = 4LL << 30,
           Labels labels = {}) {
  return {std::move(name), cpu, memory, std::move(labels)};
}

struct PodCase {
  std::string name;
  std::string node;  // running on; "" pending
  Labels labels;
  Labels selector;
  std::int64_t cpu;
  std::int64_t memory;
};
// util.BuildPod(ns, name, node, phase, api.BuildResourceList(cpu, memory), pg, labels, selector);
// "2", "4G" unless given.
PodCase P(std::string name, std::string node, Labels labels, Labels selector = {},
          std::int64_t cpu = 2000, std::int64_t memory = 4'000'000'000) {
  return {std::move(name), std::move(node), std::move(labels), std::move(selector), cpu, memory};
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

// util.BuildSubGroupPolicyWithMinSubGroups(name, matchLabelKeys, mode, highestTierAllowed,
// subGroupSize, minSubGroups): no networkTopology when mode is "".
SubGroupPolicy G(std::string name, std::vector<std::string> keys,
                 std::optional<NetworkTopology> topology, int size, int min) {
  SubGroupPolicy p;
  p.name = std::move(name);
  p.match_label_keys = std::move(keys);
  p.topology = std::move(topology);
  p.sub_group_size = size;
  p.min_sub_groups = min;
  return p;
}

struct SCase {
  std::vector<NodeCase> nodes;
  std::vector<HN> hns;
  std::vector<PodCase> pods;
  int min_member = 1;
  std::string allocated;  // the PodGroup's allocated-HyperNode annotation
  std::optional<NetworkTopology> topology;
  std::vector<SubGroupPolicy> policies;
};

struct R {
  int binds = 0;
  std::map<std::string, std::string> bound;  // pod -> node, for the pods bound
};

R run(const SCase& c) {
  std::vector<NodeSpec> nodes;
  std::vector<Labels> labels;
  std::vector<Amounts> alloc;
  std::vector<Amounts> used(c.nodes.size());
  std::map<std::string, int> index;
  for (const NodeCase& n : c.nodes) {
    NodeSpec s;
    s.name = n.name;
    s.labels = n.labels;
    index[n.name] = static_cast<int>(nodes.size());
    nodes.push_back(s);
    labels.push_back(n.labels);
    alloc.push_back({{"cpu", n.cpu}, {"memory", n.memory}, {"pods", 10}});
  }
  std::vector<HyperNodeSpec> specs;
  for (const HN& h : c.hns) {
    HyperNodeSpec s;
    s.name = h.name;
    s.tier = h.tier;
    for (const std::string& n : h.nodes) {
      s.members.push_back({MemberType::kNode, SelectorKind::kExact, n, {}, {}, ""});
    }
    for (const std::string& n : h.hypernodes) {
      s.members.push_back({MemberType::kHyperNode, SelectorKind::kExact, n, {}, {}, ""});
    }
    specs.push_back(std::move(s));
  }
  const HyperNodeTree tree(specs, nodes);
  JobRequest job;
  job.min_available = c.min_member;
  job.topology = c.topology;
  job.allocated_hypernode = c.allocated;
  job.sub_groups = c.policies;
  for (const PodCase& p : c.pods) {
    Task t;
    t.request = {{"cpu", p.cpu}, {"memory", p.memory}, {"pods", 1}};
    t.node_selector = p.selector;
    t.labels = p.labels;
    if (!p.node.empty()) {
      t.node = index.at(p.node);
      for (const auto& [k, v] : t.request) {
        used[static_cast<std::size_t>(t.node)][k] += v;
      }
    }
    job.tasks.push_back(t);
  }
  const Allocator a(tree, labels, alloc, used, PluginArgs{});
  const Allocation out = a.allocate(job);
  R r;
  for (std::size_t t = 0; t < job.tasks.size(); ++t) {
    if (out.ready && job.tasks[t].node < 0 && out.nodes[t] >= 0) {
      ++r.binds;
      r.bound[c.pods[t].name] = c.nodes[static_cast<std::size_t>(out.nodes[t])].name;
    }
  }
  return r;
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain, can allocate job when resources are
// enough"
TEST(VolcanoSubGroups, Case01) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 0, {"s0-n1", "s0-n2"}, {}},
           {"s1", 0, {"s1-n3", "s1-n4"}, {}},
           {"s2", 1, {"s0-n1", "s0-n2", "s1-n3", "s1-n4"}, {}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain, can allocate job when minavailable <
// replicas"
TEST(VolcanoSubGroups, Case02) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 1;
  c.topology = hard(1);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain, two available hyperNodes, can allocate
// job to nodes with affinity"
TEST(VolcanoSubGroups, Case03) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s1-n2", 2000, 4LL << 30, {{"nodeRole", "master"}})};
  c.hns = {{"s0", 0, {"s0-n1"}, {}}, {"s1", 0, {"s1-n2"}, {}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {{"nodeRole", "master"}})};
  c.min_member = 1;
  c.topology = hard(1);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
  EXPECT_EQ(r.bound, (std::map<std::string, std::string>{{"p1", "s1-n2"}}));
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate
// job when resources are enough"
TEST(VolcanoSubGroups, Case04) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s2";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate
// job when resources are enough and minavailable = replicas"
TEST(VolcanoSubGroups, Case05) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.allocated = "s2";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup soft network topology constrain and tasks in job rescheduled, can allocate
// job when cross highestTierAllowed tier and hyperNodesInfo has three tier"
TEST(VolcanoSubGroups, Case06) {
  SCase c;
  c.nodes = {N("s3-n1"), N("s3-n2"), N("s4-n1"), N("s4-n2"),
             N("s5-n1"), N("s5-n2"), N("s6-n1"), N("s6-n2")};
  c.hns = {{"s0", 3, {}, {"s1", "s2"}},       {"s1", 2, {}, {"s3", "s4"}},
           {"s2", 2, {}, {"s5", "s6"}},       {"s3", 1, {"s3-n1", "s3-n2"}, {}},
           {"s4", 1, {"s4-n1", "s4-n2"}, {}}, {"s5", 1, {"s5-n1", "s5-n2"}, {}},
           {"s6", 1, {"s6-n1", "s6-n2"}, {}}};
  c.pods = {P("p1", "s3-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s3-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s1";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, soft(), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup soft network topology
// constrain and subGroup hard network topology constrain, can allocate job when resources are
// enough"
TEST(VolcanoSubGroups, Case07) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3")};
  c.hns = {
      {"s0", 1, {"s0-n1", "s0-n2"}, {}}, {"s1", 1, {"s1-n3"}, {}}, {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "master"}}),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}})};
  c.min_member = 3;
  c.topology = soft();
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 2, 0),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
  // Upstream also lists ExpectBindMap p1 -> s1-n3, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup soft network topology
// constrain and subGroup hard network topology constrain, can allocate job when minavailable <
// replicas"
TEST(VolcanoSubGroups, Case08) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 1;
  c.topology = soft();
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup soft network topology
// constrain and subGroup hard network topology constrain, can not allocate job when cross
// highestTierAllowed tier"
TEST(VolcanoSubGroups, Case09) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {"s0-n1", "s0-n2", "s1-n3", "s1-n4"}, {}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.topology = soft();
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup soft network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate
// job when resources are enough"
TEST(VolcanoSubGroups, Case10) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s1-n3", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s2";
  c.topology = soft();
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
  // Upstream also lists ExpectBindMap p3 -> s1-n4, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup soft network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not
// allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier"
TEST(VolcanoSubGroups, Case11) {
  SCase c;
  c.nodes = {N("s3-n1"), N("s3-n2"), N("s4-n1"), N("s4-n2"),
             N("s5-n1"), N("s5-n2"), N("s6-n1"), N("s6-n2")};
  c.hns = {{"s0", 3, {}, {"s1", "s2"}},       {"s1", 2, {}, {"s3", "s4"}},
           {"s2", 2, {}, {"s5", "s6"}},       {"s3", 1, {"s3-n1", "s3-n2"}, {}},
           {"s4", 1, {"s4-n1", "s4-n2"}, {}}, {"s5", 1, {"s5-n1", "s5-n2"}, {}},
           {"s6", 1, {"s6-n1", "s6-n2"}, {}}};
  c.pods = {P("p1", "s3-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s3-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "s4-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "s4-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p5", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s1";
  c.topology = soft();
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job when highestTierAllowed
// not reached"
TEST(VolcanoSubGroups, Case12) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job according to the network
// topology constrain of subGroup policy"
TEST(VolcanoSubGroups, Case13) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3")};
  c.hns = {
      {"s0", 1, {"s0-n1", "s0-n2"}, {}}, {"s1", 1, {"s1-n3"}, {}}, {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-instance", "worker"}}),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}})};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
  // Upstream also lists ExpectBindMap p1 -> s1-n3, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job when multi hyperNodes
// are available"
TEST(VolcanoSubGroups, Case14) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job when minavailable <
// replicas"
TEST(VolcanoSubGroups, Case15) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 1;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, two
// available hyperNodes, can allocate job to nodes with affinity"
TEST(VolcanoSubGroups, Case16) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s1-n3", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
  // Upstream also lists ExpectBindMap p3 -> s1-n4, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate
// job when highestTierAllowed not reached and minavailable = replicas"
TEST(VolcanoSubGroups, Case17) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.allocated = "s0";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate
// job when highestTierAllowed not reached and hyperNodesInfo has three tier"
TEST(VolcanoSubGroups, Case18) {
  SCase c;
  c.nodes = {N("s3-n1"), N("s3-n2"), N("s4-n1"), N("s4-n2"),
             N("s5-n1"), N("s5-n2"), N("s6-n1"), N("s6-n2")};
  c.hns = {{"s0", 3, {}, {"s1", "s2"}},       {"s1", 2, {}, {"s3", "s4"}},
           {"s2", 2, {}, {"s5", "s6"}},       {"s3", 1, {"s3-n1", "s3-n2"}, {}},
           {"s4", 1, {"s4-n1", "s4-n2"}, {}}, {"s5", 1, {"s5-n1", "s5-n2"}, {}},
           {"s6", 1, {"s6-n1", "s6-n2"}, {}}};
  c.pods = {P("p1", "s3-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s3-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s3";
  c.topology = hard(3);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not
// allocate job when cross highestTierAllowed tier"
TEST(VolcanoSubGroups, Case19) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s0";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can not
// allocate job when cross highestTierAllowed tier and hyperNodesInfo has three tier"
TEST(VolcanoSubGroups, Case20) {
  SCase c;
  c.nodes = {N("s3-n1"), N("s3-n2"), N("s4-n1"), N("s4-n2"),
             N("s5-n1"), N("s5-n2"), N("s6-n1"), N("s6-n2")};
  c.hns = {{"s0", 3, {}, {"s1", "s2"}},       {"s1", 2, {}, {"s3", "s4"}},
           {"s2", 2, {}, {"s5", "s6"}},       {"s3", 1, {"s3-n1", "s3-n2"}, {}},
           {"s4", 1, {"s4-n1", "s4-n2"}, {}}, {"s5", 1, {"s5-n1", "s5-n2"}, {}},
           {"s6", 1, {"s6-n1", "s6-n2"}, {}}};
  c.pods = {P("p1", "s3-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s3-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "s4-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "s4-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p5", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s3";
  c.topology = hard(3);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain and tasks in job rescheduled, can allocate
// job when LCAHyperNode is empty"
TEST(VolcanoSubGroups, Case21) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}}, {"s1", 1, {"s1-n3", "s1-n4"}, {}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.allocated = "s0";
  c.topology = hard(3);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 1, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job according to the network
// topology constrain of subGroup policy with minSubGroups"
TEST(VolcanoSubGroups, Case22) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4"), N("s2-n5")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 1, {"s2-n5"}, {}},
           {"s3", 2, {}, {"s0", "s1", "s2"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p4", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 5;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 1),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 2)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 5);
  // Upstream also lists ExpectBindMap p1 -> s2-n5, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job according to the network
// topology constrain of subGroup policy with minSubGroups and minavailable = replicas"
TEST(VolcanoSubGroups, Case23) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3")};
  c.hns = {
      {"s0", 1, {"s0-n1", "s0-n2"}, {}}, {"s1", 1, {"s1-n3"}, {}}, {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p4", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 1),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
  // Upstream also lists ExpectBindMap p1 -> s1-n3, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can allocate job according to the network
// topology constrain of subGroup policy with minSubGroups and hypernode resources meet
// minSubGroups"
TEST(VolcanoSubGroups, Case24) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-spec", "master2"}}, {}, 2000, 4LL << 30),
            P("p3", "", {{"volcano.sh/task-spec", "master3"}}, {}, 2000, 4LL << 30),
            P("p4", "", {{"volcano.sh/task-spec", "master4"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p6", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p7", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p8", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 2),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 4);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can not allocate job when minMember is
// not satisfied"
TEST(VolcanoSubGroups, Case25) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p4", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 5;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 1),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain, can not allocate job when minSubGroups is
// not satisfied"
TEST(VolcanoSubGroups, Case26) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p3", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p4", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 1),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 2)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain with minSubGroups and tasks in job
// rescheduled, two available hyperNodes, can allocate job to nodes with affinity"
TEST(VolcanoSubGroups, Case27) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s1-n3", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
  // Upstream also lists ExpectBindMap p3 -> s1-n4, which
  // MinimalBindCheck leaves unchecked.
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain with minSubGroups and tasks in job
// rescheduled, can not allocate job when hypernode resources are insufficient."
TEST(VolcanoSubGroups, Case28) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s1-n3", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "s1-n4", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 2;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain with minSubGroups and tasks in job
// rescheduled, can allocate job when highestTierAllowed not reached and minAvailable = replicas"
TEST(VolcanoSubGroups, Case29) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "", {{"volcano.sh/task-spec", "master"}})};
  c.min_member = 4;
  c.allocated = "s0";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 2, 2)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "podgroup hard network topology
// constrain and subGroup hard network topology constrain with minSubGroups and tasks in job
// rescheduled, can allocate job when subGroup is rescheduled"
TEST(VolcanoSubGroups, Case30) {
  SCase c;
  c.nodes = {N("s0-n1"), N("s0-n2"), N("s1-n3"), N("s1-n4")};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "master"}}, {}, 2000, 4LL << 30),
            P("p2", "", {{"volcano.sh/task-spec", "master2"}}, {}, 2000, 4LL << 30),
            P("p3", "s0-n1", {{"volcano.sh/task-spec", "master3"}}, {}, 2000, 4LL << 30),
            P("p4", "s0-n2", {{"volcano.sh/task-spec", "master4"}}, {}, 2000, 4LL << 30),
            P("p5", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p6", "", {{"volcano.sh/task-instance", "worker"}}, {}, 2000, 4LL << 30),
            P("p7", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30),
            P("p8", "", {{"volcano.sh/task-instance", "worker2"}}, {}, 2000, 4LL << 30)};
  c.min_member = 3;
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 1, 2),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 2, 1)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario: SubJob
// with multiple pending tasks, GetMinResources returns sum of all pending tasks resources"
TEST(VolcanoSubGroups, Case31) {
  SCase c;
  c.nodes = {N("s0-n1", 4000, 8LL << 30), N("s0-n2", 4000, 8LL << 30), N("s1-n3", 4000, 8LL << 30),
             N("s1-n4", 4000, 8LL << 30)};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 4;
  c.allocated = "s0";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 4, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario: SubJob
// with single pending task"
TEST(VolcanoSubGroups, Case32) {
  SCase c;
  c.nodes = {N("s0-n1", 4000, 8LL << 30), N("s0-n2", 4000, 8LL << 30), N("s1-n3", 4000, 8LL << 30)};
  c.hns = {
      {"s0", 1, {"s0-n1", "s0-n2"}, {}}, {"s1", 1, {"s1-n3"}, {}}, {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 3;
  c.allocated = "s0";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 3, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 1);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario: multiple
// SubJobs with different pending task counts"
TEST(VolcanoSubGroups, Case33) {
  SCase c;
  c.nodes = {N("s0-n1", 4000, 8LL << 30), N("s0-n2", 4000, 8LL << 30), N("s1-n3", 4000, 8LL << 30),
             N("s1-n4", 4000, 8LL << 30)};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "master"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "master"}}),
            P("p3", "", {{"volcano.sh/task-spec", "master"}}),
            P("p4", "s1-n3", {{"volcano.sh/task-instance", "worker"}}),
            P("p5", "", {{"volcano.sh/task-instance", "worker"}}),
            P("p6", "", {{"volcano.sh/task-instance", "worker"}})};
  c.min_member = 6;
  c.allocated = "s2";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 3, 0),
                G("task2", {"volcano.sh/task-instance"}, hard(1), 3, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 3);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario: pending
// tasks with different resource requirements"
TEST(VolcanoSubGroups, Case34) {
  SCase c;
  c.nodes = {N("s0-n1", 10000, 20LL << 30), N("s0-n2", 10000, 20LL << 30)};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}}};
  c.pods = {P("p1-running", "s0-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p2-pending-small", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p3-pending-large", "", {{"volcano.sh/task-spec", "worker"}}, {}, 4000, 8000000000)};
  c.min_member = 3;
  c.allocated = "s0";
  c.topology = hard(1);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 3, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario:
// insufficient resources for pending tasks allocation"
TEST(VolcanoSubGroups, Case35) {
  SCase c;
  c.nodes = {N("s0-n1", 4000, 8LL << 30), N("s0-n2", 4000, 8LL << 30)};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "worker"}}, {}, 4000, 4000000000),
            P("p2", "", {{"volcano.sh/task-spec", "worker"}}, {}, 4000, 4000000000),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}}, {}, 4000, 4000000000)};
  c.min_member = 3;
  c.allocated = "s0";
  c.topology = hard(1);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(1), 3, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 0);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "rescheduling scenario: SubJob
// rescheduling within tier-2 HyperNode constraint"
TEST(VolcanoSubGroups, Case36) {
  SCase c;
  c.nodes = {N("s0-n1", 4000, 8LL << 30), N("s0-n2", 4000, 8LL << 30), N("s1-n3", 4000, 8LL << 30),
             N("s1-n4", 4000, 8LL << 30)};
  c.hns = {{"s0", 1, {"s0-n1", "s0-n2"}, {}},
           {"s1", 1, {"s1-n3", "s1-n4"}, {}},
           {"s2", 2, {}, {"s0", "s1"}}};
  c.pods = {P("p1", "s0-n1", {{"volcano.sh/task-spec", "worker"}}),
            P("p2", "s0-n2", {{"volcano.sh/task-spec", "worker"}}),
            P("p3", "", {{"volcano.sh/task-spec", "worker"}}),
            P("p4", "", {{"volcano.sh/task-spec", "worker"}})};
  c.min_member = 4;
  c.allocated = "s2";
  c.topology = hard(2);
  c.policies = {G("task1", {"volcano.sh/task-spec"}, hard(2), 4, 0)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

// allocate_test.go TestAllocateWithPartitionPolicyNetworkTopology: "no network topology at job or
// subgroup level but has SubJobPolicy, can allocate job successfully"
TEST(VolcanoSubGroups, Case37) {
  SCase c;
  c.nodes = {N("n1"), N("n2")};
  c.pods = {P("p1", "", {{"volcano.sh/task-spec", "worker-0"}}),
            P("p2", "", {{"volcano.sh/task-spec", "worker-1"}})};
  c.min_member = 2;
  c.policies = {G("worker", {"volcano.sh/task-spec"}, std::nullopt, 1, 2)};
  const R r = run(c);
  EXPECT_EQ(r.binds, 2);
}

}  // namespace
}  // namespace tidesim::volcano
