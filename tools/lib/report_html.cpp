#include "tidesim/tools/lib/report_html.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string_view>

#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/tools/lib/report_headline.hpp"
#include "tidesim/tools/lib/report_table.hpp"
#include "tidesim/tools/lib/svg_chart.hpp"
#include "tidesim/tools/lib/svg_heatmap.hpp"
#include "tidesim/tools/lib/sweep_view.hpp"

namespace tidesim::app {
namespace {

// Time axis unit chosen from the run length: seconds up to 10 min, minutes up to 10 h, hours.
struct TimeUnit {
  double divisor;
  const char* name;
};

TimeUnit time_unit_for(double max_s) {
  if (max_s <= 600.0) {
    return {1.0, "s"};
  }
  if (max_s <= 36000.0) {
    return {60.0, "min"};
  }
  return {3600.0, "h"};
}

std::vector<double> scaled(const std::vector<double>& t, const TimeUnit& unit) {
  std::vector<double> out;
  out.reserve(t.size());
  for (const double x : t) {
    out.push_back(x / unit.divisor);
  }
  return out;
}

// A chart as a paragraph of its own.
std::string image(const std::string& svg, const std::string& alt) {
  return report_image(svg, alt);
}

// Whether every value of `rows` is zero (or there is none): a heatmap of them is not drawn.
bool all_zero(const std::vector<HeatmapRow>& rows) {
  return std::all_of(rows.begin(), rows.end(), [](const HeatmapRow& r) {
    return std::all_of(r.value.begin(), r.value.end(), [](double v) { return v == 0.0; });
  });
}

// Whether every y of `series` is zero (or there is none).
bool all_zero(const std::vector<ChartSeries>& series) {
  return std::all_of(series.begin(), series.end(), [](const ChartSeries& c) {
    return std::all_of(c.y.begin(), c.y.end(), [](double v) { return v == 0.0; });
  });
}

const SeedRun* charted_run(const RunResult& result, const std::string& policy,
                           const ReportOptions& options) {
  for (const auto* run : result.runs_of(policy)) {
    if (run->series && (!options.seed || run->seed == *options.seed)) {
      return run;
    }
  }
  return nullptr;
}

}  // namespace

namespace {

// ---- the report's sections --------------------------------------------------------------------

// The time axis every time chart shares: [0, the longest charted run] in a unit chosen from it.
struct TimeAxis {
  TimeUnit unit;
  std::string label;
  double max;
};

TimeAxis time_axis(const RunResult& result, const std::vector<std::string>& policies,
                   const ReportOptions& options) {
  double max_t = 0.0;
  for (const auto& p : policies) {
    if (const auto* run = charted_run(result, p, options)) {
      max_t = std::max(max_t, run->end_s);
    }
  }
  const TimeUnit unit = time_unit_for(max_t);
  return TimeAxis{unit, fmt::format("simulated time ({})", unit.name),
                  max_t > 0 ? max_t / unit.divisor : 1.0};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : ", ") + item;
  }
  return out;
}

// The document's head, title and the table of what was run.
std::string header_html(const RunMetadata& meta, const std::vector<std::string>& policies) {
  std::string seeds;
  for (const auto s : meta.seeds) {
    seeds += (seeds.empty() ? "" : ", ") + std::to_string(s);
  }
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>tidesim "
      "report: " +
      xml_escape(meta.scenario_name) +
      "</title>\n<style>\nbody{font-family:Helvetica,Arial,sans-serif;margin:24px;max-width:1000px;"
      "color:#222}\ntable{border-collapse:collapse;margin:8px 0}\nth,td{border:1px solid "
      "#ccc;padding:3px 8px}\nth{background:#f2f2f2}\ntd.num{text-align:right;font-variant-numeric:"
      "tabular-nums}\nimg{max-width:100%}\n.meta td{border:none;padding:1px 8px}\n.meta "
      "td:first-child{white-space:nowrap}\n"
      ".bars{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}\n</style>\n"
      "</head>\n<body>\n";
  html += "<h1>tidesim report: " + xml_escape(meta.scenario_name) + "</h1>\n";
  html += "<table class=\"meta\">\n";
  const auto meta_row = [&html](const std::string& k, const std::string& v) {
    html += "<tr><td>" + xml_escape(k) + "</td><td>" + xml_escape(v) + "</td></tr>\n";
  };
  meta_row("scenario file", meta.scenario_path);
  meta_row("scenario hash", meta.scenario_hash);
  if (!meta.cluster.empty()) {
    meta_row("cluster", meta.cluster);
  }
  if (!meta.workload.empty()) {
    meta_row("workload", meta.workload);
  }
  meta_row("tidesim version", meta.tidesim_version);
  meta_row("policies", joined(policies));
  meta_row("seeds", seeds);
  html += "</table>\n";
  return html;
}

