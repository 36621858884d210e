#include "tidesim/tools/lib/check.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/tools/lib/headline_metrics.hpp"
#include "tidesim/tools/lib/stats.hpp"
#include "tidesim/tools/lib/svg_chart.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::app {
namespace {

using metrics::Direction;

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

}  // namespace

double parse_percent(const std::string& text, const std::string& field) {
  std::string number = text;
  if (!number.empty() && number.back() == '%') {
    number.pop_back();
  }
  char* end = nullptr;
  const double pct = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(pct) || pct < 0.0) {
    throw InputError(SourceLocation{}, field,
                     "must be a non-negative number of percent (e.g. 5 or 5%), got '" + text + "'");
  }
  return pct;
}

std::pair<std::string, double> parse_tolerance(const std::string& text, const std::string& field) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError(SourceLocation{}, field,
                     "expected METRIC=PCT (e.g. mean_wait_s=10), got '" + text + "'");
  }
  const std::string metric = text.substr(0, eq);
  if (!metrics::find_metric(metric)) {
    throw InputError(SourceLocation{}, field, "unknown metric '" + metric + "'");
  }
  try {
    return {metric, parse_percent(text.substr(eq + 1), field)};
  } catch (const InputError& e) {
    throw InputError(SourceLocation{}, field, "tolerance of '" + metric + "': " + e.message());
  }
}

bool CheckReport::failed() const {
  for (const auto& v : verdicts) {
    if (v.status == "regressed" || v.status == "missing") {
      return true;
    }
  }
  return false;
}

namespace {

std::vector<std::string> tested_metrics(const RunResult& current, const CheckOptions& options) {
  if (!options.metrics.empty()) {
    return options.metrics;
  }
  std::vector<std::string> out;
  if (options.all_metrics) {
    for (const auto& info : metrics::metric_catalog()) {
      out.emplace_back(info.name);
    }
    return out;
  }
  return headline_metrics_of(current);
}

// The verdict on `metric` of one policy before the correction: "missing", "skipped", or ""
// (measured: the means, the difference, its CI and p-value; decided by decide()).
MetricVerdict measure(const std::string& policy, const metrics::MetricInfo& info,
                      const std::vector<const SeedRun*>& base_runs,
                      const std::vector<const SeedRun*>& cur_runs, const CheckOptions& options) {
  const std::string name(info.name);
  MetricVerdict v;
  v.policy = policy;
  v.metric = name;
  const auto tol = options.tolerance_pct.find(name);
  v.tolerance_pct =
      tol != options.tolerance_pct.end() ? tol->second : options.default_tolerance_pct;
  v.baseline_mean = summarize(metric_values(base_runs, name))->mean;
  if (info.direction == Direction::kNeutral) {
    v.status = "skipped";
    v.message = "descriptive metric, not checked";
    return v;
  }
  const auto cur_values = metric_values(cur_runs, name);
  if (cur_values.empty()) {
    v.status = "missing";
    v.message = cur_runs.empty() ? "policy missing from the result"
                                 : "metric missing from the result (could not be computed)";
    return v;
  }
  v.current_mean = summarize(cur_values)->mean;
  const auto d = seed_difference(base_runs, cur_runs, name);
  v.difference = d->mean;
  v.ci95_half = d->ci95_half;
  v.p_value = d->p_value;
  return v;
}

// The status and message of a measured verdict, its adjusted p-value set.
void decide(MetricVerdict& v, const metrics::MetricInfo& info, const CheckOptions& options) {
  const double sign = info.direction == Direction::kLowerIsBetter ? 1.0 : -1.0;
  const double worse = sign * *v.difference;  // > 0: moved the wrong way
  const double allowed = v.tolerance_pct / 100.0 * std::fabs(*v.baseline_mean);
  // Without a test (a side with one seed) the tolerance alone decides.
  const bool significant = !v.p_adjusted || *v.p_adjusted < options.alpha;
  const auto fmt_value = [&info](double x) { return format_metric_value(&info, x); };
  // A change the printed values do not show is no change ("0.0000 -> 0.0000").
  const bool shows = fmt_value(*v.baseline_mean) != fmt_value(*v.current_mean);
  if (shows && worse > allowed && significant && worse > 0.0) {
    v.status = "regressed";
  } else if (shows && -worse > allowed && significant && worse < 0.0) {
    v.status = "improved";
  } else {
    v.status = "pass";
  }
  std::string test = "; not tested (one seed on a side)";
  if (v.p_value && options.correction != Correction::kNone) {
    test = fmt::format("; p = {:.3g}, {}-adjusted {:.3g}", *v.p_value,
                       to_string(options.correction), *v.p_adjusted);
  } else if (v.p_value) {
    test = fmt::format("; p = {:.3g}", *v.p_value);
  }
  v.message =
      fmt::format("{} -> {} (difference {}{}{}; tolerance {}%)", fmt_value(*v.baseline_mean),
                  fmt_value(*v.current_mean), fmt_value(*v.difference),
                  v.ci95_half ? " ± " + format_metric_spread(&info, *v.ci95_half) : std::string(),
                  test, v.tolerance_pct);
}

// Sets every measured verdict's adjusted p-value (the correction over all of them) and decides it;
// returns the number of tests.
std::size_t correct_and_decide(std::vector<MetricVerdict>& verdicts, const CheckOptions& options) {
  std::vector<double> p;
  std::vector<MetricVerdict*> tested;
  for (auto& v : verdicts) {
    if (v.status.empty() && v.p_value) {
      p.push_back(*v.p_value);
      tested.push_back(&v);
    }
  }
  const auto adjusted = adjust_p_values(p, options.correction);
  for (std::size_t i = 0; i < tested.size(); ++i) {
    tested[i]->p_adjusted = adjusted[i];
  }
  for (auto& v : verdicts) {
    if (v.status.empty()) {
      decide(v, *metrics::find_metric(v.metric), options);
    }
  }
  return tested.size();
}

}  // namespace

