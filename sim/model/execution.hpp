#pragma once
/// The execution model: how fast a running job progresses and when it dies. Step time is
/// compute at the job's share of its cards, overlapped with input reads (a fluid flow on the
/// node's data device), plus a ring all-reduce (one fluid flow over the directed links of the
/// job's best ring on each node, plus the uplinks when it spans nodes). Memory follows the
/// model's timeline per worker; the allocation that takes a card past its capacity is
/// OOM-killed. Checkpoints record the progress a restart resumes from. Formulas and sources:
/// docs/model-workloads.md and docs/model-hardware.md.
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "tidesim/sim/model/ring_path.hpp"
#include "tidesim/sim/model/run_context.hpp"

namespace tidesim {

/// What the execution model tells the Job controller.
class ExecutionListener {
 public:
  virtual ~ExecutionListener() = default;
  /// Job `j` has done all its steps.
  virtual void on_finished(int j) = 0;
  /// A worker of job `j` was OOM-killed (the event was emitted); the attempt is over.
  virtual void on_oom(int j) = 0;
};

class Execution {
 public:
  /// `run`'s cluster is built: its nodes' sharing modes are read once.
  Execution(RunContext& run, ExecutionListener& listener);

  /// Starts (or restarts in place) the containers of job `j`, whose pods are all bound: input
  /// and ring flows, checkpoints, memory (which may OOM at once), rates.
  void start(int j);
  /// Stops job `j`'s containers: progress brought to now (or back to the last checkpoint when
  /// `lose_progress`), flows removed, memory freed. The pods stay bound. Returns the nodes whose
  /// jobs must be re-rated (distinct, in increasing order): the caller releases what it
  /// releases, then calls refresh().
  std::vector<int> stop(int j, bool lose_progress);
  /// Re-rates every running job on `touched` nodes (distinct, in increasing order) and every job
  /// whose link or storage share changed, and reschedules their completions.
  void refresh(const std::vector<int>& touched);
  /// Job `j`, if running, writes a checkpoint now (an elastic job before it is resized).
  void checkpoint_now(int j);
  /// The steps job `j` has done by now (its progress brought to now when it runs).
  double progress(int j);
  /// Job `j`'s steps done set to `done` (clamped to 0..its steps) and checkpointed now, the job
  /// re-rated when it runs: after its spec's speed and steps changed
  /// (JobController::change_speed).
  void set_work(int j, double done);
  /// A gang's failure (faults.gang, sim/model/gang_failures.hpp): job `j`'s last checkpoint
  /// holds `from` (its progress when its attempt started) plus `share` of the steps done since
  /// (gang_life's attempt_times: the committed checkpoint's compute over the attempt's), written
  /// at `at`.
  void commit_share(int j, double from, double share, TimePoint at);
  /// Brings the progress and rates of every running job to now (the end of a run).
  void close_books();

 private:
  void add_ring(int j);
  EventId schedule_checkpoint(int j);
  bool apply_memory(int j);
  void advance(Job& job);
  /// `share`: job j's card_share() when the caller read it already.
  void update_rate(int j, std::optional<double> share = std::nullopt);
  /// Divides the time-sliced cards that need it (GpuNodeState::divide_time) and adds the jobs on
  /// them to `affected`.
  void divide_cards(const std::vector<int>& touched, std::set<int>& affected);
  /// Space sharing: when the running processes on `card` of node `n` are two single workers of
  /// two jobs whose speed together is measured (workloads::gavel_colocated, a throughput table's
  /// pair entry), each computes at the share of the card that gives it that speed, its co-located
  /// steps per second x its seconds per step alone there (at most 1), in place of its
  /// time-slicing share (`colocated_`); otherwise the card's entries are cleared.
  void colocate(int n, int card, const std::vector<std::pair<std::uint64_t, int>>& running);
  /// The step conditions of running job j now (its ring's burst and average bandwidth included),
  /// at compute share `share` when given (its card_share()).
  workloads::StepConditions conditions(int j, std::optional<double> share = std::nullopt) const;
  /// The smallest share of a card any of job j's workers gets (1 when it has none).
  double card_share(int j) const;
  /// The same at compute share 1: its input and ring only.
  workloads::StepConditions network_conditions(int j) const;
  /// Job j's step under `c`: the catalogue model's, or its measured step (a Pollux job).
  workloads::StepTime step_of(int j, const workloads::StepConditions& c) const;
  /// Caps the ring flows of `jobs` at their average demand; true when a cap changed. Adds the
  /// card_share() it read of each job it caps to `shares`.
  bool cap_rings(const std::set<int>& jobs, std::map<int, double>& shares);
  void emit_rate(const Job& job, bool running);

  RunContext& run_;
  ExecutionListener& listener_;
  // Per node: its cards are exclusive (a bound pod's share of each is 1, GpuNodeState::
  // compute_share), and whether any node time-slices its cards (else divide_cards has nothing to
  // divide): fixed when the cluster is built.
  std::vector<char> exclusive_;
  bool time_sliced_ = false;
  /// Records job `j` as `flow`'s owner (-1: none, a removed flow).
  void own(FlowId flow, int j);
  // Flow id -> its job, -1 for none (the fluid's flow ids are dense and reused).
  std::vector<int> flow_owner_;
  struct RingState {
    // The ring path's bandwidth alone (a burst's bus bandwidth).
    double alone = std::numeric_limits<double>::infinity();
    double cap = 0.0;      // the flow's current cap, its average demand (0: none yet)
    double latency = 0.0;  // each burst's latency over the fabric, seconds
  };
  std::unordered_map<int, RingState> rings_;  // job -> its ring
  RingPaths ring_paths_;                      // the paths of multi-pod jobs' rings, kept
  // (node, card, process) -> its compute share as one of a measured pair (colocate()).
  std::map<std::tuple<int, int, std::uint64_t>, double> colocated_;
};

}  // namespace tidesim
