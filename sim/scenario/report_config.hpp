#pragma once
/// The scenario's `report:` section: the headline metrics of the study, the rows the terminal
/// table leads with, the bars the HTML report draws and the metrics `tidesim check` tests.
/// Without it the headline set follows what the scenario compares (tools/lib/headline_metrics.hpp;
/// docs/scenarios.md, "report").
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim {

struct ReportConfig {
  /// `report.metrics`: catalogue names (sim/metrics/catalog.hpp), per-queue ones as
  /// "<metric>/<queue>", in the order written, each once; empty when the section is absent.
  std::vector<std::string> metrics;
  /// Where `report.metrics` was written.
  SourceLocation where;
};

/// Why `name` is not a metric of the catalogue: "unknown metric 'jct_mean' (did you mean
/// 'jct_mean_s'?); docs/metrics.md lists them"; std::nullopt when it is one (a per-queue
/// "<metric>/<queue>" is when its metric is).
std::optional<std::string> unknown_metric_message(const std::string& name);

/// Reads the section (`node` may be undefined: no section). Throws InputError naming the file,
/// line, column and field for an unknown key, an empty list, an unknown metric or one listed twice.
ReportConfig parse_report(const ConfigNode& node, const std::string& file);

}  // namespace tidesim
