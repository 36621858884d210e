// LoadAwareFilter / LoadAwareScorer: the digest's worked examples and edge cases.
#include <gtest/gtest.h>

#include <map>

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/plugins/load_aware.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;
using testing::FixedMetrics;
using testing::make_metrics;
using testing::make_node;
using testing::make_pod;

// Digest 2.3: memory 78%, NVLink 15%, IO 20% -> decay 0.5 * (78-70)/(85-70) = 0.267 -> 73.3.
TEST(LoadAware, WorkedExampleScore) {
  const LoadAwareArgs args;
  const LoadVector v{0.78, 0.15, 0.20};
  EXPECT_NEAR(load_aware_raw_score(v, args), 100.0 * (1.0 - 0.5 * 8.0 / 15.0), 1e-9);
  EXPECT_NEAR(load_aware_raw_score(v, args), 73.33, 0.01);
  EXPECT_EQ(load_aware_score(v, args), 73);  // int64 truncation, as the seed's Go code
  PodSpec pod;
  EXPECT_FALSE(load_aware_filter_reason(v, pod, args));  // 0.78 <= 0.85 - 0.05
}

// Digest 2.3: memory 88%, NVLink 25%, IO 35% -> removed by the filter.
TEST(LoadAware, WorkedExampleFiltered) {
  LoadAwareArgs args;
  PodSpec pod;
  const LoadVector v{0.88, 0.25, 0.35};
  EXPECT_EQ(load_aware_filter_reason(v, pod, args).value_or(""), "GPU memory over 80%");
  args.reject_threshold_safety_margin = 0.0;  // the seed's Go code has no margin
  EXPECT_EQ(load_aware_filter_reason(v, pod, args).value_or(""), "GPU memory over 85%");
}

// Digest 2.2: await 42.83 ms -> 1.43 -> 1.0 (the NVLink index's worked example is in api_test).
TEST(LoadAware, WorkedExamplesNvlinkAndIo) {
  EXPECT_DOUBLE_EQ(io_load(42.83, 30ms), 1.0);
  EXPECT_NEAR(io_load(6.0, 30ms), 0.2, 1e-12);
  const LoadAwareArgs args;
  const LoadVector v = load_vector(make_metrics({0.51, 0.2}, 0.25, 42.83), args);
  EXPECT_DOUBLE_EQ(v.gpu_memory, 0.51);  // max over cards
  EXPECT_DOUBLE_EQ(v.nvlink, 0.25);
  EXPECT_DOUBLE_EQ(v.io, 1.0);
  PodSpec pod;
  EXPECT_EQ(load_aware_filter_reason(v, pod, args).value_or(""), "Storage await over 21ms");
  // Seed-code IO rule: await compared with 40/70 ms, i.e. a 100 ms full scale.
  LoadAwareArgs seed = args;
  seed.io_full_scale_await = 100ms;
  EXPECT_EQ(load_aware_filter_reason(load_vector(make_metrics({0.5}, 0, 69.0), seed), pod, seed),
            std::nullopt);
  EXPECT_EQ(load_aware_filter_reason(load_vector(make_metrics({0.5}, 0, 71.0), seed), pod, seed)
                .value_or(""),
            "Storage await over 70ms");
}

TEST(LoadAware, Aggregations) {
  LoadAwareArgs args;
  const NodeMetrics m = make_metrics({0.2, 0.8, 0.5}, 0, 0);
  EXPECT_DOUBLE_EQ(load_vector(m, args).gpu_memory, 0.8);
  args.gpu_memory_aggregation = GpuMemoryAggregation::kMean;
  EXPECT_DOUBLE_EQ(load_vector(m, args).gpu_memory, 0.5);
  args.gpu_memory_aggregation = GpuMemoryAggregation::kMin;
  EXPECT_DOUBLE_EQ(load_vector(m, args).gpu_memory, 0.2);
}

