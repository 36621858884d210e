// KubeSchedulerConfiguration loading: the seed's file, merge rules, and errors.
#include <gtest/gtest.h>

#include "policies/config.hpp"
#include "policies/scheduler.hpp"

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
  EXPECT_EQ(Scheduler(cfg, cfg.profiles[0], 1).percentage_of_nodes_to_score(), 30);
  EXPECT_EQ(Scheduler(cfg, cfg.profiles[1], 1).percentage_of_nodes_to_score(), 70);
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
