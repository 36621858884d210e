#include "tidesim/sim/admission/tas_snapshot.hpp"

#include <algorithm>
#include <utility>

namespace tidesim::tas {

namespace {

// pkg/util/tas/node.go NodeMatchesFlavor.
bool matches_flavor(const TasNode& node, const std::map<std::string, std::string>& flavor_labels,
                    const std::vector<std::string>& levels) {
  for (const auto& [key, value] : flavor_labels) {
    auto it = node.labels.find(key);
    if (it == node.labels.end() || it->second != value) {
      return false;
    }
  }
  return std::all_of(levels.begin(), levels.end(),
                     [&](const std::string& level) { return node.labels.contains(level); });
}

void add_to(ResourceMap& into, const ResourceMap& what, std::int64_t sign) {
  for (const auto& [name, value] : what) {
    into[name] = saturating_add(into[name], saturating_mul(sign, value));
  }
}

}  // namespace

TasSnapshot::TasSnapshot(std::string topology_name, std::vector<std::string> levels,
                         const std::vector<TasNode>& nodes, const std::vector<TasPod>& pods,
                         const std::map<std::string, std::string>& flavor_node_labels,
                         std::vector<Toleration> flavor_tolerations)
    : topology_name_(std::move(topology_name)),
      levels_(std::move(levels)),
      flavor_node_labels_(flavor_node_labels),
      flavor_tolerations_(std::move(flavor_tolerations)) {
  lowest_is_node_ = !levels_.empty() && levels_.back() == kHostnameLabel;
  per_level_.resize(levels_.size());
  // pkg/cache/scheduler/tas_nodes_cache.go: only schedulable, Ready nodes are kept; then the
  // flavor's node labels and the level labels select them.
  for (const TasNode& node : nodes) {
    if (eligible(node)) {
      node_by_name_[node.name] = static_cast<int>(nodes_.size());
      nodes_.push_back(node);
    }
  }
  std::vector<std::string> leaf_ids;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const TasNode& node = nodes_[i];
    std::vector<std::string> values;
    for (const std::string& level : levels_) {
      values.push_back(node.labels.at(level));
    }
    std::string id = lowest_is_node_ ? values.back() : domain_id(values);
    auto [it, added] = leaf_by_id_.emplace(id, static_cast<int>(leaves_.size()));
    if (added) {
      Domain d;
      d.id = id;
      d.level_values = values;
      d.leaf = static_cast<int>(leaves_.size());
      domains_.push_back(std::move(d));
      Leaf leaf;
      leaf.domain = static_cast<int>(domains_.size()) - 1;
      leaf.node = lowest_is_node_ ? &node : nullptr;
      leaves_.push_back(std::move(leaf));
      leaf_ids.push_back(id);
    }
    leaves_[static_cast<std::size_t>(it->second)].nodes.push_back(static_cast<int>(i));
    leaf_by_node_[node.name] = it->second;
  }
  build(leaf_ids);
  // pkg/cache/scheduler/tas_non_tas_pod_cache.go: bound pods that have not finished, with one
  // `pods` unit each.
  for (const TasPod& pod : pods) {
    auto it = leaf_by_node_.find(pod.node_name);
    if (pod.node_name.empty() || pod.phase == "Succeeded" || pod.phase == "Failed" ||
        it == leaf_by_node_.end()) {
      continue;
    }
    leaves_[static_cast<std::size_t>(it->second)].pods.push_back(static_cast<int>(pods_.size()));
    pods_.push_back(pod);
  }
  for (Leaf& leaf : leaves_) {
    sum_free_capacity(leaf);
  }
}

bool TasSnapshot::eligible(const TasNode& node) const {
  return node.ready && !node.unschedulable && matches_flavor(node, flavor_node_labels_, levels_);
}

void TasSnapshot::sum_free_capacity(Leaf& leaf) {
  leaf.free_capacity.clear();
  for (const int n : leaf.nodes) {
    add_to(leaf.free_capacity, nodes_[static_cast<std::size_t>(n)].allocatable, 1);
  }
  for (const int p : leaf.pods) {
    add_to(leaf.free_capacity, pods_[static_cast<std::size_t>(p)].requests, -1);
    // each pod also takes one of the node's pods
    leaf.free_capacity["pods"] = saturating_add(leaf.free_capacity["pods"], -1);
  }
  leaf.free_by_index.assign(resource_index_.size(), 0);
  for (const auto& [name, value] : leaf.free_capacity) {
    const auto [it, added] =
        resource_index_.emplace(name, static_cast<int>(resource_index_.size()));
    if (added) {
      leaf.free_by_index.resize(resource_index_.size(), 0);
    }
    leaf.free_by_index[static_cast<std::size_t>(it->second)] = value;
  }
}

