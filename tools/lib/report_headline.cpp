#include "tidesim/tools/lib/report_headline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "tidesim/tools/lib/report_figure.hpp"
#include "tidesim/tools/lib/report_table.hpp"
#include "tidesim/tools/lib/stats.hpp"
#include "tidesim/tools/lib/svg_chart.hpp"

namespace tidesim::app {
namespace {

// Three significant digits without an exponent: 152, 12.4, 0.77.
std::string three_digits(double v) {
  const double a = std::fabs(v);
  return fmt::format("{:.{}f}", v, a >= 100.0 ? 0 : a >= 10.0 ? 1 : 2);
}

// The axis label of a unit that is not rescaled.
std::string plain_axis(metrics::Unit unit) {
  switch (unit) {
    case metrics::Unit::kCount:
      return "count";
    case metrics::Unit::kPerHour:
      return "jobs per hour";
    case metrics::Unit::kGpus:
      return "GPUs";
    default:
      return "value";
  }
}

// A policy's bar: its mean over seeds, the 95% CI and each seed's value.
struct Bar {
  std::optional<double> mean;
  std::optional<double> ci95_half;
  std::vector<double> seeds;
};

Bar bar_of(const std::vector<double>& seeds) {
  Bar b;
  b.seeds = seeds;
  if (const auto s = summarize(seeds)) {
    b.mean = s->mean;
    b.ci95_half = s->ci95_half;
  }
  return b;
}

// The largest mean of `bars` (what chooses their unit: the printed values), and whether any value
// (a mean or a seed's) is non-zero.
double largest(const std::vector<Bar>& bars, bool& any_nonzero) {
  double top = 0.0;
  any_nonzero = false;
  for (const auto& b : bars) {
    if (!b.mean) {
      continue;
    }
    top = std::max(top, std::fabs(*b.mean));
    any_nonzero = any_nonzero || *b.mean != 0.0;
    for (const double v : b.seeds) {
      any_nonzero = any_nonzero || v != 0.0;
    }
  }
  return top;
}

// `bars` as one colour's values on `scale` (a grouped chart's series, or one chart's bars).
BarSeries scaled_series(std::string name, const std::vector<Bar>& bars, const ValueScale& scale,
                        metrics::Unit unit) {
  BarSeries s{.name = std::move(name)};
  for (const auto& b : bars) {
    s.values.push_back(b.mean ? std::optional<double>(*b.mean / scale.divisor) : std::nullopt);
    s.error_half.push_back(b.ci95_half ? std::optional<double>(*b.ci95_half / scale.divisor)
                                       : std::nullopt);
    std::vector<double> points;
    for (const double v : b.seeds) {
      points.push_back(v / scale.divisor);
    }
    s.points.push_back(std::move(points));
    s.labels.push_back(b.mean ? scaled_text(scale, unit, *b.mean) : "");
  }
  return s;
}

// One headline metric's chart: a bar per policy that has it; empty when every value is zero or
// absent.
std::string metric_chart(const RunResult& result, const ComparisonTable& table,
                         const ComparisonRow& row) {
  std::vector<Bar> bars;
  for (const auto& p : table.policies) {
    bars.push_back(bar_of(metric_values(result.runs_of(p), row.metric)));
  }
  bool any = false;
  const double top = largest(bars, any);
  if (!any) {
    return "";
  }
  const metrics::Unit unit = row.info ? row.info->unit : metrics::Unit::kPlain;
  const ValueScale scale = value_scale(unit, top);
  const BarSeries s = scaled_series("", bars, scale, unit);
  std::vector<std::string> names;
  std::vector<double> values;
  std::vector<std::optional<double>> errors;
  std::vector<std::vector<double>> points;
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    if (s.values[i]) {
      names.push_back(table.policies[i]);
      values.push_back(*s.values[i]);
      errors.push_back(s.error_half[i]);
      points.push_back(s.points[i]);
      labels.push_back(s.labels[i]);
    }
  }
  const std::string label = label_of(row);
  return report_img(bar_chart_svg(names, values, errors,
                                  ChartOptions{.title = label,
                                               .y_label = scale.axis,
                                               .width = 480,
                                               .height = 260,
                                               .y_percent = scale.percent},
                                  labels, points),
                    label + " per policy");
}

constexpr std::size_t kMaxClasses = 12;

// The job classes of `result` in order of first appearance ("(no class)" for a job without one),
// the kMaxClasses with the most jobs when there are more; `total` is how many there are.
std::vector<std::string> job_classes(const RunResult& result, std::size_t& total) {
  std::vector<std::string> order;
  std::map<std::string, std::size_t> jobs;
  for (const auto& run : result.runs) {
    for (const auto& j : run.jobs) {
      const std::string c = j.job_class.empty() ? "(no class)" : j.job_class;
      if (jobs[c]++ == 0) {
        order.push_back(c);
      }
    }
  }
  total = order.size();
  if (order.size() > kMaxClasses) {
    std::vector<std::string> by_jobs = order;
    std::stable_sort(by_jobs.begin(), by_jobs.end(),
                     [&](const auto& a, const auto& b) { return jobs[a] > jobs[b]; });
    by_jobs.resize(kMaxClasses);
    std::erase_if(order, [&](const std::string& c) {
      return std::find(by_jobs.begin(), by_jobs.end(), c) == by_jobs.end();
    });
  }
  return order;
}

// Per class, the bar of `policy`: each seed's mean of value_of over the class's jobs with one.
template <class F>
std::vector<Bar> class_bars(const RunResult& result, const std::string& policy,
                            const std::vector<std::string>& classes, F value_of) {
  std::vector<std::vector<double>> seeds(classes.size());
  for (const auto* run : result.runs_of(policy)) {
    std::vector<std::vector<double>> values(classes.size());
    for (const auto& j : run->jobs) {
      const std::string c = j.job_class.empty() ? "(no class)" : j.job_class;
      const auto at = std::find(classes.begin(), classes.end(), c);
      if (const std::optional<double> v = value_of(j); v && at != classes.end()) {
        values[static_cast<std::size_t>(at - classes.begin())].push_back(*v);
      }
    }
    for (std::size_t k = 0; k < classes.size(); ++k) {
      if (const auto s = summarize(values[k])) {
        seeds[k].push_back(s->mean);
      }
    }
  }
  std::vector<Bar> bars;
  for (const auto& v : seeds) {
    bars.push_back(bar_of(v));
  }
  return bars;
}

// A grouped chart of value_of per class and policy, in `unit`; empty when every value is zero or
// absent.
template <class F>
std::string class_chart(const RunResult& result, const std::vector<std::string>& classes,
                        metrics::Unit unit, const std::string& title, const std::string& axis,
                        F value_of) {
  const auto policies = result.policy_names();
  std::vector<std::vector<Bar>> per_policy;
  std::vector<Bar> all;
  for (const auto& p : policies) {
    per_policy.push_back(class_bars(result, p, classes, value_of));
    all.insert(all.end(), per_policy.back().begin(), per_policy.back().end());
  }
  bool any = false;
  const double top = largest(all, any);
  if (!any) {
    return "";
  }
  // The printed values without their unit, which the axis names: narrower, so more fit a bar.
  ValueScale scale = value_scale(unit, top);
  scale.suffix.clear();
  std::vector<BarSeries> series;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    series.push_back(scaled_series(policies[i], per_policy[i], scale, unit));
  }
  return report_image(
      grouped_bar_chart_svg(classes, series,
                            ChartOptions{.title = title,
                                         .x_label = "job class",
                                         .y_label = axis.empty() ? scale.axis : axis,
                                         .width = 900,
                                         .height = 300,
                                         .y_percent = scale.percent}),
      title);
}

}  // namespace

