// Phase 1 of Kueue's placement (the counts per domain), the walk down the tree and the result
// (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_flavor_snapshot.go:
// findTopologyAssignment, fillInCounts, fillLeafCounts, fillInCountsHelper, buildAssignment,
// notFitMessage, multiLayerNotFitMessage). The domain selection is in tas_select.cpp.
#include <algorithm>
#include <climits>
#include <utility>

#include "tidesim/sim/admission/tas_placement.hpp"

namespace tidesim::tas {

namespace {

// resources.CountInWithLimitingResource: how many times `requests` fit in a capacity, and the
// resource that limits it (ties: the smallest name). `capacity_of(k, name)`: the capacity of the
// k-th request, named `name` (0 when the capacity has none).
template <class CapacityOf>
std::pair<std::int32_t, const std::string*> count_in_by(const ResourceMap& requests,
                                                        CapacityOf capacity_of) {
  bool first = true;
  std::int32_t result = 0;
  const std::string* limiting = nullptr;
  std::size_t k = 0;
  for (const auto& [name, value] : requests) {
    const std::int64_t cap = capacity_of(k++, name);
    std::int32_t count = INT_MAX;
    if (value != 0) {
      count = static_cast<std::int32_t>(
          std::max<std::int64_t>(0, std::min<std::int64_t>(cap / value, INT_MAX)));
    }
    if (first || count < result) {
      result = count;
      limiting = &name;
      first = false;
    }
  }
  return {result, limiting};
}

// count_in_by over a capacity map: both maps are in name order, so one walk over the capacity
// finds each request's.
std::pair<std::int32_t, const std::string*> count_in(const ResourceMap& requests,
                                                     const ResourceMap& capacity) {
  auto it = capacity.begin();
  return count_in_by(requests, [&](std::size_t, const std::string& name) -> std::int64_t {
    while (it != capacity.end() && it->first < name) {
      ++it;
    }
    return it == capacity.end() || it->first != name ? 0 : it->second;
  });
}

void subtract(ResourceMap& from, const ResourceMap& what) {
  for (const auto& [name, value] : what) {
    from[name] = saturating_add(from[name], value == INT64_MIN ? INT64_MAX : -value);
  }
}

std::string taint_string(const Taint& t) {
  return t.value.empty() ? t.key + ":" + t.effect : t.key + "=" + t.value + ":" + t.effect;
}

int index_of(const std::vector<std::string>& levels, const std::string& key) {
  auto it = std::find(levels.begin(), levels.end(), key);
  return it == levels.end() ? -1 : static_cast<int>(it - levels.begin());
}

}  // namespace

Placement::Placement(TasSnapshot& snapshot, const std::map<std::string, ResourceMap>& assumed)
    : s_(snapshot), assumed_(assumed) {}

std::optional<std::string> Placement::level_key(const TopologyRequest* request) const {
  if (!request) {
    return std::nullopt;
  }
  if (request->required) {
    return request->required;
  }
  if (request->preferred) {
    return request->preferred;
  }
  if (!slice_layers(*request).empty()) {
    return s_.levels_.front();  // slices alone: the whole topology is the PodSet's domain
  }
  if (request->unconstrained) {
    return s_.levels_.back();
  }
  return std::nullopt;
}

std::string Placement::prepare(const TasPodSet& workers, const TasPodSet* leader, bool implied) {
  p_.count = workers.count;
  req_.requests = workers.requests;
  req_.requests["pods"] += 1;
  req_.assumed = &assumed_;
  if (leader) {
    req_.has_leader = true;
    req_.leader_requests = leader->requests;
    req_.leader_requests["pods"] += 1;
    p_.leader_count = 1;  // PodSet grouping requires the leader PodSet to have one pod
  }
  const TopologyRequest* tr = workers.topology ? &*workers.topology : nullptr;
  std::vector<SliceLayer> layers = tr ? slice_layers(*tr) : std::vector<SliceLayer>{};
  if (!layers.empty()) {
    if (layers.front().size <= 0) {
      return "slice topology requested, but slice size not provided";
    }
    p_.slice_size = layers.front().size;
  }
  p_.required = tr && tr->required;
  bool slice_only = tr && !tr->required && !tr->preferred && !layers.empty();
  p_.unconstrained = (tr && tr->unconstrained) || implied || slice_only;
  std::optional<std::string> key = level_key(tr);
  if (!key && implied) {
    key = s_.levels_.back();
  }
  if (!key) {
    return "topology level not specified";
  }
  p_.requested_level = index_of(s_.levels_, *key);
  if (p_.requested_level < 0) {
    return "no requested topology level: " + *key;
  }
  std::string slice_key = layers.empty() ? s_.levels_.back() : layers.front().topology;
  p_.slice_level = index_of(s_.levels_, slice_key);
  if (p_.slice_level < 0) {
    return "no requested topology level for slices: " + slice_key;
  }
  if (p_.requested_level > p_.slice_level) {
    return "podset slice topology " + slice_key + " is above the podset topology " + *key;
  }
  std::string reason = build_slice_size_at_level(tr);
  if (!reason.empty()) {
    return reason;
  }
  if (!p_.slice_size_at_level.empty()) {
    p_.multi_layers = layers;
  }
  return "";
}

// buildSliceSizeAtLevel: the inner layers of multi-layer slices, each at a deeper level than
// the one before and dividing its size; the levels between two layers take the inner size.
std::string Placement::build_slice_size_at_level(const TopologyRequest* request) {
  if (!request) {
    return "";
  }
  std::vector<SliceLayer> layers = slice_layers(*request);
  std::int32_t prev_size = p_.slice_size;
  int prev_level = p_.slice_level;
  for (std::size_t i = 1; i < layers.size(); ++i) {
    const SliceLayer& layer = layers[i];
    int level = index_of(s_.levels_, layer.topology);
    if (level < 0) {
      return "no requested topology level for additional slice layer: " + layer.topology;
    }
    if (level <= prev_level) {
      return "additional slice layer topology " + layer.topology +
             " must be at a lower level than " + s_.levels_[static_cast<std::size_t>(prev_level)];
    }
    if (layer.size <= 0 || prev_size % layer.size != 0) {
      return "additional slice layer size " + std::to_string(layer.size) +
             " must evenly divide parent layer size " + std::to_string(prev_size);
    }
    for (int l = prev_level + 1; l <= level; ++l) {
      p_.slice_size_at_level[l] = layer.size;
    }
    prev_size = layer.size;
    prev_level = level;
  }
  return "";
}

// The default simulator's FindFeasibleNodes (pkg/cache/scheduler/
// scheduling_simulator_default.go): untolerated NoSchedule/NoExecute taints, the nodeSelector,
// required node affinity; the preferred-affinity score when its gate is on.
bool Placement::node_feasible(const TasNode& node, const TasPodSet& ps,
                              std::int64_t& affinity_score) {
  for (const Taint& taint : node.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") {
      continue;
    }
    if (std::none_of(req_.tolerations.begin(), req_.tolerations.end(),
                     [&](const Toleration& t) { return tolerates(t, taint); })) {
      ++p_.stats.taints[taint_string(taint)];
      return false;
    }
  }
  for (const auto& [key, value] : ps.node_selector) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) {
      ++p_.stats.node_selector;
      return false;
    }
  }
  if (!ps.required_affinity.empty() &&
      std::none_of(ps.required_affinity.begin(), ps.required_affinity.end(),
                   [&](const NodeSelectorTerm& term) {
                     return !term.match_expressions.empty() &&
                            matches(term.match_expressions, node.labels);
                   })) {
    ++p_.stats.affinity;
    return false;
  }
  affinity_score = 0;
  if (s_.gates_.respect_node_affinity_preferred) {
    for (const PreferredSchedulingTerm& term : ps.preferred_affinity) {
      if (!term.preference.match_expressions.empty() &&
          matches(term.preference.match_expressions, node.labels)) {
        affinity_score += term.weight;
      }
    }
  }
  return true;
}

