// The Filter pass's screen (FilterPlugin::fit_screen, plain_filter): a cycle that records no
// reasons skips the nodes NodeResourcesFit is sure to reject without calling the filters, and
// decides every cycle as a cycle that calls them all.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/config.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

using testing::make_node;
using testing::make_pod;

// 400 nodes of 8 GPUs, 64 cores and 512 GiB, partly taken, some cordoned, tainted or labelled
// (more than 100 nodes: the adaptive percentageOfNodesToScore stops the pass early, 46%).
ClusterView random_cluster(std::mt19937_64& rng) {
  ClusterView c;
  std::uniform_int_distribution<int> gpus(0, 8);
  std::uniform_int_distribution<int> percent(0, 99);
  for (int i = 0; i < 400; ++i) {
    NodeInfo n = make_node("node-" + std::to_string(i), 64000, 512LL << 30, 8);
    auto held = make_pod("held-" + std::to_string(i), 1000LL * (percent(rng) % 64),
                         (1LL << 30) * (percent(rng) * 5), gpus(rng));
    n.add_pod(held);
    n.node.unschedulable = percent(rng) < 5;
    if (percent(rng) < 10) {
      n.node.taints.push_back(Taint{"dedicated", "infra", "NoSchedule"});
    }
    n.node.labels["zone"] = percent(rng) < 50 ? "a" : "b";
    c.nodes.push_back(std::move(n));
  }
  return c;
}

std::shared_ptr<PodSpec> random_pod(std::mt19937_64& rng, int k) {
  std::uniform_int_distribution<int> percent(0, 99);
  static constexpr int kGpus[] = {0, 1, 2, 4, 8, 8};
  auto p = make_pod("pod-" + std::to_string(k), 1000LL * (percent(rng) % 48),
                    (1LL << 30) * (percent(rng) * 3), kGpus[percent(rng) % 6]);
  if (percent(rng) < 20) {
    p->node_selector["zone"] = "a";
  }
  if (percent(rng) < 20) {
    p->tolerations.push_back(Toleration{"dedicated", "Equal", "infra", "NoSchedule"});
  }
  return p;
}

// Two default-k8s schedulers of one seed on two copies of a cluster, one recording reasons (no
// screen), one not (the screen on): every cycle decides the same node from the same nodes, and
// leaves the same round-robin start and tie-breaks; pods bound and deleted as they go.
TEST(FitScreen, CyclesWithTheScreenDecideAsCyclesWithout) {
  std::mt19937_64 rng(20261202);
  ClusterView with = random_cluster(rng);
  ClusterView without = with;
  auto screened = make_scheduler("default-k8s", 7);
  auto unscreened = make_scheduler("default-k8s", 7);
  screened->set_record_reasons(false);
  std::vector<std::pair<int, std::string>> bound;
  int unschedulable = 0;
  int stopped_early = 0;
  for (int k = 0; k < 600; ++k) {
    const auto pod = random_pod(rng, k);
    const ScheduleResult a = unscreened->schedule_one(*pod, without, nullptr, TimePoint{});
    const ScheduleResult b = screened->schedule_one(*pod, with, nullptr, TimePoint{});
    ASSERT_EQ(a.node, b.node) << "pod " << k;
    ASSERT_EQ(a.evaluated_nodes, b.evaluated_nodes) << "pod " << k;
    ASSERT_EQ(a.feasible_nodes, b.feasible_nodes) << "pod " << k;
    // The screen counts every plugin whose screen it used: the events they registered for decide
    // the same moves.
    ASSERT_EQ(unscreened->queueing_hints().events_of(a.rejectors),
              screened->queueing_hints().events_of(b.rejectors));
    ASSERT_EQ(unscreened->selection_state(), screened->selection_state()) << "pod " << k;
    if (!a.node) {  // only the first records why
      EXPECT_FALSE(a.reason.empty());
    }
    EXPECT_TRUE(b.reason.empty());
    unschedulable += a.node ? 0 : 1;
    stopped_early += a.evaluated_nodes < 400 ? 1 : 0;
    if (a.node) {
      with.nodes[*a.node].add_pod(pod);
      without.nodes[*a.node].add_pod(pod);
      bound.emplace_back(*a.node, pod->name);
    }
    if (k % 3 == 0 && !bound.empty()) {  // a pod ends
      const auto [node, name] = bound[static_cast<std::size_t>(k) % bound.size()];
      ASSERT_TRUE(with.nodes[node].remove_pod(name));
      ASSERT_TRUE(without.nodes[node].remove_pod(name));
      bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(k % bound.size()));
    }
  }
  // The cases the screen must get right all occurred.
  EXPECT_GT(unschedulable, 50);
  EXPECT_GT(stopped_early, 20);
}

