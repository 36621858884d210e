#pragma once
/// What a scheduling loop needs from the cluster model it schedules for (sim/experiments/run.cpp
/// is the run's): whether a pod still exists, and the binding cycle's steps (Reserve, Permit's
/// allow, Unreserve, Bind) and preemption's deletions.
#include <memory>
#include <span>
#include <vector>

#include "tidesim/sim/api/api.hpp"

namespace tidesim::policies {

class BindTarget {
 public:
  virtual ~BindTarget() = default;
  /// False when the pod was deleted while it waited (its attempt was killed): the loop drops it.
  virtual bool pod_alive(const PodSpec& pod) const = 0;
  /// Binds `pod` to node `node` (an index into the ClusterView) on `cards`, the card choice of
  /// the cycle that placed it (empty: the device plugin's own); false when the node's device
  /// plugin cannot place it after all (the pod is then unschedulable for this cycle).
  virtual bool bind(const PodSpec& pod, int node, std::span<const int> cards) = 0;
  /// Reserve: places `pod` on `node` and `cards` as bind() does (the device plugin holds its
  /// cards, the ClusterView counts it) without binding it; false when the device plugin cannot.
  /// Gangs only.
  virtual bool reserve(const PodSpec& pod, int node, std::span<const int> cards);
  /// The reserved `pod` passed Permit: it is bound now.
  virtual void allow(const PodSpec& pod);
  /// Unreserve: the reserved `pod` was rejected; its cards and its place in the view are freed.
  virtual void unreserve(const PodSpec& pod);
  /// Preemption nominated `node` for `preemptor`: delete `victims` (after their grace period).
  virtual void preempt(const PodSpec& preemptor, int node,
                       const std::vector<std::shared_ptr<const PodSpec>>& victims);
};

}  // namespace tidesim::policies
