#include "tidesim/tools/lib/fill_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "tidesim/sim/input/csv.hpp"
#include "tidesim/tools/lib/staged_dir.hpp"
#include "tidesim/tools/lib/stats.hpp"
#include "tidesim/tools/lib/svg_chart.hpp"
#include "tidesim/tools/lib/watchdog.hpp"

namespace tidesim::app {

namespace {

// The runs of policy `p` (index into r.policies).
std::vector<const FillRun*> runs_of(const FillResult& r, std::size_t p) {
  std::vector<const FillRun*> out;
  for (std::size_t s = 0; s < r.seeds.size(); ++s) {
    out.push_back(&r.runs[p * r.seeds.size() + s]);
  }
  return out;
}

std::optional<Summary> at_x(const std::vector<const FillRun*>& runs, int x) {
  std::vector<double> v;
  for (const auto* run : runs) {
    if (const auto& c = run->curve[static_cast<std::size_t>(x)]) {
      v.push_back(*c);
    }
  }
  return summarize(v);
}

}  // namespace

void write_allocation_curve_csv(std::ostream& out, const FillResult& r) {
  out << "workload,sc_policy,tune,seed,total_gpus";
  for (int x = 0; x < kCurvePoints; ++x) {
    out << ',' << x;
  }
  out << '\n';
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    for (const auto* run : runs_of(r, p)) {
      out << csv_field(r.workload) << ',' << csv_field(r.policies[p]) << ',' << python_float(r.tune)
          << ',' << run->seed << ',' << run->total_gpus;
      for (const auto& c : run->curve) {
        out << ',';
        if (c) {
          out << python_float(*c);
        }
      }
      out << '\n';
    }
  }
}

std::string fill_table(const FillResult& r) {
  std::string s = fmt::format(
      "allocation (% of {} GPUs) at % of GPU capacity requested; mean over {} seed{} +- 95% CI\n",
      r.runs.empty() ? 0 : r.runs.front().total_gpus, r.seeds.size(),
      r.seeds.size() == 1 ? "" : "s");
  s += fmt::format("{:<16}", "policy");
  for (const int x : kTableX) {
    s += fmt::format("{:>16}", fmt::format("x={}", x));
  }
  s += fmt::format("{:>10}{:>10}\n", "pods", "failed");
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    const auto runs = runs_of(r, p);
    s += fmt::format("{:<16}", r.policies[p]);
    for (const int x : kTableX) {
      const auto sum = at_x(runs, x);
      std::string cell = "-";
      if (sum) {
        cell = sum->ci95_half ? fmt::format("{:.2f} +- {:.2f}", sum->mean, *sum->ci95_half)
                              : fmt::format("{:.2f}", sum->mean);
      }
      s += fmt::format("{:>16}", cell);
    }
    double pods = 0;
    double failed = 0;
    for (const auto* run : runs) {
      pods += static_cast<double>(run->pods);
      failed += static_cast<double>(run->failed);
    }
    const auto n = static_cast<double>(std::max<std::size_t>(1, runs.size()));
    s += fmt::format("{:>10.0f}{:>10.0f}\n", pods / n, failed / n);
  }
  return s;
}

std::string fill_json(const FillResult& r) {
  nlohmann::json j;
  j["scenario"] = r.scenario;
  j["mode"] = "fill";
  j["workload"] = r.workload;
  j["tune"] = r.tune;
  j["randomness"] = to_string(r.randomness);
  j["runs"] = nlohmann::json::array();
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    for (const auto* run : runs_of(r, p)) {
      nlohmann::json c = nlohmann::json::array();
      for (const auto& v : run->curve) {
        c.push_back(v ? nlohmann::json(*v) : nlohmann::json(nullptr));
      }
      j["runs"].push_back({{"policy", r.policies[p]},
                           {"seed", run->seed},
                           {"total_gpus", run->total_gpus},
                           {"pods", run->pods},
                           {"clones", run->clones},
                           {"failed", run->failed},
                           {"verdicts_computed", run->verdicts_computed},
                           {"verdicts_reused", run->verdicts_reused},
                           {"allocation_curve", c}});
    }
  }
  return j.dump(2);
}

