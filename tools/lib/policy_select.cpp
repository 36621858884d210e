#include "tidesim/tools/lib/policy_select.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;

bool names_file(const std::string& definition) {
  return definition.ends_with(".yaml") || definition.ends_with(".yml");
}

// Refuses a definition that names no policy (not the scenario's, not a built-in scheduler, not a
// file), suggesting the closest name when one is near; a path is left to the scheduler's reader.
void check_known(const Scenario& s, const std::string& definition) {
  std::error_code ec;
  if (names_file(definition) || definition.find('/') != std::string::npos ||
      policies::builtin_scheduler_config(definition) || fs::is_regular_file(definition, ec)) {
    return;
  }
  std::vector<std::string> names;
  std::string scenario_names;
  for (const auto& p : s.policies) {
    names.push_back(p.name);
    scenario_names += (scenario_names.empty() ? "" : ", ") + p.name;
  }
  std::string builtin;
  for (const auto& b : policies::builtin_scheduler_names()) {
    names.push_back(b);
    builtin += (builtin.empty() ? "" : ", ") + b;
  }
  const std::string close = closest_name(definition, names);
  throw InputError(
      SourceLocation{}, "--policy",
      "unknown policy '" + definition + "'" +
          (close.empty() ? "" : " (did you mean '" + close + "'?)") +
          ": not a policy of the scenario (" + (scenario_names.empty() ? "none" : scenario_names) +
          "), a built-in scheduler (" + builtin + ") or a KubeSchedulerConfiguration file");
}

// The policy `definition` stands for: a scenario policy of that name, else a built-in name or a
// scheduler config file (used as given: relative to the working directory).
PolicyConfig resolve(const Scenario& s, const std::string& definition) {
  const auto it = std::find_if(s.policies.begin(), s.policies.end(),
                               [&](const PolicyConfig& p) { return p.name == definition; });
  if (it != s.policies.end()) {
    return *it;
  }
  check_known(s, definition);
  return PolicyConfig{names_file(definition) ? fs::path(definition).stem().string() : definition,
                      definition};
}

}  // namespace

std::vector<PolicyConfig> select_policies(const Scenario& s,
                                          const std::vector<std::string>& specs) {
  if (specs.empty()) {
    return s.policies;
  }
  std::vector<PolicyConfig> out;
  std::map<std::string, std::string> spec_of_label;
  for (const auto& spec : specs) {
    const auto eq = spec.find('=');
    const std::string definition = eq == std::string::npos ? spec : spec.substr(eq + 1);
    PolicyConfig p;
    if (eq == std::string::npos) {
      if (spec.empty()) {
        throw InputError(SourceLocation{}, "--policy", "empty policy");
      }
      p = resolve(s, spec);
    } else {
      const std::string name = spec.substr(0, eq);
      if (name.empty() || definition.empty()) {
        throw InputError(SourceLocation{}, "--policy",
                         "'" + spec + "': expected NAME=FILE_OR_BUILTIN with both parts");
      }
      p = resolve(s, definition);
      p.name = name;
    }
    const auto [it, fresh] = spec_of_label.emplace(p.name, spec);
    if (!fresh) {
      throw InputError(SourceLocation{}, "--policy",
                       "two policies are named '" + p.name + "' ('" + it->second + "' and '" +
                           spec + "'); label one of them with --policy NAME=" + definition);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace tidesim::app
