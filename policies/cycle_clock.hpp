#pragma once
/// When a scheduling loop's next cycle runs. The loop keeps at most one pending cycle event, at
/// the earliest time a cycle may do work: wake(at) makes sure a cycle runs at max(at, now, the end
/// of the cycle in progress) or earlier, moving the pending one earlier when needed.
#include <functional>
#include <optional>

#include "tidesim/sim/engine/simulation.hpp"

namespace tidesim::policies {

class CycleClock {
 public:
  /// `cycle` runs at each wake-up; `sim` must outlive the clock.
  CycleClock(Simulation& sim, std::function<void()> cycle);
  /// Makes sure a cycle runs at max(at, now, busy_until()) or earlier.
  void wake(TimePoint at);
  /// The cycle pending was started (called first by the cycle).
  void started() { next_.reset(); }
  /// The cycle in progress ends at `t`.
  void busy_until(TimePoint t) { busy_until_ = t; }
  /// When the next cycle is due; nullopt when none is.
  std::optional<TimePoint> next() const { return next_; }

 private:
  Simulation& sim_;
  std::function<void()> cycle_;
  TimePoint busy_until_{};
  std::optional<TimePoint> next_;
  EventId event_{};
};

}  // namespace tidesim::policies
