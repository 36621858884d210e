// The six GPU-sharing policies' rules (policies/plugins/gpu_share.hpp) on small nodes whose scores
// are derived by hand in the comments, and the Score plugins in a scheduler profile.
#include "tidesim/policies/plugins/gpu_share.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/plugins/gpu_share_plugins.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

namespace gs = gpushare;

// Node A: 64 cores left, cards left {1000, 1000, 500, 200}: L = 2700, F = 2, G = 4.
gs::NodeState node_a() {
  gs::NodeState n;
  n.cpu_left = 64000;
  n.mem_left = 1LL << 40;
  n.model = 0;
  n.left = {1000, 1000, 500, 200};
  return n;
}

// A GPU-sharing pod: 8 cores, 300 milli-GPU on one card.
gs::PodReq share_pod() {
  gs::PodReq p;
  p.cpu = 8000;
  p.gm = 300;
  p.ng = 1;
  return p;
}

gs::PodReq two_gpu_pod() {
  gs::PodReq p;
  p.cpu = 16000;
  p.gm = 1000;
  p.ng = 2;
  return p;
}

TEST(GpuShareRules, Feasibility) {
  const gs::NodeState a = node_a();
  EXPECT_TRUE(gs::fits(a, share_pod()));
  EXPECT_TRUE(gs::fits(a, two_gpu_pod()));  // two fully free cards
  gs::PodReq three = two_gpu_pod();
  three.ng = 3;  // only two cards have 1000 left
  EXPECT_FALSE(gs::fits(a, three));
  gs::PodReq big = share_pod();
  big.gm = 600;  // cards 0 and 1 fit
  EXPECT_TRUE(gs::fits(a, big));
  big.cpu = 70000;  // more CPU than left
  EXPECT_FALSE(gs::fits(a, big));
  gs::PodReq typed = share_pod();
  typed.models = 1U << 1;  // model 1 only; node A is model 0
  EXPECT_FALSE(gs::fits(a, typed));
}

TEST(GpuShareRules, BestCardIsTheSmallestThatFits) {
  // Cards with left >= 300: 0 (1000), 1 (1000), 2 (500): the smallest is card 2.
  EXPECT_EQ(gs::best_fit_card(node_a(), share_pod()), 2);
  // A 2-GPU pod takes the lowest-index fully free cards.
  EXPECT_EQ(gs::cards_for(node_a(), two_gpu_pod(), -1), (std::vector<int>{0, 1}));
}

TEST(GpuShareRules, DotProduct) {
  // node (64000/128000, 2700/8000) = (0.5, 0.3375), pod (8000/128000, 300/8000) = (0.0625,
  // 0.0375): dot = 0.03125 + 0.01265625 = 0.04390625; 100 * (1 - dot/2) = 97.80 -> 97.
  const gs::Verdict v = gs::dot_product(node_a(), share_pod());
  EXPECT_EQ(v.score, 97);
  EXPECT_EQ(v.card, 2);
}

TEST(GpuShareRules, GpuClustering) {
  // base = 25 * (8000 - 2700) / 8000 = 132500 / 8000 = 16 (integer division).
  gs::NodeState a = node_a();
  EXPECT_EQ(gs::gpu_clustering(a, share_pod()).score, 16 + 25);  // no GPU pod on the node
  a.tags = 1U;                                                   // share-gpu pods only
  EXPECT_EQ(gs::gpu_clustering(a, share_pod()).score, 16 + 75);
  a.tags = 1U | (1U << 1);  // share-gpu and 1-gpu pods
  EXPECT_EQ(gs::gpu_clustering(a, share_pod()).score, 16 + 50);
  a.tags = 1U << 2;  // 2-gpu pods only: a different tag
  EXPECT_EQ(gs::gpu_clustering(a, share_pod()).score, 16);
  gs::PodReq cpu_only;
  cpu_only.cpu = 1000;
  EXPECT_EQ(gs::gpu_clustering(a, cpu_only).score, 0);
}

