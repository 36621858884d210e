#pragma once
/// The CI regression check: compares a result with a baseline result, metric by metric and
/// policy by policy, and reports what moved the wrong way beyond tolerance (and beyond the 95%
/// confidence interval when both have several seeds). Writes JUnit XML for CI systems.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/tools/lib/multiple_testing.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// Parameters of check_against_baseline.
struct CheckOptions {
  /// Per-metric tolerance, percent of the baseline mean (e.g. {"mean_wait_s", 10.0}).
  std::map<std::string, double> tolerance_pct;
  /// Tolerance for metrics not in tolerance_pct, percent.
  double default_tolerance_pct = 5.0;
  /// The metrics tested, in order. Empty: the current result's headline set
  /// (headline_metrics_of, tools/lib/headline_metrics.hpp), unless `all_metrics`.
  std::vector<std::string> metrics;
  /// Every catalogued metric the baseline has (`--all-metrics`).
  bool all_metrics = false;
  /// The correction over the family of tests (every policy x metric with a p-value).
  Correction correction = Correction::kHolm;
  /// Significance level of the family (Holm: family-wise error rate; Benjamini-Hochberg: false
  /// discovery rate; none: per test).
  double alpha = 0.05;
};

/// Parses a percentage: a non-negative number with an optional trailing '%' ("5", "5%", "2.5%").
/// Throws InputError naming `field` otherwise.
double parse_percent(const std::string& text, const std::string& field);

/// Parses "METRIC=PCT" (PCT a non-negative number, an optional trailing '%'). Throws InputError
/// naming `field` for a bad form, an unknown metric or a bad number.
std::pair<std::string, double> parse_tolerance(const std::string& text,
                                               const std::string& field = "--tolerance");

/// The verdict on one metric of one policy.
struct MetricVerdict {
  std::string policy;
  std::string metric;
  /// "pass", "regressed", "improved", "missing" (in the baseline, absent from the result), or
  /// "skipped" (neutral metric).
  std::string status;
  std::optional<double> baseline_mean;
  std::optional<double> current_mean;
  /// current - baseline.
  std::optional<double> difference;
  /// 95% CI half-width of the difference (paired over common seeds, else Welch); absent with
  /// fewer than two seeds on either side.
  std::optional<double> ci95_half;
  /// Two-sided p-value of "no difference" (PairedDifference::p_value), and the same adjusted by
  /// the correction over the family; absent without a test (fewer than two seeds on a side).
  std::optional<double> p_value;
  std::optional<double> p_adjusted;
  double tolerance_pct = 0.0;
  /// One line for people.
  std::string message;
};

/// All verdicts; failed() when any is "regressed" or "missing".
struct CheckReport {
  std::vector<MetricVerdict> verdicts;
  /// Policies of the baseline that the result does not have (their metrics are "missing").
  std::vector<std::string> missing_policies;
  /// Policies of the result that the baseline does not have (not checked).
  std::vector<std::string> extra_policies;
  /// The metrics tested (those of the list the baseline has), in order; those of the list
  /// (CheckOptions::metrics or the headline set) that the baseline does not have; the
  /// correction, its level and how many tests it covered.
  std::vector<std::string> metrics;
  std::vector<std::string> untested;
  Correction correction = Correction::kHolm;
  double alpha = 0.05;
  std::size_t tests = 0;
  bool failed() const;
};

/// Compares `current` with `baseline`. For every policy of the baseline and every tested metric
/// (CheckOptions::metrics) with a direction that the baseline has: "missing" when the policy or
/// metric is gone; otherwise, with worse = the change in the metric's bad direction, the metric
/// regressed when
///   worse > tolerance% x |baseline mean|  (any worsening when the baseline mean is 0), and
///   the p-value of the difference, adjusted over the family of tests by the correction, is
///   below alpha (when both sides have >= 2 seeds; with `Correction::kNone` and alpha 0.05 this
///   is "worse > the 95% CI half-width of the difference").
/// "improved" mirrors it in the good direction. A change that does not show at the table's
/// precision (format_metric_value gives both means the same text, "0.0000 -> 0.0000") is neither.
/// A policy of the current result not in the baseline is not checked (it is named in
/// extra_policies).
CheckReport check_against_baseline(const RunResult& current, const RunResult& baseline,
                                   const CheckOptions& options);

/// Human-readable lines: the metrics tested and the correction, one per policy missing from the
/// result, every regression, missing metric and improvement, one per policy the baseline does not
/// have, then a one-line total.
std::string format_check_report(const CheckReport& report);

/// What makes `current` and `baseline` not comparable as they stand, from their provenance
/// (docs/outputs.md): a policy of both defined otherwise (another scheduler or file hash),
/// other --set overrides, other seeds. One line each; empty when nothing differs or a side has
/// no provenance (the seeds are compared from the metadata).
std::vector<std::string> provenance_warnings(const RunResult& current, const RunResult& baseline);

/// JUnit XML: one <testsuite name="tidesim check"> with <properties> naming the metrics tested,
/// the correction, alpha and the number of tests, one <testcase classname="POLICY"
/// name="METRIC"> per verdict, with <failure> for regressed or missing and <skipped/> for
/// skipped ones.
std::string junit_xml(const CheckReport& report);

}  // namespace tidesim::app
