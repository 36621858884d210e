// `tidesim report`: turns a saved result (JSON) into the HTML report, the comparison table
// (table, JSON, CSV), per-job and per-node CSV files, or OpenMetrics text.
#include <fmt/core.h>

#include <unistd.h>
#include <algorithm>

#include <cctype>
#include <cstdlib>
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
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/openmetrics.hpp"
#include "tidesim/tools/lib/report_html.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/lib/result_records.hpp"
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
  /// `--metrics`: the headline set (the table's rows, the report's bars) instead of the result's.
  std::vector<std::string> metrics;
  /// Also write every chart as an SVG file into this folder.
  std::string figures;
};

// A file name from a chart's title: lower-case letters and digits, other runs as one '-'.
std::string slug(const std::string& title) {
  std::string out;
  for (const unsigned char c : title) {
    if (std::isalnum(c)) {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') {
    out.pop_back();
  }
  return out.substr(0, 80);
}

// The headless browser that prints a report to PDF: chromium (Debian's package), found on PATH.
std::optional<std::string> find_chromium() {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    for (const char* name : {"chromium", "chromium-browser"}) {
      const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / name;
      std::error_code ec;
      if (std::filesystem::is_regular_file(candidate, ec) && access(candidate.c_str(), X_OK) == 0) {
        return candidate.string();
      }
    }
    start = end + 1;
  }
  return std::nullopt;
}

// A shell word: `text` in single quotes.
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) {
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  }
  return out + "'";
}

// Prints `html` to the PDF file `pdf` with headless chromium (--print-to-pdf).
void print_pdf(const std::string& chromium, const std::string& html, const std::string& pdf) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tidesim-report-" + std::to_string(static_cast<long long>(getpid())));
  std::filesystem::create_directories(dir);
  const std::filesystem::path page = dir / "report.html";
  std::ofstream(page) << html;
  const std::string out = std::filesystem::absolute(pdf).string();
  const std::string command =
      quoted(chromium) +
      " --headless --disable-gpu --no-sandbox --no-pdf-header-footer "
      "--user-data-dir=" +
      quoted((dir / "profile").string()) + " --print-to-pdf=" + quoted(out) + " " +
      quoted("file://" + page.string()) + " > " + quoted((dir / "chromium.log").string()) + " 2>&1";
  const int rc = std::system(command.c_str());
  std::error_code ec;
  const bool written =
      std::filesystem::is_regular_file(out, ec) && std::filesystem::file_size(out, ec) > 0;
  std::filesystem::remove_all(dir, ec);
  if (rc != 0 || !written) {
    throw std::runtime_error("chromium could not print the report to " + pdf + " (exit " +
                             std::to_string(rc) + ")");
  }
}

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
  if (ext == ".csv" || ext == ".json" || ext == ".pdf") {
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

// The chromium that prints a PDF report: refused up front without an output file or chromium.
std::string pdf_printer(const ReportArgs& args) {
  if (args.output.empty() || args.output == "-") {
    throw InputError(SourceLocation{}, "--format", "pdf needs an output file (-o report.pdf)");
  }
  std::optional<std::string> chromium = find_chromium();
  if (!chromium) {
    throw InputError(SourceLocation{}, "--output",
                     "a PDF report is printed by headless chromium, which is not on PATH "
                     "(Debian: apt-get install chromium); write the HTML report instead (-o "
                     "report.html) and print it from a browser");
  }
  return *chromium;
}

// A result written with `run --records` lacks some records: what needs them is refused before
// anything is written (an empty list would chart or count as "none happened").
void require_records(const app::RunResult& result, const ReportArgs& args, bool charts) {
  if (charts) {
    app::require_records(result, "jobs", "the report (its wait and completion-time CDFs)",
                         args.result_path);
    app::require_records(result, "events", "the report (its event timeline)", args.result_path);
  }
  if (!args.jobs_csv.empty()) {
    app::require_records(result, "jobs", "--jobs-csv", args.result_path);
  }
  if (!args.openmetrics.empty()) {
    app::require_records(result, "events",
                         "--openmetrics (its OOM-kill, eviction and restart "
                         "counters)",
                         args.result_path);
  }
}

// --seed names a seed of the result, and when charted one whose time series were recorded.
void check_seed(const app::RunResult& result, const ReportArgs& args, std::uint64_t seed,
                bool charts) {
  bool found = false;
  for (const auto& run : result.runs) {
    found = found || run.seed == seed;
  }
  if (!found) {
    throw InputError(SourceLocation{}, "--seed",
                     fmt::format("seed {} is not in {}", seed, args.result_path));
  }
  // Its charts need its time series: a seed whose series were not recorded would chart nothing.
  bool series = false;
  for (const auto& run : result.runs) {
    series = series || (run.seed == seed && run.series);
  }
  if (charts && !series) {
    throw InputError(SourceLocation{}, "--seed",
                     fmt::format("seed {}'s time series were not recorded in {} (record them "
                                 "with `tidesim run --series full --series-seed {}`)",
                                 seed, args.result_path, seed));
  }
}

// Writes each chart into `folder` as NN-<its title>.svg.
void write_figures(const std::string& folder, const std::vector<app::ReportFigure>& figures) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec || !std::filesystem::is_directory(folder)) {
    throw InputError(SourceLocation{folder, 0, 0}, "--figures",
                     "cannot create the folder" + (ec ? ": " + ec.message() : std::string()));
  }
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const std::string name = fmt::format("{:02}-{}.svg", i + 1, slug(figures[i].title));
    write_file((std::filesystem::path(folder) / name).string(),
               [&](std::ostream& out) { out << figures[i].svg; });
  }
}