TEST(GpuShareRules, GpuPacking) {
  // Share pod: ascending left 200 (3), 500 (2), 1000 (0), 1000 (1); the first with >= 300 is
  // card 2, not fully free: 100 - (500 * 100 / 1000) / 10 = 95.
  EXPECT_EQ(gs::gpu_packing(node_a(), share_pod()).score, 95);
  // 2-GPU pod: cards 0 and 1, both fully free: max(50 - 2, 33) = 48.
  EXPECT_EQ(gs::gpu_packing(node_a(), two_gpu_pod()).score, 48);
  // An idle 4-card node: max(33 - 4, 4) = 29.
  gs::NodeState idle = node_a();
  idle.left = {1000, 1000, 1000, 1000};
  EXPECT_EQ(gs::gpu_packing(idle, share_pod()).score, 29);
  gs::PodReq cpu_only;
  cpu_only.cpu = 1000;
  EXPECT_EQ(gs::gpu_packing(node_a(), cpu_only).score, 0);
}

TEST(GpuShareRules, BestFitAndNormalisation) {
  // 0.5 * 56000 / 128000 + 0.5 * 2400 / 8000 = 0.21875 + 0.15 = 0.36875; (1 - 0.36875) * 100 =
  // 63.125 -> 63.
  EXPECT_EQ(gs::best_fit_raw(node_a(), share_pod()).score, 63);
  // Min-max to 0..100: lo 40, hi 80: (63 - 40) * 100 / 40 = 57 (57.5 truncated).
  std::vector<std::int64_t> s = {63, 40, 80};
  gs::min_max_normalize(s);
  EXPECT_EQ(s, (std::vector<std::int64_t>{57, 0, 100}));
  std::vector<std::int64_t> same = {7, 7};
  gs::min_max_normalize(same);
  EXPECT_EQ(same, (std::vector<std::int64_t>{0, 0}));
}

// Appends `times` pods asking (cpu, gm, ng).
void add_pods(std::vector<gs::PodReq>& pods, std::int64_t cpu, int gm, int ng, int times) {
  for (int i = 0; i < times; ++i) {
    gs::PodReq p;
    p.cpu = cpu;
    p.gm = gm;
    p.ng = ng;
    pods.push_back(p);
  }
}

TEST(GpuShareRules, TypicalPods) {
  // 3 x (1000, 500, 1), 2 x CPU-only (2000), 1 x (5000, 1000, 2), 1 x (4000, 1000, 2): 7 pods.
  std::vector<gs::PodReq> pods;
  const auto add = [&](std::int64_t cpu, int gm, int ng, int times) {
    add_pods(pods, cpu, gm, ng, times);
  };
  add(1000, 500, 1, 3);
  add(2000, 0, 0, 2);
  add(4000, 1000, 2, 1);
  add(5000, 1000, 2, 1);
  const std::vector<std::string> types(pods.size());
  // 95% of 7 = 6.65: counts 3, 2, then the count-1 ties by key descending (cpu 5000 first): the
  // prefix 3 + 2 + 1 = 6 < 6.65, so all four are kept; weights count / 7.
  auto t = gs::typical_pods(pods, types, 0.95);
  ASSERT_EQ(t.size(), 4U);
  EXPECT_EQ(t[0].cpu, 1000);
  EXPECT_EQ(t[1].cpu, 2000);
  EXPECT_EQ(t[2].cpu, 5000);
  EXPECT_EQ(t[3].cpu, 4000);
  EXPECT_DOUBLE_EQ(t[0].weight, 3.0 / 7.0);
  // 70% of 7 = 4.9: 3 then 5 >= 4.9: two kept, weights 3/5 and 2/5.
  t = gs::typical_pods(pods, types, 0.70);
  ASSERT_EQ(t.size(), 2U);
  EXPECT_DOUBLE_EQ(t[0].weight, 0.6);
  EXPECT_DOUBLE_EQ(t[1].weight, 0.4);
}

