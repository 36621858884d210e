#pragma once
/// One figure per node of a cluster sample (a node's mean GPU utilisation, its memory
/// utilisation, ...), kept between samples and recomputed only for the nodes that changed.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tidesim/sim/api/run_signals.hpp"

namespace tidesim::metrics {

/// True when `sample` lists the same nodes in the same order as a previous sample with
/// `previous_nodes` nodes that carried revisions: the Observer's samples always do.
inline bool same_layout(const ClusterSample& sample, std::size_t previous_nodes,
                        bool previous_had_revisions) {
  return previous_had_revisions && !sample.node_revisions.empty() &&
         sample.nodes.size() == previous_nodes;
}

/// Which nodes of a sample changed since the previous one, from ClusterSample::node_revisions:
/// the nodes whose revision moved, or every node when the sample has no revisions or another
/// layout than the previous one (same_layout).
class ChangedNodes {
 public:
  /// Compares `sample` with the previous one given to update(); changed() and all() then
  /// describe it.
  void update(const ClusterSample& sample);

  /// True when every node counts as changed (the first sample, no revisions, another layout).
  bool all() const { return all_; }
  /// The positions of the nodes whose revision moved, ascending; empty when all().
  std::span<const int> changed() const { return changed_; }

 private:
  std::vector<std::uint64_t> revisions_;  // empty: the last sample had none
  std::vector<int> changed_;
  bool all_ = true;
};

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

  /// False when the latest update left defined() as the previous one had it, value for value
  /// (bit for bit) in the same order: a figure computed from defined() alone is then unchanged.
  bool defined_changed() const { return defined_changed_; }

  /// The nodes recomputed by the latest update (changes.all(): every node).
  const ChangedNodes& changes() const { return changes_; }

 private:
  // Recomputes every node and rebuilds defined_.
  void rebuild(const ClusterSample& sample);

  ValueOf value_of_;
  ChangedNodes changes_;
  std::vector<std::optional<double>> values_;
  std::vector<double> defined_;
  /// Per node: its value's index in defined_, or -1 when it has none.
  std::vector<std::int64_t> position_;
  bool defined_changed_ = true;
};

}  // namespace tidesim::metrics
