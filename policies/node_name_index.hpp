#pragma once
/// Nodes by name for the Filter pass's screen of pinned pods (Scheduler::fit_screen): the indices
/// of the nodes a pod's `metadata.name` affinity names, in the pass's round-robin order.
#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "tidesim/policies/framework.hpp"

namespace tidesim::policies {

/// Node name -> index into a view's nodes, kept while the view's nodes stay where they are.
class NodeNameIndex {
 public:
  /// The indices of the nodes called `names` (unknown names left out, each once), ordered from
  /// `start` as the Filter pass visits them. Every hit is checked against the node's name; a miss
  /// or a wrong hit builds the index again, once per call. Valid until the next call.
  const std::vector<int>& find(const ClusterView& view, const std::vector<std::string>& names,
                               int start);

 private:
  // The index of `name` in `view`, or -1.
  int lookup(const ClusterView& view, const std::string& name) const;
  void rebuild(const ClusterView& view);

  std::unordered_map<std::string, int> index_;
  const NodeInfo* view_ = nullptr;
  std::size_t size_ = 0;
  std::vector<int> found_;
};

}  // namespace tidesim::policies