bool TasSnapshot::update_node(const TasNode& node) {
  const auto it = node_by_name_.find(node.name);
  const bool in = eligible(node);
  if (it == node_by_name_.end()) {
    return !in;
  }
  TasNode& kept = nodes_[static_cast<std::size_t>(it->second)];
  if (!in || kept.labels != node.labels) {
    return false;
  }
  kept.allocatable = node.allocatable;
  kept.taints = node.taints;
  sum_free_capacity(leaves_[static_cast<std::size_t>(leaf_by_node_.at(node.name))]);
  return true;
}

void TasSnapshot::clear_usage() {
  for (const int l : leaves_with_usage_) {
    leaves_[static_cast<std::size_t>(l)].tas_usage.clear();
  }
  leaves_with_usage_.clear();
}

void TasSnapshot::build(const std::vector<std::string>& leaf_ids) {
  for (const std::string& id : leaf_ids) {
    int d = leaves_[static_cast<std::size_t>(leaf_by_id_.at(id))].domain;
    per_level_[domains_[static_cast<std::size_t>(d)].level_values.size() - 1][id] = d;
    add_parents(d);
  }
  // Children in level-value order: Kueue's map iteration gives no order, and every use of the
  // children sorts them or does not depend on their order.
  for (Domain& d : domains_) {
    std::sort(d.children.begin(), d.children.end(), [this](int a, int b) {
      return domains_[static_cast<std::size_t>(a)].level_values <
             domains_[static_cast<std::size_t>(b)].level_values;
    });
  }
  base_count_ = domains_.size();
  level_order_.assign(per_level_.size(), {});
  for (std::size_t l = 0; l < per_level_.size(); ++l) {
    for (const auto& [id, d] : per_level_[l]) {
      level_order_[l].push_back(d);
    }
  }
  std::vector<int> by_values(domains_.size());
  for (std::size_t d = 0; d < by_values.size(); ++d) {
    by_values[d] = static_cast<int>(d);
  }
  std::sort(by_values.begin(), by_values.end(), [this](int a, int b) {
    return domains_[static_cast<std::size_t>(a)].level_values <
           domains_[static_cast<std::size_t>(b)].level_values;
  });
  int rank = 0;
  for (std::size_t k = 0; k < by_values.size(); ++k) {
    Domain& d = domains_[static_cast<std::size_t>(by_values[k])];
    if (k > 0 &&
        domains_[static_cast<std::size_t>(by_values[k - 1])].level_values < d.level_values) {
      ++rank;
    }
    d.rank = rank;
  }
}

int TasSnapshot::add_parents(int d) {
  std::vector<std::string> values = domains_[static_cast<std::size_t>(d)].level_values;
  if (values.size() == 1) {
    return d;
  }
  values.pop_back();
  std::string parent_id = domain_id(values);
  auto& level = per_level_[values.size() - 1];
  auto it = level.find(parent_id);
  int parent = 0;
  if (it == level.end()) {
    Domain p;
    p.id = parent_id;
    p.level_values = values;
    domains_.push_back(std::move(p));
    parent = static_cast<int>(domains_.size()) - 1;
    level[parent_id] = parent;
    add_parents(parent);
  } else {
    parent = it->second;
  }
  domains_[static_cast<std::size_t>(d)].parent = parent;
  domains_[static_cast<std::size_t>(parent)].children.push_back(d);
  return parent;
}

void TasSnapshot::add_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod) {
  change_usage(assignment, per_pod, 1);
}

void TasSnapshot::remove_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod) {
  change_usage(assignment, per_pod, -1);
}

