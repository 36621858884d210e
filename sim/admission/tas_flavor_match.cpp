#include "tidesim/sim/admission/tas_flavor_match.hpp"

#include <algorithm>

namespace tidesim::tas {
namespace {

bool holds(const std::vector<std::string>& levels, const std::string& level) {
  return std::find(levels.begin(), levels.end(), level) != levels.end();
}

}  // namespace

bool has_level(const std::vector<std::string>& levels, const TopologyRequest& request) {
  if (levels.empty()) {
    return false;
  }
  const std::vector<SliceLayer> layers = slice_layers(request);
  // levelKey: nil for a request that names no level (HasLevel is then false).
  std::optional<std::string> main;
  if (request.required) {
    main = request.required;
  } else if (request.preferred) {
    main = request.preferred;
  } else if (!layers.empty()) {
    main = levels.front();  // slices alone: the highest level
  } else if (request.unconstrained) {
    main = levels.back();
  }
  if (!main || !holds(levels, *main)) {
    return false;
  }
  const std::string slice = layers.empty() ? levels.back() : layers.front().topology;
  return holds(levels, slice) &&
         std::all_of(layers.begin(), layers.end(),
                     [&](const SliceLayer& l) { return holds(levels, l.topology); });
}

std::string flavor_mismatch(const std::string& flavor, const std::vector<std::string>* levels,
                            const TopologyRequest* request, bool queue_tas_only, bool overlaps) {
  const char* why = nullptr;
  if (!request) {
    // Implied when every flavour of the queue has a topology: then any flavour matches.
    why = levels && !queue_tas_only ? "supports only TopologyAwareScheduling" : nullptr;
  } else if (!levels) {
    why = overlaps ? "does not support TopologyAwareScheduling" : nullptr;
  } else if (!has_level(*levels, *request)) {
    why = "does not contain the requested level";
  }
  return why ? "Flavor \"" + flavor + "\" " + why : "";
}

}  // namespace tidesim::tas
