#include "tidesim/tools/lib/sweep_spec.hpp"

#include <fmt/core.h>

#include <filesystem>
#include <set>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/tools/lib/policy_select.hpp"
#include "tidesim/tools/lib/provenance.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;

// The override KEY=VALUE from a sweep file's `key: value`, checked as `--set` checks it.
ScenarioOverride override_at(const std::string& key, const ConfigNode& value,
                             const std::string& file, const std::string& field) {
  try {
    return parse_override(key + "=" + flow_yaml(value), field);
  } catch (const InputError& e) {
    throw InputError(location_of(value, file), field, e.message());
  }
}

std::vector<ScenarioOverride> overrides_of(const ConfigNode& map, const std::string& file,
                                           const std::string& path) {
  if (!map.is_map()) {
    throw InputError(location_of(map, file), path, "expected a mapping of KEY: VALUE");
  }
  std::vector<ScenarioOverride> out;
  for (const auto& kv : map.entries()) {
    const std::string key = kv.first.scalar();
    out.push_back(override_at(key, kv.second, file, path + "." + key));
  }
  return out;
}

// The last `n` '.'-separated parts of `key` ("" when it has fewer).
std::string key_suffix(const std::string& key, std::size_t n) {
  std::size_t at = key.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (at == std::string::npos || at == 0) {
      return "";
    }
    at = key.rfind('.', at - 1);
  }
  return at == std::string::npos ? key : key.substr(at + 1);
}

}  // namespace

std::string short_key(const std::string& key, const std::set<std::string>& keys) {
  for (std::size_t n = 1;; ++n) {
    const std::string tail = key_suffix(key, n);
    if (tail.empty() || tail == key) {
      return key;
    }
    bool unique = true;
    for (const auto& other : keys) {
      unique = unique && (other == key || key_suffix(other, n) != tail);
    }
    if (unique) {
      return tail;
    }
  }
}

namespace {

std::string label_of(const std::vector<ScenarioOverride>& own, const std::set<std::string>& keys) {
  std::string label;
  for (const auto& o : own) {
    label += (label.empty() ? "" : ", ") + short_key(o.key, keys) + "=" + o.value;
  }
  return label;
}

std::string folder_name(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '.' || c == '_' || c == '-';
    out += plain ? c : '_';
  }
  return out;
}

// `columns:` (KEY: NAME): each KEY one the sweep varies, each NAME a column metrics.csv does not
// have yet (policy, seed, a key's own path or another NAME).
std::map<std::string, std::string> columns_of(const ConfigNode& node, const std::string& path,
                                              const std::set<std::string>& keys) {
  if (!node.is_map()) {
    throw InputError(location_of(node, path), "columns",
                     "expected a mapping of KEY: NAME (a swept key and its column in metrics.csv)");
  }
  std::set<std::string> taken(keys.begin(), keys.end());
  taken.insert({"policy", "seed"});
  std::map<std::string, std::string> out;
  for (const auto& kv : node.entries()) {
    const std::string key = kv.first.scalar();
    const std::string field = "columns." + key;
    if (keys.count(key) == 0) {
      throw InputError(location_of(kv.first, path), field,
                       "is not a key the sweep varies (in grid: or cases:)");
    }
    if (!kv.second.is_scalar() || kv.second.scalar().empty()) {
      throw InputError(location_of(kv.second, path), field, "expected a column name");
    }
    const std::string name = kv.second.scalar();
    if (!taken.insert(name).second) {
      throw InputError(location_of(kv.second, path), field,
                       "'" + name + "' is already a column of metrics.csv");
    }
    out[key] = name;
  }
  return out;
}

}  // namespace

