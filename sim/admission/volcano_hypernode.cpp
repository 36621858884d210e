// The HyperNode tree as Volcano's scheduler builds it (volcano-sh/volcano @ed72c7c,
// pkg/scheduler/api/hyper_node_info.go: BuildHyperNodeCache, GetLCAHyperNode, GetAncestors;
// pkg/scheduler/framework/session.go: addClusterTopHyperNode; pkg/scheduler/util:
// FindHyperNodeForNode).
#include <algorithm>
#include <functional>
#include <regex>
#include <set>

#include "tidesim/sim/admission/volcano_hypernode.hpp"

namespace tidesim::volcano {
namespace {

bool member_selects(const HyperNodeMember& m, const NodeSpec& n) {
  switch (m.kind) {
    case SelectorKind::kExact:
      return n.name == m.value;
    case SelectorKind::kRegex:
      // Go's regexp.MatchString: a match anywhere in the name.
      return std::regex_search(n.name, std::regex(m.value, std::regex::ECMAScript));
    case SelectorKind::kLabel:
      return matches(m.labels, n.labels);
  }
  return false;
}

// A node's HyperNode: the first of the lowest tier holding it, by name within a tier; the cluster
// top's (0) when no other holds it.
std::vector<int> lowest_hypernodes(const std::vector<int>& tier_list,
                                   const std::map<std::string, int>& index,
                                   const std::vector<int>& tiers,
                                   const std::vector<std::vector<int>>& real_nodes,
                                   std::size_t node_count) {
  std::vector<int> out(node_count, -1);
  for (const int t : tier_list) {
    for (const auto& [nm, h] : index) {
      if (tiers[static_cast<std::size_t>(h)] != t) {
        continue;
      }
      for (const int k : real_nodes[static_cast<std::size_t>(h)]) {
        if (out[static_cast<std::size_t>(k)] < 0) {
          out[static_cast<std::size_t>(k)] = h;
        }
      }
    }
  }
  for (int& h : out) {
    h = h < 0 ? 0 : h;
  }
  return out;
}

}  // namespace

HyperNodeTree::HyperNodeTree(const std::vector<HyperNodeSpec>& specs,
                             const std::vector<NodeSpec>& nodes) {
  names_.push_back(kClusterTop);
  for (const HyperNodeSpec& s : specs) {
    if (s.name == kClusterTop || !index_.emplace(s.name, static_cast<int>(names_.size())).second) {
      throw InputError(s.where, s.path + ".metadata.name",
                       "HyperNode '" + s.name + "' is declared twice");
    }
    names_.push_back(s.name);
  }
  const std::size_t n = names_.size();
  tiers_.assign(n, 0);
  parents_.assign(n, -1);
  children_.assign(n, {});
  nodes_.assign(n, {});
  int max_tier = 0;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const HyperNodeSpec& s = specs[i];
    const int h = static_cast<int>(i + 1);
    tiers_[static_cast<std::size_t>(h)] = s.tier;
    max_tier = std::max(max_tier, s.tier);
    for (const HyperNodeMember& m : s.members) {
      if (m.type == MemberType::kNode) {
        bool any = false;
        for (std::size_t k = 0; k < nodes.size(); ++k) {
          if (member_selects(m, nodes[k])) {
            nodes_[static_cast<std::size_t>(h)].push_back(static_cast<int>(k));
            any = true;
          }
        }
        if (!any && m.kind == SelectorKind::kExact) {
          throw InputError(m.where, m.path + ".selector.exactMatch.name",
                           "names no node of the cluster: '" + m.value + "'");
        }
        continue;
      }
      const int c = find(m.value);
      if (c < 0) {
        throw InputError(m.where, m.path + ".selector.exactMatch.name",
                         "names no HyperNode: '" + m.value + "'");
      }
      if (parents_[static_cast<std::size_t>(c)] >= 0 &&
          parents_[static_cast<std::size_t>(c)] != h) {
        throw InputError(m.where, m.path + ".selector.exactMatch.name",
                         "HyperNode '" + m.value + "' is already a member of '" +
                             name(parents_[static_cast<std::size_t>(c)]) + "'");
      }
      parents_[static_cast<std::size_t>(c)] = h;
      children_[static_cast<std::size_t>(h)].push_back(c);
    }
  }
  // Cycles: walking up from any HyperNode must reach a root.
  for (std::size_t i = 1; i < n; ++i) {
    std::set<int> seen;
    for (int h = static_cast<int>(i); h >= 0; h = parents_[static_cast<std::size_t>(h)]) {
      if (!seen.insert(h).second) {
        const HyperNodeSpec& s = specs[i - 1];
        throw InputError(s.where, s.path + ".spec.members",
                         "cyclic dependency: HyperNode '" + s.name + "' is its own ancestor");
      }
    }
  }
  // Real nodes: each HyperNode's own node members and its descendants'.
  std::function<void(int)> gather = [&](int h) {
    for (const int c : children_[static_cast<std::size_t>(h)]) {
      gather(c);
      auto& mine = nodes_[static_cast<std::size_t>(h)];
      mine.insert(mine.end(), nodes_[static_cast<std::size_t>(c)].begin(),
                  nodes_[static_cast<std::size_t>(c)].end());
    }
    auto& mine = nodes_[static_cast<std::size_t>(h)];
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
  };
  tiers_[0] = max_tier + 1;
  for (std::size_t i = 1; i < n; ++i) {
    if (parents_[i] < 0) {
      parents_[i] = 0;
      children_[0].push_back(static_cast<int>(i));
    }
  }
  for (auto& c : children_) {
    std::sort(c.begin(), c.end(), [this](int a, int b) { return name(a) < name(b); });
  }
  gather(0);
  nodes_[0].clear();
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    nodes_[0].push_back(static_cast<int>(k));
  }
  std::set<int> tiers(tiers_.begin(), tiers_.end());
  tier_list_.assign(tiers.begin(), tiers.end());
  node_leaf_ = lowest_hypernodes(tier_list_, index_, tiers_, nodes_, nodes.size());
}

bool HyperNodeTree::contains(int h, int node) const {
  const auto& v = nodes_[static_cast<std::size_t>(h)];
  return std::binary_search(v.begin(), v.end(), node);
}

int HyperNodeTree::find(const std::string& name) const {
  if (name == kClusterTop) {
    return 0;
  }
  const auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

std::vector<int> HyperNodeTree::ancestors(int h) const {
  std::vector<int> out;
  for (; h >= 0; h = parents_[static_cast<std::size_t>(h)]) {
    out.push_back(h);
  }
  return out;
}

int HyperNodeTree::lca(int a, int b) const {
  if (a < 0 || b < 0) {
    return -1;
  }
  const std::vector<int> up = ancestors(a);
  for (int h = b; h >= 0; h = parents_[static_cast<std::size_t>(h)]) {
    if (std::find(up.begin(), up.end(), h) != up.end()) {
      return h;
    }
  }
  return -1;
}

}  // namespace tidesim::volcano
