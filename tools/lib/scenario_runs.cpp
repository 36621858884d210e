#include "tidesim/tools/lib/scenario_runs.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/sim/engine/parallel.hpp"
#include "tidesim/sim/experiments/collector_options.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/scenario_describe.hpp"
#include "tidesim/tools/lib/watchdog.hpp"

namespace tidesim::app {

std::vector<std::uint64_t> run_seeds(const Scenario& s, const std::vector<std::uint64_t>& given) {
  for (auto it = given.begin(); it != given.end(); ++it) {
    if (std::find(given.begin(), it, *it) != it) {
      throw InputError(SourceLocation{}, "--seed",
                       fmt::format("seed {} is given twice; each seed is one replica", *it));
    }
  }
  return given.empty() ? s.seeds : given;
}

RunPlan run_plan(const std::vector<PolicyConfig>& policies, std::size_t seeds, bool series) {
  RunPlan plan;
  plan.seeds = static_cast<std::int64_t>(seeds);
  plan.policies = static_cast<std::int64_t>(policies.size());
  plan.series = series;
  plan.admission = !policies.empty();
  for (const auto& p : policies) {
    plan.telemetry = plan.telemetry || p.loaded().reads_metrics;
    plan.admission = plan.admission && p.admission.has_value();
    plan_search(plan, p);
  }
  return plan;
}

PreparedRuns prepare_runs(const Scenario& s, std::vector<PolicyConfig> policies,
                          std::vector<std::uint64_t> seeds, bool series, const RunBudget& budget,
                          bool force, std::ostream& warnings) {
  PreparedRuns runs;
  // Before any job is built: the job lists of 10^7 jobs alone need tens of GB.
  runs.estimate = estimate_run(s, run_plan(policies, seeds.size(), series));
  enforce_budget(runs.estimate, budget, force, s.path, warnings);
  runs.budget = budget;
  runs.jobs.resize(seeds.size());
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    runs.jobs[i] = make_jobs(s, seeds[i]);
  }
  {
    // Everything a run builds, built once up front: bad input fails here with its place.
    Scenario checked = s;
    checked.policies = policies;
    // Its warnings as `tidesim validate` prints them (jobs after run.until, jobs that fit no
    // node, ...): the same check, the same words.
    for (const std::string& w : check_scenario(checked, runs.jobs.front())) {
      warnings << "tidesim: warning: " << s.path << ": " << w << "\n";
    }
    runs.load = offered_load(s, runs.jobs.front());
    if (const auto w = overload_warning(runs.load)) {
      warnings << "tidesim: warning: " << s.path << ": " << *w << "\n";
    }
  }
  runs.policies = std::move(policies);
  runs.seeds = std::move(seeds);
  return runs;
}

namespace {

// A memory size as the budget's messages write it: "1.0 GiB", "512.0 MiB", "15.6 KiB".
std::string memory_text(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  return b >= 1073741824.0 ? fmt::format("{:.1f} GiB", b / 1073741824.0)
         : b >= 1048576.0  ? fmt::format("{:.1f} MiB", b / 1048576.0)
                           : fmt::format("{:.1f} KiB", b / 1024.0);
}

// What the runs of one run_all() share.
struct RunAllState {
  const Scenario& s;
  const PreparedRuns& prepared;
  const RunAllOptions& options;
  RunMeter& meter;
  // --timeout: the watchdog raises its flag at the deadline; every run checks it between events
  // (Simulation::set_interrupt) and stops, and no further run starts.
  Watchdog& watchdog;
  std::mutex cut_mutex;
  std::string cut;  // the first run the timeout stopped, for the message
};

// Run k (policy k / seeds, seed k % seeds) into `out`; false when the deadline stopped it or came
// before it started.
bool run_one(RunAllState& st, std::size_t k, RunProbe& probe, SeedRun& out) {
  if (st.watchdog.expired()) {
    return false;  // no further run starts after the deadline
  }
  st.watchdog.start();  // after the check: the first run always starts
  const auto& seeds = st.prepared.seeds;
  const auto& policy = st.prepared.policies[k / seeds.size()];
  const std::size_t si = k % seeds.size();
  RecorderOptions recorder_options;
  recorder_options.collectors = collector_options(st.s);
  // Time series are large (every node, every card, every sample): only with --output, and
  // only what --series, --series-step and --series-seed choose (the first seed by default).
  recorder_options.record_series = false;
  if (st.options.series) {
    st.options.series->apply(recorder_options, seeds[si], seeds.front());
  }
  Recorder recorder(policy.name, seeds[si], recorder_options);
  RunSignals signals;
  recorder.attach(signals);
  probe.attach(signals);
  // --max-events holds during the run too, whatever its events are (the estimate's, or
  // retries and faults it did not foresee), with --force as without.
  const RunBudget& budget = st.prepared.budget;
  const RunSummary summary =
      run_policy(st.s, st.prepared.jobs[si], policy, seeds[si], signals, st.watchdog.flag(),
                 &st.meter.events, static_cast<std::uint64_t>(budget.events));
  if (summary.over_limit) {
    throw std::runtime_error(
        event_limit_problem(budget, fmt::format("policy {} seed {}", policy.name, seeds[si]),
                            summary.counted_events, summary.end.time_since_epoch(),
                            st.prepared.estimate) +
        "; no result written");
  }
  if (summary.interrupted) {
    const std::lock_guard lock(st.cut_mutex);
    if (st.cut.empty()) {
      st.cut = fmt::format("policy {} seed {} at simulated time {}", policy.name, seeds[si],
                           format_duration(summary.end.time_since_epoch()));
    }
    return false;
  }
  out = recorder.finish(summary.end);
  out.metrics.insert(summary.policy_metrics.begin(), summary.policy_metrics.end());
  st.watchdog.check_memory();  // a run shorter than the watchdog's poll is held to it too
  return !st.watchdog.memory_exceeded();
}

// The result of finished runs: their records with the scenario's metadata.
RunResult assemble(const Scenario& s, const PreparedRuns& prepared, std::vector<SeedRun> runs) {
  RunResult result;
  std::vector<std::string> names;
  for (const auto& p : prepared.policies) {
    names.push_back(p.name);
  }
  result.metadata = make_metadata(s.name, s.path, s.hash, prepared.seeds, names);
  result.metadata.cluster = describe_cluster(s.cluster);
  result.metadata.workload = describe_workload(s.workload);
  result.metadata.headline_metrics = study_headline_metrics(s, prepared.policies);
  result.runs = std::move(runs);
  return result;
}

}  // namespace

