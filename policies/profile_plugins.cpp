#include "tidesim/policies/profile_plugins.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "tidesim/policies/plugins/coscheduling.hpp"

namespace tidesim::policies {
namespace {

using PluginSets = std::map<std::string, PluginSet>;
using Instances = std::map<std::string, Plugin*>;
using PointLists = std::map<std::string, std::vector<std::string>>;
using WeightEntries = std::map<std::string, const PluginEntry*>;

bool implements_point(Plugin* p, const std::string& point) {
  if (point == "preEnqueue")
    return dynamic_cast<PreEnqueuePlugin*>(p) != nullptr;
  if (point == "queueSort")
    return dynamic_cast<QueueSortPlugin*>(p) != nullptr;
  if (point == "preFilter")
    return dynamic_cast<PreFilterPlugin*>(p) != nullptr;
  if (point == "filter")
    return dynamic_cast<FilterPlugin*>(p) != nullptr;
  if (point == "postFilter")
    return dynamic_cast<PostFilterPlugin*>(p) != nullptr;
  if (point == "preScore")
    return dynamic_cast<PreScorePlugin*>(p) != nullptr;
  if (point == "score")
    return dynamic_cast<ScorePlugin*>(p) != nullptr;
  if (point == "permit")
    return dynamic_cast<PermitPlugin*>(p) != nullptr;
  if (point == "bind")
    return dynamic_cast<BindPlugin*>(p) != nullptr;
  return false;  // reserve, preBind, postBind: no tidesim plugin implements them
}

std::string known_names(const Registry& r) {
  std::string out;
  for (const auto& [name, f] : r) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

// The profile's plugin sets merged into the defaults (default_plugins.go mergePlugins).
PluginSets merge_plugin_sets(const ProfileConfig& profile) {
  PluginSets merged;
  for (const auto& point : extension_point_names()) {
    PluginSet defaults;
    if (point == "multiPoint") {
      defaults.enabled = default_multi_point_plugins();
    }
    const auto it = profile.plugins.find(point);
    merged[point] = it == profile.plugins.end() ? defaults : merge_plugin_set(defaults, it->second);
  }
  return merged;
}

// Every enabled plugin instantiated once, into `owned` (framework.go NewFramework: pluginsNeeded);
// a pluginConfig entry for a plugin that does not exist is an error.
Instances instantiate_plugins(const ProfileConfig& profile, const Registry& registry,
                              const PluginSets& merged,
                              std::vector<std::unique_ptr<Plugin>>& owned) {
  Instances instances;
  for (const auto& point : extension_point_names()) {
    for (const auto& e : merged.at(point).enabled) {
      if (instances.count(e.name) != 0) {
        continue;
      }
      const auto f = registry.find(e.name);
      if (f == registry.end()) {
        throw InputError(e.where, e.path + ".name",
                         fmt::format("plugin \"{}\" does not exist (known plugins: {})", e.name,
                                     known_names(registry)));
      }
      const auto decoded = profile.decoded_args.find(e.name);
      owned.push_back(f->second.factory(decoded != profile.decoded_args.end()
                                            ? decoded->second
                                            : decode_plugin_args(profile, registry, e.name)));
      instances[e.name] = owned.back().get();
    }
  }
  return instances;
}

// The plugins of `point` in order: those the point enables that multiPoint also enables, then
// the rest of multiPoint's, then the rest of the point's (expandMultiPointPlugins).
std::vector<std::string> expand_point(const std::string& point, const PluginSets& merged,
                                      const Instances& instances) {
  std::vector<std::string> enabled;
  for (const auto& e : merged.at(point).enabled) {
    if (!implements_point(instances.at(e.name), point)) {
      throw InputError(e.where, e.path + ".name",
                       fmt::format("plugin \"{}\" does not extend {} plugin", e.name, point));
    }
    if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
      throw InputError(e.where, e.path + ".name",
                       fmt::format("plugin \"{}\" already registered as {}", e.name, point));
    }
    enabled.push_back(e.name);
  }
  std::set<std::string> disabled;
  for (const auto& d : merged.at(point).disabled) {
    disabled.insert(d.name);
  }
  if (disabled.count("*") != 0) {
    return enabled;
  }
  std::vector<std::string> multi;
  std::set<std::string> overrides;
  for (const auto& e : merged.at("multiPoint").enabled) {
    if (!implements_point(instances.at(e.name), point) || disabled.count(e.name) != 0) {
      continue;
    }
    if (std::find(enabled.begin(), enabled.end(), e.name) != enabled.end()) {
      overrides.insert(e.name);
      continue;
    }
    if (std::find(multi.begin(), multi.end(), e.name) != multi.end()) {
      throw InputError(e.where, e.path + ".name",
                       fmt::format("plugin \"{}\" already registered as {}", e.name, point));
    }
    multi.push_back(e.name);
  }
  std::vector<std::string> ordered;
  for (const auto& n : enabled) {
    if (overrides.count(n) != 0) {
      ordered.push_back(n);
    }
  }
  ordered.insert(ordered.end(), multi.begin(), multi.end());
  for (const auto& n : enabled) {
    if (overrides.count(n) == 0) {
      ordered.push_back(n);
    }
  }
  return ordered;
}

// The plugin lists of every extension point but multiPoint.
PointLists point_lists(const PluginSets& merged, const Instances& instances) {
  PointLists lists;
  for (const auto& point : extension_point_names()) {
    if (point != "multiPoint") {
      lists[point] = expand_point(point, merged, instances);
    }
  }
  return lists;
}

// The entry whose weight each score plugin takes (getScoreWeights): the score entry wins over the
// multiPoint one.
WeightEntries weight_entries(const PluginSets& merged) {
  WeightEntries out;
  for (const auto* set : {&merged.at("score"), &merged.at("multiPoint")}) {
    for (const auto& e : set->enabled) {
      out.emplace(e.name, &e);
    }
  }
  return out;
}

InputError profile_error(const ProfileConfig& profile, const std::string& message) {
  return InputError(profile.where, profile.label + ".plugins", message);
}

// Exactly one QueueSort plugin and at least one Bind plugin (framework.go NewFramework).
void check_queue_sort_and_bind(const ProfileConfig& profile, const PointLists& lists) {
  if (lists.at("queueSort").size() != 1) {
    throw profile_error(profile, fmt::format("only one queue sort plugin required for profile "
                                             "with scheduler name \"{}\", but got {}",
                                             profile.scheduler_name, lists.at("queueSort").size()));
  }
  if (lists.at("bind").empty()) {
    throw profile_error(profile, fmt::format("at least one bind plugin is needed for profile with "
                                             "scheduler name \"{}\"",
                                             profile.scheduler_name));
  }
}

// Plugins keep cycle state from PreFilter/PreScore: a Filter (Score) without its PreFilter
// (PreScore) would read another pod's state, so such a profile is rejected up front.
void check_pre_points(const ProfileConfig& profile, const PointLists& lists,
                      const Instances& instances) {
  for (const auto& [point, pre] : {std::pair<std::string, std::string>{"filter", "preFilter"},
                                   std::pair<std::string, std::string>{"score", "preScore"}}) {
    for (const auto& n : lists.at(point)) {
      const auto& l = lists.at(pre);
      if (implements_point(instances.at(n), pre) && std::find(l.begin(), l.end(), n) == l.end()) {
        throw profile_error(
            profile, fmt::format("plugin \"{}\" is enabled at {} but disabled at {}, which its {} "
                                 "needs",
                                 n, point, pre, point));
      }
    }
  }
}

}  // namespace

ProfilePlugins::ProfilePlugins(const SchedulerConfig& config, const ProfileConfig& profile,
                               const Registry& registry)
    : name_(profile.scheduler_name) {
  percentage_ = profile.percentage_of_nodes_to_score.value_or(config.percentage_of_nodes_to_score);
  first_feasible_ = profile.first_feasible;
  queue_options_.initial_backoff = config.pod_initial_backoff;
  queue_options_.max_backoff = config.pod_max_backoff;

  const PluginSets merged = merge_plugin_sets(profile);
  const Instances instances = instantiate_plugins(profile, registry, merged, owned_);
  const PointLists lists = point_lists(merged, instances);
  check_queue_sort_and_bind(profile, lists);
  queue_options_.order =
      dynamic_cast<QueueSortPlugin*>(instances.at(lists.at("queueSort")[0]))->order();
  const WeightEntries weights = weight_entries(merged);
  assign(lists, instances, weights);
  check_pre_points(profile, lists, instances);
  for (const auto& [point, names] : lists) {
    auto& out = listing_[point];
    for (const auto& n : names) {
      out.emplace_back(n, point == "score" ? *weights.at(n)->weight : 0);
    }
  }
}

void ProfilePlugins::assign(const PointLists& lists, const Instances& instances,
                            const WeightEntries& weights) {
  for (const auto& n : lists.at("score")) {
    const PluginEntry* e = weights.at(n);
    if (!e->weight) {
      throw InputError(e->where, e->path + ".weight",
                       fmt::format("score plugin \"{}\" is not configured with weight (tidesim "
                                   "requires one; kube-scheduler would use 1)",
                                   n));
    }
    if (!instances.at(n)->no_op()) {  // a no-op scores 0 everywhere: it adds nothing
      score_.push_back(ScoreEntry{dynamic_cast<ScorePlugin*>(instances.at(n)), *e->weight});
    }
  }
  for (const auto& n : lists.at("score")) {
    if (card_chooser_ == nullptr) {
      card_chooser_ = dynamic_cast<CardChooserPlugin*>(instances.at(n));
    }
  }
  for (const auto& n : lists.at("preFilter")) {
    pre_filter_.push_back(dynamic_cast<PreFilterPlugin*>(instances.at(n)));
  }
  for (const auto& n : lists.at("filter")) {
    if (!instances.at(n)->no_op()) {
      filter_.push_back(dynamic_cast<FilterPlugin*>(instances.at(n)));
    }
  }
  for (const auto& n : lists.at("preScore")) {
    pre_score_.push_back(dynamic_cast<PreScorePlugin*>(instances.at(n)));
  }
  for (const auto& n : lists.at("postFilter")) {
    if (!instances.at(n)->no_op()) {
      post_filter_.push_back(dynamic_cast<PostFilterPlugin*>(instances.at(n)));
    }
  }
  for (const auto& n : lists.at("permit")) {
    permit_.push_back(dynamic_cast<PermitPlugin*>(instances.at(n)));
  }
  // Gangs work under every profile: one that does not list Coscheduling (or Kubernetes'
  // GangScheduling, which then takes its place) gets it at PreFilter and Permit for the pods of a
  // PodGroup (docs/job-scheduling.md).
  // Its PostFilter runs for every PodGroup member that fits no node, listed or not.
  const char* gang = instances.count("GangScheduling") != 0 ? "GangScheduling" : "Coscheduling";
  if (const auto it = instances.find(gang); it != instances.end()) {
    gang_post_filter_ = dynamic_cast<PostFilterPlugin*>(it->second);
  } else {
    owned_.push_back(make_coscheduling());
    gang_pre_filter_ = dynamic_cast<PreFilterPlugin*>(owned_.back().get());
    gang_post_filter_ = dynamic_cast<PostFilterPlugin*>(owned_.back().get());
    permit_.push_back(dynamic_cast<PermitPlugin*>(owned_.back().get()));
  }
}

ProfilePlugins::Listing ProfilePlugins::at(const std::string& point) const {
  const auto it = listing_.find(point);
  return it == listing_.end() ? Listing{} : it->second;
}

std::vector<const Plugin*> ProfilePlugins::all() const {
  std::vector<const Plugin*> out;
  out.reserve(owned_.size());
  for (const auto& p : owned_) {
    out.push_back(p.get());
  }
  return out;
}

bool ProfilePlugins::reads_metrics() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->reads_metrics(); });
}

bool ProfilePlugins::reads_forecasts() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->reads_forecasts(); });
}

bool ProfilePlugins::pod_group_cycle() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->pod_group_cycle(); });
}

const PlacementPlugin* ProfilePlugins::placement() const {
  for (const auto& p : owned_) {
    if (const auto* placement = dynamic_cast<const PlacementPlugin*>(p.get())) {
      return placement;
    }
  }
  return nullptr;
}

bool ProfilePlugins::wants_workload() const {
  return std::any_of(owned_.begin(), owned_.end(),
                     [](const std::unique_ptr<Plugin>& p) { return p->wants_workload(); });
}

void ProfilePlugins::observe_workload(std::span<const PodSpec> pods) {
  for (const auto& p : owned_) {
    if (p->wants_workload()) {
      p->observe_workload(pods);
    }
  }
}

}  // namespace tidesim::policies
