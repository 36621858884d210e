// `tidesim trace stats FILE` and `tidesim trace convert IN OUT`: summaries of job traces and
// conversion to the native format (docs/traces.md).
#include <fmt/core.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/tools/cli/commands.hpp"
#include "tidesim/workloads/trace.hpp"
#include "tidesim/workloads/trace_summary.hpp"

namespace tidesim::cli {
namespace {

struct TraceOptions {
  std::string file;
  std::string format = "table";
  std::string from = "auto";
  std::string in;
  std::string out;
  std::string to = "native";
  std::string id;
};

const std::vector<std::string> kInputFormats{"auto", "native", "openb",   "philly",
                                             "acme", "helios", "pai2020", "gfs"};

// A summary value as the published CSV writes it: empty when the trace cannot say, else the
// shortest text that reads back as the same double.
std::string summary_cell(const workloads::SummaryValue& v) {
  return v ? fmt::format("{}", *v) : "";
}

nlohmann::json summary_json(const std::vector<workloads::SummaryValue>& values) {
  nlohmann::json j = nlohmann::json::object();
  const auto& columns = workloads::cluster_summary_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    j[columns[i]] = values[i] ? nlohmann::json(*values[i]) : nlohmann::json(nullptr);
  }
  return j;
}

// `id` and the summary's columns, then one row: the layout of AcmeTrace's cluster_summary.csv.
void print_summary_csv(const std::string& id, const std::vector<workloads::SummaryValue>& values) {
  std::vector<std::string> header{"id"};
  std::vector<std::string> row{id};
  const auto& columns = workloads::cluster_summary_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    header.push_back(columns[i]);
    row.push_back(summary_cell(values[i]));
  }
  fmt::print("{}\n{}\n", csv_record(header), csv_record(row));
}

void print_summary_table(const std::vector<workloads::SummaryValue>& values) {
  fmt::print("\ncluster summary (AcmeTrace cluster_summary.csv columns; - : not in this trace)\n");
  const auto& columns = workloads::cluster_summary_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    fmt::print("  {:<24} {}\n", columns[i], values[i] ? fmt::format("{:.6g}", *values[i]) : "-");
  }
}

std::string with_commas(std::int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) {
    s.insert(static_cast<std::size_t>(i), ",");
  }
  return (v < 0 ? "-" : "") + s;
}

nlohmann::json stats_json(const workloads::Trace& trace, const workloads::TraceStats& s) {
  nlohmann::json j;
  j["file"] = trace.file;
  j["format"] = workloads::to_string(trace.format);
  j["jobs"] = s.jobs;
  nlohmann::json hist = nlohmann::json::object();
  for (const auto& [gpus, n] : s.gpu_histogram) {
    hist[std::to_string(gpus)] = n;
  }
  j["gpu_histogram"] = hist;
  j["fractional_gpu_jobs"] = s.fractional;
  j["censored"] = s.censored;
  j["never_scheduled"] = s.unscheduled;
  j["jobs_with_duration"] = s.with_duration;
  nlohmann::json pct = nlohmann::json::object();
  for (const auto& [q, v] : s.duration_percentiles) {
    pct["p" + std::to_string(q)] = v;
  }
  j["duration_s"] = pct;
  if (s.with_duration > 0) {
    j["duration_s"]["mean"] = s.duration_mean;
  }
  j["submit_span_s"] = {s.first_submit, s.last_submit};
  nlohmann::json phases = nlohmann::json::object();
  for (const auto& [p, n] : s.phases) {
    phases[p] = n;
  }
  j["phases"] = phases;
  j["cluster_summary"] = summary_json(workloads::cluster_summary(trace));
  return j;
}