// The table of every metric, last and folded: a <details> opened by its summary line.
std::string metrics_html(const ComparisonTable& table, const std::vector<std::string>& policies) {
  return "<h2 id=\"all-metrics\">All metrics</h2>\n<details id=\"all-metrics-table\">\n<summary>"
         "The comparison table of every metric (" +
         std::to_string(table.rows.size()) +
         " rows)</summary>\n<p>Mean over seeds; ± is the half-width of the 95% "
         "confidence interval (Student t). Change is relative to " +
         xml_escape(policies.empty() ? std::string("-") : policies[0]) +
         " (a share's in percentage points, pp); * marks a paired difference whose 95% CI "
         "excludes 0. " +
         xml_escape(mark_legend(table.seeds)) + " Definitions: docs/metrics.md.</p>\n" +
         comparison_table_html(table) + "</details>\n";
}

// One heatmap row per node of `run`: GPU utilisation (mean of cards) and memory in use / capacity,
// each ending where the run ended.
void node_rows(const SeedRun& run, const TimeUnit& unit, std::vector<HeatmapRow>& util,
               std::vector<HeatmapRow>& mem) {
  for (const auto& n : run.series->nodes) {
    // Node series are change points: each value holds until the next.
    HeatmapRow u{n.node, {}, {}, run.end_s / unit.divisor};
    HeatmapRow m{n.node, {}, {}, run.end_s / unit.divisor};
    for (std::size_t i = 0; i < n.t_s.size(); ++i) {
      NodeState state;
      state.gpu_utilization = n.gpu_utilization[i];
      state.gpu_memory_used = n.gpu_memory_used_bytes[i];
      state.gpu_memory_capacity = n.gpu_memory_capacity_bytes;
      const double x = n.t_s[i] / unit.divisor;
      u.x.push_back(x);
      u.value.push_back(metrics::node_gpu_utilization(state).value_or(0.0));
      m.x.push_back(x);
      m.value.push_back(metrics::node_gpu_memory_utilization(state).value_or(0.0));
    }
    util.push_back(std::move(u));
    mem.push_back(std::move(m));
  }
}

// The title suffix of a chart of one seed's series.
std::string seed_suffix(const std::string& policy, const SeedRun& run) {
  return fmt::format(" — {}, seed {}", policy, run.seed);
}

// Per-node GPU utilisation and memory per policy: heatmaps (node x time) on the shared time
// axis, which stay readable with thousands of nodes. Every policy's utilisation heatmap has one
// colour scale, and every memory heatmap one.
std::string node_heatmaps_html(const RunResult& result, const std::vector<std::string>& policies,
                               const ReportOptions& options, const TimeAxis& axis) {
  std::string html =
      "<h2>Per-node GPU utilisation and memory</h2>\n<p>One row per node (in the order of the "
      "cluster), time averaged into columns; darker is higher, on one colour scale per quantity "
      "for every policy (labelled under each chart; white is 0, and any use is at least the "
      "first level). Grey: after the end of a run shorter than the longest. Every chart of a "
      "time series shares one time axis.</p>\n";
  struct Charted {
    std::string policy;
    const SeedRun* run;
    std::vector<HeatmapRow> util;
    std::vector<HeatmapRow> mem;
  };
  std::vector<Charted> charted;
  std::vector<const std::vector<HeatmapRow>*> all_util;
  std::vector<const std::vector<HeatmapRow>*> all_mem;
  for (const auto& p : policies) {
    const auto* run = charted_run(result, p, options);
    Charted c{p, run, {}, {}};
    if (run) {
      node_rows(*run, axis.unit, c.util, c.mem);
    }
    charted.push_back(std::move(c));
  }
  for (const auto& c : charted) {
    all_util.push_back(&c.util);
    all_mem.push_back(&c.mem);
  }
  const double util_top = heatmap_top(all_util);
  const double mem_top = heatmap_top(all_mem);
  for (const auto& c : charted) {
    if (!c.run) {
      html += "<p>" + xml_escape(c.policy) + ": no node time series recorded.</p>\n";
      continue;
    }
    if (c.util.empty()) {
      html += "<p>" + xml_escape(c.policy) + ": only the cluster-level series were recorded.</p>\n";
      continue;
    }
    const std::string suffix = seed_suffix(c.policy, *c.run);
    HeatmapOptions h;
    h.x_max = axis.max;
    h.value_max = util_top;
    h.scale_label = "colour: node GPU utilisation";
    h.chart = ChartOptions{.title = "Node GPU utilisation (mean of cards)" + suffix,
                           .x_label = axis.label,
                           .width = 900};
    html += all_zero(c.util)
                ? not_drawn_html("node GPU utilisation" + suffix)
                : image(heatmap_svg(c.util, h), "Node GPU utilisation over time, " + c.policy);
    h.chart.title = "Node GPU memory in use / capacity" + suffix;
    h.value_max = mem_top;
    h.scale_label = "colour: node GPU memory in use";
    html += all_zero(c.mem)
                ? not_drawn_html("node GPU memory in use" + suffix)
                : image(heatmap_svg(c.mem, h), "Node GPU memory over time, " + c.policy);
  }
  return html;
}

