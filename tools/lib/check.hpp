#pragma once
/// The CI regression check: compares a result with a baseline result, metric by metric and
/// policy by policy, and reports what moved the wrong way beyond tolerance (and beyond the 95%
/// confidence interval when both have several seeds). Writes JUnit XML for CI systems.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// Parameters of check_against_baseline.
struct CheckOptions {
  /// Per-metric tolerance, percent of the baseline mean (e.g. {"mean_wait_s", 10.0}).
  std::map<std::string, double> tolerance_pct;
  /// Tolerance for metrics not in tolerance_pct, percent.
  double default_tolerance_pct = 5.0;
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
  bool failed() const;
};

/// Compares `current` with `baseline`. For every policy of the baseline and every metric of the
/// catalogue with a direction that the baseline has: "missing" when the policy or metric is gone;
/// otherwise, with worse = the change in the metric's bad direction, the metric regressed when
///   worse > tolerance% x |baseline mean|  (any worsening when the baseline mean is 0), and
///   worse > CI half-width of the difference (when both sides have >= 2 seeds).
/// "improved" mirrors it in the good direction. A change that does not show at the table's
/// precision (format_metric_value gives both means the same text, "0.0000 -> 0.0000") is neither.
/// A policy of the current result not in the baseline is not checked (it is named in
/// extra_policies).
CheckReport check_against_baseline(const RunResult& current, const RunResult& baseline,
                                   const CheckOptions& options);

/// Human-readable lines: one per policy missing from the result, every regression, missing
/// metric and improvement, one per policy the baseline does not have, then a one-line total.
std::string format_check_report(const CheckReport& report);

/// What makes `current` and `baseline` not comparable as they stand, from their provenance
/// (docs/outputs.md): a policy of both defined otherwise (another scheduler or file hash),
/// other --set overrides, other seeds. One line each; empty when nothing differs or a side has
/// no provenance (the seeds are compared from the metadata).
std::vector<std::string> provenance_warnings(const RunResult& current, const RunResult& baseline);

/// JUnit XML: one <testsuite name="tidesim check">, one <testcase classname="POLICY"
/// name="METRIC"> per verdict, with <failure> for regressed or missing and <skipped/> for
/// skipped ones.
std::string junit_xml(const CheckReport& report);

}  // namespace tidesim::app
