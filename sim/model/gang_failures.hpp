#pragma once
/// Plays the scenario's `faults.gang` section in a run (docs/failures.md, "Gangs"): each job that
/// starts with GPUs is a synchronous gang whose failures by component stop it in the cluster
/// model. While it runs, its next interruption is drawn from the superposed process of its
/// devices (gang_life's random_gang_draws, its own random stream "faults/gang/<job>", redrawn at
/// each start), and `faults.gang.injected` adds failures at fixed times. At an interruption:
///  - the work since the last committed checkpoint is lost: gang_life's attempt_times over the
///    seconds the gang ran since it (re)started gives the share of its progress the checkpoint
///    holds (Execution::commit_share); between failures, blocking checkpoints slow the gang to
///    interval / (interval + stall) of its speed (Job::compute_share);
///  - a failure that loses no node (a software failure; planned maintenance, which checkpoints
///    first and loses nothing) restarts the containers in place after detection and loading
///    (planned: its downtime and loading);
///  - a node's failure takes the node (a leaf's: every node under the leaf) out of service for
///    the component's repair time (FaultInjector::take_down: cordoned, other jobs on it
///    interrupted) and the gang recovers by `on_failure`: `spare` puts the pods of each lost node
///    on an idle node (a hot spare, at most `spares` in use at once, a spare back when the node it
///    replaced is repaired), `replace_node` on an idle node of the lost node's rack (the fabric's
///    first tier), each lost node its own target, all or none, through the scheduler with a
///    required node affinity on the target (JobController::replace_pods) — or, for a gang
///    Kueue's TAS admitted, Kueue's own replacement (AdmissionRecovery: find_replacements in
///    the required domain, else the gang's eviction and admission afresh); `restart_partition`
///    deletes the pods of every partition with a lost pod (Volcano's RestartPartition, pod k in
///    partition k / partition_size) and queues new ones wherever the scheduler places them, the
///    other partitions keeping their nodes; `restart_gang`, or spare / replace_node when not every
///    lost node finds its target, evicts the whole gang and requeues it
///    (JobController::interrupt), so its wait is the scheduler's. Each restarts, once all its pods
///    are bound, after run.pod_startup, detection, gang_life's recovery_overhead and
///    loading_seconds.
/// The gang's time is accounted from its first start to its end or the run's end, emitted as a
/// GangLifeRecord (RunSignals::gang_life): productive + lost work + detection + restart +
/// checkpoint + planned downtime = wall.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/model/admission_recovery.hpp"
#include "tidesim/sim/model/execution.hpp"
#include "tidesim/sim/model/fault_injector.hpp"
#include "tidesim/sim/model/gang_life.hpp"
#include "tidesim/sim/model/job_controller.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

class GangFailures {
 public:
  GangFailures(RunContext& run, JobController& controller, Execution& execution,
               FaultInjector& faults, const GangFailuresConfig& config, std::uint64_t seed);
  /// Schedules the injected failures.
  void start();
  /// Ends every open life now (the run's end).
  void close_all();
  /// Kueue's node replacement for the TAS-admitted gangs under `replace_node` (the run's admission
  /// layer; null: none).
  void set_recovery(AdmissionRecovery* tas) { recovery_ = tas; }

 private:
  // Why a gang is down: its downtime's bucket.
  enum class Down { kNone, kUnexpected, kPlanned, kOther };
  struct Life {
    Life(std::string name, std::uint64_t seed)
        : job(std::move(name)), rng(seed, "faults/gang/" + job) {}
    std::string job;
    RandomStream rng;
    TimePoint first_start{};
    GangShape shape;
    CheckpointTimes cp;
    bool running = false;
    TimePoint segment_start{};
    double from_steps = 0.0;  // its progress when the segment started
    EventId next;             // its next random interruption
    Down down = Down::kNone;
    TimePoint down_since{};
    int spares_used = 0;
    GangLife acc;  // the sums so far (wall: at close)
  };

  void on_job(const JobEvent& e);
  void on_start(int j);
  void schedule_next(int j, Life& life);
  // Ends the running segment of `life`: its running time and stalls; returns its split.
  AttemptTimes end_segment(Life& life);
  // Adds the downtime since `life.down_since` to its bucket.
  void end_downtime(Life& life);
  // Job j's gang is interrupted by `component` (-1: planned) on its nodes `lost` now.
  void fail(int j, int component, const std::vector<int>& lost);
  // Recovers job j from the loss of nodes `lost` (out for `repair`); restarts it after `restore`
  // beyond the recovery's own overhead.
  void recover(int j, Life& life, const std::vector<int>& lost, Duration restore,
               const FailureComponent& c);
  // replace_node for a TAS-admitted gang whose nodes `nodes` (its pods `pods_on` on each) are lost:
  // Kueue's replacement inside the assignment's domain for one lost node, else the gang's
  // eviction and admission afresh.
  void recover_tas(int j, const std::vector<int>& nodes,
                   const std::vector<std::vector<int>>& pods_on, Duration restore);
  // The cluster's nodes under node n's leaf switch (n alone without a fabric).
  std::vector<int> leaf_members(int n) const;
  // Takes `nodes` out of service for `component`'s repair time (none for planned or software).
  void take_out(const std::vector<int>& nodes, int component);
  // An idle schedulable GPU node not in `skip` with at least `gpus` GPUs, in node n's rack when
  // `same_rack`; -1: none.
  int idle_node(const std::vector<int>& skip, int n, std::int64_t gpus, bool same_rack) const;
  // restart_partition: every pod of the partitions that hold `lost_pods` (indices in job.pods).
  std::vector<JobController::PodReplacement> partition_pods(
      const Job& job, const std::vector<std::vector<int>>& lost_pods) const;
  GangShape shape_of(int j, int gpus) const;
  void close(int j);

  RunContext& run_;
  JobController& controller_;
  Execution& execution_;
  FaultInjector& faults_;
  const GangFailuresConfig& config_;
  std::uint64_t seed_;
  std::unordered_map<std::string, int> index_;
  std::map<int, Life> lives_;
  AdmissionRecovery* recovery_ = nullptr;
  // True while this part stops a job itself: its own evictions are not another's interruption.
  bool acting_ = false;
};

/// The part for `config`; nullptr when the section is off.
std::unique_ptr<GangFailures> make_gang_failures(RunContext& run, JobController& controller,
                                                 Execution& execution, FaultInjector* faults,
                                                 const GangFailuresConfig& config,
                                                 std::uint64_t seed);

}  // namespace tidesim
