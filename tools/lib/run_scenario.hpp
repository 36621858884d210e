#pragma once
/// The one run path of `tidesim run` (tools/cli/cmd_run.cpp) and the Python module's
/// `tidesim.run` (tools/python/module.cpp, docs/python.md): from a loaded scenario and the
/// arguments both take, the policies selected, the seeds, the runs prepared and held to their
/// budget, every (policy, seed) run, and the result with its metadata (headline metrics,
/// provenance, warnings, reference). What each caller prints or writes of it stays its own.
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/experiments/offered_load.hpp"
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// The time series asked for (`--series`, `--series-step`, `--series-seed`; series=,
/// series_step=, series_seeds=), as text: read by parse_series_choice once the seeds are known.
struct SeriesRequest {
  std::string scope;  // "none", "summary", "full"; "": the default (full)
  std::string step;
  std::vector<std::string> seeds;
};

/// What a run of a loaded scenario is asked for, its arguments already read.
struct RunRequest {
  /// The scenario's path as given and the overrides it was loaded with (the provenance's
  /// command).
  std::string path;
  std::vector<ScenarioOverride> overrides;
  /// `--policy` specs (select_policies) and `--seed` seeds as given; empty: the scenario's.
  std::vector<std::string> policy_specs;
  std::vector<std::uint64_t> seeds;
  /// Runs in parallel; 0: the machine's cores. Results do not depend on it.
  int threads = 0;
  /// The time series recorded; absent: none.
  std::optional<SeriesRequest> series;
  std::optional<Duration> timeout;
  RunBudget budget;
  /// Run even when the estimate passes the budget (its problem written as a warning).
  bool force = false;
  ProgressMode progress = ProgressMode::kNever;
  /// The headline metrics instead of the study's (`--metrics`); empty: the study's.
  std::vector<std::string> headline;
  /// The scenario's published figures attached (scenario_reference); false: `--no-reference`.
  bool reference = true;
};

/// A run's result and what its callers print beside it.
struct RunOutcome {
  RunResult result;
  /// The offered load of the first seed's jobs.
  OfferedLoad load;
  /// Seconds of wall-clock time the runs took (not the preparation).
  double wall_s = 0;
};

/// Runs `s` (a time-driven scenario; the fill experiment is run_fill_scenario's) as `request`
/// asks. The preparation's warnings go to `warnings` as `tidesim validate` prints them; the
/// result's own warnings are in its metadata, for the caller to show. Throws InputError for bad
/// input and std::runtime_error as run_all does.
RunOutcome run_scenario(const Scenario& s, const RunRequest& request, std::ostream& warnings);

}  // namespace tidesim::app
