#pragma once
/// The derived "summary" member of a result's JSON document (docs/outputs.md):
/// per policy and metric the mean, sd and 95% CI over seeds, and paired
/// differences against the first policy.
#include <optional>

#include <nlohmann/json.hpp>

#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {

/// The summary of `result` (from_json() ignores it when reading).
nlohmann::json summary_json(const RunResult& result);

/// `v` as a JSON number, or null when absent.
inline nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace tidesim::app
