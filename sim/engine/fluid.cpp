#include "tidesim/sim/engine/fluid.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace tidesim {

namespace {

// Shares within this relative distance of the minimum saturate in the same round, so that
// rounding noise does not split one bottleneck level into two.
constexpr double kLevelTolerance = 1e-12;

void check_capacity(double capacity) {
  if (!(capacity >= 0.0) || !std::isfinite(capacity)) {
    throw std::invalid_argument("fluid: capacity must be finite and >= 0, got " +
                                std::to_string(capacity));
  }
}

void check_bound(double max_rate) {
  if (!(max_rate > 0.0)) {
    throw std::invalid_argument("fluid: max_rate must be > 0, got " + std::to_string(max_rate));
  }
}

// Sorts `ids` (non-negative) in increasing order, as std::sort does: a long list by a
// least-significant-digit radix sort of 11 bits a pass (as many passes as the largest id has
// digits, three at most for 31 bits) in linear time, a short one by std::sort. A ring over
// thousands of nodes crosses over ten thousand resources, which every add_flow() and re-solve
// sorts.
template <class T>
void sort_ids(std::vector<T>& ids) {
  constexpr std::size_t kRadixFrom = 4096;
  if (ids.size() < kRadixFrom) {
    std::sort(ids.begin(), ids.end());
    return;
  }
  // Often in order already (a flow's resources as add_flow() marks them) or in reverse (a
  // one-flow component as collect_component() walks it).
  if (std::is_sorted(ids.begin(), ids.end())) {
    return;
  }
  if (std::is_sorted(ids.rbegin(), ids.rend())) {
    std::reverse(ids.begin(), ids.end());
    return;
  }
  constexpr int kBits = 11;
  constexpr std::uint32_t kMask = (1U << kBits) - 1;
  // Only the digits the largest id has (two passes below 2^22 resources).
  const auto largest = static_cast<std::uint32_t>(*std::max_element(ids.begin(), ids.end()));
  std::vector<T> other(ids.size());
  for (int shift = 0; shift < 32 && (shift == 0 || (largest >> shift) != 0); shift += kBits) {
    std::vector<std::size_t> start(std::size_t{kMask} + 2, 0);
    for (const T id : ids) {
      ++start[((static_cast<std::uint32_t>(id) >> shift) & kMask) + 1];
    }
    for (std::size_t d = 1; d < start.size(); ++d) {
      start[d] += start[d - 1];
    }
    for (const T id : ids) {
      other[start[(static_cast<std::uint32_t>(id) >> shift) & kMask]++] = id;
    }
    ids.swap(other);
  }
}

// A flow's level on one resource when it is alone there: the resource's capacity over the times the
// flow crosses it. One expression for every place that finds it (add_prepared, level, visit_alone),
// so they agree to the bit.
template <typename R>
double alone_level(const R& r, double weight) {
  return std::max(r.capacity, 0.0) / weight;
}

// Whether flow `f` is alone in its component (no resource of it carries another flow: Flow::shared,
// kept by add_prepared and remove_flow); if so, marks it visited in `epoch` and returns its rate:
// progressive filling's first round fixes a flow alone at the smallest of its bound and each
// resource's capacity over its weight (each resource's weight sum is this flow's weight, its
// remaining capacity its capacity), the same expressions in the same min, so the same rate to the
// bit, without the rounds' bookkeeping. The smallest level is kept with the flow (Flow::level)
// until a capacity of its resources changes, so a flow alone is rated without visiting its
// resources (a ring over thousands of nodes crosses tens of thousands); when it is found again,
// the pass also marks them visited. update() skips a dirty resource whose one flow was rated.
template <typename Flows, typename Resources>
std::optional<double> visit_alone(std::int32_t f, Flows& flows, Resources& resources,
                                  std::uint64_t epoch) {
  auto& flow = flows[static_cast<std::size_t>(f)];
  if (flow.shared > 0) {
    return std::nullopt;
  }
  if (!flow.level_known) {
    double level = FluidSolver::kUnbounded;
    for (const auto& u : flow.resources) {
      const auto& r = resources[static_cast<std::size_t>(u.index)];
      level = std::min(level, alone_level(r, u.weight));
      resources[static_cast<std::size_t>(u.index)].seen = epoch;
    }
    flow.level = level;
    flow.level_known = true;
  }
  flow.seen = epoch;
  return std::min(flow.level, flow.max_rate);
}

}  // namespace