void print_table(const workloads::Trace& trace, const workloads::TraceStats& s) {
  fmt::print("trace   {} ({})\n", trace.file, workloads::to_string(trace.format));
  fmt::print("jobs    {}\n", with_commas(s.jobs));
  fmt::print("\nGPUs per job   jobs      share\n");
  for (const auto& [gpus, n] : s.gpu_histogram) {
    fmt::print("{:>12}   {:>7}   {:>6.2f}%\n", gpus, with_commas(n),
               100.0 * static_cast<double>(n) / static_cast<double>(s.jobs));
  }
  fmt::print("\nfractional-GPU jobs (gpu_milli < 1000): {}\n", with_commas(s.fractional));
  fmt::print("still running at trace end (censored):  {}\n", with_commas(s.censored));
  fmt::print("never scheduled:                        {}\n", with_commas(s.unscheduled));
  if (!s.phases.empty()) {
    std::string phases;
    for (const auto& [p, n] : s.phases) {
      phases += (phases.empty() ? "" : ", ") + p + " " + with_commas(n);
    }
    fmt::print("phases: {}\n", phases);
  }
  if (s.with_duration > 0) {
    fmt::print("\nduration (s) of {} jobs:\n", with_commas(s.with_duration));
    fmt::print(
        "  min {:.0f}  p25 {:.0f}  p50 {:.0f}  p75 {:.0f}  p90 {:.0f}  p99 {:.0f}  max {:.0f}"
        "  mean {:.0f}\n",
        s.duration_percentiles.at(0), s.duration_percentiles.at(25), s.duration_percentiles.at(50),
        s.duration_percentiles.at(75), s.duration_percentiles.at(90), s.duration_percentiles.at(99),
        s.duration_percentiles.at(100), s.duration_mean);
  } else {
    fmt::print("\nno durations in this trace\n");
  }
  fmt::print("submitted from {:.0f} s to {:.0f} s\n", s.first_submit, s.last_submit);
  print_summary_table(workloads::cluster_summary(trace));
}

}  // namespace

void add_trace_command(CLI::App& app, Context& ctx) {
  auto opts = std::make_shared<TraceOptions>();
  auto* cmd = app.add_subcommand("trace",
                                 "Summarise or convert job traces (openb, philly, acme, helios, "
                                 "pai2020, gfs, native)");
  cmd->require_subcommand(1);

  auto* stats = cmd->add_subcommand(
      "stats",
      "Counts, GPU-size histogram, duration percentiles and AcmeTrace's cluster summary columns");
  stats->add_option("file", opts->file, "Trace file (PAI-2020: pai_job_table.csv)")->required();
  stats
      ->add_option("--format", opts->format,
                   "Output: table, json, or csv (AcmeTrace's cluster_summary.csv columns)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  stats
      ->add_option("--from", opts->from,
                   "Input format: auto, native, openb, philly, acme, helios, pai2020, gfs")
      ->check(CLI::IsMember(kInputFormats));
  stats->add_option("--id", opts->id, "The csv row's id (default: the file's name without .csv)");
  stats->callback([&ctx, opts] {
    ctx.input = opts->file;
    ctx.run = [opts] {
      const auto trace =
          workloads::read_trace(opts->file, workloads::parse_trace_format(opts->from, "--from"));
      if (opts->format == "csv") {
        const std::string id =
            opts->id.empty() ? std::filesystem::path(opts->file).stem().string() : opts->id;
        print_summary_csv(id, workloads::cluster_summary(trace));
        return 0;
      }
      const auto s = workloads::compute_stats(trace);
      if (opts->format == "json") {
        fmt::print("{}\n", stats_json(trace, s).dump(2));
      } else {
        print_table(trace, s);
      }
      return 0;
    };
  });

  auto* convert = cmd->add_subcommand("convert", "Convert a trace to the native format");
  convert->add_option("in", opts->in, "Input trace")->required();
  convert->add_option("out", opts->out, "Output file ('-' for standard output)")->required();
  convert
      ->add_option("--from", opts->from,
                   "Input format: auto, native, openb, philly, acme, helios, pai2020, gfs")
      ->check(CLI::IsMember(kInputFormats));
  convert->add_option("--to", opts->to, "Output format (native)")->check(CLI::IsMember({"native"}));
  convert->callback([&ctx, opts] {
    ctx.input = opts->in;
    ctx.run = [opts] {
      const auto trace =
          workloads::read_trace(opts->in, workloads::parse_trace_format(opts->from, "--from"));
      if (opts->out == "-") {
        std::ostringstream ss;
        workloads::write_native(trace, ss);
        fmt::print("{}", ss.str());
        return 0;
      }
      std::ofstream out(opts->out, std::ios::binary);
      if (!out) {
        throw InputError(SourceLocation{opts->out, 0, 0}, "", "cannot write file");
      }
      workloads::write_native(trace, out);
      out.close();
      if (!out) {
        fmt::print(stderr, "tidesim: failed writing {}\n", opts->out);
        return 1;
      }
      fmt::print(stderr, "wrote {} jobs to {}\n",
                 with_commas(static_cast<std::int64_t>(trace.records.size())), opts->out);
      return 0;
    };
  });
}

}  // namespace tidesim::cli
