// Kueue's replacement of a failed node's pods (TASFailedNodeReplacement; kubernetes-sigs/kueue
// @ff69552, pkg/cache/scheduler/tas_flavor_snapshot.go: the unhealthy-node branch of
// FindTopologyAssignmentsForFlavor, findReplacementAssignment, requiredReplacementDomain,
// findIncompleteSliceDomain, deleteDomain, IsTopologyAssignmentStale,
// mergeTopologyAssignments).
#include <algorithm>
#include <ranges>
#include <utility>

#include "tidesim/sim/admission/tas_placement.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

namespace {

// deleteDomain: drops the failed node's domain; the number of pods it had.
std::int32_t delete_domain(TopologyAssignment& ta, const std::string& node) {
  std::int32_t affected = 0;
  std::vector<DomainAssignment> kept;
  for (const DomainAssignment& d : ta.domains) {
    if (!d.values.empty() && d.values.back() == node) {
      affected = d.count;
    } else {
      kept.push_back(d);
    }
  }
  ta.domains = std::move(kept);
  return affected;
}

// PodSetAssignment.HasUnhealthyNode (pkg/scheduler/flavorassigner/tas_flavorassigner.go):
// whether the assignment has a domain on the node.
bool on_node(const TopologyAssignment& ta, const std::string& node) {
  return std::ranges::any_of(ta.domains, [&](const DomainAssignment& d) {
    return !d.values.empty() && d.values.back() == node;
  });
}

}  // namespace

std::string Placement::incomplete_slice_domain(const TopologyAssignment& rest, std::int32_t missing,
                                               std::int32_t size, const std::string& key) const {
  auto it = std::find(s_.levels_.begin(), s_.levels_.end(), key);
  if (it == s_.levels_.end() || size <= 0) {
    return "";
  }
  const auto slice_level = static_cast<std::size_t>(it - s_.levels_.begin());
  const std::size_t node_level = s_.levels_.size() - 1;
  std::map<std::string, std::int32_t> usage;  // Kueue iterates a Go map; tidesim by id
  for (const DomainAssignment& d : rest.domains) {
    auto leaf = s_.per_level_[node_level].find(domain_id(d.values));
    if (leaf == s_.per_level_[node_level].end()) {
      continue;
    }
    int up = leaf->second;
    for (std::size_t l = node_level; l > slice_level; --l) {
      up = dom(up).parent;
    }
    usage[dom(up).id] += d.count;
  }
  for (const auto& [id, count] : usage) {
    if ((count + missing) % size == 0) {
      return id;
    }
  }
  return "";
}

std::string Placement::required_replacement_domain(const TasPodSet& podset,
                                                   const TopologyAssignment& rest) const {
  const TopologyRequest* tr = podset.topology ? &*podset.topology : nullptr;
  std::optional<std::string> key = level_key(tr);
  if (!key && !tr) {
    key = s_.levels_.back();  // implied
  }
  auto it = key ? std::find(s_.levels_.begin(), s_.levels_.end(), *key) : s_.levels_.end();
  if (it == s_.levels_.end() || rest.domains.empty()) {
    return "";
  }
  const std::vector<SliceLayer> layers = tr ? slice_layers(*tr) : std::vector<SliceLayer>{};
  const std::int32_t size = layers.empty() ? 1 : layers.front().size;
  if (size <= 0) {
    return "";
  }
  if (!layers.empty() && podset.count % size != 0) {
    if (layers.size() > 1) {
      for (const SliceLayer& layer : std::views::reverse(layers)) {
        if (layer.size > 0 && podset.count % layer.size != 0) {
          return incomplete_slice_domain(rest, podset.count, layer.size, layer.topology);
        }
      }
    }
    return incomplete_slice_domain(rest, podset.count, size, layers.front().topology);
  }
  if (!tr || !tr->required) {
    return "";
  }
  const std::size_t node_level = s_.levels_.size() - 1;
  auto leaf = s_.per_level_[node_level].find(domain_id(rest.domains.front().values));
  if (leaf == s_.per_level_[node_level].end()) {
    return "";
  }
  int up = leaf->second;
  for (auto l = static_cast<std::ptrdiff_t>(node_level); l > it - s_.levels_.begin(); --l) {
    up = dom(up).parent;
  }
  return dom(up).id;
}

