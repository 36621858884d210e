#pragma once
/// The changes of the ClusterView a scheduling loop knows of (its binds and reservations, the
/// cluster events announced to it), and the count of nodes by free GPUs kept from them: what fast
/// fail, the precise queueing hints and the gang capacity gate read (policies/scheduling_loop.hpp).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tidesim/sim/api/cluster_view.hpp"

namespace tidesim::policies {

/// The changes, counted from 1, and the journal of the latest of them: the node each touched
/// (-1: any node). A failure older than what the journal keeps is simply evaluated again.
class ChangeJournal {
 public:
  /// Records a change on `node` (-1: anywhere).
  void record(int node);
  /// The count of the current state: one more than the changes recorded (0 is never current).
  std::uint64_t now() const { return changes_; }
  /// The oldest change the journal still holds.
  std::uint64_t base() const { return base_; }
  /// The node change `c` touched (-1: any node); base() <= c < now().
  int node_of(std::uint64_t c) const { return journal_[static_cast<std::size_t>(c - base_)]; }
  /// The nodes of the changes since the count `seen` (of a view of `node_count` nodes), each
  /// once, in the order first changed, into `out`; false when `seen` is older than the journal or
  /// a change since is not known by its node.
  bool nodes_since(std::uint64_t seen, std::size_t node_count, std::vector<int>& out) const;

 private:
  static constexpr std::size_t kLength = 1 << 16;
  std::uint64_t changes_ = 1;
  std::vector<int> journal_;
  std::uint64_t base_ = 1;
  // Scratch of nodes_since(): per node, the call that listed it.
  mutable std::vector<std::uint64_t> mark_;
  mutable std::uint64_t stamp_ = 0;
};

/// The view's nodes counted by free GPUs, kept from a ChangeJournal: a node's count is updated
/// when a change names it, every node recounted after a change known nowhere.
class FreeGpuCount {
 public:
  /// How many gangs of `count` pods asking `total` GPUs, `per_pod` each (-1: pods of different
  /// sizes), the free GPUs of `view` could hold at once: with G GPUs per pod, the sum over nodes
  /// of floor(free / G), divided by `count`; pods of different sizes: the free GPUs divided by
  /// `total`. The largest int64 when no GPUs are asked.
  std::int64_t gangs_held(const ClusterView& view, const ChangeJournal& journal, std::int64_t count,
                          std::int64_t per_pod, std::int64_t total);

 private:
  // Brings the count up to the journal's current state.
  void sync(const ClusterView& view, const ChangeJournal& journal);
  std::vector<std::int64_t> by_node_;  // free GPUs of each node when last counted
  std::vector<std::int64_t> nodes_;    // nodes_[f]: nodes with f free GPUs
  std::uint64_t synced_ = 0;           // the change count it reflects (0: never counted)
};

}  // namespace tidesim::policies
