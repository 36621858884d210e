#pragma once
/// Fluid sharing of capacity-limited resources (links, storage devices) by flows, with max-min
/// fairness computed by progressive filling: SimGrid's network model (Velho et al., "On the
/// validity of flow-level TCP network models for grid and cloud simulations", TOMACS 2013; the
/// `lmm` solver in SimGrid's kernel/lmm). The re-solve is incremental: a change marks the
/// resources it touches, and update() recomputes only the connected component of the
/// flow-resource graph that contains them (max-min allocations of different components are
/// independent), then reports the flows whose rate changed so the caller reschedules only those.
/// A flow alone in its component (no resource of it carries another flow: a job's ring, a pod's
/// reads) keeps the count of its shared resources and its bottleneck level as flows come and go
/// and capacities change, so that adding it, bounding it and removing it cost one pass over its
/// resources or none.
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

namespace tidesim {

/// A resource of the fluid model (a link direction, a storage device). Dense, never reused.
enum class ResourceId : std::int32_t {};
/// A flow of the fluid model. Ids of removed flows are reused (last freed, first reused).
enum class FlowId : std::int32_t {};

/// A flow's resources as FluidSolver::add_prepared() takes them: in increasing id order, a resource
/// crossed n times one use of weight n. Made by FluidSolver::prepare() and valid for that solver;
/// a caller that adds the same flow again (a job's ring after a restart) keeps it and skips the
/// sort.
class FluidPath {
 public:
  struct Use {
    std::int32_t index;  // resource index
    double weight;       // times the flow crosses the resource
  };
  bool empty() const { return uses_.empty(); }
  /// The distinct resources.
  std::size_t size() const { return uses_.size(); }
  const std::vector<Use>& uses() const { return uses_; }

 private:
  friend class FluidSolver;
  std::vector<Use> uses_;
};

/// Max-min fair sharing. Rates and capacities are in the caller's unit (bytes/s in tidesim).
/// Determinism: every sum runs in increasing id order (a component's flows and resources are
/// sorted before it is solved), so the same sequence of calls gives bit-identical rates on any
/// machine.
class FluidSolver {
 public:
  /// Infinite rate bound (a flow limited only by the resources it crosses).
  static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

  /// Adds a resource of `capacity` (>= 0, finite; throws std::invalid_argument otherwise).
  ResourceId add_resource(double capacity);
  /// Changes a resource's capacity (>= 0, finite); its flows are re-solved at the next update().
  void set_capacity(ResourceId resource, double capacity);
  /// The capacity of `resource`.
  double capacity(ResourceId resource) const;
  /// Sum over the flows crossing `resource` of weight x rate, as of the last update().
  double load(ResourceId resource) const;
  /// load / capacity, in [0, 1] up to rounding; 0 for a zero-capacity resource.
  double utilisation(ResourceId resource) const;
  /// Number of capacity changes so far (set_capacity calls that changed a capacity): a caller
  /// that keeps values derived from capacities knows they still hold while it stays the same.
  std::uint64_t capacity_changes() const { return capacity_changes_; }
  /// Number of resources ever added.
  int resource_count() const { return static_cast<int>(resources_.size()); }

