#include "tidesim/sim/metrics/per_node_values.hpp"

namespace tidesim::metrics {

std::span<const std::optional<double>> PerNodeValues::update(const ClusterSample& sample) {
  const std::size_t count = sample.nodes.size();
  const bool reuse = same_layout(sample, values_.size(), !revisions_.empty());
  if (!reuse) {
    values_.assign(count, std::nullopt);
  }
  defined_.clear();
  for (std::size_t n = 0; n < count; ++n) {
    if (!reuse || revisions_[n] != sample.node_revisions[n]) {
      values_[n] = value_of_(sample.nodes[n]);
    }
    if (values_[n]) {
      defined_.push_back(*values_[n]);
    }
  }
  revisions_ = sample.node_revisions;
  return values_;
}

}  // namespace tidesim::metrics
