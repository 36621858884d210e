#pragma once
/// The scenario's `cluster.fabric` section: the network beyond the node (topologies/fabric.hpp),
/// from a preset, written out, or a preset with some figures replaced (docs/scenarios.md,
/// docs/model-fabric.md).
#include <string>

#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/topologies/fabric.hpp"

namespace tidesim {

/// A cluster's fabric and where the scenario wrote it.
struct FabricConfig {
  Fabric fabric;
  SourceLocation where;
  /// Where `nics_per_node` is written (line 0 when it is not: the preset's).
  SourceLocation nics_where;
};

/// Reads `node` (the mapping at `path`, "cluster.fabric") of `file`. Throws InputError naming
/// the key for an unknown preset, a figure out of range, or tiers that do not add up.
FabricConfig parse_fabric(const ConfigNode& node, const std::string& file, const std::string& path);

}  // namespace tidesim