CheckReport check_against_baseline(const RunResult& current, const RunResult& baseline,
                                   const CheckOptions& options) {
  CheckReport report;
  const std::vector<std::string> asked = tested_metrics(current, options);
  report.correction = options.correction;
  report.alpha = options.alpha;
  for (const auto& policy : current.policy_names()) {
    if (!current.runs_of(policy).empty() && baseline.runs_of(policy).empty()) {
      report.extra_policies.push_back(policy);
    }
  }
  for (const auto& policy : baseline.policy_names()) {
    const auto base_runs = baseline.runs_of(policy);
    const auto cur_runs = current.runs_of(policy);
    if (cur_runs.empty() && !base_runs.empty()) {
      report.missing_policies.push_back(policy);
    }
    for (const auto& name : asked) {
      const metrics::MetricInfo* info = metrics::find_metric(name);
      if (info == nullptr || metric_values(base_runs, name).empty()) {
        continue;  // unknown to this version, or not in the baseline
      }
      if (std::find(report.metrics.begin(), report.metrics.end(), name) == report.metrics.end()) {
        report.metrics.push_back(name);
      }
      MetricVerdict v = measure(policy, *info, base_runs, cur_runs, options);
      v.metric = name;  // a per-queue metric keeps its queue
      report.verdicts.push_back(std::move(v));
    }
  }
  if (!options.all_metrics) {
    for (const auto& name : asked) {
      if (std::find(report.metrics.begin(), report.metrics.end(), name) == report.metrics.end()) {
        report.untested.push_back(name);
      }
    }
  }
  report.tests = correct_and_decide(report.verdicts, options);
  return report;
}

std::string format_check_report(const CheckReport& report) {
  std::string out;
  int regressed = 0;
  int missing = 0;
  int improved = 0;
  int passed = 0;
  const auto is_missing_policy = [&report](const std::string& policy) {
    return std::find(report.missing_policies.begin(), report.missing_policies.end(), policy) !=
           report.missing_policies.end();
  };
  for (const auto& policy : report.missing_policies) {
    std::size_t n = 0;
    for (const auto& v : report.verdicts) {
      n += v.policy == policy && v.status == "missing" ? 1 : 0;
    }
    out += fmt::format("MISSING   {}: policy missing from the result ({} checked metric{})\n",
                       policy, n, n == 1 ? "" : "s");
  }
  for (const auto& v : report.verdicts) {
    if (v.status == "regressed") {
      ++regressed;
      out += fmt::format("REGRESSED {} {}: {}\n", v.policy, v.metric, v.message);
    } else if (v.status == "missing") {
      ++missing;
      if (!is_missing_policy(v.policy)) {
        out += fmt::format("MISSING   {} {}: {}\n", v.policy, v.metric, v.message);
      }
    } else if (v.status == "improved") {
      ++improved;
      out += fmt::format("improved  {} {}: {}\n", v.policy, v.metric, v.message);
    } else if (v.status == "pass") {
      ++passed;
    }
  }
  for (const auto& policy : report.extra_policies) {
    out += fmt::format("not in the baseline, not checked: policy {}\n", policy);
  }
  out += fmt::format("tested: {}\n", report.metrics.empty() ? "none" : join_names(report.metrics));
  if (!report.untested.empty()) {
    out += fmt::format("not in the baseline, not tested: {}\n", join_names(report.untested));
  }
  out += report.correction == Correction::kNone
             ? fmt::format("multiple comparisons: no correction, each of {} tests at {}\n",
                           report.tests, report.alpha)
             : fmt::format("multiple comparisons: {} over {} tests ({} {})\n",
                           to_string(report.correction), report.tests,
                           report.correction == Correction::kHolm ? "family-wise error rate"
                                                                  : "false discovery rate",
                           report.alpha);
  out += fmt::format("{}: {} regressed, {} missing, {} improved, {} unchanged within tolerance\n",
                     report.failed() ? "FAILED" : "OK", regressed, missing, improved, passed);
  return out;
}