std::string fill_report_html(const FillResult& r) {
  std::vector<ChartSeries> series;
  for (std::size_t p = 0; p < r.policies.size(); ++p) {
    ChartSeries s{r.policies[p], {}, {}};
    const auto runs = runs_of(r, p);
    for (int x = 0; x < kCurvePoints; ++x) {
      if (const auto sum = at_x(runs, x)) {
        s.x.push_back(x);
        s.y.push_back(sum->mean);
      }
    }
    series.push_back(std::move(s));
  }
  ChartOptions o;
  o.title = "GPU allocation against GPU requested (mean over seeds)";
  o.x_label = "GPU capacity requested (%)";
  o.y_label = "GPU capacity allocated (%)";
  o.height = 420;
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" +
                     xml_escape(r.scenario) + "</title></head><body>\n";
  html += "<h1>" + xml_escape(r.scenario) + ": allocation curve</h1>\n";
  html += "<p>" +
          xml_escape(fmt::format("workload {}, tune {}, randomness {}, {} seeds", r.workload,
                                 python_float(r.tune), to_string(r.randomness), r.seeds.size())) +
          "</p>\n";
  html += line_chart_svg(series, o);
  html += "\n<pre>" + xml_escape(fill_table(r)) + "</pre>\n</body></html>\n";
  return html;
}

int run_fill_scenario(const Scenario& s, const std::vector<PolicyConfig>& policies,
                      const std::vector<std::uint64_t>& seeds, int threads, OutputFormat format,
                      const std::string& output, std::ostream& out, const FillGuards& guards) {
  FillScenario fs = fill_scenario(s);
  const auto runs = static_cast<std::int64_t>(policies.size() * seeds.size());
  const RunEstimate estimate = estimate_fill(fs, runs, std::max(threads, 1));
  enforce_budget(estimate, guards.budget, guards.force, s.path, std::cerr);
  if (!guards.force) {
    fs.options.max_pods = guards.budget.events / std::max<std::int64_t>(estimate.nodes, 1);
  }
  Watchdog watchdog(guards.timeout);
  fs.options.interrupt = watchdog.flag();
  std::vector<policies::gpushare::Policy> ps;
  FillResult r;
  r.scenario = s.name;
  r.workload = fs.workload;
  r.tune = fs.options.tune;
  r.randomness = fs.options.randomness;
  r.seeds = seeds;
  for (const auto& p : policies) {
    ps.push_back(fill_policy(s, p));
    r.policies.push_back(p.name);
  }
  const auto t0 = std::chrono::steady_clock::now();
  r.runs = run_fill_sweep(fs.input, ps, seeds, fs.options, threads);
  watchdog.stop();
  const auto finished = std::count_if(r.runs.begin(), r.runs.end(),
                                      [](const FillRun& run) { return !run.interrupted; });
  if (finished < runs) {
    throw std::runtime_error(
        fmt::format("--timeout {} reached: {} of {} runs finished; no result written",
                    format_duration(*guards.timeout), finished, runs));
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  switch (format) {
    case OutputFormat::kJson:
      out << fill_json(r) << "\n";
      break;
    case OutputFormat::kCsv:
      write_allocation_curve_csv(out, r);
      break;
    case OutputFormat::kTable:
      out << fmt::format(
          "scenario {} ({}), fill mode, {} seed{}, {} polic{}, {} randomness; simulated in "
          "{:.2f} s\n\n",
          s.name, s.path, seeds.size(), seeds.size() == 1 ? "" : "s", policies.size(),
          policies.size() == 1 ? "y" : "ies", to_string(r.randomness), r.wall_seconds);
      out << fill_table(r);
      break;
  }
  if (!output.empty()) {
    StagedDir staged(output);  // both files or neither
    staged.write("allocation_curve.csv",
                 [&](std::ostream& f) { write_allocation_curve_csv(f, r); });
    staged.write("allocation_curve.html", [&](std::ostream& f) { f << fill_report_html(r); });
    staged.commit();
    std::cerr << "tidesim: wrote allocation_curve.csv, allocation_curve.html to " << output << "\n";
  }
  return 0;
}

}  // namespace tidesim::app
