#include "tidesim/policies/config.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {

const std::vector<std::string>& extension_point_names() {
  static const std::vector<std::string> kNames{
      "preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore",  "score",
      "reserve",    "permit",    "preBind",   "bind",   "postBind",   "multiPoint"};
  return kNames;
}

std::vector<PluginEntry> default_multi_point_plugins() {
  const auto e = [](const char* name, std::optional<std::int64_t> w = std::nullopt) {
    return PluginEntry{name, w, SourceLocation{"<default plugins>", 0, 0}, "defaults"};
  };
  return {e("SchedulingGates"),
          e("PrioritySort"),
          e("NodeUnschedulable"),
          e("NodeName"),
          e("TaintToleration", 3),
          e("NodeAffinity", 2),
          e("NodePorts"),
          e("NodeResourcesFit", 1),
          e("VolumeRestrictions"),
          e("EBSLimits"),
          e("GCEPDLimits"),
          e("NodeVolumeLimits"),
          e("AzureDiskLimits"),
          e("VolumeBinding"),
          e("VolumeZone"),
          e("PodTopologySpread", 2),
          e("InterPodAffinity", 2),
          e("DefaultPreemption"),
          e("NodeResourcesBalancedAllocation", 1),
          e("ImageLocality", 1),
          e("DefaultBinder")};
}

PluginSet merge_plugin_set(const PluginSet& defaults, const PluginSet& custom) {
  std::set<std::string> disabled;
  PluginSet out;
  for (const auto& d : custom.disabled) {
    out.disabled.push_back(d);
    disabled.insert(d.name);
  }
  for (const auto& d : defaults.disabled) {
    out.disabled.push_back(d);
    disabled.insert(d.name);
  }
  std::map<std::string, std::size_t> custom_index;
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    custom_index.emplace(custom.enabled[i].name, i);
  }
  std::set<std::size_t> replaced;
  if (disabled.count("*") == 0) {
    for (const auto& d : defaults.enabled) {
      if (disabled.count(d.name) != 0) {
        continue;
      }
      const auto it = custom_index.find(d.name);
      if (it != custom_index.end()) {
        out.enabled.push_back(custom.enabled[it->second]);
        replaced.insert(it->second);
      } else {
        out.enabled.push_back(d);
      }
    }
  }
  for (std::size_t i = 0; i < custom.enabled.size(); ++i) {
    if (replaced.count(i) == 0) {
      out.enabled.push_back(custom.enabled[i]);
    }
  }
  return out;
}

namespace {

std::string idx(const std::string& path, std::size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

std::vector<PluginEntry> read_entries(Fields& set, const std::string& key, bool allow_weight) {
  std::vector<PluginEntry> out;
  if (!set.has(key)) {
    return out;
  }
  const auto items = sequence_of(set.get(key), set.file(), set.path_of(key));
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields e(items[i], set.file(), idx(set.path_of(key), i));
    PluginEntry p;
    p.name = e.string("name");
    p.where = location_of(items[i], set.file());
    p.path = e.path();
    if (allow_weight) {
      if (e.has("weight")) {
        // A weight of zero or less would silently become 1 in kube-scheduler; tidesim rejects it.
        p.weight = e.integer("weight", std::nullopt, 1, 100);
      }
    } else if (e.has("weight")) {
      throw e.error(e.get("weight"), "weight", "only enabled plugins carry a weight");
    }
    e.finish();
    out.push_back(std::move(p));
  }
  return out;
}

ProfileConfig read_profile(const ConfigNode& node, const std::string& file, std::size_t index) {
  Fields f(node, file, idx("profiles", index));
  ProfileConfig p;
  p.scheduler_name = f.string("schedulerName", "default-scheduler");
  p.label = f.path() + "(" + p.scheduler_name + ")";
  p.where = location_of(node, file);
  if (f.has("percentageOfNodesToScore")) {
    p.percentage_of_nodes_to_score =
        static_cast<int>(f.integer("percentageOfNodesToScore", std::nullopt, 0, 100));
  }
  // tidesim's extension (not a Kubernetes field): how the cycle picks the node.
  p.first_feasible =
      f.choice("nodeSelection", "Score", {"Score", "FirstFeasible"}) == "FirstFeasible";
  if (f.has("plugins")) {
    Fields plugins(f.get("plugins"), file, p.label + ".plugins");
    for (const auto& point : extension_point_names()) {
      if (!plugins.has(point)) {
        continue;
      }
      Fields set(plugins.get(point), file, plugins.path_of(point));
      PluginSet ps;
      ps.enabled = read_entries(set, "enabled", true);
      ps.disabled = read_entries(set, "disabled", false);
      set.finish();
      p.plugins[point] = std::move(ps);
    }
    plugins.finish();
  }
  if (f.has("pluginConfig")) {
    const auto items = sequence_of(f.get("pluginConfig"), file, p.label + ".pluginConfig");
    for (std::size_t i = 0; i < items.size(); ++i) {
      Fields c(items[i], file, idx(p.label + ".pluginConfig", i));
      const std::string name = c.string("name");
      PluginArgs args;
      args.node = c.get("args");
      args.file = file;
      args.path = c.path() + "(" + name + ").args";
      if (args.node.defined() && !args.node.is_null() && !args.node.is_map()) {
        throw c.error(args.node, "args", "expected a mapping");
      }
      c.finish();
      if (!p.plugin_args.emplace(name, args).second) {
        throw c.error(c.get("name"), "name", "repeated pluginConfig for plugin " + name);
      }
    }
  }
  f.finish();
  return p;
}

// The args `name` is built from: its own pluginConfig args, plus, when its registry entry names an
// args group, every key set for another plugin of that group and not for it (RegistryEntry).
PluginArgs args_for(const ProfileConfig& profile, const Registry& registry,
                    const std::string& name) {
  PluginArgs args{ConfigNode(), profile.where.file,
                  profile.label + ".pluginConfig(" + name + ").args"};
  const auto own = profile.plugin_args.find(name);
  if (own != profile.plugin_args.end()) {
    args = own->second;
  }
  const std::string& group = registry.find(name)->second.args_group;
  if (group.empty()) {
    return args;
  }
  for (const auto& [other, other_args] : profile.plugin_args) {
    const auto entry = registry.find(other);
    if (other == name || entry == registry.end() || entry->second.args_group != group ||
        !other_args.node.is_map()) {
      continue;
    }
    ConfigNode merged = args.node.is_map() ? args.node.clone() : ConfigNode::empty_map();
    for (const auto& [k, v] : other_args.node.entries()) {
      if (!merged[k.scalar()]) {
        merged.set(k.scalar(), v);
      }
    }
    args.node = merged;
  }
  return args;
}

// Decodes the args of every plugin of `registry` for `profile`, once: first the plugins the
// profile configures (so that a bad arg is reported under the plugin it was written for), then
// the rest (their defaults, or keys shared through an args group).
void decode_profile_args(ProfileConfig& profile, const Registry& registry) {
  for (const auto& [name, args] : profile.plugin_args) {
    const auto entry = registry.find(name);
    if (entry == registry.end()) {
      throw InputError(location_of(args.node, args.file), args.path,
                       fmt::format("pluginConfig for unknown plugin \"{}\"", name));
    }
    // A plugin of an args group reads its own args alone first: a bad arg written for the scorer
    // is then reported under the scorer, at its key, not under the filter that shares it (the
    // keys another plugin brings are copies, without their place).
    if (!entry->second.args_group.empty() && entry->second.decode) {
      (void)entry->second.decode(args);
    }
  }
  for (const auto& [name, args] : profile.plugin_args) {
    profile.decoded_args[name] = decode_plugin_args(profile, registry, name);
  }
  for (const auto& [name, entry] : registry) {
    if (!profile.decoded_args.contains(name)) {
      profile.decoded_args[name] = decode_plugin_args(profile, registry, name);
    }
  }
}

}  // namespace

