#include "tidesim/policies/plugins/noderesources.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/engine/checked.hpp"

namespace tidesim::policies {

ResourceSpec make_resource_spec(std::string name, std::int64_t weight) {
  ResourceSpec s{std::move(name), weight, ResourceKind::kExtended, 0};
  if (s.name == "cpu") {
    s.kind = ResourceKind::kCpu;
  } else if (s.name == "memory") {
    s.kind = ResourceKind::kMemory;
  } else if (s.name == kGpuResource) {
    s.kind = ResourceKind::kGpu;
  } else {
    s.id = extended_resource_id(s.name);
  }
  return s;
}

std::int64_t amount_of(const Resources& r, const ResourceSpec& spec) {
  switch (spec.kind) {
    case ResourceKind::kCpu:
      return r.cpu_milli;
    case ResourceKind::kMemory:
      return r.memory_bytes;
    case ResourceKind::kGpu:
      return r.gpus;
    case ResourceKind::kExtended:
      return r.extended.amount(spec.id);
  }
  return 0;
}

namespace {

// mul_div(a, kMaxNodeScore, c): in 64 bits when the product fits (every node short of 9.2e16
// bytes of memory), the same quotient (both truncate) without the 128-bit division's call.
std::int64_t score_fraction(std::int64_t a, std::int64_t c) {
  constexpr std::int64_t kLimit = std::numeric_limits<std::int64_t>::max() / kMaxNodeScore;
  if (a <= kLimit && a >= -kLimit) {
    return a * kMaxNodeScore / c;
  }
  return mul_div(a, kMaxNodeScore, c);
}

}  // namespace

std::int64_t least_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0 || requested > capacity) {
    return 0;
  }
  // 0 <= capacity - requested <= capacity: the quotient is at most 100, but the product
  // overflows 64 bits once capacity passes 2^63 / 100 (9.2e16 bytes of memory): 128-bit.
  return score_fraction(capacity - requested, capacity);
}

std::int64_t most_requested_score(std::int64_t requested, std::int64_t capacity) {
  if (capacity == 0) {
    return 0;
  }
  requested = std::min(requested, capacity);
  return score_fraction(requested, capacity);
}

std::int64_t broken_linear(std::span<const ShapePoint> shape, std::int64_t p) {
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (p <= shape[i].utilization) {
      if (i == 0) {
        return shape[0].score;
      }
      return shape[i - 1].score + (shape[i].score - shape[i - 1].score) *
                                      (p - shape[i - 1].utilization) /
                                      (shape[i].utilization - shape[i - 1].utilization);
    }
  }
  return shape.empty() ? 0 : shape.back().score;
}

std::int64_t resource_allocation_score(ScoringStrategy strategy,
                                       std::span<const ResourceSpec> specs,
                                       std::span<const ShapePoint> shape,
                                       std::span<const std::int64_t> requested,
                                       std::span<const std::int64_t> allocatable) {
  std::int64_t node_score = 0;
  std::int64_t weight_sum = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    const std::int64_t w = specs[i].weight;
    switch (strategy) {
      case ScoringStrategy::kLeastAllocated:
        node_score += least_requested_score(requested[i], allocatable[i]) * w;
        weight_sum += w;
        break;
      case ScoringStrategy::kMostAllocated:
        node_score += most_requested_score(requested[i], allocatable[i]) * w;
        weight_sum += w;
        break;
      case ScoringStrategy::kRequestedToCapacityRatio: {
        // requested_to_capacity_ratio.go: maxUtilization = 100.
        const std::int64_t s =
            requested[i] > allocatable[i]
                ? broken_linear(shape, 100)
                : broken_linear(shape, mul_div(requested[i], 100, allocatable[i]));
        if (s > 0) {
          node_score += s * w;
          weight_sum += w;
        }
        break;
      }
    }
  }
  if (weight_sum == 0) {
    return 0;
  }
  if (strategy == ScoringStrategy::kRequestedToCapacityRatio) {
    return static_cast<std::int64_t>(
        std::round(static_cast<double>(node_score) / static_cast<double>(weight_sum)));
  }
  return node_score / weight_sum;
}

