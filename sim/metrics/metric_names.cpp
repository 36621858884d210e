#include "tidesim/sim/metrics/metric_names.hpp"

#include <algorithm>

namespace tidesim::metrics {

std::string interruptions_metric(std::string_view cause) {
  return "interruptions_" + std::string(cause);
}

std::string jobs_interrupted_metric(std::string_view cause) {
  return "jobs_interrupted_" + std::string(cause);
}

std::string forecast_stem(std::string_view predictor) {
  std::string stem(predictor);
  std::replace(stem.begin(), stem.end(), '-', '_');
  return stem;
}

std::string forecast_metric(std::string_view predictor, std::string_view quantity,
                            ForecastScore score) {
  return "forecast_" + forecast_stem(predictor) + "_" + std::string(quantity) +
         (score == ForecastScore::kMae ? "_mae" : "_mape");
}

std::string per_queue_metric(std::string_view metric, std::string_view queue) {
  return std::string(metric) + "/" + std::string(queue);
}

std::string_view per_queue_base(std::string_view name) {
  return name.substr(0, name.find('/'));
}

}  // namespace tidesim::metrics
