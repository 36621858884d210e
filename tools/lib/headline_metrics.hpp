#pragma once
/// The headline metrics of a study: the rows the terminal table leads with, the bars the HTML
/// report draws and the metrics `tidesim check` tests. Chosen, first to last, by `--metrics`, by
/// the scenario's `report.metrics`, or by what the scenario compares: policies that differ in
/// their job-level policy (`admission:`) get the job-level set (JCT, makespan, queueing delay,
/// utilisation, fairness: metrics::job_level_metric_names()); any other study the catalogue's
/// headline rows (the seed's four first: metrics::headline_metric_names()). A result records the
/// set it was run with (RunMetadata::headline_metrics, written when not the catalogue's).
#include <string>
#include <vector>

#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// True when `policies` differ in their job-level policy (its registered name; a policy without
/// `admission:` counts as none): a job-level comparison.
bool compares_job_level_policies(const std::vector<PolicyConfig>& policies);

/// The headline set of scenario `s` run with `policies`: `s.report.metrics` when written, else the
/// job-level set for a job-level comparison, else empty (the catalogue's headline rows).
std::vector<std::string> study_headline_metrics(const Scenario& s,
                                                const std::vector<PolicyConfig>& policies);

/// The metric names of a `--metrics` option (each given once, comma-separated or repeated), in
/// order. Throws InputError naming `field` for an unknown name (with the closest catalogue name)
/// or a name given twice.
std::vector<std::string> parse_metric_names(const std::vector<std::string>& names,
                                            const std::string& field = "--metrics");

/// The headline set of `result`: its metadata's, or the catalogue's headline rows that the result
/// has when it recorded none.
std::vector<std::string> headline_metrics_of(const RunResult& result);

}  // namespace tidesim::app
