#pragma once
/// A run: one scenario's cluster and jobs under one policy and seed. It composes the cluster
/// model's parts (sim/model/cluster.hpp: nodes and the device plugin; sim/model/job_controller.hpp:
/// pods, attempts and restarts; sim/model/execution.hpp: rates, flows, memory and OOM;
/// sim/model/observation.hpp: node agents; sim/model/telemetry_pipeline.hpp: Prometheus) with the
/// policy's scheduling loop (policies/scheduling_loop.hpp), and emits the run's signals
/// (sim/api/run_signals.hpp).
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/policies/schedule_result.hpp"
#include "tidesim/sim/api/run_signals.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/workloads/catalogue.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim {

/// What a run did, besides the signals it emitted.
struct RunSummary {
  TimePoint end{};
  /// Events dispatched.
  std::uint64_t events = 0;
  /// Events as the budget (`--max-events`, the run estimate) counts them: those dispatched, and
  /// one more per node each sample and each round of agent samples visits
  /// (Simulation::counted()).
  std::uint64_t counted_events = 0;
  int jobs = 0;
  int succeeded = 0;
  int failed = 0;
  /// Jobs neither succeeded nor failed when the run stopped (the `run.until` limit).
  int unfinished = 0;
  /// Jobs whose pods were never all bound.
  int never_started = 0;
  /// The run was cut short by its interrupt flag (a wall-clock timeout) at `end`.
  bool interrupted = false;
  /// The run was cut short at `end` by its event limit (counted_events passed it).
  bool over_limit = false;
  /// The job-level policy's own metrics (JobPolicy::add_metrics: Gavel's lease extensions).
  std::map<std::string, double> policy_metrics;
};

/// The jobs of one seed and the model catalogue they use.
struct Workload {
  workloads::Catalogue catalogue;
  std::vector<workloads::JobSpec> jobs;
};

/// Builds the jobs of one seed (stream "workload"): the same for every policy, so comparisons are
/// paired. A run time given instead of steps converts at the job's step time alone on its
/// reference placement (sim/model/reference_speed.hpp; a trace's CPU-only pods run their time).
Workload make_jobs(const Scenario& scenario, std::uint64_t seed);

/// Builds everything a run of `scenario` builds, without running it: the cluster (topologies,
/// GPU models), every policy's scheduler, and the model profile of each job of `jobs` (the
/// first seed's, from make_jobs) on every GPU model it could run on. Throws InputError naming
/// the place of the first problem. Returns warnings about what is legal but cannot work (a job
/// whose worker's steady or peak GPU memory exceeds every card it could run on).
std::vector<std::string> check_scenario(const Scenario& scenario, const Workload& jobs);

/// Runs `workload` on the scenario's cluster under `policy` with `seed`, emitting into `signals`.
/// When `interrupt` is set by another thread the run stops within a few thousand events
/// (Simulation::set_interrupt) and the summary says so. `events`, when given, counts the events
/// the run dispatches as it goes (Simulation::set_event_meter), for a progress line. With
/// `max_events` (0: none) the run stops after the event that takes its counted events past it,
/// and the summary says so (over_limit).
RunSummary run_policy(const Scenario& scenario, const Workload& workload,
                      const PolicyConfig& policy, std::uint64_t seed, RunSignals& signals,
                      const std::atomic<bool>* interrupt = nullptr,
                      std::atomic<std::uint64_t>* events = nullptr, std::uint64_t max_events = 0);

/// One scheduling cycle of a run, explained (`tidesim explain SCENARIO --at T`).
struct ExplainedCycle {
  TimePoint at{};
  PodSpec pod;
  /// With per-node details and filter reasons (Scheduler::set_record_details).
  policies::ScheduleResult result;
  /// The scheduler (profile) that ran it; its tie-breaks come from RandomStream(seed,
  /// "scheduler/" + scheduler).
  std::string scheduler;
};

/// Replays the run of `policy` with `seed` and explains one of its cycles: with `pod` empty, the
/// first cycle at or after `at`; otherwise the last cycle of the pod named `pod` at or before
/// `at`. The run up to that cycle is the run `run_policy` makes (the same events, the same
/// draws); it stops there. nullopt when there is no such cycle. Cycles of all-or-nothing gangs are
/// not explained (SchedulingLoop::set_inspector).
std::optional<ExplainedCycle> explain_cycle(const Scenario& scenario, const Workload& workload,
                                            const PolicyConfig& policy, std::uint64_t seed,
                                            TimePoint at, const std::string& pod);

}  // namespace tidesim
