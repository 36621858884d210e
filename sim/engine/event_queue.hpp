#pragma once
/// The future event list: a binary heap keyed by (time, sequence number), so events at the same
/// instant fire in the order they were scheduled (as in ns-3). Cancellation is lazy: a cancelled
/// event stays in the heap and is skipped when it reaches the top.
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/engine/time.hpp"

namespace tidesim {

/// Names one scheduled event; default-constructed ids name nothing. Cheap to copy.
struct EventId {
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;  // 0: no event
  friend bool operator==(const EventId&, const EventId&) = default;
  bool valid() const { return generation != 0; }
};

/// A priority queue of callbacks. Not thread-safe: one per simulation.
class EventQueue {
 public:
  using Callback = std::function<void()>;

  /// Schedules `fn` at `at`. Returns an id for cancel()/reschedule().
  EventId schedule(TimePoint at, Callback fn);

  /// Cancels a pending event. Returns false if it already fired, was cancelled, or is invalid.
  bool cancel(EventId id);

  /// Moves a pending event to a new time, keeping its callback. The event is ordered as if newly
  /// scheduled (a fresh sequence number). Returns the new id, or an invalid id if `id` is not
  /// pending.
  EventId reschedule(EventId id, TimePoint at);

  /// True when `id` names an event that has neither fired nor been cancelled.
  bool pending(EventId id) const;

  /// Time of the earliest pending event; std::nullopt when none is pending.
  std::optional<TimePoint> next_time();

  /// Removes the earliest pending event and returns its time and callback.
  /// Precondition: next_time() has a value.
  std::pair<TimePoint, Callback> pop();

  /// If the earliest pending event is at or before `until`, removes it into `at` and `fn` and
  /// returns true; otherwise returns false and changes nothing. One heap inspection per event
  /// (the run loop's fast path).
  bool pop_until(TimePoint until, TimePoint& at, Callback& fn);

  /// Number of pending (not cancelled) events.
  std::size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

 private:
  struct Entry {
    std::int64_t time;
    std::uint64_t sequence;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  struct Slot {
    Callback fn;
    std::uint32_t generation = 1;
    bool live = false;
  };
  // A function object, not a function pointer, so the heap algorithms inline the comparison.
  struct Later {
    bool operator()(const Entry& a, const Entry& b) const {
      return a.time != b.time ? a.time > b.time : a.sequence > b.sequence;
    }
  };
  static constexpr Later later{};
  void drop_dead_top();
  std::uint32_t take_slot();

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_sequence_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tidesim
