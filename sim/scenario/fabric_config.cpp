#include "tidesim/sim/scenario/fabric_config.hpp"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "tidesim/sim/input/did_you_mean.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

// The most NICs a node may have, and nodes per domain (a scenario's kMaxNodes).
constexpr std::int64_t kMaxNics = 64;
constexpr std::int64_t kMaxDomainNodes = 100'000;

Fabric base_fabric(Fields& f) {
  const ConfigNode preset = f.get("preset");
  if (!preset) {
    Fabric written;
    written.tiers.clear();
    return written;
  }
  const std::string name = f.string("preset");
  if (std::optional<Fabric> p = fabric_preset(name)) {
    return *p;
  }
  std::vector<std::string> names(fabric_preset_names().begin(), fabric_preset_names().end());
  std::string message = fmt::format("unknown fabric preset '{}'", name);
  if (const std::string close = closest_name(name, names); !close.empty()) {
    message += fmt::format(" (did you mean {}?)", close);
  }
  throw f.error(preset, "preset", message + fmt::format("; presets: {}", fmt::join(names, ", ")));
}

FabricTier parse_tier(const ConfigNode& node, const std::string& file, const std::string& path) {
  Fields f(node, file, path);
  FabricTier t;
  t.name = f.string("name");
  t.label = f.string("label", std::string(kFabricLabelPrefix) + t.name);
  t.nodes = static_cast<int>(f.integer("nodes", std::nullopt, 1, kMaxDomainNodes));
  t.oversubscription = f.number("oversubscription", 1.0, 1.0, 1e6);
  t.efficiency = f.number("efficiency", 1.0, 1e-6, 1.0);
  t.latency = to_seconds(f.duration("latency", Duration::zero()));
  f.finish();
  return t;
}

}  // namespace

FabricConfig parse_fabric(const ConfigNode& node, const std::string& file,
                          const std::string& path) {
  Fields f(node, file, path);
  FabricConfig out;
  out.where = location_of(node, file);
  Fabric fabric = base_fabric(f);
  if (const ConfigNode nics = node["nics_per_node"]) {
    out.nics_where = location_of(nics, file);
  }
  fabric.nics_per_node =
      static_cast<int>(f.integer("nics_per_node", fabric.nics_per_node, 1, kMaxNics));
  fabric.nic_bandwidth = f.bandwidth("nic_bandwidth", fabric.nic_bandwidth, 1.0);
  fabric.efficiency = f.number("efficiency", fabric.efficiency, 1e-6, 1.0);
  fabric.latency = to_seconds(f.duration("latency", from_seconds(fabric.latency)));
  fabric.rail_optimized = f.boolean("rail_optimized", fabric.rail_optimized);
  if (const ConfigNode tiers = f.get("tiers")) {
    fabric.tiers.clear();
    int i = 0;
    for (const auto& t : sequence_of(tiers, file, f.path_of("tiers"))) {
      fabric.tiers.push_back(parse_tier(t, file, fmt::format("{}[{}]", f.path_of("tiers"), i++)));
    }
  }
  f.finish();
  if (const auto problem = fabric_error(fabric)) {
    // Point at the tier (or the key) the message names.
    ConfigNode at = node;
    const std::string& field = problem->first;
    if (field.rfind("tiers[", 0) == 0 && node["tiers"]) {
      const auto index = static_cast<std::size_t>(std::stoul(field.substr(6)));
      const auto tiers = sequence_of(node["tiers"], file, f.path_of("tiers"));
      const ConfigNode tier = tiers.at(index);
      const std::string key = field.substr(field.find('.') + 1);
      at = tier[key] ? tier[key] : tier;
    } else if (node[field]) {
      at = node[field];
    }
    throw InputError(location_of(at, file), path + "." + field, problem->second);
  }
  out.fabric = std::move(fabric);
  return out;
}

}  // namespace tidesim
