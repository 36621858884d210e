#include "tidesim/policies/change_journal.hpp"

#include <algorithm>
#include <limits>

namespace tidesim::policies {

void ChangeJournal::record(int node) {
  journal_.push_back(node);
  ++changes_;
  // Keep the journal short: a failure older than what is kept is simply evaluated again.
  if (journal_.size() > kLength) {
    const std::size_t drop = journal_.size() / 2;
    journal_.erase(journal_.begin(), journal_.begin() + static_cast<std::ptrdiff_t>(drop));
    base_ += drop;
  }
}

bool ChangeJournal::nodes_since(std::uint64_t seen, std::size_t node_count,
                                std::vector<int>& out) const {
  if (seen < base_) {
    return false;
  }
  out.clear();
  if (mark_.size() != node_count) {
    mark_.assign(node_count, 0);
  }
  ++stamp_;
  for (std::uint64_t c = seen; c < changes_; ++c) {
    const int node = node_of(c);
    if (node < 0) {
      return false;
    }
    if (mark_[static_cast<std::size_t>(node)] != stamp_) {
      mark_[static_cast<std::size_t>(node)] = stamp_;
      out.push_back(node);
    }
  }
  return true;
}

std::int64_t FreeGpuCount::gangs_held(const ClusterView& view, const ChangeJournal& journal,
                                      std::int64_t count, std::int64_t per_pod,
                                      std::int64_t total) {
  if (total <= 0 || count <= 0) {
    return std::numeric_limits<std::int64_t>::max();  // no GPUs asked: nothing to gate on
  }
  sync(view, journal);
  std::int64_t free = 0;
  std::int64_t slots = 0;
  for (std::size_t f = 1; f < nodes_.size(); ++f) {
    const auto gpus = static_cast<std::int64_t>(f);
    free += nodes_[f] * gpus;
    slots += per_pod > 0 ? nodes_[f] * (gpus / per_pod) : 0;
  }
  return per_pod > 0 ? slots / count : free / total;
}

void FreeGpuCount::sync(const ClusterView& view, const ChangeJournal& journal) {
  const auto free_of = [&view](std::size_t node) {
    const NodeInfo& n = view.nodes[node];
    return std::max<std::int64_t>(0, n.node.allocatable.gpus - n.requested.gpus);
  };
  const auto count = [this](std::int64_t f, std::int64_t delta) {
    const auto i = static_cast<std::size_t>(f);
    if (nodes_.size() <= i) {
      nodes_.resize(i + 1, 0);
    }
    nodes_[i] += delta;
  };
  bool all = synced_ == 0 || synced_ < journal.base() || by_node_.size() != view.nodes.size();
  for (std::uint64_t c = synced_; !all && c < journal.now(); ++c) {
    const int node = journal.node_of(c);
    if (node < 0) {
      all = true;
      break;
    }
    const auto i = static_cast<std::size_t>(node);
    count(by_node_[i], -1);
    by_node_[i] = free_of(i);
    count(by_node_[i], 1);
  }
  if (all) {
    by_node_.assign(view.nodes.size(), 0);
    nodes_.clear();
    for (std::size_t i = 0; i < view.nodes.size(); ++i) {
      by_node_[i] = free_of(i);
      count(by_node_[i], 1);
    }
  }
  synced_ = journal.now();
}

}  // namespace tidesim::policies