FluidSolver::Resource& FluidSolver::resource_at(ResourceId id) {
  const auto i = static_cast<std::int32_t>(id);
  if (i < 0 || i >= static_cast<std::int32_t>(resources_.size())) {
    throw std::invalid_argument("fluid: unknown resource " + std::to_string(i));
  }
  return resources_[static_cast<std::size_t>(i)];
}

const FluidSolver::Resource& FluidSolver::resource_at(ResourceId id) const {
  return const_cast<FluidSolver*>(this)->resource_at(id);
}

FluidSolver::Flow& FluidSolver::flow_at(FlowId id) {
  const auto i = static_cast<std::int32_t>(id);
  if (i < 0 || i >= static_cast<std::int32_t>(flows_.size()) ||
      !flows_[static_cast<std::size_t>(i)].alive) {
    throw std::invalid_argument("fluid: unknown or removed flow " + std::to_string(i));
  }
  return flows_[static_cast<std::size_t>(i)];
}

const FluidSolver::Flow& FluidSolver::flow_at(FlowId id) const {
  return const_cast<FluidSolver*>(this)->flow_at(id);
}

void FluidSolver::mark_resource(std::int32_t r) {
  auto& res = resources_[static_cast<std::size_t>(r)];
  if (!res.dirty) {
    res.dirty = true;
    dirty_resources_.push_back(r);
  }
}

void FluidSolver::mark_flow(std::int32_t f) {
  auto& flow = flows_[static_cast<std::size_t>(f)];
  if (!flow.dirty) {
    flow.dirty = true;
    dirty_flows_.push_back(f);
  }
}

ResourceId FluidSolver::add_resource(double capacity) {
  check_capacity(capacity);
  Resource r;
  r.capacity = capacity;
  resources_.push_back(std::move(r));
  return static_cast<ResourceId>(resources_.size() - 1);
}

void FluidSolver::set_capacity(ResourceId resource, double capacity) {
  check_capacity(capacity);
  auto& r = resource_at(resource);
  if (r.capacity != capacity) {
    r.capacity = capacity;
    ++capacity_changes_;
    for (const Use& u : r.flows) {
      flows_[static_cast<std::size_t>(u.index)].level_known = false;
    }
    mark_resource(static_cast<std::int32_t>(resource));
  }
}

double FluidSolver::capacity(ResourceId resource) const {
  return resource_at(resource).capacity;
}

double FluidSolver::load(ResourceId resource) const {
  double sum = 0.0;
  for (const Use& u : resource_at(resource).flows) {
    sum += u.weight * flows_[static_cast<std::size_t>(u.index)].rate;
  }
  return sum;
}

double FluidSolver::utilisation(ResourceId resource) const {
  const double cap = capacity(resource);
  return cap > 0.0 ? load(resource) / cap : 0.0;
}

FluidPath FluidSolver::prepare(std::vector<ResourceId> resources) const {
  for (ResourceId r : resources) {
    (void)resource_at(r);  // validates
  }
  // Merge repeated resources into one use with a weight.
  sort_ids(resources);
  FluidPath path;
  std::vector<Use>& uses = path.uses_;
  uses.reserve(resources.size());
  for (ResourceId r : resources) {
    const auto ri = static_cast<std::int32_t>(r);
    if (!uses.empty() && uses.back().index == ri) {
      uses.back().weight += 1.0;
    } else {
      uses.push_back(Use{ri, 1.0});
    }
  }
  return path;
}