void Placement::fill_in_counts(const TasPodSet& workers) {
  // The PodSet's tolerations and then the flavor's (node_feasible).
  req_.tolerations = workers.tolerations;
  req_.tolerations.insert(req_.tolerations.end(), s_.flavor_tolerations_.begin(),
                          s_.flavor_tolerations_.end());
  req_.request_index.clear();
  for (const auto& [name, value] : req_.requests) {
    const auto r = s_.resource_index_.find(name);
    req_.request_index.push_back(r == s_.resource_index_.end() ? -1 : r->second);
  }
  s_.domains_.resize(s_.base_count_);
  for (Domain& d : s_.domains_) {
    d.st = DomainState{};
  }
  for (std::size_t i = 0; i < s_.leaves_.size(); ++i) {
    const TasSnapshot::Leaf& leaf = s_.leaves_[i];
    ++p_.stats.total_nodes;
    if (s_.lowest_is_node_) {
      std::int64_t score = 0;
      if (!node_feasible(*leaf.node, workers, score)) {
        continue;
      }
      st(leaf.domain).affinity_score += score;
    }
    fill_leaf_counts(static_cast<int>(i));
  }
  for (const auto& [id, root] : s_.per_level_.front()) {
    fill_in_counts_helper(root, p_.slice_size, p_.slice_level, 0, p_.slice_size_at_level,
                          p_.leader_count > 0);
  }
}