// The names screen (NodeAffinity's fit_screen on a `metadata.name In` requirement, as runs pin
// the pods of a placement hint or a Kueue TAS domain): pods pinned to 1-60 nodes (some names
// unknown, some repeated) or to every node (the pass may stop early), visit only those nodes and
// decide every cycle as a cycle that calls every filter on every node: the same node, evaluated
// and feasible counts, round-robin start.
TEST(FitScreen, PinnedPodsDecideAsCyclesWithout) {
  std::mt19937_64 rng(20261206);
  ClusterView with = random_cluster(rng);
  ClusterView without = with;
  auto screened = make_scheduler("default-k8s", 7);
  auto unscreened = make_scheduler("default-k8s", 7);
  screened->set_record_reasons(false);
  std::uniform_int_distribution<int> few(1, 60);
  std::uniform_int_distribution<int> node(0, 419);  // 400..419: no such node
  std::vector<std::pair<int, std::string>> bound;
  int unschedulable = 0;
  int stopped_early = 0;
  int pinned_stopped_early = 0;
  for (int k = 0; k < 600; ++k) {
    const auto pod = random_pod(rng, k);
    if (k % 4 != 3) {  // one pod in four is not pinned
      NodeSelectorTerm t;
      SelectorRequirement on{"metadata.name", "In", {}};
      if (k % 4 == 1) {  // every node and 20 unknown names, in random order
        for (int i = 0; i < 420; ++i) {
          on.values.push_back("node-" + std::to_string(i));
        }
        std::shuffle(on.values.begin(), on.values.end(), rng);
      }
      for (int c = k % 4 == 1 ? 0 : few(rng); c > 0; --c) {
        on.values.push_back("node-" + std::to_string(node(rng)));
      }
      t.match_fields.push_back(std::move(on));
      pod->node_affinity.required.push_back(std::move(t));
    }
    const ScheduleResult a = unscreened->schedule_one(*pod, without, nullptr, TimePoint{});
    const ScheduleResult b = screened->schedule_one(*pod, with, nullptr, TimePoint{});
    ASSERT_EQ(a.node, b.node) << "pod " << k;
    ASSERT_EQ(a.evaluated_nodes, b.evaluated_nodes) << "pod " << k;
    ASSERT_EQ(a.feasible_nodes, b.feasible_nodes) << "pod " << k;
    // The screen counts every plugin whose screen it used: the events they registered for decide
    // the same moves.
    ASSERT_EQ(unscreened->queueing_hints().events_of(a.rejectors),
              screened->queueing_hints().events_of(b.rejectors));
    ASSERT_EQ(unscreened->selection_state(), screened->selection_state()) << "pod " << k;
    unschedulable += a.node ? 0 : 1;
    stopped_early += a.evaluated_nodes < 400 ? 1 : 0;
    pinned_stopped_early += k % 4 != 3 && a.evaluated_nodes < 400 ? 1 : 0;
    if (a.node) {
      with.nodes[*a.node].add_pod(pod);
      without.nodes[*a.node].add_pod(pod);
      bound.emplace_back(*a.node, pod->name);
    }
    if (k % 2 == 0 && !bound.empty()) {  // a pod ends
      const auto [n, name] = bound[static_cast<std::size_t>(k) % bound.size()];
      ASSERT_TRUE(with.nodes[n].remove_pod(name));
      ASSERT_TRUE(without.nodes[n].remove_pod(name));
      bound.erase(bound.begin() + static_cast<std::ptrdiff_t>(k % bound.size()));
    }
  }
  // Pods that fit and pods that do not, passes stopped early by pinned pods and by others.
  EXPECT_GT(unschedulable, 50);
  EXPECT_GT(pinned_stopped_early, 5);
  EXPECT_GT(stopped_early - pinned_stopped_early, 5);
}