namespace {

// "a, b" of JSON strings (or their dump), "none" when empty.
std::string list_text(const nlohmann::json& items) {
  std::string out;
  for (const auto& item : items) {
    out += (out.empty() ? "" : ", ") + (item.is_string() ? item.get<std::string>() : item.dump());
  }
  return out.empty() ? "none" : out;
}

// The provenance entry of `policy` ({"name", "scheduler", "sha256"}), or null.
nlohmann::json policy_entry(const nlohmann::json& provenance, const std::string& policy) {
  if (provenance.contains("policies") && provenance.at("policies").is_array()) {
    for (const auto& p : provenance.at("policies")) {
      if (p.is_object() && p.value("name", "") == policy) {
        return p;
      }
    }
  }
  return nullptr;
}

std::string definition_text(const nlohmann::json& entry) {
  const std::string scheduler = entry.value("scheduler", std::string("?"));
  const auto& sha = entry.contains("sha256") ? entry.at("sha256") : nlohmann::json(nullptr);
  return sha.is_string() ? scheduler + " (" + sha.get<std::string>() + ")" : scheduler;
}

}  // namespace

std::vector<std::string> provenance_warnings(const RunResult& current, const RunResult& baseline) {
  std::vector<std::string> out;
  if (current.metadata.seeds != baseline.metadata.seeds) {
    out.push_back(fmt::format("the seeds differ: {} in the result, {} in the baseline",
                              list_text(current.metadata.seeds),
                              list_text(baseline.metadata.seeds)));
  }
  const auto& cur = current.metadata.provenance;
  const auto& base = baseline.metadata.provenance;
  if (!cur || !base || !cur->is_object() || !base->is_object()) {
    return out;
  }
  const auto overrides = [](const nlohmann::json& p) {
    return p.contains("overrides") ? p.at("overrides") : nlohmann::json::array();
  };
  if (overrides(*cur) != overrides(*base)) {
    out.push_back(fmt::format("the --set overrides differ: {} in the result, {} in the baseline",
                              list_text(overrides(*cur)), list_text(overrides(*base))));
  }
  if (cur->contains("policies") && cur->at("policies").is_array()) {
    for (const auto& p : cur->at("policies")) {
      const std::string name = p.is_object() ? p.value("name", "") : "";
      const auto other = policy_entry(*base, name);
      if (name.empty() || other.is_null()) {
        continue;
      }
      if (p.value("scheduler", nlohmann::json()) != other.value("scheduler", nlohmann::json()) ||
          p.value("sha256", nlohmann::json()) != other.value("sha256", nlohmann::json())) {
        out.push_back(
            fmt::format("policy '{}' is defined otherwise: {} in the result, {} in "
                        "the baseline",
                        name, definition_text(p), definition_text(other)));
      }
    }
  }
  return out;
}

std::string junit_xml(const CheckReport& report) {
  int failures = 0;
  int skipped = 0;
  for (const auto& v : report.verdicts) {
    failures += v.status == "regressed" || v.status == "missing" ? 1 : 0;
    skipped += v.status == "skipped" ? 1 : 0;
  }
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"tidesim\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" skipped=\"{2}\">\n"
      "  <testsuite name=\"tidesim check\" tests=\"{0}\" failures=\"{1}\" errors=\"0\" "
      "skipped=\"{2}\">\n",
      report.verdicts.size(), failures, skipped);
  out += fmt::format(
      "    <properties>\n"
      "      <property name=\"metrics\" value=\"{}\"/>\n"
      "      <property name=\"correction\" value=\"{}\"/>\n"
      "      <property name=\"alpha\" value=\"{}\"/>\n"
      "      <property name=\"tests\" value=\"{}\"/>\n"
      "    </properties>\n",
      xml_escape(join_names(report.metrics)), to_string(report.correction), report.alpha,
      report.tests);
  for (const auto& v : report.verdicts) {
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(v.policy),
                       xml_escape(v.metric));
    if (v.status == "regressed" || v.status == "missing") {
      out += fmt::format(">\n      <failure type=\"{}\" message=\"{}\"/>\n    </testcase>\n",
                         v.status, xml_escape(v.message));
    } else if (v.status == "skipped") {
      out += fmt::format(">\n      <skipped message=\"{}\"/>\n    </testcase>\n",
                         xml_escape(v.message));
    } else {
      out += fmt::format(">\n      <system-out>{}: {}</system-out>\n    </testcase>\n", v.status,
                         xml_escape(v.message));
    }
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

}  // namespace tidesim::app
