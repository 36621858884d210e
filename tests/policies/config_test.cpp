// KubeSchedulerConfiguration loading: the seed's file, merge rules, and errors.
#include <gtest/gtest.h>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/config.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

using Listing = std::vector<std::pair<std::string, std::int64_t>>;

std::unique_ptr<Scheduler> build(const std::string& text) {
  const SchedulerConfig cfg = load_scheduler_config_string(text, "test.yaml");
  return std::make_unique<Scheduler>(cfg, cfg.profiles.front(), 1);
}

std::string error_of(const std::string& text) {
  try {
    build(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

const char* kHeader =
    "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

TEST(SchedulerConfig, DefaultProfileMatchesKubernetes) {
  auto s = make_scheduler("default-k8s", 1);
  // default_plugins.go: score weights.
  const Listing expected{{"TaintToleration", 3},  {"NodeAffinity", 2},
                         {"NodeResourcesFit", 1}, {"PodTopologySpread", 2},
                         {"InterPodAffinity", 2}, {"NodeResourcesBalancedAllocation", 1},
                         {"ImageLocality", 1}};
  EXPECT_EQ(s->plugins_at("score"), expected);
  const auto filters = s->plugins_at("filter");
  ASSERT_EQ(filters.size(), 15u);
  EXPECT_EQ(filters.front().first, "NodeUnschedulable");
  EXPECT_EQ(filters.back().first, "InterPodAffinity");
  EXPECT_EQ(s->plugins_at("queueSort"), (Listing{{"PrioritySort", 0}}));
  EXPECT_EQ(s->queue_options().order, QueueOrder::kPrioritySort);
  EXPECT_EQ(s->queue_options().initial_backoff, std::chrono::seconds(1));
  EXPECT_EQ(s->queue_options().max_backoff, std::chrono::seconds(10));
}

TEST(SchedulerConfig, SeedFileLoadsAsWritten) {
  auto s = make_scheduler("scenarios/schedulers/seed-scheduler-config.yaml", 1);
  EXPECT_EQ(s->name(), "load-aware-scheduler");
  const auto filters = s->plugins_at("filter");
  EXPECT_EQ(filters.back().first, "LoadAwareFilter");  // after the multiPoint defaults
  const auto scores = s->plugins_at("score");
  EXPECT_EQ(scores.back(), (std::pair<std::string, std::int64_t>{"LoadAwareScorer", 10}));
  EXPECT_EQ(scores.size(), 8u);
  // The built-in load-aware and the shipped load-aware.yaml are the same profile.
  auto builtin = make_scheduler("load-aware", 1);
  auto file = make_scheduler("scenarios/schedulers/load-aware.yaml", 1);
  for (const char* point : {"preFilter", "filter", "preScore", "score"}) {
    EXPECT_EQ(builtin->plugins_at(point), s->plugins_at(point)) << point;
    EXPECT_EQ(builtin->plugins_at(point), file->plugins_at(point)) << point;
  }
  EXPECT_NO_THROW(make_scheduler("scenarios/schedulers/seed-tuned.yaml", 1));
  EXPECT_NO_THROW(make_scheduler("scenarios/schedulers/most-allocated.yaml", 1));
  EXPECT_NO_THROW(make_scheduler("scenarios/schedulers/default-k8s.yaml", 1));
}

TEST(SchedulerConfig, DisableAllAndMultiPoint) {
  auto s = build(std::string(kHeader) + R"(profiles:
- schedulerName: p
  plugins:
    score:
      disabled:
      - name: "*"
      enabled:
      - name: NodeResourcesFit
        weight: 5
    multiPoint:
      disabled:
      - name: NodeResourcesBalancedAllocation
)");
  EXPECT_EQ(s->plugins_at("score"), (Listing{{"NodeResourcesFit", 5}}));
  const auto pre = s->plugins_at("preScore");
  for (const auto& [name, w] : pre) {
    EXPECT_NE(name, "NodeResourcesBalancedAllocation");
  }
}

TEST(SchedulerConfig, ReconfiguredDefaultKeepsItsPlace) {
  // A score entry naming a default plugin overrides its multiPoint weight; order: overrides first.
  auto s = build(std::string(kHeader) + R"(profiles:
- schedulerName: p
  plugins:
    score:
      enabled:
      - name: ImageLocality
        weight: 7
)");
  const auto scores = s->plugins_at("score");
  EXPECT_EQ(scores.front(), (std::pair<std::string, std::int64_t>{"ImageLocality", 7}));
  EXPECT_EQ(scores.size(), 7u);
}

TEST(SchedulerConfig, PercentageOfNodesToScore) {
  const auto cfg =
      load_scheduler_config_string(std::string(kHeader) + R"(percentageOfNodesToScore: 30
profiles:
- schedulerName: a
- schedulerName: b
  percentageOfNodesToScore: 70
)",
                                   "t.yaml");
  EXPECT_EQ(Scheduler(cfg, cfg.profiles[0], 1).plugins().percentage(), 30);
  EXPECT_EQ(Scheduler(cfg, cfg.profiles[1], 1).plugins().percentage(), 70);
}

TEST(SchedulerConfig, Errors) {
  const std::string p = std::string(kHeader) + "profiles:\n- schedulerName: p\n";
  // Unknown plugin: names file, line, profile, entry.
  const std::string unknown = error_of(
      p + "  plugins:\n    score:\n      enabled:\n      - name: Foo\n        weight: 1\n");
  EXPECT_NE(unknown.find("test.yaml:8:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("profiles[0](p).plugins.score.enabled[0]"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("plugin \"Foo\" does not exist"), std::string::npos) << unknown;
  // Missing weight.
  const std::string weight =
      error_of(p + "  plugins:\n    score:\n      enabled:\n      - name: LoadAwareScorer\n");
  EXPECT_NE(weight.find("profiles[0](p).plugins.score.enabled[0].weight"), std::string::npos)
      << weight;
  EXPECT_NE(weight.find("not configured with weight"), std::string::npos) << weight;
  // Weight 0.
  EXPECT_NE(error_of(p + "  plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n"
                         "        weight: 0\n")
                .find("weight"),
            std::string::npos);
  // Bad arg value, named with its plugin.
  const std::string bad_arg = error_of(
      p +
      "  plugins:\n    score:\n      enabled:\n      - name: LoadAwareScorer\n        weight: "
      "10\n  pluginConfig:\n  - name: LoadAwareScorer\n    args:\n      gpuMemoryDecaySlope: "
      "2\n");
  EXPECT_NE(bad_arg.find("pluginConfig[0](LoadAwareScorer).args.gpuMemoryDecaySlope"),
            std::string::npos)
      << bad_arg;
  // GangScheduling's podGroupSchedulingCycle is a boolean (the pod group cycle switch).
  const std::string gang = error_of(
      p +
      "  plugins:\n    multiPoint:\n      enabled:\n      - name: GangScheduling\n"
      "  pluginConfig:\n  - name: GangScheduling\n    args:\n      podGroupSchedulingCycle: "
      "maybe\n");
  EXPECT_NE(gang.find("pluginConfig[0](GangScheduling).args.podGroupSchedulingCycle"),
            std::string::npos)
      << gang;
  // Unknown arg key lists the allowed ones.
  const std::string unknown_arg = error_of(
      p + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrat: {}\n");
  EXPECT_NE(unknown_arg.find("scoringStrat"), std::string::npos) << unknown_arg;
  EXPECT_NE(unknown_arg.find("scoringStrategy"), std::string::npos) << unknown_arg;
  // A plugin at a point it does not implement.
  EXPECT_NE(error_of(p + "  plugins:\n    filter:\n      enabled:\n      - name: PrioritySort\n")
                .find("does not extend filter plugin"),
            std::string::npos);
  // Two queue sort plugins.
  EXPECT_NE(error_of(p + "  plugins:\n    queueSort:\n      enabled:\n      - name: FIFOSort\n")
                .find("only one queue sort plugin"),
            std::string::npos);
  // No bind plugin.
  EXPECT_NE(error_of(p + "  plugins:\n    bind:\n      disabled:\n      - name: '*'\n")
                .find("at least one bind plugin"),
            std::string::npos);
  // Wrong apiVersion, unknown top-level key, unknown pluginConfig plugin, bad strategy.
  EXPECT_NE(error_of("apiVersion: kubescheduler.config.k8s.io/v1beta1\nkind: "
                     "KubeSchedulerConfiguration\n")
                .find("apiVersion"),
            std::string::npos);
  EXPECT_NE(error_of(p + "  foo: 1\n").find("foo"), std::string::npos);
  EXPECT_NE(error_of(p + "  pluginConfig:\n  - name: Nope\n    args: {}\n").find("Nope"),
            std::string::npos);
  EXPECT_NE(error_of(p + "  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      "
                         "scoringStrategy:\n        type: Greedy\n")
                .find("scoringStrategy.type"),
            std::string::npos);
  // Unknown built-in name or missing file.
  EXPECT_THROW(make_scheduler("no-such-scheduler", 1), InputError);
}

// A filter that passes every node and records the args it was built with.
class RecordingFilter final : public FilterPlugin {
 public:
  explicit RecordingFilter(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  Status filter(CycleContext&, const PodSpec&, int) override { return Status::success(); }

 private:
  std::string name_;
};

// The args each plugin of `names` was built with, as "key=value" in key order.
std::map<std::string, std::string> built_args(const std::string& config,
                                              const std::map<std::string, std::string>& groups) {
  std::map<std::string, std::string> seen;
  Registry r = builtin_registry();
  for (const auto& [name, group] : groups) {
    // The decoder keeps the args as written; the factory records them.
    r[name] =
        plugin_with_args<PluginArgs>([](const PluginArgs& a) { return a; },
                                     [&seen, name](const PluginArgs& a) -> std::unique_ptr<Plugin> {
                                       std::map<std::string, std::string> kv;
                                       for (const auto& [k, v] : a.node.entries()) {
                                         kv[k.scalar()] = v.scalar();
                                       }
                                       std::string text;
                                       for (const auto& [k, v] : kv) {
                                         text += (text.empty() ? "" : ",") + k + "=" + v;
                                       }
                                       seen[name] = text;
                                       return std::make_unique<RecordingFilter>(name);
                                     },
                                     group);
  }
  const SchedulerConfig cfg = load_scheduler_config_string(config, "test.yaml", r);
  Scheduler s(cfg, cfg.profiles.front(), 1, r);
  return seen;
}

// Args are decoded into their typed struct when the configuration is loaded, once per profile;
// the schedulers built from it (one per policy and seed) only call the factory. A bad arg fails
// the load itself.
TEST(SchedulerConfig, ArgsAreDecodedOnceWhenLoaded) {
  int decoded = 0;
  std::vector<std::int64_t> built;
  Registry r = builtin_registry();
  r["Counted"] = plugin_with_args<std::int64_t>(
      [&decoded](const PluginArgs& a) {
        ++decoded;
        Fields f = args_fields(a);
        const std::int64_t v = f.integer("v", 7, 0, 100);
        f.finish();
        return v;
      },
      [&built](const std::int64_t& v) -> std::unique_ptr<Plugin> {
        built.push_back(v);
        return std::make_unique<RecordingFilter>("Counted");
      });
  const std::string profile = R"(profiles:
- schedulerName: p
  plugins:
    filter:
      enabled: [{name: Counted}]
  pluginConfig:
  - {name: Counted, args: {v: )";
  const SchedulerConfig cfg =
      load_scheduler_config_string(std::string(kHeader) + profile + "5}}\n", "t.yaml", r);
  EXPECT_EQ(decoded, 1);
  Scheduler a(cfg, cfg.profiles.front(), 1, r);
  Scheduler b(cfg, cfg.profiles.front(), 2, r);
  EXPECT_EQ(decoded, 1);
  EXPECT_EQ(built, (std::vector<std::int64_t>{5, 5}));
  EXPECT_THROW(
      load_scheduler_config_string(std::string(kHeader) + profile + "500}}\n", "t.yaml", r),
      InputError);
  EXPECT_EQ(built.size(), 2u);
}

// A plugin author declares an args group in the registry; the framework names no plugin. Each
// plugin of group G gets its own args plus the keys other G plugins set and it does not (others
// in name order: GroupA's b=3 beats GroupB's b=2 for GroupC); Lone (no group) keeps its own.
TEST(SchedulerConfig, ArgsGroupSharesArgsDeclaredInTheRegistry) {
  const std::string config = std::string(kHeader) + R"(profiles:
- schedulerName: p
  plugins:
    filter:
      enabled: [{name: GroupA}, {name: GroupB}, {name: GroupC}, {name: Lone}]
  pluginConfig:
  - {name: GroupB, args: {a: 1, b: 2}}
  - {name: GroupA, args: {b: 3}}
  - {name: Lone, args: {c: 4}}
)";
  const auto seen =
      built_args(config, {{"GroupA", "G"}, {"GroupB", "G"}, {"GroupC", "G"}, {"Lone", ""}});
  EXPECT_EQ(seen.at("GroupA"), "a=1,b=3");
  EXPECT_EQ(seen.at("GroupB"), "a=1,b=2");
  EXPECT_EQ(seen.at("GroupC"), "a=1,b=3");
  EXPECT_EQ(seen.at("Lone"), "c=4");
  // Without a group nothing is shared.
  const auto alone =
      built_args(config, {{"GroupA", ""}, {"GroupB", ""}, {"GroupC", ""}, {"Lone", ""}});
  EXPECT_EQ(alone.at("GroupA"), "b=3");
  EXPECT_EQ(alone.at("GroupC"), "");
}

// The built-in load-aware plugins form one group: a margin set only on the scorer (as the seed's
// tuning example does) reaches the filter. GPU memory 0.82: over 0.85 - 0.05 = 0.80 with the
// default margin (node a filtered, b chosen), under 0.85 - 0 with the scorer's margin 0 (a passes
// and scores 100 x (1 - 0.5 x (0.82 - 0.70) / 0.15) = 60 against b's 100, so b is still chosen
// but a is feasible).
TEST(SchedulerConfig, LoadAwareScorerArgsReachTheFilter) {
  ClusterView c;
  for (const char* n : {"a", "b"}) {
    c.nodes.push_back(testing::make_node(n, 32000, 1LL << 37, 4));
  }
  struct Fixed : MetricsSource {
    MetricsAnswer query(const std::string& node, TimePoint) const override {
      NodeMetrics m;
      m.gpu_memory_utilization = {node == "a" ? 0.82 : 0.1};
      return MetricsAnswer{m, Duration::zero()};
    }
  } metrics;
  const PodSpec pod = *testing::make_pod("p", 1000, 1 << 30, 1);
  const auto feasible_a = [&](const std::string& margin_args) {
    const std::string config = std::string(kHeader) + R"(profiles:
- schedulerName: p
  plugins:
    filter: {enabled: [{name: LoadAwareFilter}]}
    score: {enabled: [{name: LoadAwareScorer, weight: 10}]}
  pluginConfig:
  - name: LoadAwareScorer
    args: )" + margin_args + "\n";
    auto s = build(config);
    s->set_record_details(true);
    const auto r = s->schedule_one(pod, c, &metrics, TimePoint{});
    EXPECT_EQ(r.node, 1);
    return r.details[0].feasible;
  };
  EXPECT_FALSE(feasible_a("{}"));
  EXPECT_TRUE(feasible_a("{rejectThresholdSafetyMargin: 0}"));
}

// First-fit is data: any profile may set nodeSelection: FirstFeasible (the built-in first-fit
// does). With node 0 full, every pod goes to node 1, the first feasible in node order, where the
// Kubernetes cycle would score and spread.
TEST(SchedulerConfig, NodeSelectionFirstFeasible) {
  const auto cfg = load_scheduler_config_string(std::string(kHeader) + R"(profiles:
- schedulerName: scored
- schedulerName: first
  nodeSelection: FirstFeasible
)",
                                                "t.yaml");
  EXPECT_FALSE(cfg.profiles[0].first_feasible);
  EXPECT_TRUE(cfg.profiles[1].first_feasible);
  ClusterView c;
  for (const char* n : {"n0", "n1", "n2"}) {
    c.nodes.push_back(testing::make_node(n, 32000, 1LL << 37, 4));
  }
  c.nodes[0].add_pod(testing::make_pod("full", 0, 0, 4));
  const PodSpec pod = *testing::make_pod("p", 100, 100, 1);
  Scheduler first(cfg, cfg.profiles[1], 1);
  for (int i = 0; i < 3; ++i) {
    const auto r = first.schedule_one(pod, c, nullptr, TimePoint{});
    EXPECT_EQ(r.node, 1);
    EXPECT_EQ(r.evaluated_nodes, 2);  // stopped at the first feasible node
    c.nodes[1].add_pod(std::make_shared<PodSpec>(pod));
  }
  // Node 1 now holds 3 GPUs, node 2 none: the scored profile (LeastAllocated) picks node 2.
  Scheduler scored(cfg, cfg.profiles[0], 1);
  EXPECT_EQ(scored.schedule_one(pod, c, nullptr, TimePoint{}).node, 2);
  EXPECT_NE(
      error_of(std::string(kHeader) + "profiles:\n- schedulerName: p\n  nodeSelection: FirstFit\n")
          .find("profiles[0].nodeSelection"),
      std::string::npos);
}

PluginEntry entry(const char* name, std::optional<std::int64_t> weight) {
  PluginEntry e;
  e.name = name;
  e.weight = weight;
  return e;
}

TEST(SchedulerConfig, MergePluginSet) {
  PluginSet defaults;
  defaults.enabled.push_back(entry("A", 1));
  defaults.enabled.push_back(entry("B", 2));
  PluginSet custom;
  custom.enabled.push_back(entry("C", 3));
  custom.enabled.push_back(entry("A", 9));
  custom.disabled.push_back(entry("B", std::nullopt));
  const PluginSet m = merge_plugin_set(defaults, custom);
  ASSERT_EQ(m.enabled.size(), 2u);
  EXPECT_EQ(m.enabled[0].name, "A");  // replaced in place
  EXPECT_EQ(m.enabled[0].weight, 9);
  EXPECT_EQ(m.enabled[1].name, "C");
}

}  // namespace
}  // namespace tidesim::policies
