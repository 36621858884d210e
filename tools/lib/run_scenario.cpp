#include "tidesim/tools/lib/run_scenario.hpp"

#include <chrono>
#include <utility>

#include "tidesim/tools/lib/policy_select.hpp"
#include "tidesim/tools/lib/provenance.hpp"
#include "tidesim/tools/lib/run_warnings.hpp"
#include "tidesim/tools/lib/scenario_runs.hpp"
#include "tidesim/tools/lib/series_choice.hpp"

namespace tidesim::app {

RunOutcome run_scenario(const Scenario& s, const RunRequest& request, std::ostream& warnings) {
  const auto policies = select_policies(s, request.policy_specs);
  const auto seeds = run_seeds(s, request.seeds);
  RunAllOptions options;
  const auto& series = request.series;
  if (series) {
    options.series = parse_series_choice(series->scope, series->step, series->seeds, seeds);
  }
  // The estimate held to its budget, each seed's jobs, everything a run builds checked.
  const PreparedRuns runs = prepare_runs(s, policies, seeds, series && series->scope != "none",
                                         request.budget, request.force, warnings);
  options.threads = request.threads;
  options.timeout = request.timeout;
  options.progress = request.progress;
  const auto t0 = std::chrono::steady_clock::now();
  RunOutcome out{run_all(s, runs, options), runs.load, 0};
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  RunResult& result = out.result;
  if (!request.headline.empty()) {
    result.metadata.headline_metrics = request.headline;
  }
  result.metadata.provenance = make_provenance(
      s, policies, seeds,
      run_provenance_input(request.path, request.policy_specs, request.seeds, request.overrides));
  result.metadata.warnings = run_warnings(policies, result);
  if (request.reference) {
    result.reference = scenario_reference(s);
  }
  return out;
}

}  // namespace tidesim::app
