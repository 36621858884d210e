#pragma once
/// The steps of a scenario's runs, which run_scenario (tools/lib/run_scenario.hpp, the one run
/// path of `tidesim run` and the Python module's `tidesim.run`) takes in order: the seeds, the
/// estimate held to its budget, each seed's jobs built and everything a run builds checked
/// (prepare_runs), every (policy, seed) run on a thread pool into one result (run_all), and the
/// provenance input of the command that reproduces it.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/experiments/offered_load.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/provenance.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/series_choice.hpp"

namespace tidesim::app {

/// The seeds of a run: `given` (`--seed`), else the scenario's. Throws InputError (field
/// `--seed`) when a seed is given twice.
std::vector<std::uint64_t> run_seeds(const Scenario& s, const std::vector<std::uint64_t>& given);

/// How runs of `policies` over `seeds` seeds look to the estimate; `series`: time series are
/// recorded and written (`run --output`).
RunPlan run_plan(const std::vector<PolicyConfig>& policies, std::size_t seeds, bool series);

/// Runs ready to start.
struct PreparedRuns {
  std::vector<PolicyConfig> policies;
  std::vector<std::uint64_t> seeds;
  /// The jobs of each seed, in seed order.
  std::vector<Workload> jobs;
  RunEstimate estimate;
  RunBudget budget;
  /// The offered load of the first seed's jobs (sim/experiments/offered_load.hpp).
  OfferedLoad load;
};

/// Prepares the runs of `policies` x `seeds` of `s`: holds the estimate to `budget` (before any
/// job is built; with `force` a problem is written to `warnings` instead of thrown), builds each
/// seed's jobs and everything a run builds (check_scenario), so that bad input fails here with its
/// place, and writes check_scenario's warnings to `warnings` as `tidesim validate` prints them,
/// with the offered load's when it is over 100%.
/// Throws InputError.
PreparedRuns prepare_runs(const Scenario& s, std::vector<PolicyConfig> policies,
                          std::vector<std::uint64_t> seeds, bool series, const RunBudget& budget,
                          bool force, std::ostream& warnings);

/// How run_all runs.
struct RunAllOptions {
  /// Runs in parallel; 0: the machine's cores. Results do not depend on it.
  int threads = 0;
  /// The time series recorded (`--output`); absent: none.
  std::optional<SeriesChoice> series;
  /// A wall-clock limit for the whole (`--timeout`).
  std::optional<Duration> timeout;
  /// The progress line on stderr.
  ProgressMode progress = ProgressMode::kNever;
};

/// Runs every (policy, seed) pair of `runs`; each run is independent, so threads change nothing
/// in the result: runs are stored by index, in policy order then seed order. The metadata names
/// the scenario, seeds and policies (provenance, warnings and reference are the caller's). Throws
/// std::runtime_error when a run passes the event budget or the timeout is reached (naming the
/// run it cut), and rethrows the first error of a run.
RunResult run_all(const Scenario& s, const PreparedRuns& runs, const RunAllOptions& options);

/// The published figures the scenario's `reference:` section gives, labelled by its source
/// ("reference" when it names none); absent when it has none.
std::optional<Reference> scenario_reference(const Scenario& s);

/// The provenance input of a run of the scenario at `path` with `policy_specs` (`--policy`),
/// `seeds` (`--seed`, as given) and `overrides` (`--set`): the `tidesim run` command that
/// reproduces it (options that cannot change the result, such as --threads, left out).
ProvenanceInput run_provenance_input(const std::string& path,
                                     const std::vector<std::string>& policy_specs,
                                     const std::vector<std::uint64_t>& seeds,
                                     const std::vector<ScenarioOverride>& overrides);

}  // namespace tidesim::app
