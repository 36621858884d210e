#pragma once
/// The scenario's `faults.gang` section: failure processes by component for synchronous gangs
/// (the components of Llama 3's table of unexpected interruptions), planned maintenance apart,
/// and how a gang recovers: detection, rescheduling or node replacement, loading, checkpoints
/// (fixed or Young/Daly interval, blocking or asynchronous) and hot spares. Off unless the
/// section is there. Rates, defaults and how they were derived: docs/failures.md ("Gangs").
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/config_node.hpp"

namespace tidesim {

/// One component's failure process: exponential times between failures per device.
struct FailureComponent {
  /// The component in snake_case ("faulty_gpu", "gpu_hbm3_memory", ...).
  std::string name;
  /// The device the rate is per: a GPU, a node (a node's links and its share of the switches
  /// count as the node's), or a leaf switch of the fabric (its failure takes down the rails of
  /// every node under it; without a fabric each node is its own leaf).
  enum class Per { kGpu, kNode, kLeaf };
  Per per = Per::kGpu;
  /// Failures per device-hour.
  double rate_per_hour = 0.0;
  /// How long the failed node stays out of service; zero: no node is lost (a software failure,
  /// the gang restarts in place).
  Duration repair{};
};

/// What a gang does when a member's node fails.
enum class OnFailure {
  kRestartGang,       // every pod deleted and the whole gang scheduled afresh
  kReplaceNode,       // the failed node replaced by a free node of its rack; for a gang Kueue's
                      // TAS admitted, Kueue's TASFailedNodeReplacement in its domain (else
                      // evicted); the whole gang when its rack has none
  kSpare,             // the failed node replaced by a hot spare; the whole gang when none is free
  kRestartPartition,  // Volcano's RestartPartition: the pods of the failed pods' partitions
                      // deleted and scheduled afresh, the other partitions keep their nodes
};

struct CheckpointPolicy {
  /// The interval of compute between checkpoints; Young/Daly: sqrt(2 C MTTI).
  bool young_daly = true;
  Duration interval{};
  /// Bytes of one checkpoint; nullopt: an LLM job's weights and optimizer states (14 bytes per
  /// parameter), else an error.
  std::optional<double> size_bytes;
  /// Storage write (and read) bandwidth, bytes/s.
  double bandwidth = 0.0;
  /// Asynchronous: training stalls only while each GPU copies its shard to host memory
  /// (size / GPUs / snapshot_bandwidth); the write to storage runs behind it and the checkpoint
  /// counts once written. Blocking: training stalls for the whole write (size / bandwidth).
  bool async = false;
  double snapshot_bandwidth = 0.0;
};

/// A failure injected at a fixed time (`faults.gang.injected`): of `component` (an index into
/// the components; -1: planned maintenance) on node `node` (an index into the cluster's nodes),
/// `at` from the run's start. It interrupts every gang with a pod on that node.
struct InjectedGangFailure {
  TimePoint at{};
  int component = -1;
  int node = 0;
};

struct GangFailuresConfig {
  bool enabled = false;
  std::vector<FailureComponent> components;
  /// False: no random failures, only the injected ones (`random: false`).
  bool random = true;
  std::vector<InjectedGangFailure> injected;
  /// Planned maintenance (not an unexpected interruption): per node-hour, and its downtime.
  double planned_rate_per_node_hour = 0.0;
  Duration planned_downtime{};
  Duration detection{};
  Duration rescheduling{};  // the whole gang's
  Duration replacement{};   // one node's (replace_node)
  Duration loading{};       // restart's fixed part; the checkpoint's read (size / bandwidth) adds
  OnFailure on_failure = OnFailure::kSpare;
  int spares = 0;
  /// restart_partition: pods per partition (Volcano's partitionPolicy.partitionSize); pod k of a
  /// job is in partition k / partition_size.
  int partition_size = 0;
  CheckpointPolicy checkpoint;
};

/// The default components: Llama 3's counts over its device-hours (docs/failures.md).
std::vector<FailureComponent> default_failure_components();

/// Reads `faults.gang` (undefined: off). Throws InputError naming the field.
/// `node_names`: the cluster's nodes, which an injected failure names.
GangFailuresConfig parse_gang_failures(const ConfigNode& node, const std::string& file,
                                       const std::vector<std::string>& node_names);

const char* to_string(OnFailure policy);

}  // namespace tidesim
