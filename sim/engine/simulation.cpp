#include "tidesim/sim/engine/simulation.hpp"

#include <stdexcept>

namespace tidesim {

EventId Simulation::schedule_in(Duration delay, EventQueue::Callback fn) {
  if (delay < Duration::zero()) {
    throw std::logic_error("negative delay scheduled");
  }
  // Saturating: a delay computed from a rate (a job's remaining steps / its speed) can exceed
  // what is left of the clock's range; such an event lands at the end of time, after any
  // horizon, instead of overflowing.
  const TimePoint at = delay > TimePoint::max() - now_ ? TimePoint::max() : now_ + delay;
  return queue_.schedule(at, std::move(fn));
}

EventId Simulation::schedule_at(TimePoint at, EventQueue::Callback fn) {
  if (at < now_) {
    throw std::logic_error("event scheduled in the past");
  }
  return queue_.schedule(at, std::move(fn));
}

EventId Simulation::reschedule(EventId id, TimePoint at) {
  if (at < now_) {
    throw std::logic_error("event rescheduled into the past");
  }
  return queue_.reschedule(id, at);
}

std::uint64_t Simulation::run(std::optional<TimePoint> until) {
  stopped_ = false;
  std::uint64_t count = 0;
  const TimePoint limit = until.value_or(TimePoint::max());
  TimePoint at{};
  EventQueue::Callback fn;
  while (!stopped_ && queue_.pop_until(limit, at, fn)) {
    now_ = at;
    fn();
    ++count;
    if (count % kMeterEvents == 0 && meter_ != nullptr) {
      meter_->fetch_add(kMeterEvents, std::memory_order_relaxed);
    }
    // After every event: one event can take long (a fault that visits every pod), so a check
    // every few thousand events could come minutes late.
    if (interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed)) {
      interrupted_ = true;
      break;
    }
    if (limit_ != 0 && dispatched_ + count + charged_ > limit_) {
      over_limit_ = true;
      break;
    }
  }
  if (meter_ != nullptr) {
    meter_->fetch_add(count % kMeterEvents, std::memory_order_relaxed);
  }
  // Reaching `until` (no event left before it) moves the clock there; stop(), an interrupt and
  // the event limit leave it at the last event.
  if (until && !stopped_ && !interrupted_ && !over_limit_ && now_ < *until) {
    now_ = *until;
  }
  dispatched_ += count;
  return count;
}

}  // namespace tidesim
