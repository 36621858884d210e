#pragma once
/// Sweep files (docs/sweeps.md): a scenario, the values to vary (a grid and/or a list of cases,
/// each value a scenario override by key path), the policies and the seeds; and the cells they
/// make, one per (variant, policy, seed), in a fixed order.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim::app {

/// One combination of values: the overrides it applies on top of the sweep's common ones.
struct SweepVariant {
  /// "KEY=VALUE, KEY=VALUE" of its own overrides ("" when it has none), each KEY shortened to the
  /// last parts of its path that no other key of the sweep ends with ("count=4" for
  /// cluster.node_groups[0].count when no other key ends in "count").
  std::string label;
  std::vector<ScenarioOverride> overrides;
};

/// A parsed sweep file.
struct SweepSpec {
  /// The sweep file.
  std::string path;
  /// The scenario, resolved against the sweep file's folder.
  std::string scenario;
  /// `set:` and `seeds:`, applied to every variant before its own overrides.
  std::vector<ScenarioOverride> common;
  /// `cases:` x `grid:` (cases outer; grid keys in file order, the first varying slowest); one
  /// variant without overrides when neither is given.
  std::vector<SweepVariant> variants;
  /// `columns:`: the name metrics.csv gives a swept key's column (KEY -> NAME); a key not named
  /// here keeps its path.
  std::map<std::string, std::string> columns;
  /// `policies:` as `--policy` specs (NAME or NAME=DEFINITION); empty: the scenario's.
  std::vector<std::string> policies;
  /// The plugin registry every variant's profiles are loaded with (not read from the file: the
  /// caller's, such as the command line's); null: the default registry.
  policies::RegistryPtr registry;
  /// The job-level policy registry its variants' `admission:` entries are read with (the
  /// caller's); null: the default one.
  JobPolicyRegistryPtr job_policies;
};

/// The shortest tail of `key` ('.'-separated parts: "count" of "cluster.node_groups[0].count")
/// that no other key of `keys` ends with; the whole key when there is none. Labels show keys so.
std::string short_key(const std::string& key, const std::set<std::string>& keys);

/// Reads a sweep file. Throws InputError naming file, line, column and field.
SweepSpec load_sweep(const std::string& path);

/// One run of a sweep.
struct SweepCell {
  std::size_t index = 0;
  std::size_t variant = 0;
  /// The policy as selected (its own name).
  PolicyConfig policy;
  /// The label of its column in the merged result: the policy's name, followed by
  /// " [<variant label>]" when the sweep has more than one variant or the variant overrides.
  std::string label;
  std::uint64_t seed = 0;
  /// Its folder's name: "<index, 5 digits>-<label with other characters than [A-Za-z0-9._-]
  /// made '_'>-seed<seed>".
  std::string id;
};

/// A sweep ready to run: each variant's scenario and policies, and every cell in order (variant,
/// then policy, then seed).
struct SweepPlan {
  SweepSpec spec;
  std::vector<Scenario> scenarios;
  std::vector<std::vector<PolicyConfig>> policies;
  std::vector<SweepCell> cells;
};

/// Loads every variant's scenario and selects its policies (throws InputError on bad input; the
/// error of an override names the sweep file). With `check`, also builds what each variant's runs
/// build (check_scenario), so bad input fails before any cell runs.
SweepPlan plan_sweep(const SweepSpec& spec, bool check = true);

/// The overrides of `cell` (common, then its variant's), and the command that reproduces it.
std::vector<ScenarioOverride> cell_overrides(const SweepPlan& plan, const SweepCell& cell);
std::string cell_command(const SweepPlan& plan, const SweepCell& cell);

}  // namespace tidesim::app
