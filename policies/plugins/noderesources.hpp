#pragma once
/// NodeResourcesFit and NodeResourcesBalancedAllocation with Kubernetes' integer arithmetic
/// (pkg/scheduler/framework/plugins/noderesources/). The formulas are exposed for tests.
#include <cstdint>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/policies/plugin_args.hpp"

namespace tidesim::policies {

/// Which field of Resources a resource name refers to.
enum class ResourceKind { kCpu, kMemory, kGpu, kExtended };

/// A scored resource and its weight (config.ResourceSpec). `id` is extended_resource_id(name), for
/// extended resources.
struct ResourceSpec {
  std::string name;
  std::int64_t weight = 1;
  ResourceKind kind = ResourceKind::kExtended;
  ExtendedResourceId id = 0;
};

/// Resolves a resource name: "cpu" (millicores), "memory" (bytes), "nvidia.com/gpu" (units), or an
/// extended resource.
ResourceSpec make_resource_spec(std::string name, std::int64_t weight);
/// The amount of `spec`'s resource in `r`.
std::int64_t amount_of(const Resources& r, const ResourceSpec& spec);

/// least_allocated.go leastRequestedScore: (capacity - requested) * 100 / capacity; 0 when
/// capacity is 0 or requested > capacity.
std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity);
/// most_allocated.go mostRequestedScore: min(requested, capacity) * 100 / capacity; 0 when
/// capacity is 0.
std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity);

/// One point of a RequestedToCapacityRatio shape: utilisation 0-100, score already scaled to 0-100.
struct ShapePoint {
  std::int64_t utilization = 0;
  std::int64_t score = 0;
};
/// helper/shape_score.go BuildBrokenLinearFunction, evaluated at utilisation `p` (integer math).
std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t p);

/// The scoring strategies of NodeResourcesFitArgs.scoringStrategy.type.
enum class ScoringStrategy { kLeastAllocated, kMostAllocated, kRequestedToCapacityRatio };

/// Node score over resources (resource_allocation.go + the strategy's scorer): `requested` and
/// `allocatable` per resource in `specs` order (allocatable 0 = skipped);
/// LeastAllocated/MostAllocated: sum(score_r * w_r) / sum(w_r) (integer division);
/// RequestedToCapacityRatio: resources scoring 0 leave the weight sum, round(sum / sum(w)).
std::int64_t resource_allocation_score(ScoringStrategy strategy,
                                       std::span<const ResourceSpec> specs,
                                       std::span<const ShapePoint> shape,
                                       std::span<const std::int64_t> requested,
                                       std::span<const std::int64_t> allocatable);

/// balanced_allocation.go balancedResourceScorer: fractions min(req/alloc, 1) over resources
/// with allocatable > 0; std = |f1 - f2| / 2 for two, population std-dev for more, 0 for one;
/// score = int64((1 - std) * 100).
std::int64_t balanced_resource_score(std::span<const std::int64_t> requested,
                                     std::span<const std::int64_t> allocatable);

/// schedule_one.go numFeasibleNodesToFind: all nodes below 100; otherwise
/// max(100, n * pct / 100) with pct = the configured percentage, or, when 0 (adaptive),
/// max(5, 50 - n / 125).
int num_feasible_nodes_to_find(int num_all_nodes, int percentage_of_nodes_to_score);

/// cpu and memory, weight 1 each: the default resources of both plugins' args.
std::vector<ResourceSpec> default_cpu_memory();

/// NodeResourcesFitArgs: scoringStrategy{type, resources, requestedToCapacityRatio.shape},
/// ignoredResources, ignoredResourceGroups.
struct FitArgs {
  ScoringStrategy strategy = ScoringStrategy::kLeastAllocated;
  std::vector<ResourceSpec> resources = default_cpu_memory();
  /// requestedToCapacityRatio.shape, scores already scaled to 0-100.
  std::vector<ShapePoint> shape;
  std::set<std::string> ignored_resources;
  std::vector<std::string> ignored_groups;
};
FitArgs parse_fit_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_node_resources_fit(const FitArgs& args);

/// NodeResourcesBalancedAllocationArgs: resources (default cpu and memory).
struct BalancedAllocationArgs {
  std::vector<ResourceSpec> resources = default_cpu_memory();
};
BalancedAllocationArgs parse_balanced_allocation_args(const PluginArgs& args);
std::unique_ptr<Plugin> make_balanced_allocation(const BalancedAllocationArgs& args);

}  // namespace tidesim::policies
