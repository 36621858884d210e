// ClusterView::nodes_with_affinity / nodes_with_required_anti_affinity: derived from the nodes,
// right however a view is built or changed (add_pod, remove_pod, copies, replaced nodes), and
// InterPodAffinity's verdicts through them.
#include <gtest/gtest.h>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

using testing::make_node;
using testing::make_pod;

PodAffinityTerm app_term(const std::string& app, const std::string& key) {
  PodAffinityTerm t;
  t.label_selector.match_labels["app"] = app;
  t.topology_key = key;
  return t;
}

// A pod with required anti-affinity to app=`app` per hostname.
std::shared_ptr<PodSpec> anti_pod(const std::string& name, const std::string& app) {
  auto p = make_pod(name, 100, 1 << 20);
  p->labels["app"] = app;
  p->pod_anti_affinity.required.push_back(app_term(app, "kubernetes.io/hostname"));
  return p;
}

// A pod with only a preferred affinity term (counts for nodes_with_affinity only).
std::shared_ptr<PodSpec> preferred_pod(const std::string& name) {
  auto p = make_pod(name, 100, 1 << 20);
  p->pod_affinity.preferred.push_back(WeightedPodAffinityTerm{10, app_term("web", "zone")});
  return p;
}

ClusterView three_nodes() {
  ClusterView c;
  for (const char* n : {"a", "b", "c"}) {
    c.nodes.push_back(make_node(n, 8000, 1LL << 34));
  }
  return c;
}

TEST(AffinityIndex, FollowsAddAndRemove) {
  ClusterView c = three_nodes();
  EXPECT_TRUE(c.nodes_with_affinity().empty());
  c.nodes[1].add_pod(preferred_pod("p"));
  EXPECT_EQ(c.nodes_with_affinity(), (std::vector<int>{1}));
  EXPECT_TRUE(c.nodes_with_required_anti_affinity().empty());
  c.nodes[2].add_pod(anti_pod("q", "db"));
  c.nodes[0].add_pod(make_pod("plain", 100, 1 << 20));  // no terms: in neither list
  EXPECT_EQ(c.nodes_with_affinity(), (std::vector<int>{1, 2}));
  EXPECT_EQ(c.nodes_with_required_anti_affinity(), (std::vector<int>{2}));
  ASSERT_TRUE(c.nodes[1].remove_pod("p"));
  EXPECT_EQ(c.nodes_with_affinity(), (std::vector<int>{2}));
  ASSERT_TRUE(c.nodes[2].remove_pod("q"));
  EXPECT_TRUE(c.nodes_with_affinity().empty());
  EXPECT_TRUE(c.nodes_with_required_anti_affinity().empty());
}

// A dry run's copy (preemption, gangs) changes only its own list; a node replaced by assignment
// or appended with its pods already bound is seen.
TEST(AffinityIndex, CopiesAndReplacedNodes) {
  ClusterView c = three_nodes();
  c.nodes[0].add_pod(anti_pod("q", "db"));
  EXPECT_EQ(c.nodes_with_required_anti_affinity(), (std::vector<int>{0}));
  ClusterView copy = c;
  ASSERT_TRUE(copy.nodes[0].remove_pod("q"));
  EXPECT_TRUE(copy.nodes_with_required_anti_affinity().empty());
  EXPECT_EQ(c.nodes_with_required_anti_affinity(), (std::vector<int>{0}));

  c.nodes[0] = make_node("a", 8000, 1LL << 34);  // the node again, without its pod
  EXPECT_TRUE(c.nodes_with_required_anti_affinity().empty());
  NodeInfo d = make_node("d", 8000, 1LL << 34);
  d.add_pod(preferred_pod("p"));
  c.nodes.push_back(d);
  EXPECT_EQ(c.nodes_with_affinity(), (std::vector<int>{3}));
  c.nodes[1] = c.nodes[3];  // same address and size: the copy of a non-empty list is seen
  EXPECT_EQ(c.nodes_with_affinity(), (std::vector<int>{1, 3}));
}

// An incoming pod without terms of its own is kept off the node of an existing pod whose
// required anti-affinity it matches (satisfyExistingPodsAntiAffinity: on the only node it is
// unschedulable), is not kept off when it does not match, and may go there once that pod left.
TEST(AffinityIndex, ExistingAntiAffinityRejectsPodWithoutTerms) {
  ClusterView c;
  c.nodes.push_back(make_node("a", 8000, 1LL << 34));
  c.nodes[0].add_pod(anti_pod("guard", "db"));
  auto s = make_scheduler("default-k8s", 1);
  auto db = make_pod("db-1", 100, 1 << 20);
  db->labels["app"] = "db";
  auto web = make_pod("web-1", 100, 1 << 20);
  web->labels["app"] = "web";
  ScheduleResult r = s->schedule_one(*db, c, nullptr, TimePoint{});
  EXPECT_FALSE(r.node);
  EXPECT_EQ(r.reason,
            "0/1 nodes are available: 1 node(s) didn't satisfy existing pods anti-affinity rules.");
  r = s->schedule_one(*web, c, nullptr, TimePoint{});
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 0);
  ASSERT_TRUE(c.nodes[0].remove_pod("guard"));
  r = s->schedule_one(*db, c, nullptr, TimePoint{});
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 0);
}

}  // namespace
}  // namespace tidesim::policies
