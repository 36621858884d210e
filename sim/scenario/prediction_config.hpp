#pragma once
/// The scenario's `prediction:` section: which load predictor the predictive load-aware plugins
/// read (`predictLoad: true`), its horizon and window, its parameters, and which predictors a run
/// scores against the true state (MAE/MAPE in the results). Off when the section is absent.
/// Formulas and defaults: docs/prediction.md.
#include <string>
#include <string_view>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/prediction/predictors.hpp"

namespace tidesim {

/// A predictor of node load: the statistical ones of sim/prediction, or the job-aware one
/// (sim/model/load_forecast.hpp).
enum class ForecastModel { kLast, kEwma, kHolt, kAr, kJobAware };

/// "last", "ewma", "holt", "ar", "job-aware".
std::string_view to_string(ForecastModel model);

struct PredictionConfig {
  /// The section is present.
  bool enabled = false;
  /// What `predictLoad` plugins read.
  ForecastModel model = ForecastModel::kHolt;
  /// How far ahead of a scheduling decision the load is predicted (assumption: 60 s, one
  /// typical image pull and start; docs/prediction.md). A multiple of run.sample_interval.
  Duration horizon = std::chrono::seconds(60);
  /// How much scraped history a predictor sees (assumption: 10 min, 40 scrapes at 15 s).
  Duration window = std::chrono::minutes(10);
  /// alpha, beta, order (assumptions: 0.5, 0.3, 2).
  prediction::PredictorParams params;
  /// The predictors scored against the true state (default: all five).
  std::vector<ForecastModel> evaluate{ForecastModel::kLast, ForecastModel::kEwma,
                                      ForecastModel::kHolt, ForecastModel::kAr,
                                      ForecastModel::kJobAware};
};

/// Reads the section (`node` may be undefined: prediction off). `sample_interval` is
/// run.sample_interval (the horizon must be a multiple of it, so each forecast meets a true
/// sample) and `scrape_interval` telemetry's (the window must hold 2 x order + 1 scrapes). Throws
/// InputError naming the field.
PredictionConfig parse_prediction(const ConfigNode& node, const std::string& file,
                                  Duration sample_interval, Duration scrape_interval);

}  // namespace tidesim
