// The scheduling cycle: affinity, anti-affinity, spreading, tie-breaks, first-fit.
#include <gtest/gtest.h>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::policies {
namespace {

using testing::make_node;
using testing::make_pod;

ClusterView gpu_cluster(int n) {
  ClusterView c;
  for (int i = 0; i < n; ++i) {
    auto node = make_node("node-0" + std::to_string(i + 1), 32000, 1LL << 37, 4);
    node.node.labels["nvidia.com/gpu.present"] = "true";
    c.nodes.push_back(node);
  }
  return c;
}

// The seed's gpt2-dp: nodeSelector nvidia.com/gpu.present=true, required anti-affinity on
// app=gpt2-dp per hostname -> one replica per node; the fourth of three nodes is unschedulable.
TEST(Scheduler, Gpt2RequiredAntiAffinity) {
  ClusterView c = gpu_cluster(3);
  c.nodes.push_back(make_node("cpu-only", 32000, 1LL << 37, 4));  // no gpu.present label
  auto s = make_scheduler("default-k8s", 1);
  std::set<int> used;
  for (int i = 0; i < 4; ++i) {
    auto pod = make_pod("gpt2-dp-" + std::to_string(i), 1000, 1 << 30, 1);
    pod->labels["app"] = "gpt2-dp";
    pod->node_selector["nvidia.com/gpu.present"] = "true";
    PodAffinityTerm t;
    t.label_selector.match_expressions.push_back(SelectorRequirement{"app", "In", {"gpt2-dp"}});
    t.topology_key = "kubernetes.io/hostname";
    pod->pod_anti_affinity.required.push_back(t);
    const auto r = s->schedule_one(*pod, c, nullptr, TimePoint{});
    if (i < 3) {
      ASSERT_TRUE(r.node) << r.reason;
      EXPECT_TRUE(used.insert(*r.node).second);
      c.nodes[*r.node].add_pod(pod);
    } else {
      EXPECT_FALSE(r.node);
      EXPECT_EQ(r.reason,
                "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 3 "
                "node(s) didn't match pod anti-affinity rules.");
    }
  }
}

// Existing pods' anti-affinity also repels the incoming pod.
TEST(Scheduler, ExistingPodsAntiAffinity) {
  ClusterView c = gpu_cluster(2);
  auto lonely = make_pod("lonely", 100, 100);
  PodAffinityTerm t;
  t.topology_key = "kubernetes.io/hostname";  // empty selector: repels every pod
  lonely->pod_anti_affinity.required.push_back(t);
  c.nodes[0].add_pod(lonely);
  auto s = make_scheduler("default-k8s", 1);
  const auto r = s->schedule_one(*make_pod("p", 100, 100), c, nullptr, TimePoint{});
  EXPECT_EQ(r.node, 1);
}

// Preferred node affinity: weight sum, normalised to 100 on the best node (weight 2 in total).
TEST(Scheduler, PreferredNodeAffinity) {
  ClusterView c = gpu_cluster(3);
  c.nodes[1].node.labels["zone"] = "z1";
  auto pod = make_pod("p", 100, 100);
  PreferredSchedulingTerm pref;
  pref.weight = 30;
  pref.preference.match_expressions.push_back(SelectorRequirement{"zone", "In", {"z1"}});
  pod->node_affinity.preferred.push_back(pref);
  auto s = make_scheduler("default-k8s", 1);
  s->set_record_details(true);
  const auto r = s->schedule_one(*pod, c, nullptr, TimePoint{});
  EXPECT_EQ(r.node, 1);
  for (const auto& sc : r.details[1].scores) {
    if (sc.plugin == "NodeAffinity") {
      EXPECT_EQ(sc.raw, 30);
      EXPECT_EQ(sc.normalized, 100);
      EXPECT_EQ(sc.weighted, 200);
    }
  }
}

// PodTopologySpread DoNotSchedule, maxSkew 1 over hostnames: node A has 2 matching pods, B 0:
// A: 2 + 1 - 0 = 3 > 1 -> filtered.
TEST(Scheduler, TopologySpreadFilter) {
  ClusterView c = gpu_cluster(2);
  for (int i = 0; i < 2; ++i) {
    auto p = make_pod("w" + std::to_string(i), 100, 100);
    p->labels["app"] = "web";
    c.nodes[0].add_pod(p);
  }
  auto pod = make_pod("p", 100, 100);
  pod->labels["app"] = "web";
  TopologySpreadConstraint tsc;
  tsc.max_skew = 1;
  tsc.topology_key = "kubernetes.io/hostname";
  tsc.label_selector.match_labels["app"] = "web";
  pod->topology_spread.push_back(tsc);
  auto s = make_scheduler("default-k8s", 1);
  s->set_record_details(true);
  const auto r = s->schedule_one(*pod, c, nullptr, TimePoint{});
  EXPECT_EQ(r.node, 1);
  EXPECT_EQ(r.details[0].reasons.at(0), "node(s) didn't match pod topology spread constraints");
}

// Ties are broken by the scheduler's own stream: same seed, same choices; all nodes are reached.
TEST(Scheduler, TieBreakIsSeeded) {
  ClusterView c = gpu_cluster(4);
  const auto pod = make_pod("p", 100, 100);
  const auto run = [&](std::uint64_t seed) {
    auto s = make_scheduler("default-k8s", seed);
    std::vector<int> picks;
    for (int i = 0; i < 40; ++i) {
      picks.push_back(*s->schedule_one(*pod, c, nullptr, TimePoint{}).node);
    }
    return picks;
  };
  const auto a = run(42);
  EXPECT_EQ(a, run(42));
  EXPECT_EQ(std::set<int>(a.begin(), a.end()).size(), 4u);
}

TEST(Scheduler, FirstFitTakesTheFirstFeasibleNode) {
  ClusterView c = gpu_cluster(3);
  c.nodes[0].add_pod(make_pod("x", 0, 0, 4));
  auto s = make_scheduler("first-fit", 1);
  EXPECT_EQ(s->queue_options().order, QueueOrder::kFifo);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(s->schedule_one(*make_pod("p", 100, 100, 1), c, nullptr, TimePoint{}).node, 1);
  }
}