DecodedArgs decode_plugin_args(const ProfileConfig& profile, const Registry& registry,
                               const std::string& name) {
  const RegistryEntry& entry = registry.at(name);
  const PluginArgs args = args_for(profile, registry, name);
  return entry.decode ? entry.decode(args) : DecodedArgs();
}

SchedulerConfig load_scheduler_config_string(const std::string& text, const std::string& name,
                                             const Registry& registry) {
  // A yaml-cpp exception escaping the reader (a bad conversion, say) still names the file.
  return yaml_guard(name, [&] {
    const ConfigNode root = load_yaml_string(text, name);
    Fields f = Fields::document(root, name);
    SchedulerConfig cfg;
    cfg.file = name;
    f.choice("apiVersion", std::nullopt,
             {"kubescheduler.config.k8s.io/v1", "kubescheduler.config.k8s.io/v1beta3"});
    f.choice("kind", std::nullopt, {"KubeSchedulerConfiguration"});
    cfg.percentage_of_nodes_to_score =
        static_cast<int>(f.integer("percentageOfNodesToScore", 0, 0, 100));
    cfg.pod_initial_backoff =
        std::chrono::seconds(f.integer("podInitialBackoffSeconds", 1, 1, 3600));
    cfg.pod_max_backoff = std::chrono::seconds(f.integer("podMaxBackoffSeconds", 10, 1, 3600));
    if (cfg.pod_max_backoff < cfg.pod_initial_backoff) {
      throw f.error(f.get("podMaxBackoffSeconds"), "podMaxBackoffSeconds",
                    "must be at least podInitialBackoffSeconds");
    }
    // Deployment settings with no effect on placement: accepted and ignored.
    for (const char* key : {"parallelism", "leaderElection", "clientConnection", "enableProfiling",
                            "enableContentionProfiling", "delayCacheUntilActive",
                            "healthzBindAddress", "metricsBindAddress"}) {
      f.get(key);
    }
    if (f.has("extenders")) {
      throw f.error(f.get("extenders"), "extenders", "scheduler extenders are not supported");
    }
    if (f.has("profiles")) {
      const auto items = sequence_of(f.get("profiles"), name, "profiles");
      std::set<std::string> names;
      for (std::size_t i = 0; i < items.size(); ++i) {
        cfg.profiles.push_back(read_profile(items[i], name, i));
        if (!names.insert(cfg.profiles.back().scheduler_name).second) {
          throw InputError(cfg.profiles.back().where, cfg.profiles.back().label + ".schedulerName",
                           "duplicate profile name");
        }
      }
    }
    f.finish();
    if (cfg.profiles.empty()) {
      // Kubernetes defaults to one profile named default-scheduler.
      ProfileConfig p;
      p.label = "profiles[0](default-scheduler)";
      p.where = SourceLocation{name, 0, 0};
      cfg.profiles.push_back(p);
    }
    for (ProfileConfig& p : cfg.profiles) {
      decode_profile_args(p, registry);
    }
    return cfg;
  });
}

SchedulerConfig load_scheduler_config_file(const std::string& path, const Registry& registry) {
  return load_scheduler_config_string(read_text_file(path), path, registry);
}

}  // namespace tidesim::policies
