#pragma once
/// OpenMetrics text of a result's time series, with the seed's metric names
/// (ai_gpu_memory_utilization{gpu_id,node}, ai_nvlink_competition_index{node},
/// ai_storage_await_ms{device,node}) and tidesim_* series, for
/// `promtool tsdb create-blocks-from openmetrics` and Grafana. Format in docs/outputs.md.
#include <cstdint>
#include <ostream>

#include "tools/lib/result.hpp"

namespace tidesim::app {

/// Parameters of write_openmetrics.
struct OpenMetricsOptions {
  /// Unix time (s) of simulated time zero: 2024-01-01T00:00:00Z by default, so that every run
  /// starts at the same instant and policies and seeds overlay in Grafana.
  std::int64_t epoch_unix_s = 1704067200;
  /// Emit the storage await as ai_storage_await_seconds (base unit) instead of the seed's
  /// ai_storage_await_ms, which `promtool check metrics` flags for its abbreviated unit.
  bool base_units = false;
};

/// Writes every run of `result` that recorded series, each series labelled with policy and seed,
/// one sample per sample instant, timestamped in whole seconds (epoch + floor(t); a later sample
/// in the same second is dropped), ending with "# EOF". Families are contiguous and samples of a
/// series are in time order, as OpenMetrics requires.
void write_openmetrics(std::ostream& out, const RunResult& result,
                       const OpenMetricsOptions& options = {});

}  // namespace tidesim::app