FluidPath FluidSolver::change(const FluidPath& path,
                              std::vector<std::pair<ResourceId, double>> changes) const {
  for (const auto& c : changes) {
    (void)resource_at(c.first);  // validates
  }
  std::sort(changes.begin(), changes.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // One change per resource: the sum of its changes.
  std::vector<Use> net;
  for (const auto& [r, by] : changes) {
    if (!net.empty() && net.back().index == static_cast<std::int32_t>(r)) {
      net.back().weight += by;
    } else {
      net.push_back(Use{static_cast<std::int32_t>(r), by});
    }
  }
  FluidPath out;
  out.uses_.reserve(path.uses_.size() + net.size());
  const auto push = [&out](std::int32_t index, double weight) {
    if (weight < 0.0) {
      throw std::invalid_argument("fluid: a path change removes a crossing the path does not have");
    }
    if (weight > 0.0) {
      out.uses_.push_back(Use{index, weight});
    }
  };
  // Merges the changes into the path's uses, both in increasing resource order.
  auto c = net.begin();
  for (const Use& u : path.uses_) {
    for (; c != net.end() && c->index < u.index; ++c) {
      push(c->index, c->weight);  // a resource the path did not cross
    }
    double weight = u.weight;
    if (c != net.end() && c->index == u.index) {
      weight += (c++)->weight;
    }
    push(u.index, weight);
  }
  for (; c != net.end(); ++c) {
    push(c->index, c->weight);
  }
  return out;
}

double FluidSolver::level(const FluidPath& path) const {
  double level = kUnbounded;
  for (const Use& u : path.uses_) {
    level = std::min(level, alone_level(resources_[static_cast<std::size_t>(u.index)], u.weight));
  }
  return level;
}

FlowId FluidSolver::add_flow(std::vector<ResourceId> resources, double max_rate) {
  check_bound(max_rate);
  return add_prepared(prepare(std::move(resources)), max_rate);
}

FlowId FluidSolver::add_prepared(FluidPath path, double max_rate) {
  check_bound(max_rate);
  if (!path.uses_.empty() &&
      static_cast<std::size_t>(path.uses_.back().index) >= resources_.size()) {
    throw std::invalid_argument("fluid: a path of another solver");
  }
  std::int32_t f = 0;
  if (!free_flows_.empty()) {
    f = free_flows_.back();
    free_flows_.pop_back();
  } else {
    f = static_cast<std::int32_t>(flows_.size());
    flows_.emplace_back();
  }
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  flow = Flow{};
  flow.resources = std::move(path.uses_);  // a kept path was copied by the caller
  flow.max_rate = max_rate;
  flow.alive = true;
  flow.is_new = true;
  // Its resources need no mark: update() solves the new flow's component, which holds them.
  double level = kUnbounded;
  int shared = 0;
  for (const Use& u : flow.resources) {
    auto& users = resources_[static_cast<std::size_t>(u.index)].flows;
    if (!users.empty()) {
      ++shared;
      if (users.size() == 1) {
        ++flows_[static_cast<std::size_t>(users.front().index)].shared;  // no longer alone
      }
    }
    users.push_back(Use{f, u.weight});
    level = std::min(level, alone_level(resources_[static_cast<std::size_t>(u.index)], u.weight));
  }
  flow.shared = shared;
  flow.level = level;
  flow.level_known = true;
  mark_flow(f);
  ++live_flows_;
  return static_cast<FlowId>(f);
}

void FluidSolver::remove_flow(FlowId id) {
  Flow& flow = flow_at(id);
  const auto f = static_cast<std::int32_t>(id);
  for (const Use& u : flow.resources) {
    auto& users = resources_[static_cast<std::size_t>(u.index)].flows;
    users.erase(
        std::find_if(users.begin(), users.end(), [f](const Use& x) { return x.index == f; }));
    if (users.size() == 1) {
      --flows_[static_cast<std::size_t>(users.front().index)].shared;  // alone there now
    }
    // A resource left without flows has nothing to re-solve.
    if (!users.empty()) {
      mark_resource(u.index);
    }
  }
  flow.resources.clear();
  flow.alive = false;
  flow.rate = 0.0;
  free_flows_.push_back(f);
  --live_flows_;
}

void FluidSolver::set_max_rate(FlowId id, double max_rate) {
  check_bound(max_rate);
  Flow& flow = flow_at(id);
  if (flow.max_rate != max_rate) {
    flow.max_rate = max_rate;
    mark_flow(static_cast<std::int32_t>(id));
  }
}

double FluidSolver::rate(FlowId id) const {
  return flow_at(id).rate;
}

bool FluidSolver::alive(FlowId id) const {
  const auto i = static_cast<std::int32_t>(id);
  return i >= 0 && i < static_cast<std::int32_t>(flows_.size()) &&
         flows_[static_cast<std::size_t>(i)].alive;
}

void FluidSolver::collect_component(std::int32_t start_flow, std::int32_t start_resource,
                                    std::vector<std::int32_t>& flows,
                                    std::vector<std::int32_t>& resources) {
  // Depth-first walk of the bipartite flow-resource graph; `seen == epoch_` marks visited.
  std::vector<std::int32_t>& flow_stack = scratch_.flow_stack;
  std::vector<std::int32_t>& resource_stack = scratch_.resource_stack;
  flow_stack.clear();
  resource_stack.clear();
  if (start_flow >= 0) {
    flows_[static_cast<std::size_t>(start_flow)].seen = epoch_;
    flow_stack.push_back(start_flow);
  }
  if (start_resource >= 0) {
    resources_[static_cast<std::size_t>(start_resource)].seen = epoch_;
    resource_stack.push_back(start_resource);
  }
  while (!flow_stack.empty() || !resource_stack.empty()) {
    if (!flow_stack.empty()) {
      const std::int32_t f = flow_stack.back();
      flow_stack.pop_back();
      flows.push_back(f);
      for (const Use& u : flows_[static_cast<std::size_t>(f)].resources) {
        auto& r = resources_[static_cast<std::size_t>(u.index)];
        if (r.seen != epoch_) {
          r.seen = epoch_;
          resource_stack.push_back(u.index);
        }
      }
    } else {
      const std::int32_t ri = resource_stack.back();
      resource_stack.pop_back();
      resources.push_back(ri);
      for (const Use& u : resources_[static_cast<std::size_t>(ri)].flows) {
        auto& fl = flows_[static_cast<std::size_t>(u.index)];
        if (fl.seen != epoch_) {
          fl.seen = epoch_;
          flow_stack.push_back(u.index);
        }
      }
    }
  }
}

// Progressive filling in one function of about 100 lines, kept whole on purpose: every round reads
// and updates the same state (the active resources, the flows by bound, the level, the flows
// fixed this round) in a fixed order that keeps the floating-point sums identical run to run;
// split, that state would be passed through every helper.
void FluidSolver::solve(std::vector<std::int32_t>& flows, std::vector<std::int32_t>& resources) {
  // Fixed order so the floating-point sums are the same on every run.
  sort_ids(flows);
  sort_ids(resources);
  for (std::int32_t ri : resources) {
    auto& r = resources_[static_cast<std::size_t>(ri)];
    r.remaining = r.capacity;
    r.weight_sum = 0.0;
    for (const Use& u : r.flows) {
      r.weight_sum += u.weight;
    }
  }
  for (std::int32_t f : flows) {
    flows_[static_cast<std::size_t>(f)].fixed = false;
  }
  std::size_t unfixed = flows.size();
  // Resources that still carry unfixed flows, and the bounded flows by increasing bound (ties
  // by id), so that each round costs O(active resources) plus the flows it fixes.
  std::vector<std::int32_t>& active = scratch_.active;
  active.clear();
  for (std::int32_t ri : resources) {
    if (resources_[static_cast<std::size_t>(ri)].weight_sum > 0.0) {
      active.push_back(ri);
    }
  }
  std::vector<std::int32_t>& bounded = scratch_.bounded;
  bounded.clear();
  for (std::int32_t f : flows) {
    if (flows_[static_cast<std::size_t>(f)].max_rate != kUnbounded) {
      bounded.push_back(f);
    }
  }
  std::stable_sort(bounded.begin(), bounded.end(), [this](std::int32_t x, std::int32_t y) {
    return flows_[static_cast<std::size_t>(x)].max_rate <
           flows_[static_cast<std::size_t>(y)].max_rate;
  });
  std::size_t next_bound = 0;
  std::vector<std::int32_t>& newly_fixed = scratch_.fixed;
  while (unfixed > 0) {
    // Progressive filling: every unfixed flow runs at the same level; the level rises until a
    // resource saturates or a flow reaches its bound.
    while (next_bound < bounded.size() &&
           flows_[static_cast<std::size_t>(bounded[next_bound])].fixed) {
      ++next_bound;
    }
    double level = kUnbounded;
    for (std::int32_t ri : active) {
      const auto& r = resources_[static_cast<std::size_t>(ri)];
      level = std::min(level, std::max(r.remaining, 0.0) / r.weight_sum);
    }
    if (next_bound < bounded.size()) {
      level = std::min(level, flows_[static_cast<std::size_t>(bounded[next_bound])].max_rate);
    }
    const double threshold = level * (1.0 + kLevelTolerance);
    newly_fixed.clear();
    auto fix = [&](std::int32_t f) {
      auto& fl = flows_[static_cast<std::size_t>(f)];
      if (!fl.fixed) {
        fl.fixed = true;
        fl.new_rate = level;
        newly_fixed.push_back(f);
      }
    };
    if (level == kUnbounded) {
      for (std::int32_t f : flows) {
        fix(f);
      }
    } else {
      for (std::int32_t ri : active) {
        const auto& r = resources_[static_cast<std::size_t>(ri)];
        if (std::max(r.remaining, 0.0) / r.weight_sum <= threshold) {
          for (const Use& u : r.flows) {
            fix(u.index);
          }
        }
      }
      for (std::size_t i = next_bound;
           i < bounded.size() && flows_[static_cast<std::size_t>(bounded[i])].max_rate <= threshold;
           ++i) {
        fix(bounded[i]);
      }
    }
    // newly_fixed is in a deterministic order (sorted resources, each resource's flows in
    // insertion order, then bounds), so the subtractions below repeat exactly run to run.
    for (std::int32_t f : newly_fixed) {
      const auto& fl = flows_[static_cast<std::size_t>(f)];
      for (const Use& u : fl.resources) {
        auto& r = resources_[static_cast<std::size_t>(u.index)];
        r.weight_sum -= u.weight;
        if (std::isfinite(fl.new_rate)) {
          r.remaining -= u.weight * fl.new_rate;
        }
      }
    }
    // Weights are whole numbers, so a resource with no unfixed flow left has exactly 0.
    std::erase_if(active, [this](std::int32_t ri) {
      return !(resources_[static_cast<std::size_t>(ri)].weight_sum > 0.0);
    });
    unfixed -= newly_fixed.size();
  }
}

std::vector<FlowId> FluidSolver::update() {
  ++epoch_;
  last_flows_ = 0;
  last_resources_ = 0;
  std::vector<std::int32_t>& component_flows = scratch_.component_flows;
  std::vector<std::int32_t>& component_resources = scratch_.component_resources;
  std::vector<FlowId> changed;
  auto process = [&](std::int32_t start_flow, std::int32_t start_resource) {
    component_flows.clear();
    component_resources.clear();
    // The flow to try alone: the start flow, or a start resource's only flow.
    std::int32_t only = start_flow;
    if (only < 0) {
      const auto& users = resources_[static_cast<std::size_t>(start_resource)].flows;
      only = users.size() == 1 ? users.front().index : -1;
    }
    const std::optional<double> rate =
        only >= 0 ? visit_alone(only, flows_, resources_, epoch_) : std::nullopt;
    if (rate) {
      Flow& alone = flows_[static_cast<std::size_t>(only)];
      alone.new_rate = *rate;
      component_flows.push_back(only);
      last_resources_ += static_cast<int>(alone.resources.size());
    } else {
      // Two flows or more: they share a resource.
      collect_component(start_flow, start_resource, component_flows, component_resources);
      solve(component_flows, component_resources);
    }
    last_flows_ += static_cast<int>(component_flows.size());
    last_resources_ += static_cast<int>(component_resources.size());
    for (std::int32_t f : component_flows) {
      auto& fl = flows_[static_cast<std::size_t>(f)];
      if (fl.is_new || fl.new_rate != fl.rate) {
        changed.push_back(static_cast<FlowId>(f));
      }
      fl.rate = fl.new_rate;
      fl.is_new = false;
    }
  };
  // The dirty flows and resources in the order they were marked: a component's rates do not
  // depend on where its walk starts (solve() sorts its flows and resources), and `changed` is
  // sorted below.
  for (std::int32_t f : dirty_flows_) {
    auto& fl = flows_[static_cast<std::size_t>(f)];
    fl.dirty = false;
    if (fl.alive && fl.seen != epoch_) {
      process(f, -1);
    }
  }
  for (std::int32_t ri : dirty_resources_) {
    auto& r = resources_[static_cast<std::size_t>(ri)];
    r.dirty = false;
    if (r.seen == epoch_) {
      continue;
    }
    if (r.flows.empty()) {
      // A component of this resource alone, without flows: nothing to solve (a capacity changed
      // on an idle link).
      r.seen = epoch_;
      continue;
    }
    if (r.flows.size() == 1 &&
        flows_[static_cast<std::size_t>(r.flows.front().index)].seen == epoch_) {
      continue;  // its one flow was rated alone (visit_alone)
    }
    process(-1, ri);
  }
  dirty_flows_.clear();
  dirty_resources_.clear();
  sort_ids(changed);
  return changed;
}

}  // namespace tidesim