SweepSpec load_sweep(const std::string& path) {
  return yaml_guard(path, [&] {
    const ConfigNode root = load_yaml_file(path);
    Fields f = Fields::document(root, path);
    SweepSpec spec;
    spec.path = path;
    const std::string folder = fs::path(path).parent_path().string();
    const std::string scenario = f.string("scenario");
    spec.scenario =
        fs::path(scenario).is_absolute()
            ? scenario
            : (fs::path(folder.empty() ? "." : folder) / scenario).lexically_normal().string();
    std::error_code ec;
    if (!fs::is_regular_file(spec.scenario, ec)) {
      throw f.error(f.get("scenario"), "scenario",
                    "'" + scenario + "' is not a file (looked at " + spec.scenario +
                        "; a relative path is resolved against the sweep file's folder)");
    }
    if (const ConfigNode set = f.get("set")) {
      spec.common = overrides_of(set, path, "set");
    }
    if (const ConfigNode seeds = f.get("seeds")) {
      spec.common.push_back(override_at("seeds", seeds, path, "seeds"));
    }
    if (const ConfigNode policies = f.get("policies")) {
      int i = 0;
      for (const auto& p : sequence_of(policies, path, "policies")) {
        if (!p.is_scalar() || p.scalar().empty()) {
          throw InputError(location_of(p, path), fmt::format("policies[{}]", i),
                           "expected NAME or NAME=DEFINITION, as --policy takes");
        }
        spec.policies.push_back(p.scalar());
        ++i;
      }
    }
    // Cases (each a set of overrides), then every combination of the grid's values.
    std::vector<std::vector<ScenarioOverride>> cases;
    if (const ConfigNode list = f.get("cases")) {
      int i = 0;
      for (const auto& c : sequence_of(list, path, "cases")) {
        cases.push_back(overrides_of(c, path, fmt::format("cases[{}]", i++)));
      }
      if (cases.empty()) {
        throw f.error(list, "cases", "needs at least one case (or leave it out)");
      }
    } else {
      cases.emplace_back();
    }
    std::vector<std::pair<std::string, std::vector<ConfigNode>>> axes;
    if (const ConfigNode grid = f.get("grid")) {
      if (!grid.is_map()) {
        throw f.error(grid, "grid", "expected a mapping of KEY: [VALUE, ...]");
      }
      for (const auto& kv : grid.entries()) {
        const std::string key = kv.first.scalar();
        auto values = sequence_of(kv.second, path, "grid." + key);
        if (values.empty()) {
          throw InputError(location_of(kv.second, path), "grid." + key, "needs at least one value");
        }
        axes.emplace_back(key, std::move(values));
      }
    }
    const ConfigNode columns = f.get("columns");
    f.finish();
    std::size_t combinations = 1;
    for (const auto& [key, values] : axes) {
      combinations *= values.size();
      if (combinations * cases.size() > 1'000'000) {
        throw f.error(f.get("grid"), "grid", "more than 1,000,000 variants");
      }
    }
    std::set<std::string> keys;
    for (const auto& c : cases) {
      for (const auto& o : c) {
        keys.insert(o.key);
      }
    }
    for (const auto& axis : axes) {
      keys.insert(axis.first);
    }
    if (columns) {
      spec.columns = columns_of(columns, path, keys);
    }
    for (const auto& c : cases) {
      for (std::size_t k = 0; k < combinations; ++k) {
        std::vector<ScenarioOverride> own = c;
        std::size_t rest = k;
        std::vector<ScenarioOverride> from_grid(axes.size());
        for (std::size_t a = axes.size(); a-- > 0;) {
          const auto& [key, values] = axes[a];
          from_grid[a] = override_at(key, values[rest % values.size()], path, "grid." + key);
          rest /= values.size();
        }
        own.insert(own.end(), from_grid.begin(), from_grid.end());
        spec.variants.push_back(SweepVariant{label_of(own, keys), own});
      }
    }
    return spec;
  });
}

SweepPlan plan_sweep(const SweepSpec& spec, bool check) {
  SweepPlan plan;
  plan.spec = spec;
  const bool labelled = spec.variants.size() > 1 || !spec.variants.front().overrides.empty();
  for (std::size_t v = 0; v < spec.variants.size(); ++v) {
    std::vector<ScenarioOverride> overrides = spec.common;
    overrides.insert(overrides.end(), spec.variants[v].overrides.begin(),
                     spec.variants[v].overrides.end());
    Scenario s = load_scenario_with(spec.scenario, overrides, "sweep " + spec.path, spec.registry,
                                    spec.job_policies);
    auto policies = select_policies(s, spec.policies);
    if (check) {
      Scenario checked = s;
      checked.policies = policies;
      (void)check_scenario(checked, make_jobs(s, s.seeds.front()));
    }
    for (const auto& p : policies) {
      for (const auto seed : s.seeds) {
        SweepCell cell;
        cell.index = plan.cells.size();
        cell.variant = v;
        cell.policy = p;
        cell.label = labelled ? p.name + " [" + spec.variants[v].label + "]" : p.name;
        cell.seed = seed;
        cell.id = fmt::format("{:05d}-{}-seed{}", cell.index, folder_name(cell.label), seed);
        plan.cells.push_back(std::move(cell));
      }
    }
    plan.scenarios.push_back(std::move(s));
    plan.policies.push_back(std::move(policies));
  }
  return plan;
}

std::vector<ScenarioOverride> cell_overrides(const SweepPlan& plan, const SweepCell& cell) {
  std::vector<ScenarioOverride> out = plan.spec.common;
  const auto& own = plan.spec.variants[cell.variant].overrides;
  out.insert(out.end(), own.begin(), own.end());
  return out;
}

std::string cell_command(const SweepPlan& plan, const SweepCell& cell) {
  std::vector<std::string> args{"tidesim",
                                "run",
                                plan.spec.scenario,
                                "--policy",
                                cell.policy.name == cell.policy.scheduler
                                    ? cell.policy.name
                                    : cell.policy.name + "=" + cell.policy.scheduler,
                                "--seed",
                                std::to_string(cell.seed)};
  for (const auto& o : cell_overrides(plan, cell)) {
    args.insert(args.end(), {"--set", o.text()});
  }
  return shell_command(args);
}

}  // namespace tidesim::app
