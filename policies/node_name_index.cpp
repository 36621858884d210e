#include "tidesim/policies/node_name_index.hpp"

#include <algorithm>

namespace tidesim::policies {

int NodeNameIndex::lookup(const ClusterView& view, const std::string& name) const {
  const auto it = index_.find(name);
  return it != index_.end() && it->second < static_cast<int>(view.nodes.size()) &&
                 view.nodes[static_cast<std::size_t>(it->second)].node.name == name
             ? it->second
             : -1;
}

void NodeNameIndex::rebuild(const ClusterView& view) {
  index_.clear();
  for (std::size_t k = view.nodes.size(); k-- > 0;) {
    index_[view.nodes[k].node.name] = static_cast<int>(k);  // the first of a name wins
  }
  view_ = view.nodes.data();
  size_ = view.nodes.size();
}

const std::vector<int>& NodeNameIndex::find(const ClusterView& view,
                                            const std::vector<std::string>& names, int start) {
  if (view_ != view.nodes.data() || size_ != view.nodes.size()) {
    index_.clear();
  }
  found_.clear();
  bool rebuilt = false;
  for (const std::string& name : names) {
    int i = lookup(view, name);
    if (i < 0 && !rebuilt) {
      rebuild(view);
      rebuilt = true;
      i = lookup(view, name);
    }
    if (i >= 0) {
      found_.push_back(i);
    }
  }
  const int n = static_cast<int>(view.nodes.size());
  std::sort(found_.begin(), found_.end(),
            [start, n](int a, int b) { return (a - start + n) % n < (b - start + n) % n; });
  found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
  return found_;
}

}  // namespace tidesim::policies
