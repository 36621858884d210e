#pragma once
/// The simulation: a clock, a future event list and the run's seed. An ordinary object passed
/// by reference; two can live in one process.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

#include "tidesim/sim/engine/event_queue.hpp"
#include "tidesim/sim/engine/random.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace tidesim {

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed = 1) : seed_(seed) {}
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Current simulated time.
  TimePoint now() const { return now_; }
  /// The run's seed.
  std::uint64_t seed() const { return seed_; }

  /// Schedules `fn` after `delay`. A negative delay is a programming error: std::logic_error.
  EventId schedule_in(Duration delay, EventQueue::Callback fn);
  /// Schedules `fn` at `at` (not before now()).
  EventId schedule_at(TimePoint at, EventQueue::Callback fn);
  /// Cancels a pending event; false if it is not pending.
  bool cancel(EventId id) { return queue_.cancel(id); }
  /// Moves a pending event to `at` (not before now()).
  EventId reschedule(EventId id, TimePoint at);
  bool pending(EventId id) const { return queue_.pending(id); }

  /// Runs events in (time, sequence) order until none is left, stop() is called, or the next
  /// event lies after `until`. Then the clock stands at the last event's time (or at `until`
  /// when given and reached). Returns the number of events dispatched.
  std::uint64_t run(std::optional<TimePoint> until = std::nullopt);
  /// Makes run() return after the current event.
  void stop() { stopped_ = true; }
  /// A flag another thread may set (a wall-clock timeout): run() checks it after every event and
  /// returns early, with interrupted() true, once it is set. Checking it changes no result of a
  /// run that is not interrupted.
  void set_interrupt(const std::atomic<bool>* flag) { interrupt_ = flag; }
  bool interrupted() const { return interrupted_; }
  /// How often run() adds to the event meter.
  static constexpr std::uint64_t kMeterEvents = 4096;
  /// A counter another thread may read (a progress line): run() adds the events it dispatches,
  /// every kMeterEvents events and when it returns. Changes no result.
  void set_event_meter(std::atomic<std::uint64_t>* meter) { meter_ = meter; }
  /// Work done inside the current event, counted as `n` more events (a sample that visits every
  /// node counts one per node): counted() and the event limit include it, dispatched() does not.
  void charge(std::uint64_t n) { charged_ += n; }
  /// A budget of counted() events (0: none): run() returns early, with over_limit() true, after
  /// the event that passes it. Changes no result of a run that stays within it.
  void set_event_limit(std::uint64_t limit) { limit_ = limit; }
  bool over_limit() const { return over_limit_; }

  /// The stream of component `name` for this run's seed.
  RandomStream stream(std::string_view name) const { return RandomStream(seed_, name); }

  /// Events dispatched so far.
  std::uint64_t dispatched() const { return dispatched_; }
  /// Events as a budget counts them: those dispatched and the work charged (charge()).
  std::uint64_t counted() const { return dispatched_ + charged_; }
  std::size_t pending_events() const { return queue_.size(); }

 private:
  std::uint64_t seed_;
  TimePoint now_{};
  EventQueue queue_;
  bool stopped_ = false;
  const std::atomic<bool>* interrupt_ = nullptr;
  std::atomic<std::uint64_t>* meter_ = nullptr;
  bool interrupted_ = false;
  std::uint64_t limit_ = 0;
  bool over_limit_ = false;
  std::uint64_t dispatched_ = 0;
  std::uint64_t charged_ = 0;
};

}  // namespace tidesim
