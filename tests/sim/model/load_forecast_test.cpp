// Load forecasts in a run: steps ahead, the prediction section's checks, the accuracy collector
// on hand-made forecasts, and the job-aware predictor against the true memory of a run.
#include "tidesim/sim/model/load_forecast.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/metrics/prediction_accuracy.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

TEST(LoadForecast, StepsAheadRoundToTheNearestScrape) {
  // Last scrape at 30 s, 15 s apart: 90 s is (60 + 7.5) / 15 = 4 scrapes ahead; 37 s rounds to
  // 0 and is held to 1; 52.5 s is exactly 1.5 -> (22.5 + 7.5) / 15 = 2.
  EXPECT_EQ(steps_ahead(TimePoint(30s), TimePoint(90s), 15s), 4);
  EXPECT_EQ(steps_ahead(TimePoint(30s), TimePoint(37s), 15s), 1);
  EXPECT_EQ(steps_ahead(TimePoint(30s), TimePoint(52500ms), 15s), 2);
}

ConfigNode section(const std::string& text) {
  return load_yaml_string(text, "s.yaml");
}

TEST(LoadForecast, PredictionSectionIsChecked) {
  const auto off = parse_prediction(ConfigNode(), "s.yaml", 10s, 15s);  // absent
  EXPECT_FALSE(off.enabled);
  const auto on =
      parse_prediction(section("{model: ar, horizon: 30s, order: 3}"), "s.yaml", 10s, 15s);
  EXPECT_TRUE(on.enabled);
  EXPECT_EQ(on.model, ForecastModel::kAr);
  EXPECT_EQ(on.params.order, 3);
  EXPECT_EQ(on.evaluate.size(), 5u);
  // 45 s is not a multiple of the 10 s sample interval.
  EXPECT_NE(test::message_of([] {
              parse_prediction(section("{horizon: 45s}"), "s.yaml", 10s, 15s);
            }).find("prediction.horizon"),
            std::string::npos);
  // 1 min holds 4 scrapes at 15 s; AR(2) needs 5.
  EXPECT_NE(test::message_of([] {
              parse_prediction(section("{window: 1m}"), "s.yaml", 10s, 15s);
            }).find("prediction.window"),
            std::string::npos);
  EXPECT_NE(test::message_of([] {
              parse_prediction(section("{evaluate: [holt, lstm]}"), "s.yaml", 10s, 15s);
            }).find("prediction.evaluate[1]"),
            std::string::npos);
  EXPECT_NE(test::message_of([] {
              parse_prediction(section("{modle: holt}"), "s.yaml", 10s, 15s);
            }).find("modle"),
            std::string::npos);
}

// One node, two cards. Forecasts made at 0 s for 20 s; the sample at 10 s scores nothing, the
// one at 20 s has memory 60/100 and 0/100, utilisation 0.8 and 0, competition index 0.25 and
// await 8 ms.
//   last: memory |0.5-0.6| = 0.1, |0-0| = 0 -> MAE 0.05, MAPE 0.1/0.6 (card 1's truth is 0)
//         utilisation 0.2, 0 -> MAE 0.1, MAPE 0.2/0.8 = 0.25; NVLink exact -> MAE 0, MAPE 0;
//         await |10-8| = 2 -> MAE 2, MAPE 0.25
//   holt: memory 0.1, 0.1 -> MAE 0.1, MAPE 0.1/0.6
TEST(LoadForecast, AccuracyIsScoredAtTheTargetSample) {
  NodeMetrics last;
  last.gpu_memory_utilization = {0.5, 0.0};
  last.gpu_utilization = {1.0, 0.0};
  last.nvlink_competition_index = 0.25;
  last.storage_await_ms["nvme"] = 10.0;
  NodeMetrics holt = last;
  holt.gpu_memory_utilization = {0.7, 0.1};
  LoadForecastBatch b;
  b.made_at = TimePoint(0s);
  b.target = TimePoint(20s);
  b.predictors = {"last", "holt"};
  b.nodes = {{last}, {holt}};
  metrics::PredictionAccuracyCollector c;
  c.on_forecast(b);
  ClusterSample s;
  NodeState n;
  n.gpu_memory_used = {60, 0};
  n.gpu_memory_capacity = 100;
  n.gpu_utilization = {0.8, 0.0};
  n.nvlink_competition_index = 0.25;
  n.storage_await_ms = 8.0;
  s.nodes = {n};
  s.at = TimePoint(10s);
  c.on_sample(s);
  metrics::MetricValues early;
  c.finish(TimePoint(10s), early);
  EXPECT_TRUE(early.empty());
  s.at = TimePoint(20s);
  c.on_sample(s);
  metrics::MetricValues v;
  c.finish(TimePoint(20s), v);
  EXPECT_NEAR(v.at("forecast_last_gpu_memory_mae"), 0.05, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_gpu_memory_mape"), 0.1 / 0.6, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_gpu_util_mae"), 0.1, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_gpu_util_mape"), 0.25, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_nvlink_mae"), 0.0, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_nvlink_mape"), 0.0, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_io_await_mae"), 2.0, 1e-12);
  EXPECT_NEAR(v.at("forecast_last_io_await_mape"), 0.25, 1e-12);
  EXPECT_NEAR(v.at("forecast_holt_gpu_memory_mae"), 0.1, 1e-12);
  EXPECT_NEAR(v.at("forecast_holt_gpu_memory_mape"), 0.1 / 0.6, 1e-12);
}

