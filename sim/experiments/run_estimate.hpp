#pragma once
/// What a `tidesim run` of a validated scenario will cost, estimated before any job is built, and
/// the budget it is held to (docs/robustness.md, "Resource guards"). The counts follow the
/// workload: each job's run time (its duration distribution's mean, the trace's run times, or its
/// steps at the uncontended speed), the run's end (the last arrival or the cluster's drain time,
/// plus the longest run time, at most `run.until`), the scheduling retries of a backlog and the
/// fault events of the `faults:` section. They aim to be within 10x of the events a run takes
/// (tests/sim/experiments/run_estimate_test.cpp); the run itself is held to the event budget as
/// it goes (run_policy's `max_events`), so an estimate that is low cannot let a run go on.
#include <cstdint>
#include <ostream>
#include <string>

#include "tidesim/sim/admission/pollux_search.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {

/// How the scenario will be run.
struct RunPlan {
  std::int64_t seeds = 1;
  std::int64_t policies = 1;
  /// Time series recorded (for the first seed of each policy) and written: `run --output`.
  bool series = false;
  /// Some policy reads node metrics, so node agents and Prometheus run (telemetry events).
  bool telemetry = false;
  /// Every policy admits jobs (an admission controller: Kueue quotas, a job-level policy), so
  /// a backlog waits there, not in the scheduling queue: no scheduling retries are counted.
  bool admission = false;
  /// The costliest allocation search among the policies (Pollux's), run every `search_interval`
  /// over the jobs in the system; none when search_interval is zero.
  Duration search_interval{};
  PolluxSearchConfig search;
};

/// The estimate, with the counts it is made of.
struct RunEstimate {
  std::int64_t jobs = 0;  ///< per seed
  std::int64_t pods = 0;  ///< per seed (the mean size of each mix entry's jobs)
  std::int64_t nodes = 0;
  std::int64_t cards = 0;
  /// When the run is expected to end: the last arrival, or the first arrival plus the time the
  /// cluster needs for the whole work (GPU-seconds / cards) when that is later, plus the longest
  /// run time; at most run.until.
  Duration end{};
  std::int64_t samples = 0;       ///< end / run.sample_interval + 1
  std::int64_t checkpoints = 0;   ///< checkpoint events of one run
  std::int64_t telemetry = 0;     ///< agent samples and scrapes of one run
  std::int64_t retries = 0;       ///< scheduling cycles of pods waiting in a backlog
  std::int64_t faults = 0;        ///< fault events and the restarts they cause
  std::int64_t searches = 0;      ///< a policy's allocation searches, in events (their work)
  std::int64_t events = 0;        ///< work of one run (one policy, one seed), in events
  std::int64_t memory_bytes = 0;  ///< of the whole `tidesim run` process
  /// A fill experiment's estimate (estimate_fill): its events are node evaluations, pods x nodes.
  bool fill = false;
};

/// Bytes per job of each seed's job list (JobSpec with its pod template): 2.4 KB measured
/// (`validate` of the seed benchmark with 20,000 and 200,000 jobs: 54 MB and 481 MB).
inline constexpr std::int64_t kJobListBytesPerJob = 2'500;
/// Bytes per job of each run (its state and the records kept for the result): 14.4 KB measured
/// (`run` of the seed benchmark with 1,000 and 4,000 jobs, one policy and seed: 24 MB and 74 MB,
/// less the job list).
inline constexpr std::int64_t kRunBytesPerJob = 14'500;
/// Bytes per sample of the recorded series, kept and written (JSON tree, CSV, OpenMetrics): 600
/// per node and 120 per card, fitted to `run scenarios/openb-default.yaml --output` (2 policies,
/// 3,600 samples of 1,523 nodes and 6,366 cards: 12.2 GB peak resident, 11.9 GB of it beyond the
/// jobs; the rule gives 12.1 GB) with the per-node share five times the per-card one, as in the
/// series' layout (a node's sample holds three per-card vectors and five scalars).
/// Measured when every sample was kept; with change points (docs/outputs.md) this is the worst
/// case (every node changing at every sample), an upper bound.
inline constexpr std::int64_t kSeriesBytesPerNode = 600;
inline constexpr std::int64_t kSeriesBytesPerCard = 120;
/// Bytes per fault event of each run (RunEstimate::faults: the fault, its job's restart and its
/// new pods): the records a run keeps of each (the event, the attempt that ended, the new
/// attempt's pods) and the model's state of the restart. 470 B measured: a run of 16 one-GPU
/// jobs on 16 cards with card errors every minute for a day (23,040 errors, 138,240 fault
/// events estimated) peaked at 82 MB against 17 MB without faults.
inline constexpr std::int64_t kRunBytesPerFaultEvent = 500;
/// Events per pod: its scheduling cycle, its start, its finish and its removal.
inline constexpr std::int64_t kEventsPerPod = 4;
/// The scheduling queue's average backlog, as a share of the pods that wait in it: it drains
/// from all of them to none.
inline constexpr double kBacklogShare = 0.5;

/// Puts `policy`'s allocation search (Pollux's: population x generations every interval) into
/// `plan` when it costs more per simulated second than the plan's; std::invalid_argument for a
/// bad argument, as the policy itself.
void plan_search(RunPlan& plan, const PolicyConfig& policy);

/// The estimate for `scenario` run as `plan`. Builds the cluster (to count nodes and cards) and,
/// for a trace, reads the trace (to count its jobs, pods and run times), and for a Pollux
/// workload builds its jobs (a few hundred); throws InputError as validation would.
RunEstimate estimate_run(const Scenario& scenario, const RunPlan& plan);

/// What a run may cost. The defaults: 10^9 events per run (the scale of the largest shipped
/// scenarios is 10^7) and 16 GiB for the process.
struct RunBudget {
  std::int64_t events = 1'000'000'000;
  std::int64_t memory_bytes = std::int64_t{16} << 30;
};

/// Empty when `estimate` is within `budget`; otherwise a sentence naming the estimate, what it
/// is made of, and the budget.
std::string budget_problem(const RunEstimate& estimate, const RunBudget& budget);

/// What stops a run that passed the event budget as it ran (RunSummary::over_limit): `run` names
/// it (policy and seed), `counted` and `at` are where it stopped.
std::string event_limit_problem(const RunBudget& budget, const std::string& run,
                                std::uint64_t counted, Duration at, const RunEstimate& estimate);

/// Holds a run to its budget: throws InputError (at `path`, the scenario) naming the problem when
/// `estimate` passes `budget`; with `force`, writes it to `warnings` instead and returns.
void enforce_budget(const RunEstimate& estimate, const RunBudget& budget, bool force,
                    const std::string& path, std::ostream& warnings);

}  // namespace tidesim
