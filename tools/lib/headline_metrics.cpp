#include "tidesim/tools/lib/headline_metrics.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/sim/scenario/report_config.hpp"

namespace tidesim::app {

bool compares_job_level_policies(const std::vector<PolicyConfig>& policies) {
  std::set<std::string> job_policies;
  for (const auto& p : policies) {
    job_policies.insert(p.admission ? p.admission->policy : std::string());
  }
  return job_policies.size() > 1;
}

std::vector<std::string> study_headline_metrics(const Scenario& s,
                                                const std::vector<PolicyConfig>& policies) {
  if (!s.report.metrics.empty()) {
    return s.report.metrics;
  }
  std::vector<std::string> out;
  if (compares_job_level_policies(policies)) {
    for (const auto name : metrics::job_level_metric_names()) {
      out.emplace_back(name);
    }
  }
  return out;
}

std::vector<std::string> parse_metric_names(const std::vector<std::string>& names,
                                            const std::string& field) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (const auto message = unknown_metric_message(name)) {
      throw InputError(SourceLocation{}, field, *message);
    }
    if (std::find(out.begin(), out.end(), name) != out.end()) {
      throw InputError(SourceLocation{}, field, fmt::format("'{}' is given twice", name));
    }
    out.push_back(name);
  }
  return out;
}

std::vector<std::string> headline_metrics_of(const RunResult& result) {
  if (!result.metadata.headline_metrics.empty()) {
    return result.metadata.headline_metrics;
  }
  std::vector<std::string> out;
  for (const auto name : metrics::headline_metric_names()) {
    const bool present = std::any_of(result.runs.begin(), result.runs.end(), [&](const SeedRun& r) {
      return r.metrics.contains(std::string(name));
    });
    if (present) {
      out.emplace_back(name);
    }
  }
  return out;
}

}  // namespace tidesim::app