// RESOLVE (a): the seed's Go code gives an idle node factors above 1 and a negative score.
TEST(LoadAware, SeedCodeFormula) {
  LoadAwareArgs args;
  args.score_formula = LoadScoreFormula::kSeedCode;
  // factors: 1 + 0.7/0.15, 1 + 0.3/0.3, 1 + 0.4/0.3; combined 0.5*5.667 + 0.3*2 + 0.2*2.333 = 3.9
  EXPECT_NEAR(load_aware_raw_score(LoadVector{0, 0, 0}, args), -290.0, 1e-9);
  // At the reject thresholds every factor is 0: score 100 ("smaller is better" inverted).
  EXPECT_NEAR(load_aware_raw_score(LoadVector{0.85, 0.6, 0.7}, args), 100.0, 1e-9);
  // The text formula gives the idle node 100 and the saturated node 0.
  args.score_formula = LoadScoreFormula::kText;
  EXPECT_NEAR(load_aware_raw_score(LoadVector{0, 0, 0}, args), 100.0, 1e-9);
  EXPECT_NEAR(load_aware_raw_score(LoadVector{0.85, 0.6, 0.7}, args), 0.0, 1e-9);
}

TEST(LoadAware, RejectThresholdAnnotation) {
  const LoadAwareArgs args;
  PodSpec pod;
  pod.annotations["ai.gpu-reject-threshold"] = "0.80";
  EXPECT_DOUBLE_EQ(gpu_reject_threshold(pod, args), 0.80);
  // 0.80 - margin 0.05 = 0.75 < 0.78.
  EXPECT_EQ(load_aware_filter_reason(LoadVector{0.78, 0, 0}, pod, args).value_or(""),
            "GPU memory over 75%");
  pod.annotations["ai.gpu-reject-threshold"] = "0.8x";  // unparsable: default
  EXPECT_DOUBLE_EQ(gpu_reject_threshold(pod, args), 0.85);
}

// The per-cycle terms are the pod's threshold less the margin and its NVLink need; the verdict
// from them is the verdict from the pod.
TEST(LoadAware, PodTermsOncePerCycle) {
  const LoadAwareArgs args;
  PodSpec pod;
  pod.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";
  pod.annotations["ai.gpu-reject-threshold"] = "0.80";
  const LoadAwarePodTerms terms = load_aware_pod_terms(pod, args);
  EXPECT_DOUBLE_EQ(terms.mem_reject, 0.80 - 0.05);
  EXPECT_EQ(terms.nvlink, NvlinkNeed::kAutoDetected);
  EXPECT_EQ(load_aware_filter_reason(LoadVector{0.78, 0, 0}, terms, args).value_or(""),
            "GPU memory over 75%");
  EXPECT_EQ(load_aware_filter_reason(LoadVector{0.1, 0.7, 0}, terms, args).value_or(""),
            "Auto-detected NVLink contention");
  PodSpec plain;  // no annotation, no image: default 0.85 - 0.05, no NVLink need
  const LoadAwarePodTerms plain_terms = load_aware_pod_terms(plain, args);
  EXPECT_DOUBLE_EQ(plain_terms.mem_reject, 0.85 - 0.05);
  EXPECT_EQ(plain_terms.nvlink, NvlinkNeed::kNone);
  EXPECT_FALSE(load_aware_filter_reason(LoadVector{0.78, 0.7, 0}, plain_terms, args));
}

TEST(LoadAware, NvlinkDetection) {
  LoadAwareArgs args;
  PodSpec plain;
  plain.image = "nginx:1.25";
  PodSpec torch;
  torch.image = "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime";
  PodSpec declared;
  declared.env["AI_NV_LINK_REQUIRED"] = "true";
  PodSpec annotated;
  annotated.annotations["ai.auto-nvlink"] = "true";
  LoadAwareArgs no_detection = args;
  no_detection.auto_detect_nvlink = false;  // autoDetectNvlink: false drops only the image guess
  EXPECT_FALSE(needs_nvlink(plain, nvlink_rule(args)));
  EXPECT_TRUE(needs_nvlink(torch, nvlink_rule(args)));
  EXPECT_FALSE(needs_nvlink(torch, nvlink_rule(no_detection)));
  EXPECT_TRUE(needs_nvlink(declared, nvlink_rule(no_detection)));
  EXPECT_TRUE(needs_nvlink(annotated, nvlink_rule(no_detection)));
  const LoadVector busy{0.1, 0.7, 0.0};
  EXPECT_FALSE(load_aware_filter_reason(busy, plain, args));
  EXPECT_EQ(load_aware_filter_reason(busy, torch, args).value_or(""),
            "Auto-detected NVLink contention");
  EXPECT_EQ(load_aware_filter_reason(busy, declared, args).value_or(""),
            "NVLink competition too high");
  args.nvlink_check = NvlinkCheck::kAllPods;  // the seed's Filter code
  EXPECT_EQ(load_aware_filter_reason(busy, plain, args).value_or(""),
            "NVLink competition too high");
}

