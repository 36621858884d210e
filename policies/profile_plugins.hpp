#pragma once
/// The plugins of one scheduler profile at each extension point, built from a
/// KubeSchedulerConfiguration profile as framework.go's NewFramework builds them: the plugin sets
/// merged into the defaults, each plugin instantiated once from its decoded args, the lists per
/// extension point with the multiPoint expansion, the score weights and the profile's checks; and
/// what else the profile sets (its queue order and back-off, percentageOfNodesToScore). A
/// Scheduler (policies/scheduler.hpp) runs its cycles over them.
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/policies/config.hpp"
#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/queue.hpp"
#include "tidesim/policies/registry.hpp"

namespace tidesim::policies {

class ProfilePlugins {
 public:
  /// A Score plugin with its weight.
  struct ScoreEntry {
    ScorePlugin* plugin;
    std::int64_t weight;
  };
  /// Plugin names with their weights (0 but at score), in order.
  using Listing = std::vector<std::pair<std::string, std::int64_t>>;

  /// Builds the plugins of `profile` of `config`; throws InputError naming the profile, plugin
  /// and field (unknown plugin, plugin at a point it does not implement, missing weight, not
  /// exactly one queueSort plugin, no bind plugin, bad args).
  ProfilePlugins(const SchedulerConfig& config, const ProfileConfig& profile,
                 const Registry& registry);

  /// The profile's schedulerName.
  const std::string& name() const { return name_; }
  /// Queue settings: order from the QueueSort plugin, back-off from the config.
  QueueOptions queue_options() const { return queue_options_; }
  /// The percentageOfNodesToScore in effect (0 = adaptive).
  int percentage() const { return percentage_; }
  /// tidesim's first-fit: the first feasible node, without scoring.
  bool first_feasible() const { return first_feasible_; }
  /// Enabled plugins at `point` ("filter", "score", ...) in order; score plugins with weights.
  Listing at(const std::string& point) const;

  const std::vector<PreFilterPlugin*>& pre_filter() const { return pre_filter_; }
  const std::vector<FilterPlugin*>& filter() const { return filter_; }
  const std::vector<PreScorePlugin*>& pre_score() const { return pre_score_; }
  const std::vector<ScoreEntry>& score() const { return score_; }
  const std::vector<PostFilterPlugin*>& post_filter() const { return post_filter_; }
  const std::vector<PermitPlugin*>& permit() const { return permit_; }
  /// Coscheduling's PreFilter when the profile does not list the plugin (gangs under any
  /// profile); null otherwise.
  PreFilterPlugin* gang_pre_filter() const { return gang_pre_filter_; }
  /// Coscheduling's PostFilter: the profile's instance, or the one added for gangs.
  PostFilterPlugin* gang_post_filter() const { return gang_post_filter_; }
  /// The first Score plugin that chooses cards; null when none does.
  CardChooserPlugin* card_chooser() const { return card_chooser_; }

  /// Every plugin of the profile, once each, in the order they were built.
  std::vector<const Plugin*> all() const;
  /// True when a plugin reads node metrics (Plugin::reads_metrics()).
  bool reads_metrics() const;
  /// True when a plugin judges forecasts (Plugin::reads_forecasts()).
  bool reads_forecasts() const;
  /// True when a plugin wants the run's whole workload (Plugin::wants_workload()).
  bool wants_workload() const;
  /// True when a plugin asks for the pod group cycle (Plugin::pod_group_cycle()).
  bool pod_group_cycle() const;
  /// The first PlacementPlugin (KEP-5732's group points); null when there is none.
  const PlacementPlugin* placement() const;
  /// Shows the run's pods to the plugins that want them.
  void observe_workload(std::span<const PodSpec> pods);

 private:
  // Fills the lists from the plugin names per extension point, the instances by name and the
  // entry that gives each score plugin its weight.
  void assign(const std::map<std::string, std::vector<std::string>>& lists,
              const std::map<std::string, Plugin*>& instances,
              const std::map<std::string, const PluginEntry*>& weights);

  std::string name_;
  std::vector<std::unique_ptr<Plugin>> owned_;
  std::vector<PreFilterPlugin*> pre_filter_;
  std::vector<FilterPlugin*> filter_;
  std::vector<PreScorePlugin*> pre_score_;
  std::vector<ScoreEntry> score_;
  std::vector<PostFilterPlugin*> post_filter_;
  std::vector<PermitPlugin*> permit_;
  PreFilterPlugin* gang_pre_filter_ = nullptr;
  PostFilterPlugin* gang_post_filter_ = nullptr;
  CardChooserPlugin* card_chooser_ = nullptr;
  std::map<std::string, Listing> listing_;
  QueueOptions queue_options_;
  int percentage_ = 0;
  bool first_feasible_ = false;
};

}  // namespace tidesim::policies