void TasSnapshot::change_usage(const TopologyAssignment& assignment, const ResourceMap& per_pod,
                               std::int32_t sign) {
  for (const DomainAssignment& domain : assignment.domains) {
    auto it = leaf_by_id_.find(domain_id(domain.values));
    if (it == leaf_by_id_.end()) {
      continue;  // a node that is gone or not Ready (Kueue skips it too)
    }
    Leaf& leaf = leaves_[static_cast<std::size_t>(it->second)];
    if (leaf.tas_usage.empty()) {
      leaves_with_usage_.push_back(it->second);
    }
    for (const auto& [name, value] : per_pod) {
      leaf.tas_usage[name] =
          saturating_add(leaf.tas_usage[name], saturating_mul(value, sign * domain.count));
    }
    leaf.tas_usage["pods"] += sign * domain.count;
  }
}

void add_assumed_usage(UsageByDomain& usage, const TopologyAssignment& assignment,
                       const ResourceMap& per_pod) {
  for (const DomainAssignment& d : assignment.domains) {
    ResourceMap& u = usage[domain_id(d.values)];
    for (const auto& [name, value] : per_pod) {
      u[name] = saturating_add(u[name], saturating_mul(value, d.count));
    }
    u["pods"] = saturating_add(u["pods"], d.count);
  }
}

bool TasSnapshot::stale(const TopologyAssignment& assignment) const {
  return std::any_of(
      assignment.domains.begin(), assignment.domains.end(),
      [this](const DomainAssignment& d) { return !leaf_by_id_.contains(domain_id(d.values)); });
}

std::vector<SliceLayer> slice_layers(const TopologyRequest& request) {
  if (!request.slice_layers.empty()) {
    return request.slice_layers;
  }
  if (!request.slice_topology) {
    return {};
  }
  return {SliceLayer{.topology = *request.slice_topology, .size = request.slice_size.value_or(0)}};
}

namespace {
struct GateEntry {
  const char* name;
  bool TasFeatureGates::*field;
};
constexpr GateEntry kGates[] = {
    {"TASBalancedPlacement", &TasFeatureGates::balanced_placement},
    {"TASMultiLayerTopology", &TasFeatureGates::multi_layer_topology},
    {"TASProfileMixed", &TasFeatureGates::profile_mixed},
    {"TASRespectNodeAffinityPreferred", &TasFeatureGates::respect_node_affinity_preferred},
    {"SkipReassignmentForPodOwnedWorkloads", &TasFeatureGates::skip_reassignment_for_pod_owned},
    {"ElasticJobsViaWorkloadSlices", &TasFeatureGates::elastic_jobs},
    {"ElasticJobsViaWorkloadSlicesWithTAS", &TasFeatureGates::elastic_jobs_with_tas},
};
}  // namespace

bool set_feature_gate(TasFeatureGates& gates, const std::string& name, bool value) {
  for (const GateEntry& g : kGates) {
    if (name == g.name) {
      gates.*(g.field) = value;
      return true;
    }
  }
  return false;
}

std::vector<std::string> feature_gate_names() {
  std::vector<std::string> names;
  for (const GateEntry& g : kGates) {
    names.emplace_back(g.name);
  }
  return names;
}

bool ExclusionStats::any() const {
  return node_selector > 0 || affinity > 0 || topology_domain > 0 || !taints.empty() ||
         !resources.empty();
}

std::string ExclusionStats::reasons() const {
  std::vector<std::string> parts;
  if (node_selector > 0) {
    parts.push_back("nodeSelector: " + std::to_string(node_selector));
  }
  if (affinity > 0) {
    parts.push_back("affinity: " + std::to_string(affinity));
  }
  if (topology_domain > 0) {
    parts.push_back("topologyDomain: " + std::to_string(topology_domain));
  }
  for (const auto& [taint, n] : taints) {
    parts.push_back("taint \"" + taint + "\": " + std::to_string(n));
  }
  for (const auto& [resource, n] : resources) {
    parts.push_back("resource \"" + resource + "\": " + std::to_string(n));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    out += (i ? ", " : "") + parts[i];
  }
  return out;
}

ResourceMap resource_map(const Resources& r) {
  ResourceMap out;
  if (r.cpu_milli != 0) {
    out["cpu"] = r.cpu_milli;
  }
  if (r.memory_bytes != 0) {
    out["memory"] = r.memory_bytes;
  }
  if (r.gpus != 0) {
    out[kGpuResource] = r.gpus;
  }
  for (const auto& [name, amount] : r.extended) {
    out[name] = amount;
  }
  return out;
}

}  // namespace tidesim::tas
