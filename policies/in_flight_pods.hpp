#pragma once
/// The pods a scheduling queue has handed out and not yet seen done (bound or deleted), by
/// namespace/name: how many attempts each has made and the cycle it was last popped in
/// (scheduling_queue.go's in-flight pods and PodInfo.Attempts). A pod keeps its record while it
/// goes back to the queue and comes out again, until done. With them, the scheduling cycle (pods
/// popped so far) and the cycles of the last move requests (scheduling_queue.go's schedulingCycle
/// and moveRequestCycle), which tell where a pod that failed goes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "tidesim/sim/api/api.hpp"

namespace tidesim::policies {

class InFlightPods {
 public:
  struct Record {
    int attempts = 0;
    std::int64_t popped_cycle = -1;  // -1: not popped since added
  };

  /// The hash records are found by: FNV-1a of "namespace/name", computed without building the
  /// string (once per queue entry).
  static std::size_t hash_of(const PodSpec& pod);
  /// The record of `pod` (`hash`: hash_of(pod)); null when it has none.
  const Record* find(const PodSpec& pod, std::size_t hash) const;
  /// The record of `pod`, made when it has none.
  Record& get(const PodSpec& pod, std::size_t hash);
  /// `pod` was popped after `attempts` attempts: a new cycle begins; its record says one attempt
  /// more and that cycle. It is the last popped: last() finds its record without a lookup.
  void popped(const PodSpec& pod, std::size_t hash, int attempts);
  /// `pod` was taken out of the queue to join the current cycle after `attempts` attempts: its
  /// record says one attempt more and this cycle.
  void taken(const PodSpec& pod, std::size_t hash, int attempts);
  /// The current scheduling cycle: the number of pops so far.
  std::int64_t cycle() const { return cycle_; }
  /// An event (a ClusterEvent value, a single bit) moved the unschedulable pods
  /// (moveRequestCycle = schedulingCycle, one per event).
  void move_requested(unsigned event);
  /// The events (a mask of ClusterEvent values) that came since `pod` was popped: one that may
  /// help it (QueueingHintMap::worth_requeuing) sends it to back-off rather than to the
  /// unschedulable set. A pod never popped counts as popped in the current cycle.
  unsigned events_since_popped(const PodSpec& pod, std::size_t hash) const;
  /// The record of `pod` (get()), found without a lookup when it is the pod popped last; `hash`
  /// receives hash_of(pod).
  Record& last(const PodSpec& pod, std::size_t& hash);
  /// Forgets `pod` (bound or deleted).
  void erase(const PodSpec& pod);

 private:
  // Records are keyed by namespace/name and looked up by a pod without building that string: a
  // key equal to a pod's when it is namespace + "/" + name.
  static std::string key_of(const PodSpec& pod);
  struct PodKey {
    const PodSpec* pod;
    std::size_t hash;  // hash_of(*pod)
  };
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(const std::string& key) const;
    std::size_t operator()(PodKey key) const { return key.hash; }
  };
  struct KeyEqual {
    using is_transparent = void;
    bool operator()(const std::string& a, const std::string& b) const { return a == b; }
    bool operator()(PodKey a, const std::string& b) const;
    bool operator()(const std::string& a, PodKey b) const { return (*this)(b, a); }
  };
  std::unordered_map<std::string, Record, KeyHash, KeyEqual> records_;
  // The record popped() set last and its pod (records do not move in the map; erase() clears
  // these when it erases that record).
  const PodSpec* last_pod_ = nullptr;
  Record* last_record_ = nullptr;
  std::size_t last_hash_ = 0;
  std::int64_t cycle_ = 0;
  // The cycle of the last event of each kind (by its bit's index).
  std::array<std::int64_t, 32> move_request_cycle_ = filled(-1);
  static constexpr std::array<std::int64_t, 32> filled(std::int64_t v) {
    std::array<std::int64_t, 32> a{};
    a.fill(v);
    return a;
  }
};

}  // namespace tidesim::policies
