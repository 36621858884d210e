#pragma once
/// Lists of node indices made distinct and increasing (a job's nodes), in time linear in the
/// cluster's size when the list is long against it: a gang over thousands of nodes sorts its
/// nodes at every start and stop.
#include <algorithm>
#include <vector>

namespace tidesim {

/// `nodes` (indices in [0, count)) made distinct and in increasing order: by marking each index
/// and reading the marks in order when the list is at least a sixteenth of `count`, by sorting
/// otherwise.
inline void sort_distinct_nodes(std::vector<int>& nodes, int count) {
  if (nodes.size() * 16 < static_cast<std::size_t>(count)) {
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return;
  }
  std::vector<char> marked(static_cast<std::size_t>(count), 0);
  for (const int n : nodes) {
    marked[static_cast<std::size_t>(n)] = 1;
  }
  nodes.clear();
  for (int n = 0; n < count; ++n) {
    if (marked[static_cast<std::size_t>(n)] != 0) {
      nodes.push_back(n);
    }
  }
}

}  // namespace tidesim