std::int64_t balanced_resource_score(std::span<const std::int64_t> requested,
                                     std::span<const std::int64_t> allocatable) {
  double fractions[16];
  std::size_t n = 0;
  double total = 0.0;
  std::vector<double> spill;
  for (std::size_t i = 0; i < requested.size(); ++i) {
    if (allocatable[i] == 0) {
      continue;
    }
    double f = static_cast<double>(requested[i]) / static_cast<double>(allocatable[i]);
    f = std::min(f, 1.0);
    total += f;
    if (n < 16) {
      fractions[n] = f;
    } else {
      spill.push_back(f);
    }
    ++n;
  }
  const auto at = [&](std::size_t i) { return i < 16 ? fractions[i] : spill[i - 16]; };
  double stddev = 0.0;
  if (n == 2) {
    stddev = std::abs((at(0) - at(1)) / 2);
  } else if (n > 2) {
    const double mean = total / static_cast<double>(n);
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      sum += (at(i) - mean) * (at(i) - mean);
    }
    stddev = std::sqrt(sum / static_cast<double>(n));
  }
  return static_cast<std::int64_t>((1 - stddev) * static_cast<double>(kMaxNodeScore));
}

int num_feasible_nodes_to_find(int num_all_nodes, int percentage_of_nodes_to_score) {
  constexpr int kMinFeasibleNodesToFind = 100;
  constexpr int kMinFeasibleNodesPercentageToFind = 5;
  if (num_all_nodes < kMinFeasibleNodesToFind) {
    return num_all_nodes;
  }
  int percentage = percentage_of_nodes_to_score;
  if (percentage == 0) {
    percentage = 50 - num_all_nodes / 125;
    percentage = std::max(percentage, kMinFeasibleNodesPercentageToFind);
  }
  const int num_nodes =
      static_cast<int>(static_cast<std::int64_t>(num_all_nodes) * percentage / 100);
  return std::max(num_nodes, kMinFeasibleNodesToFind);
}

namespace {

// A `resources` list as the v1 config reads it (defaults.go SetDefaults_NodeResourcesFitArgs /
// SetDefaults_NodeResourcesBalancedAllocationArgs): absent or empty -> `fallback`; a weight of 0
// (or none) -> 1; validation_pluginargs.go: weight in [1, 100], no duplicates.
std::vector<ResourceSpec> parse_resources(Fields& f, const std::string& key,
                                          std::vector<ResourceSpec> fallback) {
  if (!f.has(key) || f.get(key).is_null()) {
    return fallback;
  }
  std::vector<ResourceSpec> out;
  const auto items = sequence_of(f.get(key), f.file(), f.path_of(key));
  std::set<std::string> seen;
  for (std::size_t i = 0; i < items.size(); ++i) {
    Fields r(items[i], f.file(), f.path_of(key) + "[" + std::to_string(i) + "]");
    const std::string name = r.string("name");
    if (name == "ephemeral-storage" || name.rfind("hugepages-", 0) == 0) {
      throw r.error(r.get("name"), "name", "resource '" + name + "' is not modelled by tidesim");
    }
    if (!seen.insert(name).second) {
      throw r.error(r.get("name"), "name", "resource '" + name + "' listed twice");
    }
    std::int64_t w = r.integer("weight", 0, 0, 100);
    if (w == 0) {
      w = 1;
    }
    r.finish();
    out.push_back(make_resource_spec(name, w));
  }
  if (out.empty()) {
    return fallback;
  }
  return out;
}

}  // namespace

std::vector<ResourceSpec> default_cpu_memory() {
  return {make_resource_spec("cpu", 1), make_resource_spec("memory", 1)};
}