ValueScale value_scale(metrics::Unit unit, double largest) {
  switch (unit) {
    case metrics::Unit::kRatio:
      return ValueScale{.divisor = 1.0, .axis = "share (%)", .suffix = "%", .percent = true};
    case metrics::Unit::kSeconds:
      if (largest >= 3600.0) {
        return ValueScale{.divisor = 3600.0, .axis = "hours", .suffix = " h"};
      }
      if (largest >= 600.0) {
        return ValueScale{.divisor = 60.0, .axis = "minutes", .suffix = " min"};
      }
      return ValueScale{.divisor = 1.0, .axis = "seconds", .suffix = " s"};
    default:
      return ValueScale{.divisor = 1.0, .axis = plain_axis(unit)};
  }
}

std::string scaled_text(const ValueScale& scale, metrics::Unit unit, double value) {
  if (scale.percent) {
    return fmt::format("{:.1f}%", value * 100.0);
  }
  if (unit == metrics::Unit::kSeconds) {
    return three_digits(value / scale.divisor) + scale.suffix;
  }
  return three_digits(value);
}

std::string headline_section_html(const RunResult& result, const ComparisonTable& table) {
  std::string charts;
  std::string skipped;
  for (const auto& row : table.rows) {
    const std::string chart = metric_chart(result, table, row);
    if (chart.empty()) {
      skipped += (skipped.empty() ? "" : ", ") + label_of(row);
    }
    charts += chart;
  }
  std::string html =
      "<h2 id=\"headline\">Headline metrics</h2>\n<p>The study's headline metrics "
      "(docs/outputs.md, \"Headline metrics\"), one chart each: a bar per policy at its mean over "
      "seeds (printed above it), its 95% confidence interval (Student t) as an error bar when "
      "there are several seeds, and each seed's value as a dot. Times are in seconds, minutes or "
      "hours by their size, shares in percent.</p>\n";
  if (!charts.empty()) {
    html += "<div class=\"bars\">" + charts + "</div>\n";
  }
  if (!skipped.empty()) {
    html += not_drawn_html(skipped);
  }
  return html + "<p>Their values and verdicts (mean over seeds, ± the 95% CI's half-width; " +
         xml_escape(mark_legend(table.seeds)) + ")</p>\n" + comparison_table_html(table);
}

std::string class_section_html(const RunResult& result) {
  std::size_t total = 0;
  const auto classes = job_classes(result, total);
  if (classes.empty()) {
    return "";
  }
  std::string html =
      "<h2 id=\"classes\">Job completion time and slowdown per job class</h2>\n<p>From the "
      "per-job records (jobs.csv): one group per job class (the workload part that made the job), "
      "a bar per policy at the mean over seeds of each seed's class mean, each seed's as a dot, "
      "the 95% confidence interval as an error bar. JCT is submission to success; slowdown is "
      "JCT over the job's run time alone on the cluster (<code>ideal_s</code>); jobs that did not "
      "succeed are left out of both.";
  if (total > classes.size()) {
    html += fmt::format(" The {} classes with the most jobs of {}.", classes.size(), total);
  }
  html += "</p>\n";
  const std::string jct = class_chart(result, classes, metrics::Unit::kSeconds,
                                      "Mean job completion time per job class", "",
                                      [](const JobRecord& j) { return job_completion_s(j); });
  const std::string slowdown = class_chart(
      result, classes, metrics::Unit::kPlain, "Mean slowdown (JCT / run time alone) per job class",
      "slowdown", [](const JobRecord& j) { return job_slowdown(j); });
  html += jct.empty() ? not_drawn_html("job completion time per class (no job succeeded)") : jct;
  html += slowdown.empty()
              ? not_drawn_html("slowdown per class (no succeeded job with a known run time alone)")
              : slowdown;
  return html;
}

}  // namespace tidesim::app
