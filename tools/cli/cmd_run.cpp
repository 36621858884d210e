// `tidesim run` and `tidesim validate`.
#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "tidesim/policies/config.hpp"
#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/engine/parallel.hpp"
#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/experiments/run_estimate.hpp"
#include "tidesim/sim/input/units.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/options.hpp"
#include "tidesim/tools/lib/attempt_log.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/fill_output.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/openmetrics.hpp"
#include "tidesim/tools/lib/policy_select.hpp"
#include "tidesim/tools/lib/progress.hpp"
#include "tidesim/tools/lib/provenance.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_records.hpp"
#include "tidesim/tools/lib/run_arguments.hpp"
#include "tidesim/tools/lib/run_scenario.hpp"
#include "tidesim/tools/lib/run_warnings.hpp"
#include "tidesim/tools/lib/scenario_runs.hpp"
#include "tidesim/tools/lib/staged_dir.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"
#include "tidesim/tools/lib/table.hpp"
#include "tidesim/version.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim::cli {
namespace {

namespace fs = std::filesystem;

struct RunOptions {
  /// The command line's plugin registry (Context::registry).
  policies::RegistryPtr registry;
  std::string scenario;
  std::vector<std::string> policies;
  std::vector<std::uint64_t> seeds;
  std::vector<std::string> sets;
  std::string format = "table";
  std::string output;
  // Which time series --output records (docs/outputs.md, "Choosing the series").
  std::string series;
  std::string series_step;
  std::vector<std::string> series_seeds;
  // Which per-run records result.json keeps (docs/outputs.md, "Leaving records out").
  std::string records;
  int threads = 0;
  bool no_reference = false;
  bool all_metrics = false;
  // --metrics: the headline set instead of the scenario's (tools/lib/headline_metrics.hpp).
  std::vector<std::string> metrics;
  // The progress line: --progress shows it also when stderr is not a terminal, --quiet never.
  bool progress = false;
  bool quiet = false;
  // Resource guards (docs/robustness.md): budgets of the estimate, --force, and a wall-clock
  // limit for the whole command.
  std::string max_events;
  std::string max_memory;
  bool force = false;
  std::string timeout;
};

// The budget of --max-events and --max-memory (docs/robustness.md, "Resource guards").
RunBudget read_budget(const RunOptions& o) {
  RunBudget budget;
  const auto read = [](const std::string& flag, const std::string& text, auto parse) {
    try {
      return parse(text);
    } catch (const std::exception& e) {
      throw InputError(SourceLocation{}, flag, e.what());
    }
  };
  if (!o.max_events.empty()) {
    budget.events = read("--max-events", o.max_events, app::parse_count);
  }
  if (!o.max_memory.empty()) {
    budget.memory_bytes =
        read("--max-memory", o.max_memory, [](const std::string& t) { return parse_bytes(t); });
  }
  return budget;
}

// Refuses (exit 2) a run whose estimate passes its budget, unless --force. Returns the estimate.
RunEstimate check_budget(const Scenario& s, const std::vector<PolicyConfig>& policies,
                         std::size_t seeds, const RunOptions& o) {
  const RunEstimate estimate =
      estimate_run(s, app::run_plan(policies, seeds, !o.output.empty() && o.series != "none"));
  enforce_budget(estimate, read_budget(o), o.force, s.path, std::cerr);
  return estimate;
}

// The files of --output: all or none of them (app::StagedDir: a failure leaves the folder's
// earlier files). The records --records leaves out are left out of result.json, and their CSV
// file (jobs.csv, attempts.csv) is not written (an earlier run's is removed); metrics.om.txt is
// written before they are left out, so that its counters count every event.
class Outputs {
 public:
  // Starts writing into `dir` from the whole `result`.
  Outputs(const std::string& dir, const app::RunResult& result) : staged_(dir) {
    staged_.write("metrics.om.txt",
                  [&](std::ostream& out) { app::write_openmetrics(out, result); });
  }

  // The rest, from `result` with its records left out, and the commit. Returns the files'
  // names.
  std::string finish(const app::RunResult& result) {
    app::save_result(result, staged_.path("result.json"));
    std::string names = "result.json, metrics.csv";
    const auto& omitted = result.metadata.records_omitted;
    const auto write = [&](const char* name, void (*fill)(std::ostream&, const app::RunResult&),
                           const char* record) {
      if (record != nullptr && std::find(omitted.begin(), omitted.end(), record) != omitted.end()) {
        staged_.drop(name);
        return;
      }
      staged_.write(name, [&](std::ostream& out) { fill(out, result); });
      if (std::string(name) != "metrics.csv") {
        names += std::string(", ") + name;
      }
    };
    write("metrics.csv", app::write_metrics_csv, nullptr);
    write("jobs.csv", app::write_jobs_csv, "jobs");
    write("attempts.csv", app::write_attempts_csv, "attempts");
    write("nodes.csv", app::write_node_series_csv, nullptr);
    write("cards.csv", app::write_card_series_csv, nullptr);
    staged_.commit();
    return names + ", metrics.om.txt";
  }