ClusterView three_nodes() {
  ClusterView c;
  for (const char* n : {"a", "b", "c"}) {
    c.nodes.push_back(make_node(n, 32000, 1LL << 37, 4));
  }
  return c;
}

// metricCacheTTL: each plugin re-queries a node only when its cached metrics are 30 s old.
TEST(LoadAware, MetricCacheTtl) {
  ClusterView c = three_nodes();
  FixedMetrics m;
  for (const char* n : {"a", "b", "c"}) {
    m.metrics[n] = make_metrics({0.1}, 0, 1);
  }
  auto s = make_scheduler("load-aware", 1);
  const auto pod = make_pod("p", 1000, 1 << 30, 1);
  s->schedule_one(*pod, c, &m, TimePoint{});
  EXPECT_EQ(m.queries, 3);  // the scorer reuses the filter's reads (same args)
  s->schedule_one(*pod, c, &m, TimePoint{} + 29s);
  EXPECT_EQ(m.queries, 3);
  s->schedule_one(*pod, c, &m, TimePoint{} + 30s);
  EXPECT_EQ(m.queries, 6);
}

// A cycle in which every cached answer is younger than metricCacheTTL reuses the previous read
// without visiting the nodes; a node without an answer is asked again in every cycle, and each
// answer is refreshed when it is 30 s old, on its own clock.
TEST(LoadAware, CachedReadsStandUntilEachAnswerIsThirtySecondsOld) {
  ClusterView c = three_nodes();
  FixedMetrics m;
  m.metrics["a"] = make_metrics({0.30}, 0.0, 0.0);
  m.metrics["b"] = make_metrics({0.78}, 0.15, 6.0);
  auto s = make_scheduler("load-aware", 1);
  const auto pod = make_pod("p", 1000, 1 << 30, 1);
  s->schedule_one(*pod, c, &m, TimePoint{});  // a, b and c asked; c has no answer
  EXPECT_EQ(m.queries, 3);
  s->schedule_one(*pod, c, &m, TimePoint{} + 10s);  // c asked again
  EXPECT_EQ(m.queries, 4);
  m.metrics["c"] = make_metrics({0.78}, 0.15, 6.0);
  s->schedule_one(*pod, c, &m, TimePoint{} + 20s);  // c answers: fetched at 20 s
  EXPECT_EQ(m.queries, 5);
  m.metrics["a"] = make_metrics({0.88}, 0.25, 10.5);  // over 80%: filtered once it is read
  auto r = s->schedule_one(*pod, c, &m, TimePoint{} + 29s);
  EXPECT_EQ(m.queries, 5) << "every answer is cached";
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 0) << "a's cached load (30%) still stands";
  r = s->schedule_one(*pod, c, &m, TimePoint{} + 30s);
  EXPECT_EQ(m.queries, 7) << "a and b are 30 s old, c is not";
  ASSERT_TRUE(r.node);
  EXPECT_NE(*r.node, 0) << "a's new load (88%) filters it";
  s->schedule_one(*pod, c, &m, TimePoint{} + 50s);
  EXPECT_EQ(m.queries, 8) << "c is 30 s old";
}