TEST(GpuShareRules, TypicalPodWeightsRoundAsTheFgdSimulatorDoes) {
  // N = 148 pods: 86 x CPU-only (2000), 31 x CPU-only (16000), 24 x (16000, 1000, 1), 7 x
  // CPU-only (4000). 95% of 148 = 140.6: 86 + 31 = 117 < 140.6, + 24 = 141 >= 140.6, so three
  // keys are kept and the 7 left out. utils.GetTypicalPods weighs a kept key (count / N) /
  // (141 / N): for the first, (86 / 148) / (141 / 148) = 0.6099290780141843, one ulp below
  // 86 / 141 = 0.6099290780141844.
  std::vector<gs::PodReq> pods;
  const auto add = [&](std::int64_t cpu, int gm, int ng, int times) {
    add_pods(pods, cpu, gm, ng, times);
  };
  add(2000, 0, 0, 86);
  add(16000, 0, 0, 31);
  add(16000, 1000, 1, 24);
  add(4000, 0, 0, 7);
  const std::vector<std::string> types(pods.size());
  const auto typical = gs::typical_pods(pods, types, 0.95);
  ASSERT_EQ(typical.size(), 3U);
  const double n = 148.0;
  const double kept = 141.0 / n;
  EXPECT_EQ(typical[0].weight, (86.0 / n) / kept);
  EXPECT_EQ(typical[1].weight, (31.0 / n) / kept);
  EXPECT_EQ(typical[2].weight, (24.0 / n) / kept);
  EXPECT_NE(typical[0].weight, 86.0 / 141.0);

  // Node A: 16 cores, cards {950, 410}: L = 1360, no card holds 1000, so for every typical pod all
  // of L is fragment and Frag = 1360 (f1 + f2 + f3) = 1360 in exact arithmetic, before and after
  // a CPU-only pod asking 8 cores. Only the accumulators change: (16000) XL -> XR and
  // (16000, 1000, 1) Q2 -> Q1. dFrag = 0 and sigmoid(0) = 0.5 would score 50, but in doubles, in
  // the Go code's order, Frag(before) = Q2 + XL = f3 L + (f1 L + f2 L) = 1359.9999999999995 and
  // Frag(after) = Q1 + XL + XR = (f3 L + f1 L) + f2 L = 1360: dFrag = -4.5e-13,
  // sigmoid(-4.5e-16) = 0.49999999999999989, x 100 truncates to 49. Node B (32 cores left) keeps
  // every accumulator: dFrag is exactly 0, 50. So FGD prefers B. (The FGD simulator's Go code,
  // utils.GetTypicalPods and NodeGpuShareFragAmountScore on these pods and node, gives the same
  // weights, sums and 49.)
  gs::NodeState a;
  a.cpu_left = 16000;
  a.mem_left = 1LL << 40;
  a.model = 0;
  a.left = {950, 410};
  gs::NodeState b = a;
  b.cpu_left = 32000;
  gs::PodReq cpu_pod;
  cpu_pod.cpu = 8000;
  EXPECT_EQ(gs::fgd(a, cpu_pod, typical).score, 49);
  EXPECT_EQ(gs::fgd(b, cpu_pod, typical).score, 50);

  // Weighted count / kept instead, both sums come to 1360 exactly: A scores 50 too and the tie
  // goes to the node rank, a different choice.
  auto single_rounding = typical;
  for (auto& t : single_rounding) {
    t.weight = static_cast<double>(t.count) / 141.0;
  }
  EXPECT_EQ(gs::fgd(a, cpu_pod, single_rounding).score, 50);
  EXPECT_EQ(gs::fgd(b, cpu_pod, single_rounding).score, 50);
}

TEST(GpuShareRules, FragmentationAndFgd) {
  // One typical pod (1000, 500, 1), weight 1. Node A: cards 0-2 have >= 500, CPU fits: the card
  // with less (200) is fragment: Frag = 200.
  std::vector<gs::TypicalPod> typical(1);
  typical[0].cpu = 1000;
  typical[0].gm = 500;
  typical[0].ng = 1;
  typical[0].weight = 1.0;
  EXPECT_DOUBLE_EQ(gs::fragmentation(node_a(), typical), 200.0);
  // Share pod 300: card 0 -> {700, 1000, 500, 200}: Frag 200, delta 0, sigmoid(0) = 0.5 -> 50;
  // card 1: the same; card 2 -> {1000, 1000, 200, 200}: Frag 400, sigmoid(-0.2) = 0.4502 -> 45;
  // card 3 has 200 < 300. The first card with the highest score: card 0 (not best-fit's card 2).
  gs::Verdict v = gs::fgd(node_a(), share_pod(), typical);
  EXPECT_EQ(v.score, 50);
  EXPECT_EQ(v.card, 0);
  // Add a CPU-only typical pod asking 100 cores (node A has 64 left: XR, all 2700 idle is
  // fragment), weights 0.5 each: Frag = 0.5 * 200 + 0.5 * 2700 = 1450. Card 0: 0.5 * 200 + 0.5 *
  // 2400 = 1300, delta 0.15, sigmoid = 0.5374 -> 53; card 2: 0.5 * 400 + 0.5 * 2400 = 1400 ->
  // sigmoid(0.05) = 0.5125 -> 51.
  typical.resize(2);
  typical[0].weight = 0.5;
  typical[1].cpu = 100000;
  typical[1].weight = 0.5;
  EXPECT_DOUBLE_EQ(gs::fragmentation(node_a(), typical), 1450.0);
  v = gs::fgd(node_a(), share_pod(), typical);
  EXPECT_EQ(v.score, 53);
  EXPECT_EQ(v.card, 0);
  // A 2-GPU pod takes cards 0 and 1 (ascending left: 200, 500, 1000, 1000 -> the first two with
  // >= 1000): {0, 0, 500, 200}. Typical (1000, 500, 1): card 2 fits, frag = 200 (card 3), 0.5 *
  // 200 = 100; CPU-only: 0.5 * 700 = 350: 450. delta = (1450 - 450) / 1000 = 1, sigmoid(1) =
  // 0.7311 -> 73.
  EXPECT_EQ(gs::fgd(node_a(), two_gpu_pod(), typical).score, 73);
}