RunResult run_all(const Scenario& s, const PreparedRuns& runs_in, const RunAllOptions& options) {
  const auto& seeds = runs_in.seeds;
  const std::size_t total = runs_in.policies.size() * seeds.size();
  std::vector<SeedRun> runs(total);
  std::atomic<std::size_t> done{0};
  std::exception_ptr error;
  // The progress line (stderr; docs/outputs.md): runs done, simulated time, events/s, ETA.
  RunMeter meter;
  auto progress = ProgressReporter::for_stderr(options.progress);
  ProgressTicker ticker(progress, "runs", [&meter, total] { return meter.snapshot(total); });
  // The watchdog starts after the first run's check (Watchdog::start), so that run always starts.
  // It also holds the process to --max-memory as it runs, measured: the estimate cannot foresee
  // every record a run keeps (docs/robustness.md, "Resource guards").
  Watchdog watchdog(options.timeout, false, runs_in.budget.memory_bytes);
  RunAllState st{s, runs_in, options, meter, watchdog, {}, {}};
  const double horizon_s = to_seconds(TimePoint(s.run.until));
  try {
    parallel_for(total, thread_count(options.threads), [&](std::size_t k) {
      RunProbe probe(meter, runs_in.jobs[k % seeds.size()].jobs.size(), horizon_s);
      bool finished = false;
      try {
        finished = run_one(st, k, probe, runs[k]);
      } catch (...) {
        probe.finish();  // a failed run counts in the progress line, as a finished one does
        throw;
      }
      if (finished) {
        probe.finish();
        ++done;
      }
    });
  } catch (const std::bad_alloc&) {
    // An allocation failed before the watchdog's next look: the same stop, in the same words.
    error = std::make_exception_ptr(std::runtime_error(fmt::format(
        "out of memory at {} resident (--max-memory {}): raise --max-memory or make the run "
        "smaller; no result written",
        memory_text(resident_bytes()), memory_text(runs_in.budget.memory_bytes))));
  } catch (...) {
    error = std::current_exception();  // rethrown once the watchdog is stopped
  }
  watchdog.stop();
  ticker.stop();
  if (error) {
    std::rethrow_exception(error);
  }
  if (watchdog.memory_exceeded()) {
    throw std::runtime_error(fmt::format(
        "--max-memory {} reached: the process held {} when {} of {} runs had finished{}; raise "
        "--max-memory to let it finish; no result written",
        memory_text(runs_in.budget.memory_bytes), memory_text(watchdog.memory_seen()), done.load(),
        total, st.cut.empty() ? "" : ", " + st.cut + " was cut"));
  }
  if (watchdog.expired()) {
    throw std::runtime_error(
        fmt::format("--timeout {} reached: {} of {} runs finished{}; no result written",
                    format_duration(*options.timeout), done.load(), total,
                    st.cut.empty() ? "" : ", " + st.cut + " was cut"));
  }
  return assemble(s, runs_in, std::move(runs));
}

std::optional<Reference> scenario_reference(const Scenario& s) {
  if (s.reference.empty()) {
    return std::nullopt;
  }
  Reference r;
  r.label = s.reference_source.empty() ? "reference" : s.reference_source;
  for (const auto& fig : s.reference) {
    for (const auto& [policy, value] : fig.by_policy) {
      r.values[fig.metric][policy] = value;
    }
  }
  return r;
}

ProvenanceInput run_provenance_input(const std::string& path,
                                     const std::vector<std::string>& policy_specs,
                                     const std::vector<std::uint64_t>& seeds,
                                     const std::vector<ScenarioOverride>& overrides) {
  std::vector<std::string> args{"tidesim", "run", path};
  for (const auto& p : policy_specs) {
    args.insert(args.end(), {"--policy", p});
  }
  for (const auto seed : seeds) {
    args.insert(args.end(), {"--seed", std::to_string(seed)});
  }
  ProvenanceInput input;
  for (const auto& ov : overrides) {
    args.insert(args.end(), {"--set", ov.text()});
    input.overrides.push_back(ov.text());
  }
  input.command = shell_command(args);
  return input;
}

}  // namespace tidesim::app