void Placement::fill_leaf_counts(int leaf_index) {
  const TasSnapshot::Leaf& leaf = s_.leaves_[static_cast<std::size_t>(leaf_index)];
  if (!replacement_domain_.empty()) {
    // DomainID.BelongsTo: the leaf's full path is the domain or starts with it and a comma.
    std::string path;
    for (const std::string& v : dom(leaf.domain).level_values) {
      path += (path.empty() ? "" : ",") + v;
    }
    if (path != replacement_domain_ && path.rfind(replacement_domain_ + ",", 0) != 0) {
      ++p_.stats.topology_domain;
      return;
    }
  }
  const auto assumed = req_.assumed->find(dom(leaf.domain).id);
  // The leaf's free capacity as it is when nothing is taken off it (most leaves of a large
  // cluster): no copy.
  const bool as_is = leaf.tas_usage.empty() && assumed == req_.assumed->end() && !req_.has_leader;
  ResourceMap taken;
  if (!as_is) {
    taken = leaf.free_capacity;
    subtract(taken, leaf.tas_usage);
    if (assumed != req_.assumed->end()) {
      subtract(taken, assumed->second);
    }
  }
  DomainState& state = st(leaf.domain);
  // As is: the leaf's capacity by resource index (the same amounts as its map).
  const auto [pods, limiting] =
      as_is ? count_in_by(req_.requests,
                          [&](std::size_t k, const std::string&) -> std::int64_t {
                            const int r = req_.request_index[k];
                            return r >= 0 && static_cast<std::size_t>(r) < leaf.free_by_index.size()
                                       ? leaf.free_by_index[static_cast<std::size_t>(r)]
                                       : 0;
                          })
            : count_in(req_.requests, taken);
  state.pod_count = pods;
  if (pods == 0 && limiting) {
    ++p_.stats.resources[*limiting];
  }
  state.leader_count = 0;
  if (req_.has_leader && count_in(req_.leader_requests, taken).first > 0) {
    state.leader_count = 1;
    subtract(taken, req_.leader_requests);
  }
  // With a leader the capacity was copied (`taken`); without one nothing is left for it.
  state.pod_count_with_leader = req_.has_leader ? count_in(req_.requests, taken).first : pods;
}

void Placement::fill_in_counts_helper(int d, std::int32_t slice_size, int slice_level, int level,
                                      const std::map<int, std::int32_t>& slice_size_at_level,
                                      bool leader_required) {
  if (dom(d).children.empty()) {
    if (level == slice_level) {
      st(d).slice_count = st(d).pod_count / slice_size;
      st(d).slice_count_with_leader = st(d).pod_count_with_leader / slice_size;
    }
    return;
  }
  // Sums in 64 bits, clamped to int32 (Kueue's int32 would wrap on absurd capacities).
  std::int64_t children_capacity = 0;
  std::int64_t slice_capacity = 0;
  bool with_leader_contributor = false;
  std::int32_t min_pod_diff = INT_MAX;
  std::int32_t min_slice_diff = INT_MAX;
  std::int32_t leader_count = 0;
  std::int64_t affinity = 0;
  auto inner = slice_size_at_level.find(level + 1);
  std::vector<int> children = dom(d).children;
  for (int child : children) {
    fill_in_counts_helper(child, slice_size, slice_level, level + 1, slice_size_at_level,
                          leader_required);
    const DomainState& c = st(child);
    std::int32_t pods = c.pod_count;
    std::int32_t pods_with_leader = c.pod_count_with_leader;
    if (inner != slice_size_at_level.end()) {
      pods = (pods / inner->second) * inner->second;
      pods_with_leader = (pods_with_leader / inner->second) * inner->second;
    }
    children_capacity += pods;
    slice_capacity += c.slice_count;
    if (!leader_required || c.leader_count > 0) {
      with_leader_contributor = true;
      min_pod_diff = std::min(pods - pods_with_leader, min_pod_diff);
      min_slice_diff = std::min(c.slice_count - c.slice_count_with_leader, min_slice_diff);
    }
    leader_count = std::max(c.leader_count, leader_count);
    affinity += c.affinity_score;
  }
  DomainState& state = st(d);
  children_capacity = std::min<std::int64_t>(children_capacity, INT_MAX);
  slice_capacity = std::min<std::int64_t>(slice_capacity, INT_MAX);
  state.pod_count = static_cast<std::int32_t>(children_capacity);
  std::int32_t slices_with_leader = 0;
  if (with_leader_contributor) {
    state.pod_count_with_leader = static_cast<std::int32_t>(children_capacity - min_pod_diff);
    slices_with_leader = static_cast<std::int32_t>(slice_capacity - min_slice_diff);
  } else {
    state.pod_count_with_leader = 0;
  }
  state.leader_count = leader_count;
  state.affinity_score = affinity;
  if (level == slice_level) {
    slice_capacity = state.pod_count / slice_size;
    slices_with_leader = state.pod_count_with_leader / slice_size;
  }
  state.slice_count = static_cast<std::int32_t>(slice_capacity);
  state.slice_count_with_leader = slices_with_leader;
}