// A Filter plugin that counts its calls; plain_filter() as constructed.
class Counting final : public FilterPlugin {
 public:
  Counting(int* calls, bool plain) : calls_(calls), plain_(plain) {}
  std::string_view name() const override { return "Counting"; }
  bool plain_filter() const override { return plain_; }
  Status filter(CycleContext&, const PodSpec&, int) override {
    ++*calls_;
    return Status::success();
  }

 private:
  int* calls_;
  bool plain_;
};

// The profile: NodeResourcesFit's PreFilter, then the filters `filters` in order.
std::unique_ptr<Scheduler> counting_scheduler(Registry& r, int* calls, bool plain,
                                              const std::string& filters) {
  r["Counting"] = plugin_without_args([calls, plain]() -> std::unique_ptr<Plugin> {
    return std::make_unique<Counting>(calls, plain);
  });
  const std::string text = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: counting
  plugins:
    filter:
      disabled: [{name: "*"}]
      enabled: )" + filters +
                           "\n";
  const SchedulerConfig cfg = load_scheduler_config_string(text, "counting.yaml", r);
  return std::make_unique<Scheduler>(cfg, cfg.profiles.front(), 1, r);
}

// Ten nodes, the first six with all 8 GPUs held: an 8-GPU pod evaluates all ten (fewer than 100
// nodes), and NodeResourcesFit rejects six.
ClusterView six_full_of_ten() {
  ClusterView c;
  for (int i = 0; i < 10; ++i) {
    c.nodes.push_back(make_node("n" + std::to_string(i), 64000, 512LL << 30, 8));
    if (i < 6) {
      c.nodes.back().add_pod(make_pod("held-" + std::to_string(i), 1000, 1 << 30, 8));
    }
  }
  return c;
}

TEST(FitScreen, SkipsOnlyPlainFiltersBeforeNodeResourcesFit) {
  const ClusterView c = six_full_of_ten();
  const auto pod = make_pod("p", 1000, 1 << 30, 8);
  const auto calls_with = [&](bool plain, bool record_reasons, const std::string& filters) {
    Registry r = builtin_registry();
    int calls = 0;
    auto s = counting_scheduler(r, &calls, plain, filters);
    s->set_record_reasons(record_reasons);
    const ScheduleResult res = s->schedule_one(*pod, c, nullptr, TimePoint{});
    EXPECT_EQ(res.evaluated_nodes, 10);
    EXPECT_EQ(res.feasible_nodes, 4);
    EXPECT_TRUE(res.node && *res.node >= 6);
    return calls;
  };
  const std::string before = "[{name: Counting}, {name: NodeResourcesFit}]";
  const std::string after = "[{name: NodeResourcesFit}, {name: Counting}]";
  // A plain filter before NodeResourcesFit is left uncalled on the six full nodes...
  EXPECT_EQ(calls_with(true, false, before), 4);
  // ... but called on every node when the cycle records reasons (it may be the one to name),
  EXPECT_EQ(calls_with(true, true, before), 10);
  // and one that is not plain is always called (it may keep state or fail).
  EXPECT_EQ(calls_with(false, false, before), 10);
  // After NodeResourcesFit a filter sees only the nodes that fit, as before.
  EXPECT_EQ(calls_with(false, false, after), 4);
  EXPECT_EQ(calls_with(true, true, after), 4);
}

}  // namespace
}  // namespace tidesim::policies
