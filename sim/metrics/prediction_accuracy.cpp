#include "tidesim/sim/metrics/prediction_accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "tidesim/sim/metrics/metric_names.hpp"

namespace tidesim::metrics {

// PerPredictor::errors follows the quantities' metric names (metric_names.hpp).
static_assert(static_cast<std::size_t>(PredictionAccuracyCollector::kQuantities) ==
              kForecastQuantities.size());

void PredictionAccuracyCollector::Error::add(double predicted, double actual) {
  const double e = std::abs(predicted - actual);
  abs_sum += e;
  ++n;
  if (actual != 0.0) {
    rel_sum += e / std::abs(actual);
    ++n_rel;
  }
}

PredictionAccuracyCollector::PerPredictor& PredictionAccuracyCollector::predictor(
    const std::string& name) {
  for (auto& p : predictors_) {
    if (p.name == name) {
      return p;
    }
  }
  predictors_.push_back(PerPredictor{name, {}});
  return predictors_.back();
}

void PredictionAccuracyCollector::on_forecast(const LoadForecastBatch& batch) {
  if (!pending_.empty() && batch.target < pending_.back().target) {
    throw std::logic_error("forecasts must come in non-decreasing target order");
  }
  pending_.push_back(batch);
}

void PredictionAccuracyCollector::on_sample(const ClusterSample& sample) {
  while (!pending_.empty() && pending_.front().target <= sample.at) {
    const LoadForecastBatch& b = pending_.front();
    if (b.target == sample.at) {
      for (std::size_t k = 0; k < b.predictors.size(); ++k) {
        PerPredictor& p = predictor(b.predictors[k]);
        const auto& row = b.nodes[k];
        for (std::size_t n = 0; n < row.size() && n < sample.nodes.size(); ++n) {
          if (!row[n]) {
            continue;
          }
          const NodeMetrics& f = *row[n];
          const NodeState& t = sample.nodes[n];
          for (std::size_t c = 0; c < t.gpu_memory_used.size(); ++c) {
            if (c < f.gpu_memory_utilization.size() && t.gpu_memory_capacity > 0) {
              p.errors[0].add(f.gpu_memory_utilization[c],
                              static_cast<double>(t.gpu_memory_used[c]) /
                                  static_cast<double>(t.gpu_memory_capacity));
            }
          }
          for (std::size_t c = 0; c < t.gpu_utilization.size(); ++c) {
            if (c < f.gpu_utilization.size()) {
              p.errors[1].add(f.gpu_utilization[c], t.gpu_utilization[c]);
            }
          }
          p.errors[2].add(f.nvlink_competition_index, t.nvlink_competition_index);
          double await = 0.0;
          for (const auto& [device, ms] : f.storage_await_ms) {
            await = std::max(await, ms);
          }
          p.errors[3].add(await, t.storage_await_ms);
        }
      }
    }
    pending_.pop_front();
  }
}

void PredictionAccuracyCollector::finish(TimePoint /*end*/, MetricValues& out) const {
  for (const auto& p : predictors_) {
    for (int q = 0; q < kQuantities; ++q) {
      const Error& e = p.errors[q];
      const std::string_view quantity = kForecastQuantities[static_cast<std::size_t>(q)];
      if (e.n > 0) {
        out[forecast_metric(p.name, quantity, ForecastScore::kMae)] =
            e.abs_sum / static_cast<double>(e.n);
      }
      if (e.n_rel > 0) {
        out[forecast_metric(p.name, quantity, ForecastScore::kMape)] =
            e.rel_sum / static_cast<double>(e.n_rel);
      }
    }
  }
}

}  // namespace tidesim::metrics