Placement::Outcome Placement::run(const TasPodSet& workers, const TasPodSet* leader,
                                  bool implied_workers) {
  Outcome out;
  out.reason = prepare(workers, leader, implied_workers);
  if (!out.reason.empty()) {
    return out;
  }
  fill_in_counts(workers);
  std::vector<int> fit;
  int fit_level = 0;
  bool balanced = false;
  if (s_.gates_.balanced_placement && !p_.required && !p_.unconstrained) {
    BalancedPlacement bp(*this);
    auto [candidates, threshold] = bp.find_best_domains();
    balanced = threshold > 0;
    if (balanced && !bp.apply(threshold, candidates, fit, fit_level).empty()) {
      balanced = false;  // Kueue falls back to BestFit
    }
  }
  if (!balanced) {
    out.reason = find_level_with_fit_domains(p_.requested_level, fit_level, fit);
    if (!out.reason.empty()) {
      return out;
    }
  }
  fit = descend(std::move(fit), fit_level, balanced);
  if (leader) {
    std::vector<int> leader_fit;
    std::vector<int> worker_fit;
    for (int d : fit) {
      if (std::int32_t leaders = st(d).leader_count; leaders > 0) {
        int copy = shallow_clone(d);
        st(copy).pod_count = leaders;
        leader_fit.push_back(copy);
      }
      if (st(d).pod_count > 0) {
        worker_fit.push_back(d);
      }
    }
    out.assignments[leader->name] = build_assignment(std::move(leader_fit));
    fit = std::move(worker_fit);
  }
  out.assignments[workers.name] = build_assignment(std::move(fit));
  return out;
}

std::vector<int> Placement::descend(std::vector<int> fit, int fit_level, bool balanced) {
  const int last = static_cast<int>(s_.levels_.size()) - 1;
  fit = update_counts_to_minimum(std::move(fit), p_.count, p_.leader_count, p_.slice_size,
                                 p_.unconstrained, true);
  int level = fit_level;
  for (; level < std::min(last, p_.slice_level) && !balanced; ++level) {
    // Above the slice level: greedily over all the domains of the next level.
    std::vector<int> lower = sorted_domains(lower_level_domains(fit), p_.unconstrained);
    fit = update_counts_to_minimum(std::move(lower), p_.count, p_.leader_count, p_.slice_size,
                                   p_.unconstrained, true);
  }
  for (; level < last; ++level) {
    // At or below the slice level: each domain hands its pods to its own children.
    std::int32_t size_here = p_.slice_size;
    if (level >= p_.slice_level) {
      size_here = 1;
      if (auto it = p_.slice_size_at_level.find(level + 1); it != p_.slice_size_at_level.end()) {
        size_here = it->second;
      }
    }
    std::vector<int> next;
    for (int d : fit) {
      std::vector<int> lower = sorted_domains(dom(d).children, p_.unconstrained);
      if (size_here > 1) {
        for (int c : lower) {
          st(c).slice_count = st(c).pod_count / size_here;
          st(c).slice_count_with_leader = st(c).pod_count_with_leader / size_here;
        }
      }
      std::vector<int> add =
          update_counts_to_minimum(std::move(lower), st(d).pod_count, st(d).leader_count, size_here,
                                   p_.unconstrained, size_here > 1);
      next.insert(next.end(), add.begin(), add.end());
    }
    fit = std::move(next);
  }
  return fit;
}

