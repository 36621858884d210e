#include "tidesim/sim/scenario/scenario_override.hpp"

#include <fmt/core.h>

#include <charconv>
#include <variant>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

// One step of a key path: a mapping key or a sequence index.
using Step = std::variant<std::string, std::size_t>;

std::vector<Step> parse_path(const std::string& key, const std::string& field) {
  auto bad = [&](const std::string& why) {
    return InputError(SourceLocation{}, field, "'" + key + "': " + why);
  };
  std::vector<Step> steps;
  std::size_t i = 0;
  while (i < key.size()) {
    std::size_t end = i;
    while (end < key.size() && key[end] != '.' && key[end] != '[') {
      ++end;
    }
    if (end == i) {
      throw bad("expected a key name at character " + std::to_string(i + 1) +
                " (e.g. cluster.node_groups[0].count)");
    }
    steps.emplace_back(key.substr(i, end - i));
    i = end;
    while (i < key.size() && key[i] == '[') {
      const std::size_t close = key.find(']', i);
      std::size_t index = 0;
      const char* first = key.data() + i + 1;
      const char* last = key.data() + (close == std::string::npos ? key.size() : close);
      const auto [p, ec] = std::from_chars(first, last, index);
      if (close == std::string::npos || first == last || ec != std::errc() || p != last) {
        throw bad("expected [INDEX] with a non-negative integer at character " +
                  std::to_string(i + 1));
      }
      steps.emplace_back(index);
      i = close + 1;
    }
    if (i < key.size()) {
      if (key[i] != '.' || i + 1 == key.size()) {
        throw bad("expected '.' or '[' at character " + std::to_string(i + 1));
      }
      ++i;
    }
  }
  return steps;
}

std::string path_text(const std::vector<Step>& steps, std::size_t n) {
  std::string out;
  for (std::size_t k = 0; k < n; ++k) {
    if (const auto* name = std::get_if<std::string>(&steps[k])) {
      out += (out.empty() ? "" : ".") + *name;
    } else {
      out += fmt::format("[{}]", std::get<std::size_t>(steps[k]));
    }
  }
  return out.empty() ? "the document" : out;
}

}  // namespace

ScenarioOverride parse_override(const std::string& text, const std::string& field) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw InputError(
        SourceLocation{}, field,
        "expected KEY=VALUE (e.g. cluster.node_groups[0].count=4), got '" + text + "'");
  }
  ScenarioOverride o{text.substr(0, eq), text.substr(eq + 1)};
  (void)parse_path(o.key, field);
  return o;
}

void apply_override(ConfigNode& root, const ScenarioOverride& o, const std::string& field) {
  const std::vector<Step> steps = parse_path(o.key, field);
  ConfigNode value;
  try {
    value = load_yaml_string(o.value, field);
  } catch (const InputError& e) {
    throw InputError(SourceLocation{}, field,
                     fmt::format("'{}': the value is not YAML: {}", o.text(), e.message()));
  }
  ConfigNode cur = root;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const bool last = k + 1 == steps.size();
    if (const auto* name = std::get_if<std::string>(&steps[k])) {
      if (!cur.is_map() && !cur.is_null()) {
        throw InputError(SourceLocation{}, field,
                         fmt::format("'{}': {} is not a mapping", o.text(), path_text(steps, k)));
      }
      if (last) {
        cur.set(*name, value);
        return;
      }
      if (!cur[*name]) {
        cur.set(*name, ConfigNode::empty_map());
      }
      cur = cur[*name];
    } else {
      const std::size_t index = std::get<std::size_t>(steps[k]);
      if (!cur.is_sequence()) {
        throw InputError(SourceLocation{}, field,
                         fmt::format("'{}': {} is not a list", o.text(), path_text(steps, k)));
      }
      if (index >= cur.size()) {
        throw InputError(SourceLocation{}, field,
                         fmt::format("'{}': {} has {} item{} (indices from 0)", o.text(),
                                     path_text(steps, k), cur.size(), cur.size() == 1 ? "" : "s"));
      }
      if (last) {
        cur.set(index, value);
        return;
      }
      cur = cur[index];
    }
  }
}

Scenario load_scenario_with(const std::string& path, const std::vector<ScenarioOverride>& overrides,
                            const std::string& field, policies::RegistryPtr registry,
                            JobPolicyRegistryPtr job_policies) {
  if (overrides.empty()) {
    return load_scenario(path, nullptr, std::move(registry), std::move(job_policies));
  }
  return load_scenario(
      path,
      [&](ConfigNode& root) {
        for (const auto& o : overrides) {
          apply_override(root, o, field);
        }
      },
      std::move(registry), std::move(job_policies));
}

}  // namespace tidesim
