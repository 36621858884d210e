#pragma once
/// Volcano's HyperNodes (volcano-sh/apis topology.volcano.sh/v1alpha1 HyperNode; the scheduler's
/// view of them in volcano-sh/volcano pkg/scheduler/api/hyper_node_info.go): named groups of
/// nodes in tiers, tier 1 the closest in the network. A HyperNode's members are nodes (selected by
/// exact name, a regular expression on the name, or a label selector) or other HyperNodes (by
/// exact name); its real nodes are its node members and its member HyperNodes' real nodes.
/// docs/topology-aware.md, "Volcano", has the rules.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tidesim/sim/api/api.hpp"
#include "tidesim/sim/input/config_node.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::volcano {

/// The name of the virtual HyperNode above every root, holding every node (Volcano's
/// framework.ClusterTopHyperNode); its tier is one above the highest real tier.
inline constexpr const char* kClusterTop = "<cluster-top-hypernode>";

enum class MemberType { kNode, kHyperNode };
enum class SelectorKind { kExact, kRegex, kLabel };

/// One spec.members[] entry.
struct HyperNodeMember {
  MemberType type = MemberType::kNode;
  SelectorKind kind = SelectorKind::kExact;
  /// exactMatch.name, or regexMatch.pattern.
  std::string value;
  LabelSelector labels;
  SourceLocation where;
  std::string path;
};

/// One HyperNode object.
struct HyperNodeSpec {
  std::string name;
  int tier = 0;
  std::string tier_name;
  std::vector<HyperNodeMember> members;
  SourceLocation where;
  std::string path;
};

/// Where a run's HyperNodes come from: listed objects, or built from node labels as Volcano's
/// label discoverer does (pkg/controllers/hypernode/discovery/label: `label_keys` lowest tier
/// first; each value of key i is a HyperNode of tier i + 1 whose members are the tier-i
/// HyperNodes, or the nodes for tier 1, of the nodes carrying it).
struct HyperNodeSource {
  std::vector<HyperNodeSpec> listed;
  std::vector<std::string> label_keys;
  SourceLocation where;
  std::string path;
};

/// Reads one HyperNode object (apiVersion topology.volcano.sh/v1alpha1, kind HyperNode). Throws
/// InputError naming file, line, column and field.
HyperNodeSpec read_hypernode(const ConfigNode& node, const std::string& file,
                             const std::string& path);
/// Reads HyperNode objects from a list, a `kind: List` / `HyperNodeList`, or one object.
std::vector<HyperNodeSpec> read_hypernodes(const ConfigNode& node, const std::string& file,
                                           const std::string& path);
/// Reads a file of HyperNode objects (several `---` documents allowed; other kinds refused).
std::vector<HyperNodeSpec> read_hypernode_file(const std::string& path);
/// Reads a scenario's `hypernodes:` value: a list of HyperNode objects, or a mapping with one
/// of `from_labels: [KEY, ...]` or `file: PATH` (relative to `folder`).
HyperNodeSource read_hypernode_source(const ConfigNode& node, const std::string& file,
                                      const std::string& path, const std::string& folder);

/// The HyperNode specs Volcano's label discoverer builds from `nodes` and `keys` (lowest tier
/// first). A HyperNode is named `hypernode-<key>-tier<N>-<value>` (Volcano adds a random suffix
/// instead of the value; a name is an identifier only).
std::vector<HyperNodeSpec> hypernodes_from_labels(const std::vector<std::string>& keys,
                                                  const std::vector<NodeSpec>& nodes);

/// The HyperNode tree over a set of nodes, with the virtual cluster top (index 0).
class HyperNodeTree {
 public:
  /// Resolves members against `nodes` (by index into `nodes`). Throws InputError at the spec's
  /// place for a duplicate name, a member HyperNode that is not listed or is claimed by two
  /// parents, a cycle, a bad regular expression, a tier below 1, or an exact node member that
  /// names no node.
  HyperNodeTree(const std::vector<HyperNodeSpec>& specs, const std::vector<NodeSpec>& nodes);

  int size() const { return static_cast<int>(names_.size()); }
  const std::string& name(int h) const { return names_[static_cast<std::size_t>(h)]; }
  int tier(int h) const { return tiers_[static_cast<std::size_t>(h)]; }
  int parent(int h) const { return parents_[static_cast<std::size_t>(h)]; }
  /// Children in name order.
  const std::vector<int>& children(int h) const { return children_[static_cast<std::size_t>(h)]; }
  /// Real nodes (indices into the nodes given), ascending.
  const std::vector<int>& nodes(int h) const { return nodes_[static_cast<std::size_t>(h)]; }
  bool contains(int h, int node) const;
  /// -1 when absent.
  int find(const std::string& name) const;
  /// The tiers present, ascending, the cluster top's included (ssn.HyperNodesTiers).
  const std::vector<int>& tier_list() const { return tier_list_; }
  int top_tier() const { return tiers_[0]; }
  /// The HyperNode of the lowest tier whose real nodes hold `node` (Volcano's
  /// util.FindHyperNodeForNode); the cluster top (0) when no other holds it.
  int hypernode_of(int node) const { return node_leaf_[static_cast<std::size_t>(node)]; }
  /// The lowest common ancestor (HyperNodeInfoMap.GetLCAHyperNode); -1 if either is -1.
  int lca(int a, int b) const;
  /// `h` and its ancestors, upward.
  std::vector<int> ancestors(int h) const;

 private:
  std::vector<std::string> names_;
  std::vector<int> tiers_;
  std::vector<int> parents_;
  std::vector<std::vector<int>> children_;
  std::vector<std::vector<int>> nodes_;
  std::vector<int> node_leaf_;
  std::vector<int> tier_list_;
  std::map<std::string, int> index_;
};

}  // namespace tidesim::volcano