int Placement::shallow_clone(int d) {
  Domain copy = dom(d);
  s_.domains_.push_back(std::move(copy));
  return static_cast<int>(s_.domains_.size()) - 1;
}

const std::vector<int>& Placement::level_domains(int level) const {
  return s_.level_order_[static_cast<std::size_t>(level)];
}

std::vector<int> Placement::lower_level_domains(const std::vector<int>& domains) const {
  std::vector<int> out;
  for (int d : domains) {
    out.insert(out.end(), dom(d).children.begin(), dom(d).children.end());
  }
  return out;
}

int Placement::compare_level_values(int a, int b) const {
  // The order of the level values (a copy keeps its original's rank).
  const int x = dom(a).rank;
  const int y = dom(b).rank;
  return x < y ? -1 : (x > y ? 1 : 0);
}

TopologyAssignment Placement::build_assignment(std::vector<int> domains) {
  std::sort(domains.begin(), domains.end(),
            [this](int a, int b) { return compare_level_values(a, b) < 0; });
  std::size_t from = s_.lowest_is_node_ ? s_.levels_.size() - 1 : 0;
  TopologyAssignment out;
  out.levels.assign(s_.levels_.begin() + static_cast<std::ptrdiff_t>(from), s_.levels_.end());
  for (int d : domains) {
    if (st(d).pod_count == 0) {
      continue;
    }
    const auto& values = dom(d).level_values;
    out.domains.push_back(DomainAssignment{
        .values = {values.begin() + static_cast<std::ptrdiff_t>(from), values.end()},
        .count = st(d).pod_count});
  }
  return out;
}

std::string Placement::not_fit_message(std::int32_t fit, std::int32_t total, int level) const {
  if (!p_.multi_layers.empty()) {
    return multi_layer_not_fit_message(level);
  }
  std::string unit = p_.slice_size == 1 ? "pod" : "slice";
  std::string name = "\"" + s_.topology_name_ + "\"";
  std::string out = fit == 0 ? "topology " + name + " doesn't allow to fit any of " +
                                   std::to_string(total) + " " + unit + "(s)"
                             : "topology " + name + " allows to fit only " + std::to_string(fit) +
                                   " out of " + std::to_string(total) + " " + unit + "(s)";
  if (p_.stats.any()) {
    out += ". Total nodes: " + std::to_string(p_.stats.total_nodes) +
           "; excluded: " + p_.stats.reasons();
  }
  return out;
}

std::string Placement::multi_layer_not_fit_message(int level) const {
  std::string out = "topology \"" + s_.topology_name_ + "\" doesn't allow to fit";
  int best = -1;
  for (const auto& [id, d] : s_.per_level_[static_cast<std::size_t>(level)]) {
    if (best < 0 || dom(d).st.slice_count > dom(best).st.slice_count) {
      best = d;  // ties: the smallest id, which the map's order gives first
    }
  }
  if (best < 0) {
    return out;
  }
  for (const SliceLayer& layer : p_.multi_layers) {
    int target = index_of(s_.levels_, layer.topology);
    if (target < 0) {
      continue;
    }
    std::int32_t fit =
        const_cast<Placement*>(this)->count_slices_in_subtree(best, level, target, layer.size);
    out += "; " + std::to_string(fit) + "/" + std::to_string(p_.count / layer.size) +
           " slice(s) fit on level " + layer.topology;
  }
  if (p_.stats.any()) {
    out += ". Total nodes: " + std::to_string(p_.stats.total_nodes) +
           "; excluded: " + p_.stats.reasons();
  }
  return out;
}

std::int32_t Placement::count_slices_in_subtree(int d, int level, int target, std::int32_t size) {
  if (level == target) {
    return st(d).pod_count / size;
  }
  std::int32_t total = 0;
  for (int child : dom(d).children) {
    total += count_slices_in_subtree(child, level + 1, target, size);
  }
  return total;
}

}  // namespace tidesim::tas
