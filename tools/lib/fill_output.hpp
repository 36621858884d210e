#pragma once
/// What is made of a fill-mode run (the FGD experiment, docs/fgd.md): the allocation curves in the
/// FGD repository's CSV layout, the table of 10-seed means with 95% confidence intervals, JSON,
/// and an HTML page charting the mean curve of each policy.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/experiments/fill_experiment.hpp"
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {

/// The runs of one fill scenario, in policy order then seed order.
struct FillResult {
  std::string scenario;
  std::string workload;
  double tune = 0.0;
  FillRandomness randomness = FillRandomness::kTidesim;
  std::vector<std::string> policies;  // the scenario's labels
  std::vector<std::uint64_t> seeds;
  std::vector<FillRun> runs;
  double wall_seconds = 0.0;
};

/// The x points the table shows (FGD-EXPERIMENT.md "Targets").
inline constexpr int kTableX[] = {50, 80, 90, 100, 110, 130};

/// allocation_curve.csv: `workload,sc_policy,tune,seed,total_gpus,0,...,130`, one row per run,
/// values as Python writes floats (the FGD repository's analysis_allo_discrete.csv layout, with
/// tidesim's policy names in sc_policy).
void write_allocation_curve_csv(std::ostream& out, const FillResult& r);
/// Per policy: the mean over seeds +- the 95% CI half-width at kTableX, pods and failures.
std::string fill_table(const FillResult& r);
/// The runs as JSON (curves, pods, failures, verdict cache counts).
std::string fill_json(const FillResult& r);
/// A standalone HTML page with the mean curve of each policy.
std::string fill_report_html(const FillResult& r);

/// `tidesim run` of a scenario with run.mode: fill: runs `policies` x `seeds` on `threads`,
/// prints the table (or JSON, or the curve CSV) to `out`, and with a non-empty `output` writes
/// allocation_curve.csv and allocation_curve.html there. Returns the exit code.
/// The resource guards of `run` (docs/robustness.md): the estimate (estimate_fill) is held to
/// `budget` unless `force` (then tuning is not capped either), and `timeout` cuts the runs, in
/// which case nothing is printed or written and the error says how many runs finished.
struct FillGuards {
  std::optional<Duration> timeout;
  RunBudget budget;
  bool force = false;
};
int run_fill_scenario(const Scenario& s, const std::vector<PolicyConfig>& policies,
                      const std::vector<std::uint64_t>& seeds, int threads, OutputFormat format,
                      const std::string& output, std::ostream& out, const FillGuards& guards = {});

}  // namespace tidesim::app