// four_cards_eight_jobs with a prediction section: 4 one-GPU jobs of 100 s bind at 0-30 ms and
// run to about 100 s on their own cards (nothing shares a card, nothing is OOM-killed). Their
// memory follows their timelines, which the job-aware predictor knows: every job-aware forecast
// of card memory made once all four are bound, whose target comes before the first completion,
// equals the true value.
TEST(LoadForecast, JobAwareForecastIsExactWhileTheBoundJobsRun) {
  Scenario s = load_scenario("tests/sim/data/four_cards_eight_jobs.yaml", [](ConfigNode& root) {
    root.set("prediction", section("{model: job-aware, horizon: 30s, window: 2m}"));
  });
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  std::vector<LoadForecastBatch> batches;
  std::map<TimePoint, ClusterSample> samples;
  TimePoint first_done = TimePoint::max();
  signals.forecast.connect([&](const LoadForecastBatch& b) { batches.push_back(b); });
  signals.sample.connect([&](const ClusterSample& c) { samples[c.at] = c; });
  signals.job.connect([&](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded) {
      first_done = std::min(first_done, e.at);
    }
  });
  run_policy(s, w, make_policy("default-k8s", "default-k8s"), 1, signals);
  ASSERT_GT(first_done, TimePoint(90s));
  int compared = 0;
  int nonzero = 0;
  for (const auto& b : batches) {
    EXPECT_EQ(b.target - b.made_at, 30s);
    // At 0 s only the first pod is bound (the others bind at 10, 20, 30 ms).
    if (b.made_at < TimePoint(1s) || b.target >= first_done) {
      continue;
    }
    const ClusterSample& truth = samples.at(b.target);
    const auto k = static_cast<std::size_t>(
        std::find(b.predictors.begin(), b.predictors.end(), "job-aware") - b.predictors.begin());
    ASSERT_LT(k, b.predictors.size());
    ASSERT_TRUE(b.nodes[k][0]);
    const auto& predicted = b.nodes[k][0]->gpu_memory_utilization;
    const NodeState& t = truth.nodes[0];
    ASSERT_EQ(predicted.size(), t.gpu_memory_used.size());
    for (std::size_t c = 0; c < predicted.size(); ++c) {
      const double actual =
          static_cast<double>(t.gpu_memory_used[c]) / static_cast<double>(t.gpu_memory_capacity);
      EXPECT_NEAR(predicted[c], actual, 1e-12)
          << "card " << c << " at " << to_seconds(b.target - TimePoint{});
      ++compared;
      nonzero += actual > 0.0;
    }
  }
  // Forecasts made at 10, 20, .., 70 s for 40 .. 100 s (the first completion is just after
  // 100 s: 100 s of work from a start at 0 s): 7 x 4 cards, all busy.
  EXPECT_EQ(compared, 28);
  EXPECT_EQ(nonzero, 28);
}

}  // namespace
}  // namespace tidesim
