#pragma once
/// OpenMetrics text of a result's time series in Prometheus' naming conventions (base units,
/// `_bytes`, `_seconds`, `_ratio` for 0..1 shares, counters ending in `_total`; a HELP line for
/// every family and a UNIT line for those with a unit), so that `promtool check metrics` finds
/// nothing, for `promtool tsdb create-blocks-from openmetrics` and Grafana. The seed's agent
/// metrics keep their `ai_` prefix (ai_gpu_memory_utilization_ratio, ai_storage_await_seconds,
/// ai_nvlink_competition_index), or their exact names on request. Format in docs/outputs.md.
#include <cstdint>
#include <ostream>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// Parameters of write_openmetrics.
struct OpenMetricsOptions {
  /// Unix time (s) of simulated time zero: 2024-01-01T00:00:00Z by default, so that every run
  /// starts at the same instant and policies and seeds overlay in Grafana.
  std::int64_t epoch_unix_s = 1704067200;
  /// The seed's exact names for its agent metrics (ai_gpu_memory_utilization,
  /// ai_storage_await_ms in milliseconds) instead of the conventional ones; `promtool check
  /// metrics` then flags ai_storage_await_ms for its abbreviated unit.
  bool seed_names = false;
};

/// Writes every run of `result` that recorded series, each series labelled with policy and seed,
/// one sample per recorded instant (node families: per change point), timestamped in whole seconds
/// (epoch + floor(t); a later sample in the same second is dropped), ending with "# EOF". Families
/// are contiguous and samples of a series are in time order, as OpenMetrics requires. Throws
/// InputError when the result was written without its events, which the counters count
/// (tools/lib/result_records.hpp).
void write_openmetrics(std::ostream& out, const RunResult& result,
                       const OpenMetricsOptions& options = {});

}  // namespace tidesim::app