  /// Adds a flow crossing `resources`. A resource listed n times is consumed n times per unit of
  /// rate (a ring that crosses one link twice). `max_rate` > 0 bounds the rate (kUnbounded: no
  /// bound). A flow crossing nothing and unbounded gets an infinite rate. The rate is 0 until
  /// the next update(). Throws std::invalid_argument on an unknown resource or a bad bound.
  FlowId add_flow(std::vector<ResourceId> resources, double max_rate = kUnbounded);
  /// The same for a prepared path (prepare()): add_flow(resources) is
  /// add_prepared(prepare(resources)).
  FlowId add_prepared(FluidPath path, double max_rate = kUnbounded);
  /// `resources` sorted and merged for add_flow(). Throws std::invalid_argument on an unknown
  /// resource.
  FluidPath prepare(std::vector<ResourceId> resources) const;
  /// `path` with each (resource, change) of `changes` added to that resource's weight (a new
  /// resource enters at its place, one whose weight reaches 0 leaves): prepare() of a list with
  /// those crossings added and removed, without sorting the whole list again. Throws
  /// std::invalid_argument on an unknown resource or a weight below 0.
  FluidPath change(const FluidPath& path, std::vector<std::pair<ResourceId, double>> changes) const;
  /// The smallest over `path`'s resources of capacity / weight (kUnbounded for an empty path):
  /// the rate of a flow alone on it, before its bound.
  double level(const FluidPath& path) const;
  /// Removes a live flow (throws std::invalid_argument otherwise); its id may be reused.
  void remove_flow(FlowId flow);
  /// Changes a flow's rate bound (> 0, or kUnbounded).
  void set_max_rate(FlowId flow, double max_rate);
  /// The rate of a live flow as of the last update().
  double rate(FlowId flow) const;
  /// True when `flow` is a live flow.
  bool alive(FlowId flow) const;
  /// Number of live flows.
  int flow_count() const { return live_flows_; }

  /// Re-solves every component touched since the last update() and returns the live flows whose
  /// rate changed (new flows included), in increasing id order.
  std::vector<FlowId> update();
  /// Flows and resources (those carrying a flow) re-solved by the last update() (for tests and
  /// benchmarks).
  int last_component_flows() const { return last_flows_; }
  int last_component_resources() const { return last_resources_; }

 private:
  // A flow index (in a resource) or a resource index (in a flow), and the times the flow crosses
  // the resource.
  using Use = FluidPath::Use;
  struct Resource {
    double capacity = 0.0;
    // Most resources carry at most one flow (a link of one job's ring, a pod's data device):
    // that one inline, so adding, removing and visiting it reads no other allocation.
    boost::container::small_vector<Use, 1> flows;
    // Scratch for update().
    double remaining = 0.0;
    double weight_sum = 0.0;
    std::uint64_t seen = 0;
    bool dirty = false;
  };
  struct Flow {
    std::vector<Use> resources;
    double max_rate = kUnbounded;
    double rate = 0.0;
    // Of its resources, how many another flow crosses too (0: it is alone in its component).
    int shared = 0;
    // The smallest of its resources' capacity over its weight, while `level_known` (a capacity
    // change forgets it): a flow alone is rated from it without visiting its resources.
    double level = kUnbounded;
    bool level_known = false;
    bool alive = false;
    bool is_new = false;
    bool dirty = false;
    // Scratch for update().
    std::uint64_t seen = 0;
    bool fixed = false;
    double new_rate = 0.0;
  };

  Resource& resource_at(ResourceId id);
  const Resource& resource_at(ResourceId id) const;
  Flow& flow_at(FlowId id);
  const Flow& flow_at(FlowId id) const;
  void mark_resource(std::int32_t r);
  void mark_flow(std::int32_t f);
  void collect_component(std::int32_t start_flow, std::int32_t start_resource,
                         std::vector<std::int32_t>& flows, std::vector<std::int32_t>& resources);
  void solve(std::vector<std::int32_t>& flows, std::vector<std::int32_t>& resources);

  std::vector<Resource> resources_;
  std::vector<Flow> flows_;
  std::vector<std::int32_t> free_flows_;
  std::vector<std::int32_t> dirty_resources_;
  std::vector<std::int32_t> dirty_flows_;
  // Scratch buffers of update(), kept to avoid allocating on every re-solve.
  struct Scratch {
    std::vector<std::int32_t> active;
    std::vector<std::int32_t> bounded;
    std::vector<std::int32_t> fixed;
    std::vector<std::int32_t> flow_stack;
    std::vector<std::int32_t> resource_stack;
    std::vector<std::int32_t> component_flows;
    std::vector<std::int32_t> component_resources;
  };
  Scratch scratch_;
  std::uint64_t epoch_ = 0;
  std::uint64_t capacity_changes_ = 0;
  int live_flows_ = 0;
  int last_flows_ = 0;
  int last_resources_ = 0;
};

}  // namespace tidesim
