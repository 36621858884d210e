// `tidesim check`: the CI regression gate. Exit 0 when no metric regressed, 1 when one did (or
// went missing), 2 for bad input.
#include <fmt/core.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/lib/check.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::cli {
namespace {

struct CheckArgs {
  std::string result_path;
  std::string baseline_path;
  std::vector<std::string> tolerances;
  std::string default_tolerance = "5";
  std::string junit;
  std::vector<std::string> metrics;
  bool all_metrics = false;
  std::string correction = "holm";
};

int run_check(const CheckArgs& args) {
  app::CheckOptions options;
  options.default_tolerance_pct = app::parse_percent(args.default_tolerance, "--default-tolerance");
  for (const auto& t : args.tolerances) {
    const auto [metric, pct] = app::parse_tolerance(t, "--tolerance");
    options.tolerance_pct[metric] = pct;
  }
  options.metrics = app::parse_metric_names(args.metrics, "--metrics");
  options.all_metrics = args.all_metrics;
  options.correction = app::parse_correction(args.correction, "--correction");
  if (args.all_metrics && !args.metrics.empty()) {
    throw InputError(SourceLocation{}, "--all-metrics", "give either --metrics or --all-metrics");
  }
  const auto current = app::load_result(args.result_path);
  const auto baseline = app::load_result(args.baseline_path);
  if (current.metadata.scenario_hash != baseline.metadata.scenario_hash) {
    fmt::print(stderr,
               "tidesim: warning: the result and the baseline come from different scenario "
               "texts ({} vs {})\n",
               current.metadata.scenario_hash, baseline.metadata.scenario_hash);
  }
  for (const auto& w : app::provenance_warnings(current, baseline)) {
    fmt::print(stderr, "tidesim: warning: {}\n", w);
  }
  const auto report = app::check_against_baseline(current, baseline, options);
  std::cout << app::format_check_report(report);
  if (!args.junit.empty()) {
    std::ofstream out(args.junit);
    if (!out) {
      throw InputError(SourceLocation{args.junit, 0, 0}, "--junit",
                       "cannot open the file for writing");
    }
    out << app::junit_xml(report);
  }
  return report.failed() ? 1 : 0;
}

}  // namespace

void add_check_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand(
      "check", "Compare a result with a baseline; exit 1 when a metric regressed");
  cmd->add_option("result", args->result_path, "Result JSON to check")->required();
  cmd->add_option("--baseline", args->baseline_path, "Baseline result JSON")->required();
  cmd->add_option("--tolerance", args->tolerances,
                  "METRIC=PCT: allowed worsening in percent of the baseline (repeatable)");
  cmd->add_option("--default-tolerance", args->default_tolerance,
                  "PCT: allowed worsening for other metrics, percent (default 5; 5 or 5%)");
  cmd->add_option("--junit", args->junit, "Write JUnit XML here");
  cmd->add_option("--metrics", args->metrics,
                  "METRIC,...: the metrics tested (default: the result's headline set, as its "
                  "table shows it)")
      ->delimiter(',');
  cmd->add_flag("--all-metrics", args->all_metrics, "Test every catalogued metric");
  cmd->add_option("--correction", args->correction,
                  "Multiple-comparison correction over the tests: holm (default; family-wise "
                  "error), bh (Benjamini-Hochberg; false discovery rate) or none");
  cmd->callback([&ctx, args] {
    ctx.input = args->result_path;
    ctx.run = [args] { return run_check(*args); };
  });
}

}  // namespace tidesim::cli
