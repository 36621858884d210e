#pragma once
/// Volcano's binpack node-order plugin (volcano-sh/volcano @ed72c7c,
/// pkg/scheduler/plugins/binpack/binpack.go): its arguments and a task's score on a node, which
/// the allocate action adds to the network-topology-aware plugin's node score (the session sums
/// every plugin's node order; docs/topology-aware.md, "The allocate action for one gang").
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace tidesim::volcano {

/// The plugin's arguments: `binpack.weight` (default 1), `binpack.cpu` and `binpack.memory`
/// (default 1; a negative one is 1), `binpack.resources` (a comma-separated list of extended
/// resources) with `binpack.resources.<name>` (default 1; a negative one is 1).
struct BinpackArgs {
  int weight = 1;
  std::map<std::string, int> resources = {{"cpu", 1}, {"memory", 1}};
};

/// The binpack arguments among `args` (the keys above); nullopt when none is given, the plugin
/// being off (Volcano enables a plugin by listing it in a tier; a policy's arguments name its
/// keys instead). Throws std::invalid_argument for a weight that is not an integer.
std::optional<BinpackArgs> binpack_args(const std::map<std::string, std::string>& args);

/// BinPackingScore: over the resources the task requests (non-zero) that have a weight,
/// Σ w_r (used_r + request_r) / allocatable_r / Σ w_r x 100 x weight; a resource the node does
/// not have (allocatable 0) adds 0 with its weight; 0 when one would overflow the node.
double binpack_node_score(const BinpackArgs& args,
                          const std::map<std::string, std::int64_t>& request,
                          const std::map<std::string, std::int64_t>& allocatable,
                          const std::map<std::string, std::int64_t>& used);

}  // namespace tidesim::volcano
