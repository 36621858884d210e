#pragma once
/// How the metrics that come in families are named. The collectors build their names with these
/// functions and the catalogue (catalog.hpp) builds its entries with the same functions over the
/// same factors, so a family member cannot exist in one and not the other.
#include <array>
#include <string>
#include <string_view>

namespace tidesim::metrics {

/// The causes of an interruption, in metric-name form (the evicted event's cause with '-' as
/// '_'), in the catalogue's order.
inline constexpr std::array<std::string_view, 7> kInterruptionCauses{
    "preemption", "node_failure", "card_failure", "drain", "migration", "suspension", "resize"};

/// The components of a gang's unexpected interruptions (`faults.gang`, docs/failures.md "Gangs"):
/// Llama 3's table of root causes (Dubey et al., arXiv 2407.21783, Table 5) in snake_case, in
/// its order. Their metrics are interruptions_metric(component).
inline constexpr std::array<std::string_view, 18> kFailureComponents{"faulty_gpu",
                                                                     "gpu_hbm3_memory",
                                                                     "software_bug",
                                                                     "network_switch_cable",
                                                                     "host_maintenance",
                                                                     "gpu_sram_memory",
                                                                     "gpu_system_processor",
                                                                     "nic",
                                                                     "nccl_watchdog_timeouts",
                                                                     "silent_data_corruption",
                                                                     "gpu_thermal_interface_sensor",
                                                                     "ssd",
                                                                     "power_supply",
                                                                     "server_chassis",
                                                                     "io_expansion_board",
                                                                     "dependency",
                                                                     "cpu",
                                                                     "system_memory"};

/// "interruptions_<cause>": attempts stopped by `cause`.
std::string interruptions_metric(std::string_view cause);

/// "jobs_interrupted_<cause>": jobs stopped by `cause` at least once.
std::string jobs_interrupted_metric(std::string_view cause);

/// The quantities a load forecast is scored on, in metric-name form and the catalogue's order:
/// per card GPU memory utilisation and GPU utilisation, per node the NVLink competition index
/// and the storage await (ms).
inline constexpr std::array<std::string_view, 4> kForecastQuantities{"gpu_memory", "gpu_util",
                                                                     "nvlink", "io_await"};

/// The two scores of a forecast.
enum class ForecastScore { kMae, kMape };

/// A predictor's name in metric-name form: '-' as '_' ("job-aware" -> "job_aware").
std::string forecast_stem(std::string_view predictor);

/// "forecast_<stem>_<quantity>_<mae|mape>", stem = forecast_stem(predictor).
std::string forecast_metric(std::string_view predictor, std::string_view quantity,
                            ForecastScore score);

/// "<metric>/<queue>": `metric` of one ClusterQueue.
std::string per_queue_metric(std::string_view metric, std::string_view queue);

/// The catalogue metric of a per-queue name: the part before the first '/'; `name` itself when
/// it has none.
std::string_view per_queue_base(std::string_view name);

}  // namespace tidesim::metrics