// The one seed of `runs` (the runs a chart draws, one per policy), when they share one.
std::optional<std::uint64_t> common_seed(const std::vector<const SeedRun*>& runs) {
  std::optional<std::uint64_t> seed;
  for (const auto* run : runs) {
    if (seed && *seed != run->seed) {
      return std::nullopt;
    }
    seed = run->seed;
  }
  return seed;
}

// A chart's title for the seeds of `runs`: " (seed 1)" when they share one, else a pointer to
// where each policy's seed is named (its legend entry or row label, given by seed_note).
std::string seeds_title(const std::vector<const SeedRun*>& runs) {
  if (runs.empty()) {
    return "";
  }
  const auto seed = common_seed(runs);
  return seed ? fmt::format(" (seed {})", *seed) : " (one seed per policy, named with it)";
}

// What names a policy's line or row: the policy, and its seed when the runs' seeds differ.
std::string seed_note(const std::string& policy, const SeedRun& run,
                      const std::vector<const SeedRun*>& runs) {
  return common_seed(runs) ? policy : fmt::format("{} (seed {})", policy, run.seed);
}

std::string balance_html(const RunResult& result, const std::vector<std::string>& policies,
                         const ReportOptions& options, const TimeAxis& axis) {
  std::string html =
      "<h2>Balance over time</h2>\n<p>One line per policy, its charted seed's series; a line "
      "that stops with a short bar is a run that ended before the longest.</p>\n";
  std::vector<ChartSeries> sd;
  std::vector<ChartSeries> lscs;
  std::vector<const SeedRun*> runs;
  for (const auto& p : policies) {
    if (const auto* run = charted_run(result, p, options)) {
      runs.push_back(run);
    }
  }
  for (const auto& p : policies) {
    const auto* run = charted_run(result, p, options);
    if (!run) {
      continue;
    }
    // Each line ends where its run ended.
    const double end = run->end_s / axis.unit.divisor;
    const std::string name = seed_note(p, *run, runs);
    ChartSeries a{.name = name, .x_end = end};
    ChartSeries b{.name = name, .x_end = end};
    const auto& s = *run->series;
    for (std::size_t i = 0; i < s.t_s.size(); ++i) {
      if (s.gpu_util_stddev[i]) {
        a.x.push_back(s.t_s[i] / axis.unit.divisor);
        a.y.push_back(*s.gpu_util_stddev[i]);
      }
      if (s.lscs[i]) {
        b.x.push_back(s.t_s[i] / axis.unit.divisor);
        b.y.push_back(*s.lscs[i]);
      }
    }
    sd.push_back(std::move(a));
    lscs.push_back(std::move(b));
  }
  const std::string seeds = seeds_title(runs);
  if (all_zero(sd)) {
    html += not_drawn_html("GPU utilisation std-dev across nodes" + seeds);
  } else {
    html += image(
        line_chart_svg(sd, ChartOptions{.title = "GPU utilisation std-dev across nodes" + seeds,
                                        .x_label = axis.label,
                                        .y_label = "std-dev of node GPU utilisation",
                                        .y_min = 0.0,
                                        .x_min = 0.0,
                                        .x_max = axis.max,
                                        .y_percent = true,
                                        .step = true}),
        "GPU utilisation std-dev across nodes over time");
  }
  if (all_zero(lscs)) {
    return html + not_drawn_html("LSCS, node GPU memory use's std-dev" + seeds);
  }
  html += image(line_chart_svg(lscs, ChartOptions{.title = "LSCS: trailing 5-min std-dev of node "
                                                           "GPU memory use" +
                                                           seeds,
                                                  .x_label = axis.label,
                                                  .y_label = "LSCS",
                                                  .y_min = 0.0,
                                                  .x_min = 0.0,
                                                  .x_max = axis.max,
                                                  .y_percent = true,
                                                  .step = true,
                                                  .rules = {{0.15, "alert 15%"}}}),
                "LSCS over time");
  return html;
}