TEST(Scheduler, TaintsAndUnschedulable) {
  ClusterView c = gpu_cluster(3);
  c.nodes[0].node.unschedulable = true;
  c.nodes[1].node.taints.push_back(Taint{"dedicated", "infer", "NoSchedule"});
  auto s = make_scheduler("default-k8s", 1);
  EXPECT_EQ(s->schedule_one(*make_pod("p", 100, 100), c, nullptr, TimePoint{}).node, 2);
  auto tolerant = make_pod("t", 100, 100);
  tolerant->tolerations.push_back(Toleration{"dedicated", "Equal", "infer", "NoSchedule"});
  c.nodes[2].node.unschedulable = true;
  EXPECT_EQ(s->schedule_one(*tolerant, c, nullptr, TimePoint{}).node, 1);
  auto none = make_pod("n", 100, 100);
  EXPECT_EQ(s->schedule_one(*none, c, nullptr, TimePoint{}).reason,
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: infer}, 2 "
            "node(s) were unschedulable.");
}

}  // namespace
}  // namespace tidesim::policies

namespace tidesim::policies {
namespace {

// A run drives telemetry only for a profile that reads it: the load-aware plugins do, the
// default profile's plugins do not.
TEST(Scheduler, KnowsWhetherItReadsMetrics) {
  EXPECT_FALSE(make_scheduler("default-k8s", 1)->reads_metrics());
  EXPECT_FALSE(make_scheduler("first-fit", 1)->reads_metrics());
  EXPECT_TRUE(make_scheduler("load-aware", 1)->reads_metrics());
  EXPECT_TRUE(
      make_scheduler("scenarios/schedulers/seed-scheduler-config.yaml", 1)->reads_metrics());
}

}  // namespace
}  // namespace tidesim::policies