namespace {

// Gathers (requested, allocatable) per scored resource as resource_allocation.go does:
// calculateResourceAllocatableRequest. `use_requested` selects real requests (BalancedAllocation)
// instead of the non-zero ones (Fit); an extended resource the pod does not request is skipped.
void gather(const NodeInfo& info, const Resources& pod_request, bool use_requested,
            std::span<const ResourceSpec> specs, std::span<std::int64_t> req,
            std::span<std::int64_t> alloc) {
  const Resources& node_requested = use_requested ? info.requested : info.non_zero_requested;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const ResourceSpec& s = specs[i];
    const std::int64_t pod_amount = amount_of(pod_request, s);
    req[i] = 0;
    alloc[i] = 0;
    const bool scalar = s.kind == ResourceKind::kGpu || s.kind == ResourceKind::kExtended;
    if (scalar && pod_amount == 0) {
      continue;
    }
    const std::int64_t a = amount_of(info.node.allocatable, s);
    if (a == 0) {
      continue;
    }
    alloc[i] = a;
    // Scalar resources count the node's real requests (ScalarResources), cpu/memory the chosen set.
    // Saturating: a node's requests plus a pod's need not fit in 64 bits (a sum at the limit
    // still reads as more than any allocatable).
    req[i] = saturating_add(scalar ? amount_of(info.requested, s) : amount_of(node_requested, s),
                            pod_amount);
  }
}

}  // namespace

FitArgs parse_fit_args(const PluginArgs& args) {
  FitArgs out;
  Fields f = args_fields(args);
  if (f.has("ignoredResources")) {
    for (const auto& n :
         sequence_of(f.get("ignoredResources"), f.file(), f.path_of("ignoredResources"))) {
      out.ignored_resources.insert(scalar_of(n, f.file(), f.path_of("ignoredResources")));
    }
  }
  if (f.has("ignoredResourceGroups")) {
    for (const auto& n : sequence_of(f.get("ignoredResourceGroups"), f.file(),
                                     f.path_of("ignoredResourceGroups"))) {
      out.ignored_groups.push_back(scalar_of(n, f.file(), f.path_of("ignoredResourceGroups")));
    }
  }
  if (f.has("scoringStrategy")) {
    Fields s(f.get("scoringStrategy"), f.file(), f.path_of("scoringStrategy"));
    const std::string type = s.choice(
        "type", "LeastAllocated", {"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"});
    out.strategy = type == "LeastAllocated"  ? ScoringStrategy::kLeastAllocated
                   : type == "MostAllocated" ? ScoringStrategy::kMostAllocated
                                             : ScoringStrategy::kRequestedToCapacityRatio;
    out.resources = parse_resources(s, "resources", default_cpu_memory());
    if (s.has("requestedToCapacityRatio")) {
      if (out.strategy != ScoringStrategy::kRequestedToCapacityRatio) {
        throw s.error(s.get("requestedToCapacityRatio"), "requestedToCapacityRatio",
                      "only allowed with type RequestedToCapacityRatio");
      }
      Fields r(s.get("requestedToCapacityRatio"), s.file(), s.path_of("requestedToCapacityRatio"));
      const auto points = sequence_of(r.require("shape"), r.file(), r.path_of("shape"));
      for (std::size_t i = 0; i < points.size(); ++i) {
        Fields p(points[i], r.file(), r.path_of("shape") + "[" + std::to_string(i) + "]");
        // validation_pluginargs.go: utilisation 0-100 strictly increasing, score 0-10.
        const std::int64_t u = p.integer("utilization", std::nullopt, 0, 100);
        const std::int64_t sc = p.integer("score", std::nullopt, 0, 10);
        p.finish();
        if (!out.shape.empty() && u <= out.shape.back().utilization) {
          throw p.error(p.get("utilization"), "utilization",
                        "utilization values must be sorted in increasing order");
        }
        // requested_to_capacity_ratio.go: scores scale by MaxNodeScore / MaxCustomPriorityScore.
        out.shape.push_back(ShapePoint{u, sc * (kMaxNodeScore / 10)});
      }
      if (out.shape.empty()) {
        throw r.error(r.get("shape"), "shape", "at least one point is required");
      }
      r.finish();
    } else if (out.strategy == ScoringStrategy::kRequestedToCapacityRatio) {
      throw s.error(ConfigNode(), "requestedToCapacityRatio",
                    "required with type RequestedToCapacityRatio");
    }
    s.finish();
  }
  f.finish();
  return out;
}

