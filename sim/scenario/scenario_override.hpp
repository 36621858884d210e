#pragma once
/// Scenario overrides: `--set KEY=VALUE` on the command line and the axes of a sweep
/// (docs/sweeps.md) change one value of a scenario file before it is read. KEY is a path into the
/// YAML document: mapping keys joined by '.', sequence items by [index], e.g. `seeds`,
/// `run.until`, `cluster.node_groups[0].count`, `workload.arrivals.count`. VALUE is YAML: `4`,
/// `2h`, `[1, 2, 3]`, `{process: burst, count: 10}`. The scenario reader then checks the result as
/// it checks a file (an unknown key or a bad value is an error naming the field).
#include <string>
#include <vector>

#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {

/// One override.
struct ScenarioOverride {
  std::string key;
  /// The value as written (YAML).
  std::string value;
  /// "KEY=VALUE".
  std::string text() const { return key + "=" + value; }
  bool operator==(const ScenarioOverride&) const = default;
};

/// Parses "KEY=VALUE" (split at the first '='). Throws InputError naming `field` when either part
/// is empty or KEY is not a path.
ScenarioOverride parse_override(const std::string& text, const std::string& field = "--set");

/// Sets the value at `o.key` of `root` to `o.value` (parsed as YAML). Missing mapping keys are
/// created (the scenario reader refuses unknown ones); a sequence index must exist. Throws
/// InputError naming `field` and the key when the path does not fit the document or the value is
/// not YAML.
void apply_override(ConfigNode& root, const ScenarioOverride& o,
                    const std::string& field = "--set");

/// Reads the scenario at `path` with `overrides` applied in order, its profiles loaded with
/// `registry`'s plugins and its job-level policies looked up in `job_policies` (null: the
/// default registries).
Scenario load_scenario_with(const std::string& path, const std::vector<ScenarioOverride>& overrides,
                            const std::string& field = "--set",
                            policies::RegistryPtr registry = nullptr,
                            JobPolicyRegistryPtr job_policies = nullptr);

}  // namespace tidesim
