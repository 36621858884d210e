#include "tidesim/tools/lib/policy_select.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;

// The policy `definition` stands for: a scenario policy of that name, else a built-in scheduler
// or a KubeSchedulerConfiguration file (a path used as given: relative to the working directory),
// loaded now; a file's policy is labelled by its file name, less the extension.
PolicyConfig resolve(const Scenario& s, const std::string& definition) {
  const auto it = std::find_if(s.policies.begin(), s.policies.end(),
                               [&](const PolicyConfig& p) { return p.name == definition; });
  if (it != s.policies.end()) {
    return *it;
  }
  policies::ProfilePlace place;
  place.field = "--policy";
  place.registry = s.registry;
  place.scenario_policies.emplace();
  for (const auto& p : s.policies) {
    place.scenario_policies->push_back(p.name);
  }
  auto profile = policies::load_profile(definition, place);
  const std::string label = profile->builtin ? definition : fs::path(definition).stem().string();
  return PolicyConfig{label, definition, std::nullopt, std::move(profile)};
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
