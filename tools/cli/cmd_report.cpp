// `tidesim report`: turns a saved result (JSON) into the HTML report, the comparison table
// (table, JSON, CSV), per-job and per-node CSV files, or OpenMetrics text.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/tools/cli/options.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/openmetrics.hpp"
#include "tidesim/tools/lib/report_html.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::cli {
namespace {

struct ReportArgs {
  std::string result_path;
  std::string output;
  std::string format;
  std::optional<std::uint64_t> seed;
  std::string jobs_csv;
  std::string nodes_csv;
  std::string cards_csv;
  std::string openmetrics;
  bool seed_names = false;
  bool base_units = false;  // the default since the names follow Prometheus' conventions
  std::int64_t epoch = app::OpenMetricsOptions{}.epoch_unix_s;
  bool no_reference = false;
  bool seed_reference = false;
  bool all_metrics = false;
};

template <class F>
void write_file(const std::string& path, F&& write) {
  std::ofstream out(path);
  if (!out) {
    throw InputError(SourceLocation{path, 0, 0}, "", "cannot open the file for writing");
  }
  write(out);
  if (!out) {
    throw std::runtime_error("failed writing " + path);
  }
}

// The format a file name's extension says (".html", ".htm", ".csv", ".json", ".txt": table), or
// "" for any other name.
std::string format_of_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".html" || ext == ".htm") {
    return "html";
  }
  if (ext == ".csv" || ext == ".json") {
    return ext.substr(1);
  }
  return ext == ".txt" ? "table" : "";
}

// --format, else what -o's extension says, else html for a file and table for stdout. A --format
// that contradicts the extension is refused: `-o r.csv --format html` is a mistake either way.
std::string report_format(const ReportArgs& args) {
  const bool to_file = !args.output.empty() && args.output != "-";
  const std::string by_name = to_file ? format_of_extension(args.output) : "";
  if (!args.format.empty() && !by_name.empty() && args.format != by_name) {
    throw InputError(SourceLocation{}, "--format",
                     fmt::format("'{}' contradicts the output file {} (its extension means {})",
                                 args.format, args.output, by_name));
  }
  if (!args.format.empty()) {
    return args.format;
  }
  if (!by_name.empty()) {
    return by_name;
  }
  return to_file ? "html" : "table";
}

int run_report(const ReportArgs& args) {
  const std::string format = report_format(args);
  const app::RunResult result = app::load_result(args.result_path);
  app::TableOptions table;
  table.no_reference = args.no_reference;
  if (args.seed_reference) {
    table.reference = app::seed_reference();
  }
  if (args.seed) {
    bool found = false;
    for (const auto& run : result.runs) {
      found = found || run.seed == *args.seed;
    }
    if (!found) {
      throw InputError(SourceLocation{}, "--seed",
                       fmt::format("seed {} is not in {}", *args.seed, args.result_path));
    }
  }
  std::string text;
  if (format == "html") {
    app::ReportOptions options;
    options.seed = args.seed;
    options.table = table;
    text = app::render_report_html(result, options);
  } else if (const auto view = app::sweep_view(result)) {
    // A sweep's merged result: its policies compared within each variant, as `tidesim sweep`
    // prints them (the headline metrics in the table, unless --all-metrics).
    const auto as = app::parse_output_format(format, "--format");
    table.headline = as == app::OutputFormat::kTable && !args.all_metrics;
    text = app::render_sweep_comparison(app::build_sweep_comparison(result, *view, table), as);
  } else {
    text = app::render_comparison(app::build_comparison(result, table),
                                  app::parse_output_format(format, "--format"));
  }
  if (args.output.empty() || args.output == "-") {
    std::cout << text;
  } else {
    write_file(args.output, [&text](std::ostream& out) { out << text; });
  }
  if (!args.jobs_csv.empty()) {
    write_file(args.jobs_csv, [&result](std::ostream& out) { app::write_jobs_csv(out, result); });
  }
  if (!args.nodes_csv.empty()) {
    write_file(args.nodes_csv,
               [&result](std::ostream& out) { app::write_node_series_csv(out, result); });
  }
  if (!args.cards_csv.empty()) {
    write_file(args.cards_csv,
               [&result](std::ostream& out) { app::write_card_series_csv(out, result); });
  }
  if (!args.openmetrics.empty()) {
    app::OpenMetricsOptions options;
    options.seed_names = args.seed_names;
    options.epoch_unix_s = args.epoch;
    write_file(args.openmetrics,
               [&](std::ostream& out) { app::write_openmetrics(out, result, options); });
  }
  return 0;
}

}  // namespace

void add_report_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand(
      "report", "Turn a result file into an HTML report, a table, CSV or OpenMetrics");
  cmd->add_option("result", args->result_path, "Result JSON written by `tidesim run`")->required();
  cmd->add_option(
      "-o,--output", args->output,
      "Write the report here (default: stdout); without --format the extension decides: "
      ".html/.htm html, .csv csv, .json json, .txt table, anything else html");
  cmd->add_option("--format", args->format, "html, table, json or csv")
      ->check(CLI::IsMember({"html", "table", "json", "csv"}));
  cmd->add_option("--seed", args->seed, "Chart this seed's time series (default: the first)")
      ->check(non_negative_integer());
  cmd->add_option("--jobs-csv", args->jobs_csv, "Also write per-job records as CSV");
  cmd->add_option("--nodes-csv", args->nodes_csv, "Also write per-node time series as CSV");
  cmd->add_option("--cards-csv", args->cards_csv, "Also write per-GPU time series as CSV");
  cmd->add_option("--openmetrics", args->openmetrics,
                  "Also write the time series as OpenMetrics text");
  cmd->add_flag("--seed-names", args->seed_names,
                "OpenMetrics: the seed's names ai_gpu_memory_utilization and ai_storage_await_ms "
                "(milliseconds) instead of ai_gpu_memory_utilization_ratio and "
                "ai_storage_await_seconds");
  // Accepted for old scripts: base units are the default now.
  cmd->add_flag("--base-units", args->base_units)->group("");
  cmd->add_option("--epoch", args->epoch,
                  "OpenMetrics: Unix time (s) of simulated time zero (default 2024-01-01)");
  cmd->add_flag("--no-reference", args->no_reference, "Leave out the reference column");
  cmd->add_flag("--seed-reference", args->seed_reference,
                "Use the seed's published figures as the reference column");
  cmd->add_flag("--all-metrics", args->all_metrics,
                "A sweep's table: every metric, not only the headline ones");
  cmd->callback([&ctx, args] {
    ctx.input = args->result_path;
    ctx.run = [args] { return run_report(*args); };
  });
}

}  // namespace tidesim::cli
