#include "tidesim/policies/builtin_profiles.hpp"

#include <fmt/format.h>

#include "tidesim/policies/loaded_profile.hpp"
#include "tidesim/policies/plugins/gpu_share_plugins.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

// The GPU-sharing policies (docs/policies.md "GPU-sharing policies"): Kubernetes' placement
// filters (NodeResourcesFit sees the device plugin's free cards and free share), then one score
// plugin that also picks the cards. Six profiles that differ only in their names and score
// plugin, from this one template.
std::string gpu_share_config(std::string_view profile, std::string_view plugin) {
  return fmt::format(R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: {0}
    plugins:
      multiPoint:
        disabled:
          - name: "*"
      queueSort:
        enabled:
          - name: PrioritySort
      preFilter:
        enabled:
          - name: NodeResourcesFit
      filter:
        enabled:
          - name: NodeUnschedulable
          - name: NodeName
          - name: TaintToleration
          - name: NodeAffinity
          - name: NodeResourcesFit
      preScore:
        enabled:
          - name: {1}
      score:
        enabled:
          - name: {1}
            weight: 1
      bind:
        enabled:
          - name: DefaultBinder
)",
                     profile, plugin);
}

}  // namespace

std::vector<std::string> builtin_scheduler_names() {
  std::vector<std::string> names;
  for (const auto name : embedded_profile_names()) {
    names.emplace_back(name);
  }
  for (int p = static_cast<int>(gpushare::Policy::kRandom);
       p <= static_cast<int>(gpushare::Policy::kFgd); ++p) {
    names.emplace_back(gpu_share_profile_name(static_cast<gpushare::Policy>(p)));
  }
  return names;
}

std::optional<std::string> builtin_scheduler_config(const std::string& name) {
  if (const auto text = embedded_profile_yaml(name)) {
    return std::string(*text);
  }
  if (const auto policy = gpu_share_policy_of_profile(name)) {
    return gpu_share_config(name, gpu_share_plugin_name(*policy));
  }
  return std::nullopt;
}

std::unique_ptr<Scheduler> make_scheduler(const LoadedProfile& loaded, std::uint64_t seed,
                                          const SchedulerOptions& options) {
  const SchedulerConfig& cfg = loaded.config;
  const ProfileConfig* chosen = &cfg.profiles.front();
  if (!options.profile.empty()) {
    chosen = nullptr;
    for (const auto& p : cfg.profiles) {
      if (p.scheduler_name == options.profile) {
        chosen = &p;
      }
    }
    if (chosen == nullptr) {
      throw InputError(SourceLocation{cfg.file, 0, 0}, "profiles",
                       "no profile with schedulerName \"" + options.profile + "\"");
    }
  }
  return std::make_unique<Scheduler>(cfg, *chosen, seed, *loaded.registry);
}

std::unique_ptr<Scheduler> make_scheduler(const std::string& name_or_path, std::uint64_t seed,
                                          const SchedulerOptions& options) {
  return make_scheduler(*load_profile(name_or_path), seed, options);
}

}  // namespace tidesim::policies
