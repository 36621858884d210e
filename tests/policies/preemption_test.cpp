// DefaultPreemption (PostFilter) on hand-worked cases: the reprieve's victim set on one node, and
// pickOneNodeForPreemption's order across nodes. Every pod asks whole GPUs only; nodes have room
// for any CPU and memory, so NodeResourcesFit decides on nvidia.com/gpu alone.
#include <gtest/gtest.h>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/plugins/default_preemption.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;
using testing::make_node;
using testing::make_pod;

constexpr std::int64_t kGiB = 1LL << 30;

std::shared_ptr<PodSpec> gpu_pod(const std::string& name, std::int32_t priority,
                                 std::int64_t gpus) {
  auto p = make_pod(name, 100, kGiB, gpus);
  p->priority = priority;
  return p;
}

void bind(ClusterView& view, int node, std::shared_ptr<PodSpec> pod, TimePoint at = {}) {
  view.nodes[static_cast<std::size_t>(node)].add_pod(std::move(pod), at);
}

std::vector<std::string> names(const std::vector<std::shared_ptr<const PodSpec>>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) {
    out.push_back(p->name);
  }
  return out;
}

// Case 1: the reprieve keeps the most important pods, not the fewest victims.
// One node, 4 GPUs, full: a (priority 1, 1 GPU), b (priority 2, 1 GPU), c (priority 3, 2 GPUs).
// The preemptor P (priority 10) asks 2 GPUs. Removing all three leaves 4 free: P fits. Reprieve,
// most important first: c back -> 2 used, 2 free, P fits: c stays. b back -> 3 used, 1 free: P
// does not fit, b is a victim. a back -> 3 used (c + a), 1 free: P does not fit, a is a victim.
// Victims {b, a} (two pods, although deleting c alone would also free 2 GPUs: Kubernetes
// minimises the importance of what it deletes, not the count).
TEST(DefaultPreemption, ReprieveKeepsTheMostImportantPods) {
  ClusterView view;
  view.nodes.push_back(make_node("n1", 64000, 256 * kGiB, 4));
  bind(view, 0, gpu_pod("a", 1, 1));
  bind(view, 0, gpu_pod("b", 2, 1));
  bind(view, 0, gpu_pod("c", 3, 2));
  auto s = make_scheduler("default-k8s", 1);
  const auto preemptor = gpu_pod("p", 10, 2);
  ASSERT_FALSE(s->schedule_one(*preemptor, view, nullptr, TimePoint{}).node);
  const PostFilterResult r = s->post_filter(*preemptor, view, TimePoint{});
  ASSERT_TRUE(r.nominated_node);
  EXPECT_EQ(*r.nominated_node, 0);
  EXPECT_EQ(names(r.victims), (std::vector<std::string>{"b", "a"}));
  // The dry run left the view as it was.
  EXPECT_EQ(view.nodes[0].requested.gpus, 4);
  EXPECT_EQ(view.nodes[0].pods.size(), 3u);
}

// Case 2: the node whose most important victim is the least important wins, even with more
// victims. n1 (2 GPUs): x (priority 5, 2 GPUs). n2 (2 GPUs): y (priority 1, 1 GPU), z
// (priority 2, 1 GPU). P (priority 10, 2 GPUs): on n1 the victims are {x} (highest 5); on n2
// both must go (reprieve: z back leaves 1 free, no fit; y back, no fit): {z, y} (highest 2).
// Criterion 2 (lowest highest-victim priority): n2.
TEST(DefaultPreemption, PicksTheNodeWithTheLeastImportantHighestVictim) {
  ClusterView view;
  view.nodes.push_back(make_node("n1", 64000, 256 * kGiB, 2));
  view.nodes.push_back(make_node("n2", 64000, 256 * kGiB, 2));
  bind(view, 0, gpu_pod("x", 5, 2));
  bind(view, 1, gpu_pod("y", 1, 1));
  bind(view, 1, gpu_pod("z", 2, 1));
  auto s = make_scheduler("default-k8s", 1);
  const PostFilterResult r = s->post_filter(*gpu_pod("p", 10, 2), view, TimePoint{});
  ASSERT_TRUE(r.nominated_node);
  EXPECT_EQ(*r.nominated_node, 1);
  EXPECT_EQ(names(r.victims), (std::vector<std::string>{"z", "y"}));
}

// Case 3: ties on the highest priority go to the smallest sum, then to the latest start.
// Three nodes of 2 GPUs, every victim priority 3. n1: a1, a2 (1 GPU each, started 0 s): victims
// {a1, a2}, sum 2 x (3 + 2^31). n2: b (2 GPUs, started 10 s): {b}, sum 3 + 2^31. n3: c (2 GPUs,
// started 20 s): {c}, sum 3 + 2^31. Criterion 3 drops n1; n2 and n3 tie on the count of
// victims; criterion 5 takes the node whose highest-priority victims started latest: n3.
TEST(DefaultPreemption, TiesGoToTheSmallestSumThenTheLatestStart) {
  ClusterView view;
  for (const char* n : {"n1", "n2", "n3"}) {
    view.nodes.push_back(make_node(n, 64000, 256 * kGiB, 2));
  }
  bind(view, 0, gpu_pod("a1", 3, 1), TimePoint{});
  bind(view, 0, gpu_pod("a2", 3, 1), TimePoint{});
  bind(view, 1, gpu_pod("b", 3, 2), TimePoint(10s));
  bind(view, 2, gpu_pod("c", 3, 2), TimePoint(20s));
  auto s = make_scheduler("default-k8s", 1);
  const PostFilterResult r = s->post_filter(*gpu_pod("p", 10, 2), view, TimePoint(30s));
  ASSERT_TRUE(r.nominated_node);
  EXPECT_EQ(*r.nominated_node, 2);
  EXPECT_EQ(names(r.victims), (std::vector<std::string>{"c"}));
}

// Pods of equal or higher priority are never victims, and preemptionPolicy: Never preempts
// nothing.
TEST(DefaultPreemption, NeverPreemptsEqualPriorityOrWithPolicyNever) {
  ClusterView view;
  view.nodes.push_back(make_node("n1", 64000, 256 * kGiB, 1));
  bind(view, 0, gpu_pod("same", 10, 1));
  auto s = make_scheduler("default-k8s", 1);
  EXPECT_FALSE(s->post_filter(*gpu_pod("p", 10, 1), view, TimePoint{}).nominated_node);
  view.nodes[0].remove_pod("same");
  bind(view, 0, gpu_pod("low", 0, 1));
  auto never = gpu_pod("p", 10, 1);
  never->preemption_policy = "Never";
  EXPECT_FALSE(s->post_filter(*never, view, TimePoint{}).nominated_node);
  EXPECT_TRUE(s->post_filter(*gpu_pod("p", 10, 1), view, TimePoint{}).nominated_node);
}

// pick_one_node alone: candidates equal on every criterion go to the first; a candidate that
// needs no victims is taken at once.
TEST(DefaultPreemption, PickOneNodeFallsBackToTheFirstCandidate) {
  auto v = std::make_shared<const PodSpec>(*gpu_pod("v", 0, 1));
  std::vector<NodeVictims> c(2);
  c[0].node = 4;
  c[0].pods = {v};
  c[0].started = {TimePoint(5s)};
  c[1].node = 7;
  c[1].pods = {v};
  c[1].started = {TimePoint(5s)};
  EXPECT_EQ(pick_one_node(c), 0u);
  c.push_back(NodeVictims{9, {}, {}});
  EXPECT_EQ(pick_one_node(c), 2u) << "no victims needed";
}

}  // namespace
}  // namespace tidesim::policies