 private:
  app::StagedDir staged_;
};

// --output names a folder: checked before the runs, not after them when the outputs are written.
void check_output_folder(const RunOptions& o) {
  if (std::error_code ec; !o.output.empty() && std::filesystem::exists(o.output, ec) &&
                          !std::filesystem::is_directory(o.output, ec)) {
    throw InputError(
        SourceLocation{}, "--output",
        "'" + o.output + "' is a file; --output names a folder (created when missing)");
  }
}

// --records against the output and the scenario's mode.
void check_records(const RunOptions& o, const Scenario& s, app::OutputFormat format) {
  if (!o.records.empty() && o.output.empty() && format != app::OutputFormat::kJson) {
    throw InputError(SourceLocation{}, "--records",
                     "records are written only with --output DIR or --format json");
  }
  if (!o.records.empty() && s.run.mode == RunMode::kFill) {
    throw InputError(SourceLocation{}, "--records",
                     "the fill experiment (run.mode: fill) writes no per-job records");
  }
}

// The time series to write (--series, --series-step, --series-seed): only with --output.
std::optional<app::SeriesRequest> series_request(const RunOptions& o) {
  if (!o.output.empty()) {
    return app::SeriesRequest{o.series, o.series_step, o.series_seeds};
  }
  if (!o.series.empty() || !o.series_step.empty() || !o.series_seeds.empty()) {
    throw InputError(SourceLocation{},
                     !o.series.empty()        ? "--series"
                     : !o.series_step.empty() ? "--series-step"
                                              : "--series-seed",
                     "time series are written only with --output DIR");
  }
  return std::nullopt;
}

// The FGD experiment (run.mode: fill, docs/fgd.md).
int run_fill(const RunOptions& o, const Scenario& s, const std::vector<PolicyConfig>& policies,
             const std::vector<std::uint64_t>& seeds, app::OutputFormat format,
             std::optional<Duration> timeout) {
  const int n = thread_count(o.threads);
  app::FillGuards guards;
  guards.timeout = timeout;
  guards.budget = read_budget(o);
  guards.force = o.force;
  return app::run_fill_scenario(s, policies, seeds, n, format, o.output, std::cout, guards);
}

// The comparison on standard output, in `format`.
void print_result(const RunOptions& o, const Scenario& s, const std::string& path,
                  const app::RunResult& result, app::OutputFormat format, const OfferedLoad& load,
                  std::size_t seeds, double wall) {
  const std::size_t policies = result.policy_names().size();
  app::TableOptions table;
  table.reference = result.reference;
  table.no_reference = o.no_reference || !result.reference;
  table.headline = format == app::OutputFormat::kTable && !o.all_metrics;
  if (format == app::OutputFormat::kJson) {
    app::write_result(std::cout, result);
    std::cout << "\n";
    return;
  }
  if (format == app::OutputFormat::kTable) {
    std::cout << fmt::format("scenario {} ({}), {} seed{}, {} polic{}; simulated in {:.2f} s\n",
                             s.name, path, seeds, seeds == 1 ? "" : "s", policies,
                             policies == 1 ? "y" : "ies", wall);
    const auto lines = offered_load_lines(load, 0);
    if (!lines.empty()) {
      std::cout << lines.front()
                << (seeds > 1 ? fmt::format(" (seed {})", result.metadata.seeds.front())
                              : std::string())
                << "\n";
    }
    std::cout << makespan_line(load, app::policy_makespans(result)) << "\n\n";
  }
  std::cout << app::render_comparison(app::build_comparison(result, table), format);
}

int run(const RunOptions& o) {
  app::RunRequest request;
  request.path = o.scenario.empty() ? default_scenario_path() : o.scenario;
  for (const auto& text : o.sets) {
    request.overrides.push_back(parse_override(text));
  }
  const Scenario s = load_scenario_with(request.path, request.overrides, "--set", o.registry);
  const auto format = app::parse_output_format(o.format);
  request.headline = app::parse_metric_names(o.metrics, "--metrics");
  check_output_folder(o);
  request.timeout = parse_timeout(o.timeout);
  const std::vector<std::string> omitted =
      app::records_omitted_by(o.records.empty() ? "all" : o.records);
  check_records(o, s, format);
  if (s.run.mode == RunMode::kFill) {
    return run_fill(o, s, app::select_policies(s, o.policies), app::run_seeds(s, o.seeds), format,
                    request.timeout);
  }
  request.policy_specs = o.policies;
  request.seeds = o.seeds;
  request.threads = o.threads;
  request.series = series_request(o);
  request.budget = read_budget(o);
  request.force = o.force;
  request.progress = o.quiet      ? app::ProgressMode::kNever
                     : o.progress ? app::ProgressMode::kAlways
                                  : app::ProgressMode::kAuto;
  request.reference = !o.no_reference;
  app::RunOutcome outcome = app::run_scenario(s, request, std::cerr);
  app::RunResult& result = outcome.result;
  for (const auto& w : result.metadata.warnings) {
    std::cerr << "tidesim: warning: " << request.path << ": " << w << "\n";
  }
  std::optional<Outputs> outputs;
  if (!o.output.empty()) {
    outputs.emplace(o.output, result);
  }
  if (!omitted.empty()) {
    app::omit_records(result, omitted);
  }
  print_result(o, s, request.path, result, format, outcome.load, result.metadata.seeds.size(),
               outcome.wall_s);
  if (outputs) {
    const std::string names = outputs->finish(result);
    if (!o.quiet) {
      std::cerr << "tidesim: wrote " << names << " to " << o.output << "\n";
    }
  }
  return 0;
}

// True when `path` holds a KubeSchedulerConfiguration (its first document's kind says so).
bool is_scheduler_config(const std::string& path) {
  try {
    const ConfigNode doc = load_yaml_file(path);
    return doc.is_map() && doc["kind"] && doc["kind"].is_scalar() &&
           doc["kind"].scalar() == "KubeSchedulerConfiguration";
  } catch (const InputError&) {
    return false;  // the scenario reader reports the error (syntax, unreadable file) with its place
  }
}

// Builds every profile of a KubeSchedulerConfiguration file as a run would, from one load.
std::string validate_scheduler_config(const std::string& path,
                                      const policies::RegistryPtr& registry) {
  const auto loaded = policies::load_profile_file(path, registry);
  const policies::SchedulerConfig& cfg = loaded->config;
  std::string names;
  for (const auto& p : cfg.profiles) {
    policies::SchedulerOptions options;
    options.profile = p.scheduler_name;
    (void)policies::make_scheduler(*loaded, 1, options);
    names += (names.empty() ? "" : ", ") + p.scheduler_name;
  }
  return fmt::format("ok (KubeSchedulerConfiguration, {} profile{}: {})", cfg.profiles.size(),
                     cfg.profiles.size() == 1 ? "" : "s", names);
}

int validate(const std::vector<std::string>& files, const RunOptions& o) {
  int bad = 0;
  for (const auto& f : files) {
    try {
      if (is_scheduler_config(f)) {
        // Checked before anything is printed: an error leaves no stray "FILE: " on stdout.
        const std::string verdict = validate_scheduler_config(f, o.registry);
        std::cout << f << ": " << verdict << "\n";
        continue;
      }
      const Scenario s = load_scenario(f, nullptr, o.registry);
      if (s.run.mode == RunMode::kFill) {  // what the fill experiment reads (docs/fgd.md)
        const FillScenario fill = fill_scenario(s);
        for (const auto& p : s.policies) {
          (void)fill_policy(s, p);
        }
        std::cout << fmt::format("{}: ok (fill: {} nodes, {} pods, {} policies)\n", f,
                                 fill.input.nodes.size(), fill.input.pods.size(),
                                 s.policies.size());
        continue;
      }
      // The guards of `run` (its estimate of the scenario's runs, every policy and seed), before
      // any job is built: a job list of 10^7 jobs alone needs tens of GB.
      (void)check_budget(s, s.policies, s.seeds.size(), o);
      // Everything a run builds: the cluster (topologies, GPU models), every policy, the jobs of
      // the first seed and their model profiles on each GPU model.
      const auto jobs = make_jobs(s, s.seeds.front());
      for (const auto& w : check_scenario(s, jobs)) {
        std::cerr << "tidesim: warning: " << f << ": " << w << "\n";
      }
      const OfferedLoad load = offered_load(s, jobs);
      if (const auto w = overload_warning(load)) {
        std::cerr << "tidesim: warning: " << f << ": " << *w << "\n";
      }
      int nodes = 0;
      for (const auto& g : s.cluster.groups) {
        nodes += g.count;
      }
      std::cout << fmt::format("{}: ok ({} nodes, {} jobs for seed {}, {} policies)\n", f, nodes,
                               jobs.jobs.size(), s.seeds.front(), s.policies.size());
      for (const auto& line : offered_load_lines(load)) {
        std::cout << "  " << line << "\n";
      }
    } catch (const InputError& e) {
      std::cerr << "tidesim: error: " << e.what() << "\n";
      ++bad;
    }
  }
  return bad == 0 ? 0 : 2;
}

}  // namespace

