#pragma once
/// The scenario's `descheduler:` section: how often the descheduler runs, how many pods a cycle
/// may evict (per node and in all), what a migrated job pays to restore its checkpoint, and the
/// strategies in the order they run: the Kubernetes descheduler's LowNodeUtilization and
/// HighNodeUtilization (thresholds on requested resources), Koordinator's LowNodeLoad (thresholds
/// on measured load) and the seed's LSCS trigger. Off when the section is absent. Formulas,
/// defaults and sources: docs/descheduling.md.
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

/// Shares of a node's capacity by resource name: requested "cpu", "memory", "gpu"
/// (nvidia.com/gpu units) or measured "gpu_memory", "gpu_utilization" (node means over cards).
using Thresholds = std::map<std::string, double>;

struct DeschedulerStrategy {
  enum class Kind { kLowNodeUtilization, kHighNodeUtilization, kLowNodeLoad, kLscs };
  Kind kind = Kind::kLowNodeUtilization;
  /// LowNodeUtilization `thresholds` (a node at or under all is underutilized),
  /// HighNodeUtilization `thresholds` (the same: its pods are moved away), LowNodeLoad
  /// `low_thresholds`.
  Thresholds low;
  /// LowNodeUtilization `target_thresholds`, LowNodeLoad `high_thresholds` (a node over any is
  /// overutilized: its pods are moved away). Empty for HighNodeUtilization and LSCS.
  Thresholds high;
  /// `number_of_nodes`: act only when more nodes than this are underutilized (descheduler's
  /// numberOfNodes, default 0).
  int number_of_nodes = 0;
  /// LowNodeLoad `consecutive_abnormalities`: a node counts as overutilized only after this many
  /// cycles in a row over a high threshold (Koordinator's anomalyCondition; default 1: at once,
  /// assumption).
  int consecutive_abnormalities = 1;
  /// LSCS: the seed's limit (15%), its trailing window (5 min) and how long LSCS must stay over
  /// the limit before the descheduler acts (the seed's alert: 10 min).
  double limit = 0.15;
  Duration window = std::chrono::minutes(5);
  Duration sustained = std::chrono::minutes(10);
  SourceLocation where;
};

/// "LowNodeUtilization", "HighNodeUtilization", "LowNodeLoad", "LSCS".
const char* to_string(DeschedulerStrategy::Kind kind);

struct DeschedulerConfig {
  bool enabled = false;
  /// Time between descheduling cycles (the first at one interval). Default 2 min: the
  /// descheduler Helm chart's CronJob schedule "*/2 * * * *".
  Duration interval = std::chrono::minutes(2);
  /// Pods one cycle may evict from one node and in all (the descheduler's
  /// maxNoOfPodsToEvictPerNode and maxNoOfPodsToEvictTotal); 0: no limit (their default).
  int max_pods_per_node = 0;
  int max_pods_per_cycle = 0;
  /// Time a migrated job's new pods spend loading its checkpoint before work resumes, after
  /// run.pod_startup (assumption: 60 s).
  Duration restore_time = std::chrono::seconds(60);
  std::vector<DeschedulerStrategy> strategies;

  /// A strategy reads measured load (telemetry): LowNodeLoad or LSCS.
  bool reads_metrics() const;
};

/// Reads the section (`node` may be undefined: off). Throws InputError naming file, line, column
/// and field.
DeschedulerConfig parse_descheduler(const ConfigNode& node, const std::string& file);

}  // namespace tidesim
