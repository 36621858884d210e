#include "tidesim/sim/model/load_forecast.hpp"

#include <algorithm>

#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/memory.hpp"

namespace tidesim {

int steps_ahead(TimePoint last_scrape, TimePoint target, Duration scrape_interval) {
  const Duration ahead = target - last_scrape;
  const auto steps = (ahead + scrape_interval / 2) / scrape_interval;
  return static_cast<int>(std::clamp<std::int64_t>(steps, 1, 1'000'000));
}

std::vector<double> job_aware_memory(const RunContext& run, int n, TimePoint now,
                                     TimePoint target) {
  const ClusterNode& node = run.cluster.node(n);
  const int cards = node.gpus ? node.gpus->card_count() : 0;
  std::vector<double> out(static_cast<std::size_t>(cards), 0.0);
  if (cards == 0 || node.card_memory <= 0) {
    return out;
  }
  for (int c = 0; c < cards; ++c) {
    double bytes = 0.0;
    for (const std::uint64_t process : node.gpus->occupants(c)) {
      const auto it = run.pod_by_process.find(process);
      if (it == run.pod_by_process.end()) {
        continue;
      }
      const Pod& pod = run.pods[static_cast<std::size_t>(it->second)];
      const Job& job = run.jobs[static_cast<std::size_t>(pod.job)];
      const auto units = std::count(pod.cards.begin(), pod.cards.end(), c);
      TimePoint start = job.started;
      std::optional<workloads::ModelProfile> profile;
      if (job.profile) {
        profile = *job.profile;
      }
      if (job.phase != JobPhase::kRunning) {
        start = now + run.scenario.run.pod_startup;
        if (!profile) {
          profile = workloads::job_profile(*job.spec, run.catalogue, node.group->gpu_model);
        }
      }
      if (target < start) {
        continue;
      }
      bytes += static_cast<double>(workloads::memory_at(*profile, target - start)) *
               static_cast<double>(units);
    }
    out[static_cast<std::size_t>(c)] = std::min(1.0, bytes / static_cast<double>(node.card_memory));
  }
  return out;
}

LoadForecaster::LoadForecaster(const RunContext& run, const PredictionConfig& config,
                               const TelemetryPipeline& telemetry)
    : run_(run), config_(config), telemetry_(telemetry) {}

namespace {

prediction::PredictorKind kind_of(ForecastModel m) {
  switch (m) {
    case ForecastModel::kEwma:
      return prediction::PredictorKind::kEwma;
    case ForecastModel::kHolt:
      return prediction::PredictorKind::kHolt;
    case ForecastModel::kAr:
      return prediction::PredictorKind::kAr;
    case ForecastModel::kLast:
    case ForecastModel::kJobAware:
      break;
  }
  return prediction::PredictorKind::kLast;
}

}  // namespace

std::optional<NodeMetrics> LoadForecaster::predict(int n, ForecastModel model, TimePoint now,
                                                   TimePoint target) const {
  const auto& history = telemetry_.history(n);
  if (history.empty() || !telemetry_.last_scrape()) {
    return std::nullopt;
  }
  const NodeMetrics& last = history.back();
  NodeMetrics out = last;
  if (model == ForecastModel::kJobAware) {
    out.gpu_memory_utilization = job_aware_memory(run_, n, now, target);
    return out;
  }
  const auto kind = kind_of(model);
  const int h = steps_ahead(*telemetry_.last_scrape(), target, telemetry_.config().scrape_interval);
  std::vector<double> series;
  series.reserve(history.size());
  const auto run_one = [&](auto value, double lo, double hi) {
    series.clear();
    for (const auto& m : history) {
      series.push_back(value(m));
    }
    return std::clamp(prediction::forecast(kind, config_.params, series, h), lo, hi);
  };
  constexpr double kNoLimit = 1e300;
  for (std::size_t c = 0; c < out.gpu_memory_utilization.size(); ++c) {
    out.gpu_memory_utilization[c] = run_one(
        [c](const NodeMetrics& m) {
          return c < m.gpu_memory_utilization.size() ? m.gpu_memory_utilization[c] : 0.0;
        },
        0.0, 1.0);
  }
  for (std::size_t c = 0; c < out.gpu_utilization.size(); ++c) {
    out.gpu_utilization[c] = run_one(
        [c](const NodeMetrics& m) {
          return c < m.gpu_utilization.size() ? m.gpu_utilization[c] : 0.0;
        },
        0.0, 1.0);
  }
  out.nvlink_competition_index =
      run_one([](const NodeMetrics& m) { return m.nvlink_competition_index; }, 0.0, kNoLimit);
  for (auto& [device, await_ms] : out.storage_await_ms) {
    await_ms = run_one(
        [&device](const NodeMetrics& m) {
          const auto it = m.storage_await_ms.find(device);
          return it == m.storage_await_ms.end() ? 0.0 : it->second;
        },
        0.0, kNoLimit);
  }
  return out;
}

}  // namespace tidesim
