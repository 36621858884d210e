#pragma once
/// The built-in schedulers' KubeSchedulerConfiguration texts. Those defined by a file of
/// scenarios/schedulers/ (NAME.yaml) are compiled in from it at build time
/// (policies/embed_profiles.cmake), so the file a user reads and copies is the profile that runs;
/// the GPU-sharing policies share one template (builtin_scheduler_config()).
#include <optional>
#include <string_view>
#include <vector>

namespace tidesim::policies {

/// The text of scenarios/schedulers/NAME.yaml for a built-in scheduler defined by that file
/// (first-fit, default-k8s, load-aware, most-allocated); nullopt for any other name.
std::optional<std::string_view> embedded_profile_yaml(std::string_view name);

/// The names embedded_profile_yaml() knows, in the order policies/CMakeLists.txt lists them.
std::vector<std::string_view> embedded_profile_names();

}  // namespace tidesim::policies
