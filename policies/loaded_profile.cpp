#include "tidesim/policies/loaded_profile.hpp"

#include <filesystem>

#include "tidesim/policies/profile_plugins.hpp"
#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/input/data_folder.hpp"
#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/sha256.hpp"
#include "tidesim/sim/input/text_file.hpp"

namespace tidesim::policies {
namespace {

namespace fs = std::filesystem;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    out += (out.empty() ? "" : ", ") + n;
  }
  return out;
}

// A relative path resolves against `folder` (the scenario's; none: the working directory), one
// that begins with $TIDESIM_DATA in the data folder (input_path, as every path a scenario names).
std::string resolve(const std::string& folder, const std::string& path) {
  return fs::path(input_path(folder, path)).lexically_normal().string();
}

// The one message for a scheduler that is neither a built-in nor a file: the closest name within
// two edits, the scenario's policies where `--policy` could name one, and the built-ins.
[[noreturn]] void unknown_scheduler(const std::string& name, const std::string& path,
                                    const ProfilePlace& place) {
  const std::vector<std::string> builtins = builtin_scheduler_names();
  std::vector<std::string> candidates =
      place.scenario_policies.value_or(std::vector<std::string>{});
  candidates.insert(candidates.end(), builtins.begin(), builtins.end());
  const std::string close = closest_name(name, candidates);
  std::string message =
      "unknown policy '" + name + "'" + (close.empty() ? "" : " (did you mean '" + close + "'?)");
  message += ": ";
  if (place.scenario_policies) {
    const std::string own = joined(*place.scenario_policies);
    message += "not a policy of the scenario (" + (own.empty() ? "none" : own) + "), ";
  }
  message += "not a built-in scheduler (" + joined(builtins) +
             ") and no KubeSchedulerConfiguration file (NAME.yaml) by that name";
  // A name written as a path was meant as a file: say where it was looked for.
  const fs::path written(name);
  if (path != name && (written.has_parent_path() || written.has_extension())) {
    message += " (looked at " + path + ")";
  }
  throw InputError(place.where, place.field, message);
}

// Parses `text` into `out`, hashes it, and answers the two questions of its first profile.
// The registry is `registry`, or the default one when it is null.
std::shared_ptr<const LoadedProfile> finish(std::shared_ptr<LoadedProfile> out,
                                            const std::string& text, const std::string& name,
                                            RegistryPtr registry) {
  out->registry = registry ? std::move(registry) : default_registry();
  out->config = load_scheduler_config_string(text, name, *out->registry);
  out->sha256 = sha256_hex(text);
  // The plugins of the profile a run builds (the first), made once for its two questions.
  const ProfilePlugins first(out->config, out->config.profiles.front(), *out->registry);
  out->reads_metrics = first.reads_metrics();
  out->reads_forecasts = first.reads_forecasts();
  return out;
}

}  // namespace

std::shared_ptr<const LoadedProfile> load_profile_file(const std::string& path,
                                                       RegistryPtr registry) {
  auto out = std::make_shared<LoadedProfile>();
  out->source = path;
  out->path = path;
  return finish(out, read_text_file(path), path, std::move(registry));
}

std::shared_ptr<const LoadedProfile> load_profile(const std::string& name_or_path) {
  const ProfilePlace place;
  return load_profile(name_or_path, place);
}

std::shared_ptr<const LoadedProfile> load_profile(const std::string& name_or_path,
                                                  const ProfilePlace& place) {
  auto out = std::make_shared<LoadedProfile>();
  out->source = name_or_path;
  if (const auto builtin = builtin_scheduler_config(name_or_path)) {
    out->builtin = true;
    return finish(out, *builtin, "<builtin:" + name_or_path + ">", place.registry);
  }
  out->path = resolve(place.folder, name_or_path);
  std::error_code ec;
  if (!fs::is_regular_file(out->path, ec)) {
    unknown_scheduler(name_or_path, out->path, place);
  }
  return finish(out, read_text_file(out->path), out->path, place.registry);
}

}  // namespace tidesim::policies
