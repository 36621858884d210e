#include "tidesim/sim/metrics/per_node_values.hpp"

#include <bit>

namespace tidesim::metrics {

void ChangedNodes::update(const ClusterSample& sample) {
  changed_.clear();
  all_ = !same_layout(sample, revisions_.size(), !revisions_.empty());
  if (all_) {
    revisions_ = sample.node_revisions;
    return;
  }
  // Most revisions do not move between samples: blocks of them are compared at once (a loop
  // without branches, which the compiler vectorises), and only a block with a difference is
  // looked at node by node.
  constexpr std::size_t kBlock = 16;
  const std::size_t count = revisions_.size();
  std::uint64_t* seen = revisions_.data();
  const std::uint64_t* now = sample.node_revisions.data();
  std::size_t n = 0;
  for (; n + kBlock <= count; n += kBlock) {
    std::uint64_t differ = 0;
    for (std::size_t k = 0; k < kBlock; ++k) {
      differ |= seen[n + k] ^ now[n + k];
    }
    if (differ == 0) {
      continue;
    }
    for (std::size_t k = n; k < n + kBlock; ++k) {
      if (seen[k] != now[k]) {
        seen[k] = now[k];
        changed_.push_back(static_cast<int>(k));
      }
    }
  }
  for (; n < count; ++n) {
    if (seen[n] != now[n]) {
      seen[n] = now[n];
      changed_.push_back(static_cast<int>(n));
    }
  }
}

void PerNodeValues::rebuild(const ClusterSample& sample) {
  const std::size_t count = sample.nodes.size();
  values_.assign(count, std::nullopt);
  position_.assign(count, -1);
  defined_.clear();
  for (std::size_t n = 0; n < count; ++n) {
    values_[n] = value_of_(sample.nodes[n]);
    if (values_[n]) {
      position_[n] = static_cast<std::int64_t>(defined_.size());
      defined_.push_back(*values_[n]);
    }
  }
  defined_changed_ = true;
}

std::span<const std::optional<double>> PerNodeValues::update(const ClusterSample& sample) {
  changes_.update(sample);
  if (changes_.all()) {
    rebuild(sample);
    return values_;
  }
  defined_changed_ = false;
  for (const int n : changes_.changed()) {
    const auto k = static_cast<std::size_t>(n);
    const std::optional<double> v = value_of_(sample.nodes[k]);
    if (v.has_value() != values_[k].has_value()) {
      // A node gained or lost its value: the defined values move (not in the samples of a run,
      // where whether a node has a value depends on its hardware alone).
      rebuild(sample);
      return values_;
    }
    if (v && std::bit_cast<std::uint64_t>(*v) != std::bit_cast<std::uint64_t>(*values_[k])) {
      values_[k] = v;
      defined_[static_cast<std::size_t>(position_[k])] = *v;
      defined_changed_ = true;
    }
  }
  return values_;
}

}  // namespace tidesim::metrics
