#pragma once
/// A synchronous gang's life under failures by component (the scenario's `faults.gang`,
/// sim/scenario/gang_failures.hpp; docs/failures.md, "Gangs"). Any member's failure stops the
/// attempt; the gang resumes from its last committed checkpoint after detection, recovery
/// (a hot spare, a node of the failed node's rack, or the whole gang rescheduled, waiting for
/// repairs when too few nodes are healthy) and loading. Failures arrive as one superposed process
/// per gang: while it runs, the time to its next interruption is exponential with the sum of its
/// devices' rates, and the cause is drawn in proportion to each component's share: exact for
/// independent exponential processes per device (memoryless), and one draw per interruption.
/// Devices fail only while the gang runs on them (assumption: a failure during the gang's
/// downtime interrupts nothing).
#include <functional>
#include <optional>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/scenario/gang_failures.hpp"

namespace tidesim {

/// What the gang runs on.
struct GangShape {
  int gpus = 0;
  /// Its nodes, and the nodes of the cluster it may be rescheduled onto (>= nodes).
  int nodes = 0;
  int cluster_nodes = 0;
  /// Per gang node: its rack (the fabric's first tier); empty: all in rack 0.
  std::vector<int> rack_of;
  /// Per gang node: its leaf switch (the fabric's first tier, whose failure takes down the rails
  /// of every node under it); empty: each node its own leaf.
  std::vector<int> leaf_of;
  /// Per rack: nodes idle at the start, which replace_node may use.
  std::vector<int> free_in_rack;
  /// Hot spare nodes kept ready for this gang.
  int spares = 0;
  /// Bytes of one checkpoint.
  double checkpoint_bytes = 0.0;
};

/// One checkpoint cycle: `interval` seconds of compute, then `stall` seconds in which training
/// stops (the whole write when blocking, the copy to host memory when asynchronous); the
/// checkpoint counts `persist` seconds after the stall ends (the asynchronous write; 0 blocking).
struct CheckpointTimes {
  double interval = 0.0;
  double stall = 0.0;
  double persist = 0.0;
};

/// The distinct leaves of the gang's nodes, in node order.
std::vector<int> gang_leaves(const GangShape& shape);
/// The gang nodes a failure of `c` on device `index` of its kind loses: that node, or for a
/// leaf component every gang node under the gang's `index`-th leaf.
std::vector<int> lost_nodes(const FailureComponent& c, const GangShape& shape, int index);

/// The unexpected interruptions per second of the gang: sum over components of rate x devices.
double gang_failure_rate(const GangFailuresConfig& config, const GangShape& shape);
/// The cycle for `shape` under `config`; Young/Daly: interval = sqrt(2 stall MTTI) with MTTI
/// = 1 / gang_failure_rate.
CheckpointTimes checkpoint_times(const GangFailuresConfig& config, const GangShape& shape);

/// How a gang recovers from the loss of a node.
enum class Recovery {
  kInPlace,      // nothing lost but the processes (a software failure, planned maintenance)
  kSpare,        // a hot spare takes the failed node's place
  kReplaceNode,  // a free node of the failed node's rack takes its place
  kGang,         // the whole gang is scheduled afresh
  kPartition,    // the failed pods' partitions are scheduled afresh (Volcano's RestartPartition)
};
/// The fixed part of a recovery, beyond waiting for nodes: 0 in place or on a spare,
/// config.replacement for a node of the rack, config.rescheduling for the whole gang or a
/// partition (every rank of a synchronous gang joins the restarted ones: docs/failures.md).
double recovery_overhead(const GangFailuresConfig& config, Recovery how);
/// A restart's loading: config.loading plus the checkpoint's read (bytes / bandwidth).
double loading_seconds(const GangFailuresConfig& config, double checkpoint_bytes);

/// An attempt that ran `seconds`: its compute, its stalls, and the compute its last committed
/// checkpoint holds (cycle k's checkpoint, taken at k (interval + stall), counts once
/// k (interval + stall) + persist <= seconds).
struct AttemptTimes {
  double compute = 0.0;
  double stall = 0.0;
  double kept = 0.0;
};
AttemptTimes attempt_times(double seconds, const CheckpointTimes& cp);

/// The next interruption of a running gang: after `wait` seconds of running, of `component`
/// (an index into config.components; -1: planned maintenance) on gang node `node` (a leaf
/// component: on the gang's `node`-th leaf, lost_nodes).
struct GangDraw {
  double wait = 0.0;
  int component = -1;
  int node = 0;
};
/// Called at each (re)start; nullopt: none before the window ends.
using GangDrawSource = std::function<std::optional<GangDraw>()>;
/// The superposed exponential process of `shape` under `config`, drawn from `rng`.
GangDrawSource random_gang_draws(const GangFailuresConfig& config, const GangShape& shape,
                                 RandomStream& rng);

struct GangInterruption {
  double at = 0.0;     // seconds from the gang's start
  int component = -1;  // -1: planned
  double lost_work = 0.0;
  double detection = 0.0;
  double restart = 0.0;  // recovery (waiting, rescheduling or replacement) and loading
};

/// The gang's wall time split: productive + lost_work + detection + restart + checkpoint +
/// planned = wall.
struct GangLife {
  double wall = 0.0;
  double productive = 0.0;
  double lost_work = 0.0;
  double detection = 0.0;
  double restart = 0.0;
  double checkpoint = 0.0;
  double planned_downtime = 0.0;
  /// Running (not down) seconds, for the mean time to interruption.
  double running = 0.0;
  int planned = 0;
  /// Unexpected interruptions per component (config.components' order).
  std::vector<int> by_component;
  std::vector<GangInterruption> interruptions;
  CheckpointTimes checkpoint_cycle;
  int unexpected() const;
};

/// The gang's life over `window` seconds from its start.
GangLife simulate_gang_life(const GangFailuresConfig& config, const GangShape& shape, double window,
                            const GangDrawSource& draws);

}  // namespace tidesim