// The pod the run and the plugins used to disagree on (annotation nvlink-required: "True"): the run
// counted it as an NVLink job, the plugins did not check NVLink for it. One rule now: the whole
// load-aware profile removes node a (NVLink 0.7 > 0.6) and places the pod on b.
TEST(LoadAware, AnnotatedNvlinkPodIsCheckedAsTheRunCountsIt) {
  ClusterView c = three_nodes();
  FixedMetrics m;
  m.metrics["a"] = make_metrics({0.1}, 0.7, 1.0);   // NVLink competition over 0.6: filtered
  m.metrics["b"] = make_metrics({0.1}, 0.35, 1.0);  // 100 x (1 - 0.3 x 0.05 / 0.3) = 95
  m.metrics["c"] = make_metrics({0.1}, 0.5, 1.0);   // 100 x (1 - 0.3 x 0.2 / 0.3) = 80
  auto s = make_scheduler("load-aware", 1);
  s->set_record_details(true);
  auto pod = make_pod("p", 1000, 1 << 30, 1);
  pod->annotations["nvlink-required"] = "True";
  ASSERT_TRUE(needs_nvlink(*pod, NvlinkRule{}));  // what the run flags
  const auto r = s->schedule_one(*pod, c, &m, TimePoint{});
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 1);
  EXPECT_EQ(r.details[0].failed_plugin, "LoadAwareFilter");
  EXPECT_EQ(r.details[0].reasons.at(0), "NVLink competition too high");
  // The same node passes a pod that states no need.
  const auto plain = s->schedule_one(*make_pod("q", 1000, 1 << 30, 1), c, &m, TimePoint{} + 60s);
  EXPECT_TRUE(plain.details[0].feasible);
}

// The scheduler picks the least loaded node; the filter removes the overloaded one.
TEST(LoadAware, SchedulerUsesLoad) {
  ClusterView c = three_nodes();
  FixedMetrics m;
  m.metrics["a"] = make_metrics({0.88, 0.1}, 0.25, 10.5);  // memory over 80%: filtered
  m.metrics["b"] = make_metrics({0.78}, 0.15, 6.0);        // 73.3
  m.metrics["c"] = make_metrics({0.30}, 0.0, 0.0);         // 100
  auto s = make_scheduler("load-aware", 1);
  s->set_record_details(true);
  const auto r = s->schedule_one(*make_pod("p", 1000, 1 << 30, 1), c, &m, TimePoint{});
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 2);
  EXPECT_EQ(r.details[0].failed_plugin, "LoadAwareFilter");
  EXPECT_EQ(r.details[0].reasons.at(0), "GPU memory over 80%");
  const auto& sb = r.details[1].scores;
  const auto it = std::find_if(sb.begin(), sb.end(),
                               [](const PluginScore& p) { return p.plugin == "LoadAwareScorer"; });
  ASSERT_NE(it, sb.end());
  EXPECT_EQ(it->raw, 73);
  EXPECT_EQ(it->weighted, 730);
}

// Digest 4.3: a query slower than 5 s -> stage 1 (remaining GPUs x 10) for the first 10 s, then
// stage 2 (pinned to the golden node pool), back to normal when metrics answer in time.
TEST(LoadAware, TwoStageFallback) {
  ClusterView c = three_nodes();
  c.nodes[2].node.labels["tidesim.io/golden-node"] = "true";
  c.nodes[0].add_pod(make_pod("x", 0, 0, 3));  // a: 1 GPU left
  FixedMetrics m;
  for (const char* n : {"a", "b", "c"}) {
    m.metrics[n] = make_metrics({0.1}, 0, 1);
  }
  m.metrics["b"] = make_metrics({0.60}, 0, 1);
  m.latency = 6s;
  auto s = make_scheduler("load-aware", 1);
  s->set_record_details(true);
  const auto pod = make_pod("p", 1000, 1 << 30, 1);
  const auto r1 = s->schedule_one(*pod, c, &m, TimePoint{} + 100s);
  EXPECT_EQ(r1.fallback_stage, 1);
  EXPECT_EQ(r1.latency, 5s);  // waited up to the 5 s timeout
  // Stage 1 score: a has 1 GPU left -> 10; b and c 4 left -> 40.
  for (const auto& sc : r1.details[0].scores) {
    if (sc.plugin == "LoadAwareScorer") {
      EXPECT_EQ(sc.raw, 10);
    }
  }
  ASSERT_TRUE(r1.node);
  EXPECT_NE(*r1.node, 0);
  EXPECT_FALSE(r1.node_selector_pin);
  const auto r2 = s->schedule_one(*pod, c, &m, TimePoint{} + 110s);
  EXPECT_EQ(r2.fallback_stage, 2);
  ASSERT_TRUE(r2.node_selector_pin);
  EXPECT_EQ(r2.node_selector_pin->match_labels.at("tidesim.io/golden-node"), "true");
  EXPECT_EQ(r2.node, 2);  // only the golden node passes
  EXPECT_EQ(r2.details[0].reasons.at(0), "node(s) didn't match Pod's node affinity/selector");
  EXPECT_EQ(r2.alerts.size(), 1u);
  m.latency = 1s;
  const auto r3 = s->schedule_one(*pod, c, &m, TimePoint{} + 200s);
  EXPECT_EQ(r3.fallback_stage, 0);
  EXPECT_EQ(r3.latency, 1s);
  EXPECT_TRUE(r3.node);
}