namespace tidesim::policies {
namespace {

// Coscheduling's PostFilter (scheduler-plugins coscheduling.go): a member that fits no node asks
// for the group's waiting pods to be rejected unless minMember are assigned or at most 10 % of
// minMember are missing. Every profile runs it for PodGroup members, listed or not.
TEST(CoschedulingPostFilter, RejectsTheWaitingPodsUnlessTheGroupIsNearlyComplete) {
  ClusterView c;
  c.nodes.push_back(make_node("n", 1000, 1 << 30, 1));
  const auto pod = make_pod("p", 100, 100, 1);
  const auto rejects = [&](const std::string& scheduler, int min_member, int assigned) {
    PodGroupStatus g;
    g.name = "g";
    g.min_member = min_member;
    g.members = min_member;
    g.assigned = assigned;
    return make_scheduler(scheduler, 1)->group_post_filter(*pod, c, g, TimePoint{}).reject_waiting;
  };
  for (const char* s : {"default-k8s", "first-fit", "load-aware"}) {
    EXPECT_TRUE(rejects(s, 4, 3)) << s << ": 1 of 4 missing, 25 %";
    EXPECT_TRUE(rejects(s, 4, 0)) << s;
    EXPECT_FALSE(rejects(s, 10, 9)) << s << ": 1 of 10 missing, 10 %";
    EXPECT_TRUE(rejects(s, 10, 8)) << s << ": 2 of 10 missing, 20 %";
    EXPECT_FALSE(rejects(s, 4, 4)) << s << ": complete";
    EXPECT_FALSE(rejects(s, 1, 5)) << s;
  }
  // A pod outside any group: preemption's PostFilter is not asked for a rejection.
  EXPECT_FALSE(make_scheduler("default-k8s", 1)->post_filter(*pod, c, TimePoint{}).reject_waiting);
}

}  // namespace
}  // namespace tidesim::policies

namespace tidesim::policies {
namespace {

// A filter that rejects every node and registers for the events it is given.
class RejectAll final : public FilterPlugin {
 public:
  explicit RejectAll(unsigned events) : events_(events) {}
  std::string_view name() const override { return "RejectAll"; }
  std::vector<ClusterEventWithHint> events_to_register() const override {
    std::vector<ClusterEventWithHint> out;
    for (const ClusterEvent e : {kClusterChanged, kMetricsChanged}) {
      if ((events_ & e) != 0) {
        out.push_back(ClusterEventWithHint{.event = e, .hint = {}});
      }
    }
    return out;
  }
  Status filter(CycleContext& ctx, const PodSpec& /*pod*/, int /*node*/) override {
    return reject(ctx, Code::kUnschedulable, "rejected");
  }

 private:
  unsigned events_;
};

// EventsToRegister: the queue's metrics event moves a pod (ScheduleResult::rejectors, asked
// through the profile's QueueingHintMap) only when a plugin that rejected it registered for
// metrics events, whatever it reads.
TEST(EventsToRegister, APodRejectedByAPluginRegisteredForMetricsEventsIsMarkedForThem) {
  ClusterView c;
  c.nodes.push_back(make_node("n", 1000, 1 << 30, 1));
  const auto pod = make_pod("p", 100, 100);
  const auto marked = [&](unsigned events) {
    Registry registry = builtin_registry();
    registry["RejectAll"] = plugin_without_args(
        [events] { return std::unique_ptr<Plugin>(std::make_unique<RejectAll>(events)); });
    const SchedulerConfig config = load_scheduler_config_string(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: s\n  plugins:\n    filter:\n      enabled:\n"
        "      - name: RejectAll\n",
        "<test>", registry);
    Scheduler s(config, config.profiles.front(), 1, registry);
    const ScheduleResult r = s.schedule_one(*pod, c, nullptr, TimePoint{});
    EXPECT_FALSE(r.node.has_value());
    EXPECT_NE(r.rejectors, 0u);  // RejectAll's bit
    return s.queueing_hints().worth_requeuing(
        *pod, r.rejectors, ClusterEventInfo{.event = kMetricsChanged, .nodes = {}});
  };
  EXPECT_FALSE(marked(kClusterChanged));
  EXPECT_TRUE(marked(kClusterChanged | kMetricsChanged));
  EXPECT_TRUE(marked(kMetricsChanged));
}

// The queue keeps a pod's rejecting plugins as bits of one 64-bit word: a profile that runs more
// plugins is an input error at the profile, not a crash.
TEST(EventsToRegister, AProfileOfMoreThan64PluginsIsAnInputError) {
  Registry registry = builtin_registry();
  std::string yaml =
      "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
      "profiles:\n- schedulerName: s\n  plugins:\n    filter:\n      enabled:\n";
  for (int i = 0; i < 64; ++i) {
    const std::string name = "Reject" + std::to_string(i);
    registry[name] = plugin_without_args(
        [] { return std::unique_ptr<Plugin>(std::make_unique<RejectAll>(kClusterChanged)); });
    yaml += "      - name: " + name + "\n";
  }
  const SchedulerConfig config = load_scheduler_config_string(yaml, "<test>", registry);
  try {
    Scheduler s(config, config.profiles.front(), 1, registry);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(e.field().find("(s).plugins"), std::string::npos) << e.field();
    EXPECT_NE(std::string(e.what()).find("a profile runs at most 64 plugins"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tidesim::policies
