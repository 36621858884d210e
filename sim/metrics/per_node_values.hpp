#pragma once
/// One figure per node of a cluster sample (a node's mean GPU utilisation, its memory
/// utilisation, ...), kept between samples and recomputed only for the nodes that changed.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim::metrics {

/// The value of `value_of` for each node of the latest sample, in the sample's node order. A
/// node's value is recomputed when its ClusterSample::node_revisions entry moved since the
/// previous sample; a sample without revisions (or with another node count) recomputes every
/// node. The values are those of calling `value_of` on every node, bit for bit.
class PerNodeValues {
 public:
  using ValueOf = std::optional<double> (*)(const NodeState&);

  explicit PerNodeValues(ValueOf value_of) : value_of_(value_of) {}

  /// Brings the values up to date with `sample` and returns them (valid until the next call).
  std::span<const std::optional<double>> update(const ClusterSample& sample);

  /// The defined values of the latest update, in node order (valid until the next update).
  std::span<const double> defined() const { return defined_; }

 private:
  ValueOf value_of_;
  std::vector<std::optional<double>> values_;
  std::vector<double> defined_;
  std::vector<std::uint64_t> revisions_;  // empty: the last sample had none
};

/// True when `sample` lists the same nodes in the same order as a previous sample with
/// `previous_nodes` nodes that carried revisions: the Observer's samples always do.
inline bool same_layout(const ClusterSample& sample, std::size_t previous_nodes,
                        bool previous_had_revisions) {
  return previous_had_revisions && !sample.node_revisions.empty() &&
         sample.nodes.size() == previous_nodes;
}

}  // namespace tidesim::metrics