// ---- the plugins in a profile ----

NodeInfo gpu_node(const std::string& name, std::vector<int> left) {
  NodeInfo n = testing::make_node(name, 64000, 256LL << 30, static_cast<std::int64_t>(left.size()));
  n.node.labels["tidesim.io/gpu-model"] = "T4";
  n.gpu_milli_left = std::move(left);
  return n;
}

TEST(GpuSharePlugins, BuiltInProfilesExist) {
  for (const char* name :
       {"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit", "fgd"}) {
    auto s = make_scheduler(name, 1);
    EXPECT_EQ(s->name(), name);
    ASSERT_EQ(s->plugins_at("score").size(), 1U) << name;
  }
  EXPECT_EQ(make_scheduler("fgd", 1)->plugins_at("score")[0].first, "FGDScore");
}

TEST(GpuSharePlugins, SchedulerChoosesNodeAndCard) {
  // Two nodes; the pod asks 300 milli of one card. gpu-packing prefers the node whose best card
  // is already shared: node b (card left 500 -> 95) over node a (idle: max(33 - 2, 2) = 31).
  ClusterView view;
  view.nodes.push_back(gpu_node("a", {1000, 1000}));
  view.nodes.push_back(gpu_node("b", {1000, 500}));
  view.nodes[1].requested.gpus = 0;
  auto pod = testing::make_pod("p", 8000, 1LL << 30);
  pod->requests.gpu_milli = 300;
  auto s = make_scheduler("gpu-packing", 1);
  const ScheduleResult r = s->schedule_one(*pod, view, nullptr, TimePoint{});
  ASSERT_TRUE(r.node.has_value()) << r.reason;
  EXPECT_EQ(*r.node, 1);
  EXPECT_EQ(r.cards, (std::vector<int>{1}));  // the best-fit card of b
}

TEST(GpuSharePlugins, OnlyProfilesWithFgdWantTheWorkload) {
  // A run copies every pod of the workload for observe_workload() only when this is true.
  EXPECT_TRUE(make_scheduler("fgd", 1)->wants_workload());
  EXPECT_FALSE(make_scheduler("default-k8s", 1)->wants_workload());
  EXPECT_FALSE(make_scheduler("gpu-packing", 1)->wants_workload());
  EXPECT_FALSE(make_scheduler("load-aware", 1)->wants_workload());
}

TEST(GpuSharePlugins, FgdLearnsTypicalPodsFromTheWorkload) {
  auto s = make_scheduler("fgd", 1);
  auto pod = testing::make_pod("p", 8000, 1LL << 30);
  pod->requests.gpu_milli = 300;
  std::vector<PodSpec> workload(3, *pod);
  s->observe_workload(workload);
  // One typical pod (8000, 300, 1) of weight 1. Node a {1000, 400}: Frag 0 (both fit 300).
  // Card 0 -> {700, 400}: Frag 0 -> 50; card 1 -> {1000, 100}: Frag 100, sigmoid(-0.1) ->
  // 47. FGD takes card 0, where best fit would take card 1.
  ClusterView view;
  view.nodes.push_back(gpu_node("a", {1000, 400}));
  const ScheduleResult r = s->schedule_one(*pod, view, nullptr, TimePoint{});
  ASSERT_TRUE(r.node.has_value()) << r.reason;
  EXPECT_EQ(r.cards, (std::vector<int>{0}));
}

}  // namespace
}  // namespace tidesim::policies