// The CDF of `time_of(job)` (seconds) over the jobs of every seed of `policy`: the share of
// submitted jobs with a time at most x (jobs without one keep the curve below 100%).
template <class F>
ChartSeries job_cdf(const RunResult& result, const std::string& policy, F time_of) {
  std::vector<double> times;
  std::size_t jobs = 0;
  for (const auto* run : result.runs_of(policy)) {
    for (const auto& j : run->jobs) {
      ++jobs;
      if (const std::optional<double> t = time_of(j)) {
        times.push_back(*t);
      }
    }
  }
  std::sort(times.begin(), times.end());
  ChartSeries c{policy, {0.0}, {0.0}};
  for (std::size_t i = 0; i < times.size(); ++i) {
    c.x.push_back(times[i]);
    c.y.push_back(static_cast<double>(i + 1) / static_cast<double>(jobs));
  }
  return c;
}

// A CDF chart of job times in seconds on a log axis.
ChartOptions cdf_options(std::string title, std::string x_label) {
  return ChartOptions{.title = std::move(title),
                      .x_label = std::move(x_label),
                      .y_label = "share of submitted jobs",
                      .width = 900,
                      .y_min = 0.0,
                      .y_max = 1.0,
                      .y_percent = true,
                      .step = true,
                      .x_log = true};
}

// Wait-time and job completion time CDFs over every seed, policies overlaid, both in seconds (the
// table's unit) on a log axis: waits and JCTs span seconds to hours.
std::string job_times_html(const RunResult& result, const std::vector<std::string>& policies) {
  std::string html =
      "<h2>Task wait and job completion time</h2>\n<p>Share of submitted jobs bound within a "
      "given wait (and that succeeded within a given time), all seeds pooled, policies "
      "overlaid; jobs never bound (or never finished) keep a curve below 100%. Times are in "
      "seconds, as in the table, on a log axis; a time at or below the axis' first value (a wait "
      "of 0 too) is drawn at its left end.</p>\n";
  std::vector<ChartSeries> cdf;
  std::vector<ChartSeries> jct;
  for (const auto& p : policies) {
    cdf.push_back(job_cdf(result, p, [](const JobRecord& j) -> std::optional<double> {
      return j.first_bind_s ? std::optional<double>(*j.first_bind_s - j.submit_s) : std::nullopt;
    }));
  }
  html +=
      all_zero(cdf)
          ? not_drawn_html("wait-time CDF (no job was bound)")
          : image(line_chart_svg(cdf, cdf_options("Wait-time CDF (submission to first bind), all "
                                                  "seeds",
                                                  "wait (seconds, log scale)")),
                  "Wait-time CDF");
  // Job completion time, overlaid the same way: share of submitted jobs that succeeded within a
  // given time from submission.
  for (const auto& p : policies) {
    jct.push_back(job_cdf(result, p, [](const JobRecord& j) { return job_completion_s(j); }));
  }
  html += all_zero(jct)
              ? not_drawn_html("job completion time CDF (no job succeeded)")
              : image(line_chart_svg(jct, cdf_options("Job completion time CDF (submission to "
                                                      "success), all seeds",
                                                      "job completion time (seconds, log scale)")),
                      "Job completion time CDF");
  return html;
}

// The event kinds of the timeline in their order, with their row names (docs/outputs.md).
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kEventKinds{{
    {"oom_killed", "OOM kills"},
    {"evicted", "evictions"},
    {"restarted", "restarts"},
    {"failed", "failures"},
    {"fallback", "fallback cycles"},
}};

