#pragma once
/// The catalogue of every metric tidesim computes: name, unit, which way is better, and a
/// one-line definition (the exact formulas are in docs/metrics.md). Tables, reports and the CI
/// check read units and directions from here.
#include <span>
#include <string_view>

namespace tidesim::metrics {

/// How a metric's value is expressed.
enum class Unit {
  kRatio,    // a share in [0, 1]; shown as a percentage
  kSeconds,  // simulated seconds
  kCount,    // a number of things (mean over seeds may be fractional)
  kPerHour,  // jobs per simulated hour
  kGpus,     // device-plugin GPU units (GPUs in exclusive mode)
  kFlag,     // 0 or 1 in one run (an alert fired); its mean over seeds is the share of seeds
  kPlain,    // a dimensionless number (a variance of utilisations)
};

/// Which direction is an improvement.
enum class Direction {
  kLowerIsBetter,
  kHigherIsBetter,
  kNeutral,  // descriptive only; the CI check ignores it
};

/// One metric of the catalogue.
struct MetricInfo {
  std::string_view name;
  Unit unit;
  Direction direction;
  /// Short label for tables ("GPU util std-dev").
  std::string_view label;
  /// One-line definition.
  std::string_view description;
};

/// Every metric, in presentation order (the seed's four first, then the health indicators, then
/// the research metrics).
std::span<const MetricInfo> metric_catalog();

/// The catalogue entry of `name`; nullptr when unknown.
const MetricInfo* find_metric(std::string_view name);

/// The seed's four headline metrics, in the seed table's order.
std::span<const std::string_view> seed_metric_names();

/// The short table's rows (`tidesim run`'s terminal table): the seed's four, then the readings
/// that change what they say (wait over all attempts and to the latest start, jobs
/// OOM-killed, the censored JCT median and the jobs it censors, the balance over the busy
/// window). Every other metric stays in the JSON, the CSV and the report.
std::span<const std::string_view> headline_metric_names();

/// The headline rows of a job-level policy comparison (a study whose policies differ in their
/// job-level policy, `admission:`): JCT mean, p50 and p99, makespan, queueing delay over all
/// attempts, GPU allocation (utilisation), finish-time fairness, and the jobs without a success
/// (failed or unfinished), which the JCT figures leave out.
std::span<const std::string_view> job_level_metric_names();

/// Unit as text ("ratio", "s", "count", "jobs/h", "gpus", "flag", "plain").
std::string_view to_string(Unit unit);

/// Direction as text ("lower", "higher", "neutral").
std::string_view to_string(Direction direction);

}  // namespace tidesim::metrics
