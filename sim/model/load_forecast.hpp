#pragma once
/// Predicted node load: what a node's agent will report at a future instant, from the history
/// Prometheus scraped (the statistical predictors of sim/prediction) or from the memory
/// timelines of the pods bound to the node (the job-aware predictor). Formulas:
/// docs/prediction.md.
#include <optional>
#include <vector>

#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/model/run_context.hpp"
#include "tidesim/sim/model/telemetry_pipeline.hpp"
#include "tidesim/sim/scenario/prediction_config.hpp"

namespace tidesim {

/// Scrapes between the last scrape and `target`, rounded to the nearest, at least 1: the
/// number of series steps a predictor looks ahead.
int steps_ahead(TimePoint last_scrape, TimePoint target, Duration scrape_interval);

/// Per card of node `n`: the GPU memory (fraction of the card, at most 1) that the processes on
/// it will hold at `target` by their jobs' memory timelines (workloads/memory.hpp). A running
/// job's timeline started at Job::started; a bound job not yet running is taken to start at
/// `now` + run.pod_startup. Each unit of a pod on a card holds the job's per-worker memory.
std::vector<double> job_aware_memory(const RunContext& run, int n, TimePoint now, TimePoint target);

class LoadForecaster {
 public:
  /// Reads `telemetry`'s history (keep_history() must have been called) and `run`'s pods; both
  /// must outlive the forecaster.
  LoadForecaster(const RunContext& run, const PredictionConfig& config,
                 const TelemetryPipeline& telemetry);

  /// Node `n`'s metrics predicted by `model` for `target`, from what was scraped by `now`.
  /// Statistical models forecast each series (per card: GPU memory and GPU utilisation; per
  /// node: the NVLink competition index and each device's await) steps_ahead() scrapes past the
  /// last one, clamped to their ranges; the job-aware model takes the memory of
  /// job_aware_memory() and the last scraped value of the rest. nullopt when nothing was
  /// scraped from the node yet.
  std::optional<NodeMetrics> predict(int n, ForecastModel model, TimePoint now,
                                     TimePoint target) const;

 private:
  const RunContext& run_;
  const PredictionConfig& config_;
  const TelemetryPipeline& telemetry_;
};

}  // namespace tidesim