std::string event_kind_name(const std::string& kind) {
  for (const auto& [k, name] : kEventKinds) {
    if (k == kind) {
      return std::string(name);
    }
  }
  return kind;
}

// The event timeline: per policy (its charted run, else its first), one labelled row per kind of
// event that any of them has ("default-k8s: OOM kills (12)"); one row per policy without events.
std::string events_html(const RunResult& result, const std::vector<std::string>& policies,
                        const ReportOptions& options, const TimeAxis& axis) {
  std::string html =
      "<h2>OOM kills, evictions, restarts, fallbacks</h2>\n<p>One row per policy and kind of "
      "event (its count in the row's label), one seed per policy: the charted seed, or the "
      "first.</p>\n";
  std::vector<std::pair<std::string, const SeedRun*>> charted;
  std::vector<std::string> kinds;
  for (const auto& p : policies) {
    const auto* run = charted_run(result, p, options);
    if (!run) {
      const auto runs = result.runs_of(p);
      run = runs.empty() ? nullptr : runs.front();
    }
    if (!run) {
      continue;
    }
    charted.emplace_back(p, run);
    for (const auto& e : run->events) {
      if (std::find(kinds.begin(), kinds.end(), e.kind) == kinds.end()) {
        kinds.push_back(e.kind);
      }
    }
  }
  // Known kinds in their order, then any other alphabetically.
  const auto rank = [](const std::string& kind) {
    for (std::size_t i = 0; i < kEventKinds.size(); ++i) {
      if (kEventKinds[i].first == kind) {
        return i;
      }
    }
    return kEventKinds.size();
  };
  std::sort(kinds.begin(), kinds.end(), [&](const std::string& a, const std::string& b) {
    return std::pair(rank(a), a) < std::pair(rank(b), b);
  });
  std::vector<std::string> rows;
  std::vector<TimelineMarker> markers;
  std::vector<const SeedRun*> runs;
  for (const auto& [p, run] : charted) {
    runs.push_back(run);
  }
  if (kinds.empty()) {
    return html + not_drawn_html(
                      "the event timeline, no OOM kill, eviction, restart, failure or "
                      "fallback cycle in the charted runs" +
                      seeds_title(runs));
  }
  for (const auto& [p, run] : charted) {
    const std::string name = seed_note(p, *run, runs);
    for (const auto& kind : kinds) {
      std::size_t count = 0;
      for (const auto& e : run->events) {
        if (e.kind != kind) {
          continue;
        }
        ++count;
        markers.push_back(TimelineMarker{.x = e.t_s / axis.unit.divisor,
                                         .row = rows.size(),
                                         .category = event_kind_name(e.kind),
                                         .tooltip = fmt::format("{} {} {} {} at {:.0f} s", e.kind,
                                                                e.job, e.pod, e.node, e.t_s)});
      }
      rows.push_back(fmt::format("{}: {} ({})", name, event_kind_name(kind), count));
    }
  }
  const int height =
      std::max(80 + 22 * static_cast<int>(rows.size()), 90 + 18 * static_cast<int>(kinds.size()));
  html += image(timeline_svg(rows, markers, axis.max,
                             ChartOptions{.title = "Events" + seeds_title(runs),
                                          .x_label = axis.label,
                                          .width = 900,
                                          .height = height}),
                "Event timeline");
  return html;
}

// The NVLink competition index per policy: a heatmap (one row per node) on a fixed 0..1 scale,
// whose four darkest levels are at or above the load-aware filter's 0.6 limit.
std::string nvlink_heatmaps_html(const RunResult& result, const std::vector<std::string>& policies,
                                 const ReportOptions& options, const TimeAxis& axis) {
  std::string html;
  for (const auto& p : policies) {
    const auto* run = charted_run(result, p, options);
    if (!run) {
      continue;
    }
    if (run->series->nodes.empty()) {
      continue;
    }
    std::vector<HeatmapRow> idx;
    for (const auto& n : run->series->nodes) {
      idx.push_back(HeatmapRow{n.node, scaled(n.t_s, axis.unit), n.nvlink_competition_index,
                               run->end_s / axis.unit.divisor});
    }
    if (all_zero(idx)) {
      html += not_drawn_html("NVLink competition index" + seed_suffix(p, *run));
      continue;
    }
    HeatmapOptions h;
    h.x_max = axis.max;
    h.scale_label = "colour: index (filter's limit: 60%)";
    h.chart = ChartOptions{.title = "NVLink competition index" + seed_suffix(p, *run),
                           .x_label = axis.label,
                           .width = 900};
    html += image(heatmap_svg(idx, h), "NVLink competition index over time, " + p);
  }
  return html;
}