namespace {

class NodeResourcesFit final : public PreFilterPlugin,
                               public FilterPlugin,
                               public PreScorePlugin,
                               public ScorePlugin {
 public:
  explicit NodeResourcesFit(FitArgs args)
      : args_(std::move(args)), req_(args_.resources.size()), alloc_(args_.resources.size()) {
    gpu_ignored_ = ignored(kGpuResource);
  }
  std::string_view name() const override { return "NodeResourcesFit"; }
  bool plain_filter() const override { return true; }

  Status pre_filter(CycleContext&, const PodSpec& pod) override {
    // computePodResourceRequest: the pod's effective request (containers, init containers,
    // overhead: pod_requests).
    request_ = &pod.requests;
    extended_ = fitted_extended(pod.requests);
    return Status::success();
  }

  // fit.go fitsRequest: request_r > allocatable_r - requested_r for any requested resource.
  Status filter(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    const Resources& r = request_ ? *request_ : pod.requests;
    const NodeInfo& info = ctx.cluster.nodes[node_index];
    const Resources& a = info.node.allocatable;
    const Resources& q = info.requested;
    Status st;
    // The reasons only when the cycle records them (CycleContext::record_reasons): in a run's
    // cycles a rejected node costs no string.
    const auto insufficient = [&, record = ctx.record_reasons](std::string_view name) {
      st.code = Code::kUnschedulable;
      if (record) {
        st.reasons.push_back("Insufficient " + std::string(name));
      }
    };
    if (short_of(r.cpu_milli, a.cpu_milli, q.cpu_milli)) {
      insufficient("cpu");
    }
    if (short_of(r.memory_bytes, a.memory_bytes, q.memory_bytes)) {
      insufficient("memory");
    }
    if (!gpu_ignored_ && short_of(r.gpus, a.gpus, q.gpus)) {
      insufficient(kGpuResource);
    }
    // The extended resources to check were chosen once per cycle by pre_filter (a filter
    // without one chooses them here); they are looked up by interned id, not by name.
    const std::vector<FittedResource> own =
        request_ ? std::vector<FittedResource>{} : fitted_extended(r);
    for (const FittedResource& f : request_ ? extended_ : own) {
      const std::int64_t have = a.extended.amount(f.id) - q.extended.amount(f.id);
      if (f.amount > have) {
        insufficient(*f.name);
      }
    }
    return st;
  }

  // The CPU, memory and GPU checks of filter(), with the same request (the extended resources
  // are left to filter()).
  FitScreen fit_screen(const PodSpec& pod) const override {
    const Resources& r = request_ ? *request_ : pod.requests;
    return FitScreen{.active = true,
                     .cpu_milli = r.cpu_milli,
                     .memory_bytes = r.memory_bytes,
                     .gpus = gpu_ignored_ ? 0 : r.gpus};
  }

  Status pre_score(CycleContext&, const PodSpec& pod, std::span<const int>) override {
    // Fit scores with the non-zero defaults for cpu/memory, per container
    // (resource_allocation.go calculatePodResourceRequest with NonMissingContainerRequests).
    score_request_ = non_zero_requests(pod);
    return Status::success();
  }

  std::int64_t score(CycleContext& ctx, const PodSpec&, int node_index) override {
    gather(ctx.cluster.nodes[node_index], score_request_, false, args_.resources, req_, alloc_);
    return resource_allocation_score(args_.strategy, args_.resources, args_.shape, req_, alloc_);
  }

 private:
  bool ignored(const std::string& name) const {
    if (args_.ignored_resources.count(name) != 0) {
      return true;
    }
    const auto slash = name.find('/');
    const std::string group = slash == std::string::npos ? "" : name.substr(0, slash);
    return std::find(args_.ignored_groups.begin(), args_.ignored_groups.end(), group) !=
           args_.ignored_groups.end();
  }

  // One extended resource fitsRequest checks: its name (pointing into the request), id and amount.
  struct FittedResource {
    const std::string* name = nullptr;
    ExtendedResourceId id = 0;
    std::int64_t amount = 0;
  };

  // The extended resources of `r` that fitsRequest checks (non-zero, not ignored), in name order.
  std::vector<FittedResource> fitted_extended(const Resources& r) const {
    std::vector<FittedResource> out;
    for (auto it = r.extended.begin(); it != r.extended.end(); ++it) {
      if (it->second != 0 && !ignored(it->first)) {
        out.push_back(FittedResource{&it->first, r.extended.id_at(it), it->second});
      }
    }
    return out;
  }

  FitArgs args_;
  bool gpu_ignored_ = false;
  const Resources* request_ = nullptr;
  /// fitted_extended(*request_), pointing into *request_.
  std::vector<FittedResource> extended_;
  Resources score_request_;
  std::vector<std::int64_t> req_;
  std::vector<std::int64_t> alloc_;
};
static_assert(
    Implements<NodeResourcesFit, PreFilterPlugin, FilterPlugin, PreScorePlugin, ScorePlugin>);

class BalancedAllocation final : public PreScorePlugin, public ScorePlugin {
 public:
  explicit BalancedAllocation(std::vector<ResourceSpec> resources)
      : resources_(std::move(resources)), req_(resources_.size()), alloc_(resources_.size()) {}
  std::string_view name() const override { return "NodeResourcesBalancedAllocation"; }