// The comparison table in `format`: a sweep's merged result has its policies compared within
// each variant, as `tidesim sweep` prints them (the headline metrics in the table, unless
// --all-metrics).
std::string comparison_text(const app::RunResult& result, const std::string& format,
                            app::TableOptions table, bool all_metrics) {
  if (const auto view = app::sweep_view(result)) {
    const auto as = app::parse_output_format(format, "--format");
    table.headline = as == app::OutputFormat::kTable && !all_metrics;
    return app::render_sweep_comparison(app::build_sweep_comparison(result, *view, table), as);
  }
  return app::render_comparison(app::build_comparison(result, table),
                                app::parse_output_format(format, "--format"));
}

// --jobs-csv, --nodes-csv, --cards-csv and --openmetrics, those given.
void write_side_files(const app::RunResult& result, const ReportArgs& args) {
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
}

int run_report(const ReportArgs& args) {
  const std::string format = report_format(args);
  const bool page = format == "html" || format == "pdf";
  const bool charts = page || !args.figures.empty();
  // A PDF is the HTML report printed by headless chromium: refused up front without it.
  const std::string chromium = format == "pdf" ? pdf_printer(args) : std::string();
  app::RunResult result = app::load_result(args.result_path);
  require_records(result, args, charts);
  app::TableOptions table;
  if (!args.metrics.empty()) {
    result.metadata.headline_metrics = app::parse_metric_names(args.metrics, "--metrics");
  }
  table.no_reference = args.no_reference;
  if (args.seed_reference) {
    table.reference = app::seed_reference();
  }
  if (args.seed) {
    check_seed(result, args, *args.seed, charts);
  }
  std::string text;
  if (charts) {
    std::vector<app::ReportFigure> figures;
    app::ReportOptions options;
    options.seed = args.seed;
    options.table = table;
    options.figures = args.figures.empty() ? nullptr : &figures;
    std::string html = app::render_report_html(result, options);
    if (page) {
      text = std::move(html);
    }
    if (!args.figures.empty()) {
      write_figures(args.figures, figures);
    }
  }
  if (format == "pdf") {
    print_pdf(chromium, text, args.output);
  } else {
    if (!page) {
      // With --metrics the table is those rows (and all of them with --all-metrics too).
      app::TableOptions rows = table;
      rows.headline = !args.metrics.empty() && !args.all_metrics;
      text = comparison_text(result, format, rows, args.all_metrics);
    }
    if (args.output.empty() || args.output == "-") {
      std::cout << text;
    } else {
      write_file(args.output, [&text](std::ostream& out) { out << text; });
    }
  }
  write_side_files(result, args);
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
      ".html/.htm html, .pdf pdf, .csv csv, .json json, .txt table, anything else html");
  cmd->add_option("--format", args->format,
                  "html, pdf (the HTML report printed by headless chromium), table, json or csv")
      ->check(CLI::IsMember({"html", "pdf", "table", "json", "csv"}));
  cmd->add_option("--figures", args->figures,
                  "Also write every chart of the HTML report as an SVG file into this folder "
                  "(NN-title.svg, in report order)");
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
  cmd->add_option("--metrics", args->metrics,
                  "METRIC,...: the headline metrics (the table's rows, the report's charts) "
                  "instead of those the result was run with")
      ->delimiter(',');
  cmd->callback([&ctx, args] {
    ctx.input = args->result_path;
    ctx.run = [args] { return run_report(*args); };
  });
}

}  // namespace tidesim::cli