TasSnapshot::Replaced TasSnapshot::replace_one(const TasPodSet& podset, TopologyAssignment existing,
                                               const std::string& node,
                                               const std::map<std::string, ResourceMap>& assumed) {
  TasPodSet copy = podset;
  copy.count = delete_domain(existing, node);
  for (const DomainAssignment& d : existing.domains) {
    if (!leaf_by_id_.contains(domain_id(d.values))) {
      return {.merged = {},
              .replacement = {},
              .reason =
                  "Cannot replace the node, because the existing topologyAssignment is "
                  "invalid, as it contains the stale domain " +
                  d.values.front()};
    }
  }
  Placement placement(*this, assumed);
  const std::string required = placement.required_replacement_domain(copy, existing);
  const std::vector<SliceLayer> layers =
      copy.topology ? slice_layers(*copy.topology) : std::vector<SliceLayer>{};
  if (!layers.empty() && layers.front().size <= 0) {
    return {.merged = {},
            .replacement = {},
            .reason = "slice topology requested, but slice size not provided"};
  }
  if (!layers.empty() && !required.empty() && copy.count % layers.front().size != 0) {
    // Keep the innermost slice layer whose size divides the pods to replace.
    std::optional<SliceLayer> kept;
    for (const SliceLayer& layer : std::views::reverse(layers)) {
      if (layer.size > 0 && copy.count % layer.size == 0) {
        kept = layer;
        break;
      }
    }
    copy.topology->slice_layers.clear();
    copy.topology->slice_topology = kept ? std::optional(kept->topology) : std::nullopt;
    copy.topology->slice_size = kept ? kept->size : 1;
  }
  placement.require_domain(required);
  Placement::Outcome outcome = placement.run(copy, nullptr, !copy.topology);
  if (!outcome.reason.empty()) {
    return {.merged = {}, .replacement = {}, .reason = outcome.reason};
  }
  const TopologyAssignment& repl = outcome.assignments[copy.name];
  if (repl.domains.empty()) {
    return {.merged = {},
            .replacement = {},
            .reason = "cannot find replacement assignment for unhealthy node: " + node};
  }
  return {.merged = merge(repl, existing), .replacement = repl, .reason = ""};
}

// mergeTopologyAssignments: both lists in the order of their nodes' full label values, equal
// domains added up.
TopologyAssignment TasSnapshot::merge(const TopologyAssignment& a,
                                      const TopologyAssignment& b) const {
  const auto& leaves = per_level_.back();
  auto path = [&](const DomainAssignment& d) {
    auto it = leaves.find(domain_id(d.values));
    return it == leaves.end()
               ? domain_id(d.values)
               : domain_id(domains_[static_cast<std::size_t>(it->second)].level_values);
  };
  std::vector<DomainAssignment> all = a.domains;
  all.insert(all.end(), b.domains.begin(), b.domains.end());
  std::stable_sort(
      all.begin(), all.end(),
      [&](const DomainAssignment& x, const DomainAssignment& y) { return path(x) < path(y); });
  TopologyAssignment out{.levels = a.levels, .domains = {}};
  for (const DomainAssignment& d : all) {
    if (!out.domains.empty() && out.domains.back().values == d.values) {
      out.domains.back().count += d.count;
    } else {
      out.domains.push_back(d);
    }
  }
  return out;
}

std::vector<PodSetResult> TasSnapshot::find_replacements(const std::vector<TasPodSet>& podsets,
                                                         const NodeReplacement& replacement,
                                                         const TasFeatureGates& gates) {
  gates_ = gates;
  std::vector<PodSetResult> results;
  std::map<std::string, ResourceMap> assumed;
  for (const TasPodSet& ps : podsets) {
    auto it = replacement.assignments.find(ps.name);
    if (it == replacement.assignments.end() || !on_node(it->second, replacement.unhealthy_node)) {
      continue;  // Kueue's flavor assigner asks for no replacement: the PodSet keeps its domains
    }
    if (gates.skip_reassignment_for_pod_owned && replacement.owned_by_single_pod) {
      results.push_back({.name = ps.name, .assignment = it->second, .reason = ""});
      continue;  // the pod cannot move: the Workload keeps the node it runs on
    }
    Replaced r = replace_one(ps, it->second, replacement.unhealthy_node, assumed);
    results.push_back({.name = ps.name,
                       .assignment = r.reason.empty() ? std::optional(r.merged) : std::nullopt,
                       .reason = r.reason});
    if (!r.reason.empty()) {
      return results;
    }
    add_assumed_usage(assumed, r.replacement, ps.requests);
  }
  return results;
}

}  // namespace tidesim::tas