  // useRequested: the real requests (pod.requests), no non-zero defaults.
  Status pre_score(CycleContext& ctx, const PodSpec& pod, std::span<const int>) override {
    // balanced_allocation.go PreScore: a pod requesting none of the scored resources (best
    // effort) is not scored by this plugin (kubernetes issue 129138).
    if (best_effort(pod)) {
      return Status{Code::kSkip, {}, {}};
    }
    pre_scored_cycle_ = ctx.cycle;
    return Status::success();
  }

  std::int64_t score(CycleContext& ctx, const PodSpec& pod, int node_index) override {
    // Score without this cycle's PreScore computes the request itself (and gives a best-effort
    // pod 0), as balanced_allocation.go Score does when the cycle state has no entry.
    if (pre_scored_cycle_ != ctx.cycle && best_effort(pod)) {
      return 0;
    }
    gather(ctx.cluster.nodes[node_index], pod.requests, true, resources_, req_, alloc_);
    return balanced_resource_score(req_, alloc_);
  }

 private:
  bool best_effort(const PodSpec& pod) const {
    return std::all_of(resources_.begin(), resources_.end(),
                       [&](const ResourceSpec& s) { return amount_of(pod.requests, s) == 0; });
  }

  std::vector<ResourceSpec> resources_;
  std::optional<std::uint64_t> pre_scored_cycle_;
  std::vector<std::int64_t> req_;
  std::vector<std::int64_t> alloc_;
};
static_assert(Implements<BalancedAllocation, PreScorePlugin, ScorePlugin>);

}  // namespace

std::unique_ptr<Plugin> make_node_resources_fit(const FitArgs& args) {
  return std::make_unique<NodeResourcesFit>(args);
}

BalancedAllocationArgs parse_balanced_allocation_args(const PluginArgs& args) {
  Fields f = args_fields(args);
  BalancedAllocationArgs a;
  a.resources = parse_resources(f, "resources", a.resources);
  f.finish();
  return a;
}

std::unique_ptr<Plugin> make_balanced_allocation(const BalancedAllocationArgs& args) {
  return std::make_unique<BalancedAllocation>(args.resources);
}

}  // namespace tidesim::policies