void add_run_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run", "Run a scenario and compare its policies (default: scenarios/seed-benchmark.yaml)");
  cmd->add_option("scenario", opts->scenario, "Scenario file");
  cmd->add_option("--policy", opts->policies,
                  "Run only these policies (a name from the scenario, a built-in policy, or a "
                  "KubeSchedulerConfiguration file), as NAME or NAME=DEFINITION to label it; "
                  "repeatable, one label once");
  cmd->add_option("--seed", opts->seeds,
                  "Run only these seeds (overrides the scenario's); repeatable")
      ->check(non_negative_integer());
  cmd->add_option("--set", opts->sets,
                  "KEY=VALUE: change one value of the scenario before it is read, e.g. "
                  "cluster.node_groups[0].count=4 or run.until=2h (docs/sweeps.md); repeatable");
  cmd->add_option("--format", opts->format, "Output: table, json or csv")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  cmd->add_option("--output", opts->output,
                  "Also write result.json, metrics.csv, jobs.csv, nodes.csv, cards.csv and "
                  "metrics.om.txt (OpenMetrics) into this folder; time series as --series, "
                  "--series-step and --series-seed choose (default: every node's, for the first "
                  "seed)");
  cmd->add_option("--series", opts->series,
                  "With --output: none (no time series), summary (cluster-level only) or full "
                  "(every node and card too; the default)")
      ->check(CLI::IsMember({"none", "summary", "full"}));
  cmd->add_option("--series-step", opts->series_step,
                  "With --output: keep one sample per this much simulated time (e.g. 1h; "
                  "default: every run.sample_interval)");
  cmd->add_option("--series-seed", opts->series_seeds,
                  "With --output: record series for this seed (repeatable) or 'all' (default: "
                  "the first seed)");
  cmd->add_option("--records", opts->records,
                  "With --output or --format json: the per-run records result.json keeps: all "
                  "(the default), none, or a list of jobs, events, attempts joined by commas "
                  "(e.g. jobs); what it leaves out is named in its metadata, and the readers "
                  "that need it refuse it (docs/outputs.md)");
  cmd->add_option("--max-events", opts->max_events,
                  "Refuse a run estimated at more events than this (default 1e9; "
                  "docs/robustness.md)");
  cmd->add_option("--max-memory", opts->max_memory,
                  "Refuse a run estimated to need more memory than this (default 16GiB)");
  cmd->add_flag("--force", opts->force, "Run even when the estimate is over a budget");
  cmd->add_option("--timeout", opts->timeout,
                  "Stop after this much wall-clock time (e.g. 10m), exit 1, write nothing");
  cmd->add_option("--threads", opts->threads,
                  "Runs in parallel (default: the machine's cores); results do not depend on it")
      ->check(CLI::Range(1, 1024));
  cmd->add_flag("--no-reference", opts->no_reference, "Leave out the published-figures column");
  cmd->add_flag("--all-metrics", opts->all_metrics,
                "Every metric in the table, not only the study's headline metrics");
  cmd->add_option("--metrics", opts->metrics,
                  "METRIC,...: the headline metrics (the table's rows, the report's charts, what "
                  "check tests) instead of the scenario's report.metrics or the default set")
      ->delimiter(',');
  add_progress_flags(*cmd, opts->progress, opts->quiet);
  cmd->callback([&ctx, opts] {
    ctx.input = opts->scenario;
    opts->registry = ctx.registry;
    ctx.run = [opts] { return run(*opts); };
  });
}

void add_validate_command(CLI::App& app, Context& ctx) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto opts = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("validate", "Check scenario files without running them");
  cmd->add_option("scenarios", *files, "Scenario files")->required();
  cmd->add_option("--max-events", opts->max_events,
                  "Refuse a scenario whose run is estimated at more events than this, as run "
                  "does (default 1e9; docs/robustness.md)");
  cmd->add_option("--max-memory", opts->max_memory,
                  "Refuse a scenario whose run is estimated to need more memory than this "
                  "(default 16GiB)");
  cmd->add_flag("--force", opts->force, "Check it even when the estimate is over a budget");
  cmd->callback([&ctx, files, opts] {
    ctx.input = files->size() == 1 ? files->front() : "";
    opts->registry = ctx.registry;
    ctx.run = [files, opts] { return validate(*files, *opts); };
  });
}

}  // namespace tidesim::cli