// A sweep's merged result: the policies compared within each variant, one table per variant
// under its swept values.
std::string sweep_metrics_html(const RunResult& result, const SweepView& view,
                               const TableOptions& options) {
  const SweepComparison c = build_sweep_comparison(result, view, options);
  std::string html =
      "<h2 id=\"all-metrics\">Metrics per variant</h2>\n<details id=\"all-metrics-table\">\n"
      "<summary>The comparison table of each of the " +
      std::to_string(c.tables.size()) +
      " variants</summary>\n<p>Per variant (its swept values), its policies "
      "compared: mean over seeds, ± the half-width of the 95% confidence interval (Student t); "
      "change relative to " +
      xml_escape(view.policies.front()) +
      " (a share's in percentage points, pp), * marks a paired difference whose 95% CI excludes "
      "0. " +
      xml_escape(mark_legend(c.tables.empty() ? 0 : c.tables.front().seeds)) +
      " Definitions: docs/metrics.md.</p>\n";
  for (std::size_t v = 0; v < c.tables.size(); ++v) {
    std::string values;
    for (std::size_t k = 0; k < view.keys.size(); ++k) {
      values += (values.empty() ? "" : ", ") + view.keys[k] + " = " +
                view.variants[v].values[k].value_or("-");
    }
    html += "<h3>" + xml_escape(values) + "</h3>\n" + comparison_table_html(c.tables[v]);
  }
  return html + "</details>\n";
}

// The x of each value of a swept key: the number it is when every value is one, else its place
// among the key's values (in order of first appearance); `legend` then names the places.
std::vector<double> sweep_positions(const SweepView& view, std::size_t key, std::string& legend) {
  std::vector<std::string> distinct;
  bool numeric = true;
  std::vector<double> x;
  for (const auto& v : view.variants) {
    const std::string text = v.values[key].value_or("-");
    if (std::find(distinct.begin(), distinct.end(), text) == distinct.end()) {
      distinct.push_back(text);
    }
    char* end = nullptr;
    const double number = std::strtod(text.c_str(), &end);
    numeric =
        numeric && !text.empty() && end == text.c_str() + text.size() && std::isfinite(number);
    x.push_back(number);
  }
  if (!numeric) {
    for (std::size_t v = 0; v < view.variants.size(); ++v) {
      const std::string text = view.variants[v].values[key].value_or("-");
      x[v] =
          static_cast<double>(std::find(distinct.begin(), distinct.end(), text) - distinct.begin());
    }
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      legend += fmt::format("{}{} = {}", i == 0 ? "" : ", ", i, distinct[i]);
    }
  }
  return x;
}

// The lines of headline row `r` against swept key `k` (its variants at `x`): one per policy and
// combination of the other keys' values, through its means over seeds with their 95% CIs.
std::vector<ChartSeries> sweep_lines(const SweepView& view, const SweepComparison& c,
                                     const std::vector<double>& x, std::size_t k, std::size_t r) {
  std::map<std::string, ChartSeries> lines;
  std::vector<std::string> order;
  for (std::size_t v = 0; v < view.variants.size(); ++v) {
    std::string others;
    for (std::size_t j = 0; j < view.keys.size(); ++j) {
      if (j != k) {
        others += (others.empty() ? "" : ", ") + view.short_keys[j] + "=" +
                  view.variants[v].values[j].value_or("-");
      }
    }
    const auto& row = c.tables[v].rows[r];
    for (std::size_t p = 0; p < view.policies.size(); ++p) {
      const std::string name = view.policies[p] + (others.empty() ? "" : " [" + others + "]");
      if (!lines.contains(name)) {
        order.push_back(name);
        lines[name].name = name;
      }
      if (const auto& s = row.per_policy[p]) {
        auto& line = lines[name];
        const auto at = std::upper_bound(line.x.begin(), line.x.end(), x[v]) - line.x.begin();
        line.x.insert(line.x.begin() + at, x[v]);
        line.y.insert(line.y.begin() + at, s->mean);
        line.y_error.insert(line.y_error.begin() + at, s->ci95_half);
      }
    }
  }
  std::vector<ChartSeries> series;
  for (const auto& name : order) {
    series.push_back(std::move(lines[name]));
  }
  return series;
}

