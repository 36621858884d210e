#pragma once
/// The queueing hints of a profile's plugins by event (kube-scheduler's queueingHintMap, built
/// from every plugin's EventsToRegister), and the rule that asks them (isPodWorthRequeuing in
/// pkg/scheduler/backend/queue/scheduling_queue.go): after an event, an unschedulable pod moves
/// back when one of the plugins that rejected it registered for the event and its hint says
/// kQueue. A pod no plugin rejected moves on every kClusterChanged (kube-scheduler: "no failed
/// plugins"), and stays on kMetricsChanged, which is no Kubernetes object's event.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "tidesim/policies/framework.hpp"
#include "tidesim/sim/api/api.hpp"

namespace tidesim::policies {

class QueueingHintMap {
 public:
  /// The most plugins a map holds (a bit of Rejectors each).
  static constexpr std::size_t kMaxPlugins = 64;

  /// A map with no plugins: every pod moves on kClusterChanged alone.
  QueueingHintMap() = default;
  /// The hints `plugins` register (each plugin once; listed twice, it keeps its first bit). Throws
  /// std::length_error over kMaxPlugins.
  explicit QueueingHintMap(std::span<const Plugin* const> plugins);

  /// The bit of `plugin` (0 when it is not in the map).
  Rejectors bit(const Plugin* plugin) const;
  /// Whether `event` may make `pod`, rejected by `rejectors`, schedulable (isPodWorthRequeuing).
  bool worth_requeuing(const PodSpec& pod, Rejectors rejectors,
                       const ClusterEventInfo& event) const;
  /// The events some plugin of `rejectors` registered for (a mask of ClusterEvent values).
  unsigned events_of(Rejectors rejectors) const;

 private:
  // Index of `event` (a single ClusterEvent bit) in the per-event arrays.
  static int index_of(ClusterEvent event);
  struct Hint {
    int plugin = 0;  // its bit's index
    QueueingHintFn fn;
  };
  std::vector<const Plugin*> plugins_;
  // Per event: the plugins registered for it, those of them with no hint (always kQueue), and
  // the hints of the others.
  std::array<Rejectors, kClusterEventCount> registered_{};
  std::array<Rejectors, kClusterEventCount> always_{};
  std::array<std::vector<Hint>, kClusterEventCount> hints_;
};

}  // namespace tidesim::policies