// The herd effect (DESIGN 5; Koordinator issue #1908): metrics sampled at t=0 show node a idle
// and b, c, d at 72% GPU memory (score 100 - 0.5*100*2/15 = 93.3). A burst of six 1-GPU pods
// arrives before the next sample. Without an estimate every pod sees the same stale metrics and
// all six land on a. With estimateBoundPods each bound pod adds 0.5 to a least-loaded card of its
// node (two cards per node, time-sliced into 4 units each): a looks [0.5,0], [0.5,0.5],
// [1.0,0.5] -> filtered after three pods; b, c, d reach [1.0, 0.72] after one pod each.
std::map<std::string, int> burst(bool estimate) {
  ClusterView c;
  for (const char* n : {"a", "b", "c", "d"}) {
    c.nodes.push_back(make_node(n, 64000, 1LL << 38, 8));
  }
  FixedMetrics m;
  m.metrics["a"] = make_metrics({0.0, 0.0}, 0, 0);
  for (const char* n : {"b", "c", "d"}) {
    m.metrics[n] = make_metrics({0.72, 0.72}, 0, 0);
  }
  const std::string cfg = estimate ? "scenarios/schedulers/load-aware-estimating.yaml"
                                   : "scenarios/schedulers/load-aware.yaml";
  auto s = make_scheduler(cfg, 7);
  std::map<std::string, int> placed;
  for (int i = 0; i < 6; ++i) {
    const auto pod = make_pod("p" + std::to_string(i), 1000, 1 << 30, 1);
    const TimePoint now = TimePoint{} + std::chrono::seconds(1 + i);
    const auto r = s->schedule_one(*pod, c, &m, now);
    if (!r.node) {
      continue;
    }
    c.nodes[*r.node].add_pod(pod, now);
    ++placed[c.nodes[*r.node].node.name];
  }
  return placed;
}

TEST(LoadAware, BurstHerdsWithoutEstimate) {
  const auto placed = burst(false);
  EXPECT_EQ(placed.at("a"), 6);
  EXPECT_EQ(placed.size(), 1u);
}

TEST(LoadAware, BurstSpreadsWithEstimate) {
  const auto placed = burst(true);
  EXPECT_EQ(placed.at("a"), 3);
  EXPECT_EQ(placed.at("b"), 1);
  EXPECT_EQ(placed.at("c"), 1);
  EXPECT_EQ(placed.at("d"), 1);
}

TEST(LoadAware, EstimateOnlyCountsPodsBoundAfterTheSample) {
  LoadAwareArgs args;
  NodeInfo info = make_node("a", 1000, 1000, 4);
  info.add_pod(make_pod("old", 0, 0, 1), TimePoint{} + 1s);
  info.add_pod(make_pod("new", 0, 0, 2), TimePoint{} + 20s);
  NodeMetrics m = make_metrics({0.3, 0.1, 0.2, 0.0}, 0, 0);
  m.sampled_at = TimePoint{} + 10s;
  const NodeMetrics e = with_estimated_bound_pods(m, info, args);
  // "new" takes the two least-loaded cards (index 3 then 1): 0.5 and 0.6.
  EXPECT_EQ(e.gpu_memory_utilization, (std::vector<double>{0.3, 0.6, 0.2, 0.5}));
}