// `series` divided by the scale a reader expects for `unit` (value_scale: times in s, min or h).
ValueScale rescale(std::vector<ChartSeries>& series, metrics::Unit unit) {
  double top = 0.0;
  for (const auto& c : series) {
    for (std::size_t i = 0; i < c.y.size(); ++i) {
      top = std::max(top, std::fabs(c.y[i]));
    }
  }
  const ValueScale scale = value_scale(unit, top);
  for (auto& c : series) {
    for (auto& y : c.y) {
      y /= scale.divisor;
    }
    for (auto& e : c.y_error) {
      e = e ? std::optional<double>(*e / scale.divisor) : std::nullopt;
    }
  }
  return scale;
}

// A sweep's merged result: each headline metric against each swept key, one line per policy (and
// combination of the other keys' values), at its mean over seeds with the 95% CI as error bars.
// Its place is the headline charts': first.
std::string sweep_html(const RunResult& result) {
  const auto view = sweep_view(result);
  if (!view || view->keys.empty()) {
    return "";
  }
  TableOptions headline;
  headline.headline = true;
  const SweepComparison c = build_sweep_comparison(result, *view, headline);
  std::string html =
      "<h2 id=\"sweep\">Sweep</h2>\n<p>Each headline metric against each swept key: one line per "
      "policy, its mean over seeds with the 95% confidence interval (Student t) as error bars; "
      "times in seconds, minutes or hours by their size. Policies are compared within each "
      "variant in the tables at the end (and in the table of <code>tidesim sweep</code>); every "
      "run's metrics are in <code>metrics.csv</code>.</p>\n";
  std::string skipped;
  for (std::size_t k = 0; k < view->keys.size(); ++k) {
    std::string legend;
    const auto x = sweep_positions(*view, k, legend);
    for (std::size_t r = 0; r < c.tables.front().rows.size(); ++r) {
      auto series = sweep_lines(*view, c, x, k, r);
      const auto& row = c.tables.front().rows[r];
      const std::string label = label_of(row);
      if (all_zero(series)) {
        skipped += (skipped.empty() ? "" : ", ") + label + " against " + view->short_keys[k];
        continue;
      }
      const metrics::Unit unit = row.info ? row.info->unit : metrics::Unit::kPlain;
      const ValueScale scale = rescale(series, unit);
      ChartOptions o;
      o.title = label + " against " + view->short_keys[k];
      o.x_label = view->keys[k] + (legend.empty() ? "" : " (" + legend + ")");
      o.y_label = scale.axis;
      o.y_percent = scale.percent;
      o.width = 900;
      html += image(line_chart_svg(series, o), label + " against " + view->keys[k]);
    }
  }
  return skipped.empty() ? html : html + not_drawn_html(skipped);
}

}  // namespace

std::string render_report_html(const RunResult& result, const ReportOptions& options) {
  const FigureCollector collect(options.figures);
  const auto policies = result.policy_names();
  const auto table = build_comparison(result, options.table);
  const TimeAxis axis = time_axis(result, policies, options);
  std::string html = header_html(result.metadata, policies);
  const auto view = sweep_view(result);
  const bool sweep = view && !view->keys.empty();
  if (sweep) {
    html += sweep_html(result);
  } else {
    TableOptions headline = options.table;
    headline.metrics.clear();
    headline.headline = true;
    html += headline_section_html(result, build_comparison(result, headline));
    html += class_section_html(result);
  }
  html += node_heatmaps_html(result, policies, options, axis);
  html += balance_html(result, policies, options, axis);
  html += job_times_html(result, policies);
  html += events_html(result, policies, options, axis);
  html +=
      "<h2>NVLink</h2>\n<p>The NVLink competition index per node over time, on one fixed "
      "scale from 0 to 1 for every policy: its four darkest levels are at or above the "
      "load-aware filter's 0.6 limit. The contention rate per policy is charted with the "
      "headline metrics.</p>\n";
  html += nvlink_heatmaps_html(result, policies, options, axis);
  html += sweep ? sweep_metrics_html(result, *view, options.table) : metrics_html(table, policies);
  html += "<p>Generated by tidesim " + xml_escape(result.metadata.tidesim_version) + ".</p>\n";
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace tidesim::app
