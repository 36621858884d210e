#pragma once
/// The descheduler: every `descheduler.interval` it runs the scenario's strategies in order and
/// migrates the jobs they pick: each is evicted through JobController::interrupt (cause
/// kMigration), loses its progress since its last checkpoint, is scheduled afresh, and its new
/// pods load the checkpoint for `restore_time` before work resumes.
///
/// The strategies (docs/descheduling.md, with the formulas):
///  - LowNodeUtilization (kubernetes-sigs/descheduler): on requested resources, moves pods off
///    nodes over a target threshold while underutilized nodes have room under theirs;
///  - HighNodeUtilization (the same project): moves pods off underutilized nodes so that the
///    others pack them;
///  - LowNodeLoad (Koordinator): LowNodeUtilization on measured load, from the telemetry the
///    scheduler reads;
///  - LSCS (the seed): when the cross-node std-dev of measured GPU-memory utilisation, averaged
///    over a trailing window, stays over its limit, moves pods from the hottest node, each the
///    one whose move to the coolest node most lowers the std-dev.
/// The planners are free functions over plain numbers, so tests check them by hand.
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/api/telemetry.hpp"
#include "tidesim/sim/model/job_controller.hpp"
#include "tidesim/sim/model/run_context.hpp"
#include "tidesim/sim/scenario/descheduler_config.hpp"

namespace tidesim {

/// One node as a strategy sees it: capacity and usage by resource, in the resource's units.
struct NodeUsage {
  std::map<std::string, double> capacity;
  std::map<std::string, double> usage;
  /// Measured strategies: the node's metrics were answered (a node without them is left out).
  bool known = true;
  /// Not cordoned: may receive pods (only such nodes count as underutilized destinations).
  bool schedulable = true;
};

/// A job that may be evicted from one node: its pods there and their usage there.
struct EvictionCandidate {
  int job = 0;
  int node = 0;
  int pods = 1;
  std::int32_t priority = 0;
  std::map<std::string, double> usage;
  /// Bind order on its node (ties).
  int order = 0;
};

/// The per-node and per-cycle eviction limits of one cycle, and what it has used of them.
class EvictionBudget {
 public:
  EvictionBudget(int per_node, int per_cycle) : per_node_(per_node), per_cycle_(per_cycle) {}
  /// `pods` more pods may leave node `node` this cycle.
  bool allows(int node, int pods) const;
  void take(int node, int pods);
  bool exhausted() const { return per_cycle_ > 0 && total_ >= per_cycle_; }
  int total() const { return total_; }

 private:
  int per_node_;
  int per_cycle_;
  int total_ = 0;
  std::map<int, int> by_node_;
};

/// Share of `n`'s capacity in use of resource `r` (0 for a node without that resource).
double usage_share(const NodeUsage& n, const std::string& r);

/// LowNodeUtilization / LowNodeLoad: the jobs to evict, in order. A node is underutilized when
/// it is schedulable, known, and at or under `low` on every resource; overutilized when over
/// `high` on any (and `overutilized(n)`, the abnormality count, agrees). Nothing when no node
/// is underutilized, at most `number_of_nodes` are, or all are. Overutilized nodes are taken in
/// decreasing order of the sum of their shares; from each, candidates (priority ascending, then
/// `by_usage`: usage share descending, else bind order) are evicted while the node is still over
/// `high` on some resource and the underutilized nodes have room under `high` on every resource
/// (sum of high x capacity - usage), each eviction taking its usage off both.
std::vector<int> plan_low_node(const std::vector<NodeUsage>& nodes,
                               const std::vector<EvictionCandidate>& candidates,
                               const Thresholds& low, const Thresholds& high, int number_of_nodes,
                               bool by_usage, EvictionBudget& budget,
                               const std::vector<bool>& overutilized = {});

/// HighNodeUtilization: nodes at or under `low` on every resource are drained (taken in
/// increasing order of their summed shares, candidates priority ascending then bind order)
/// while the other schedulable nodes have room (capacity - usage > 0 on every resource, each
/// eviction taking its usage). Nothing when no node is underutilized, at most `number_of_nodes`
/// are, or all are.
std::vector<int> plan_high_node(const std::vector<NodeUsage>& nodes,
                                const std::vector<EvictionCandidate>& candidates,
                                const Thresholds& low, int number_of_nodes, EvictionBudget& budget);

/// Population std-dev across the known nodes of their `gpu_memory` share; nullopt with none.
std::optional<double> gpu_memory_stddev(const std::vector<NodeUsage>& nodes);

/// LSCS relief: while the std-dev of the known nodes' gpu_memory share is over `limit`, takes
/// the hottest known node h and the coolest known schedulable node l and evicts from h the
/// candidate whose usage, moved to l, leaves the lowest std-dev (ties: priority ascending, then
/// bind order), if that is lower than now; stops when none is.
std::vector<int> plan_lscs(std::vector<NodeUsage> nodes,
                           const std::vector<EvictionCandidate>& candidates, double limit,
                           EvictionBudget& budget);

class Descheduler {
 public:
  /// `metrics`: the telemetry the scheduler reads (needed by LowNodeLoad and LSCS; may be null
  /// otherwise).
  Descheduler(RunContext& run, JobController& controller, const DeschedulerConfig& config,
              const MetricsSource* metrics);

  /// Schedules the first cycle, one interval from now.
  void start();

 private:
  void cycle();
  std::vector<NodeUsage> requested() const;
  // The nodes' measured load (node sums over cards, capacity the card count) and, per node,
  // per card, the measured gpu_memory and gpu_utilization shares.
  std::vector<NodeUsage> measured(std::vector<std::vector<std::pair<double, double>>>& cards);
  std::vector<EvictionCandidate> requested_candidates() const;
  std::vector<EvictionCandidate> measured_candidates(
      const std::vector<std::vector<std::pair<double, double>>>& cards) const;
  void migrate(const std::vector<int>& jobs);

  RunContext& run_;
  JobController& controller_;
  const DeschedulerConfig& config_;
  const MetricsSource* metrics_;
  std::vector<int> abnormal_;  // LowNodeLoad: cycles in a row over a high threshold, per node
  std::deque<std::pair<TimePoint, double>> lscs_window_;
  std::optional<TimePoint> lscs_above_since_;
};

}  // namespace tidesim