TEST(LoadAware, SeedCodeScoreIsRejectedByTheFramework) {
  ClusterView c = three_nodes();
  FixedMetrics m;
  for (const char* n : {"a", "b", "c"}) {
    m.metrics[n] = make_metrics({0.1}, 0, 1);
  }
  const std::string path = ::testing::TempDir() + "/seed_code.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    std::fputs(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: seed-code
  plugins:
    filter: {enabled: [{name: LoadAwareFilter}]}
    score: {enabled: [{name: LoadAwareScorer, weight: 10}]}
  pluginConfig:
  - name: LoadAwareScorer
    args: {scoreFormula: seed-code, ioFullScaleAwait: 100ms, rejectThresholdSafetyMargin: 0}
)",
               f);
    std::fclose(f);
  }
  auto s = make_scheduler(path, 1);
  const auto r = s->schedule_one(*make_pod("p", 1000, 1 << 30, 1), c, &m, TimePoint{});
  EXPECT_TRUE(r.error);
  EXPECT_FALSE(r.node);
  EXPECT_NE(r.reason.find("invalid score"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace tidesim::policies

namespace tidesim::policies {
namespace {

// Scraped samples plus a forecast per node (what the run's forecaster answers).
class PredictingMetrics : public testing::FixedMetrics {
 public:
  std::map<std::string, NodeMetrics> forecasts;
  std::optional<NodeMetrics> forecast(const std::string& node, TimePoint) const override {
    const auto it = forecasts.find(node);
    return it == forecasts.end() ? std::nullopt : std::optional<NodeMetrics>(it->second);
  }
};

// Scraped: a 30% (score 100), b 78% (73.3). Forecast: a 88% (over the 80% filter line), b 78%.
// The reactive scheduler picks a; the predictive one filters a on its forecast and picks b. A
// node without a forecast (c, 95% scraped) is judged on its sample: filtered either way.
TEST(LoadAware, PredictLoadJudgesTheForecast) {
  ClusterView c;
  for (const char* n : {"a", "b", "c"}) {
    c.nodes.push_back(make_node(n, 64000, 1LL << 38, 8));
  }
  PredictingMetrics m;
  m.metrics["a"] = make_metrics({0.30}, 0, 0);
  m.metrics["b"] = make_metrics({0.78}, 0, 0);
  m.metrics["c"] = make_metrics({0.95}, 0, 0);
  m.forecasts["a"] = make_metrics({0.88}, 0, 0);
  m.forecasts["b"] = make_metrics({0.78}, 0, 0);
  const auto pod = make_pod("p", 1000, 1 << 30, 1);
  auto reactive = make_scheduler("scenarios/schedulers/load-aware.yaml", 1);
  const auto r = reactive->schedule_one(*pod, c, &m, TimePoint{});
  ASSERT_TRUE(r.node);
  EXPECT_EQ(*r.node, 0);
  auto predictive = make_scheduler("scenarios/schedulers/load-aware-predictive.yaml", 1);
  predictive->set_record_details(true);
  const auto p = predictive->schedule_one(*pod, c, &m, TimePoint{});
  ASSERT_TRUE(p.node);
  EXPECT_EQ(*p.node, 1);
  EXPECT_EQ(p.details[0].reasons.at(0), "GPU memory over 80%");
  EXPECT_EQ(p.details[2].reasons.at(0), "GPU memory over 80%");
}

TEST(LoadAware, PredictLoadIsAnArg) {
  EXPECT_FALSE(parse_load_aware_args({}).predict_load);
  const ConfigNode args = load_yaml_string("predictLoad: true", "args");
  EXPECT_TRUE(parse_load_aware_args(PluginArgs{args, "", ""}).predict_load);
}

}  // namespace
}  // namespace tidesim::policies
