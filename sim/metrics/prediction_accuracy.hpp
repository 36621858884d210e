#pragma once
/// Accuracy of the load predictors (the scenario's `prediction:` section): each forecast a run
/// emits for a later sample instant is compared, when that instant's true sample arrives, with
/// the true state. Per predictor and quantity (per card: GPU memory utilisation and GPU
/// utilisation; per node: the NVLink competition index and the storage await in ms):
///   MAE  = mean |predicted - true| over every (forecast, card or node) pair,
///   MAPE = mean |predicted - true| / |true| over the pairs whose true value is not 0.
/// Metrics forecast_<predictor>_<quantity>_mae and _mape (docs/metrics.md, docs/prediction.md).
#include <deque>
#include <string>
#include <vector>

#include "tidesim/sim/metrics/collector.hpp"

namespace tidesim::metrics {

class PredictionAccuracyCollector : public Collector {
 public:
  /// Forecasts for a later instant (kept until that instant's sample).
  void on_forecast(const LoadForecastBatch& batch);
  /// Scores the forecasts whose target is this sample's instant; drops older ones.
  void on_sample(const ClusterSample& sample) override;
  void finish(TimePoint end, MetricValues& out) const override;

  /// The quantities, in metric-name form: gpu_memory, gpu_util, nvlink, io_await.
  static constexpr int kQuantities = 4;

 private:
  struct Error {
    double abs_sum = 0.0;
    long long n = 0;
    double rel_sum = 0.0;
    long long n_rel = 0;
    void add(double predicted, double actual);
  };
  struct PerPredictor {
    std::string name;
    Error errors[kQuantities];
  };
  PerPredictor& predictor(const std::string& name);

  std::deque<LoadForecastBatch> pending_;
  std::vector<PerPredictor> predictors_;
};

}  // namespace tidesim::metrics
