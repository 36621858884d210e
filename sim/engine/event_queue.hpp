#pragma once
/// The future event list: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for
/// the shortest path problem", J. ACM 37(2), 1990) keyed by (time, sequence number), so events at
/// the same instant fire in the order they were scheduled (as in ns-3). Cancellation is lazy: a
/// cancelled event stays in its bucket and is skipped when it comes out.
///
/// A simulation's events never go back in time, which a radix heap exploits: bucket b (1-64) holds
/// the events whose time first differs from the last time taken out (`last_`) in bit b-1, and
/// bucket 0 those at `last_` itself, in sequence order. Scheduling appends to a bucket; taking out
/// empties bucket 0 in order, and when it is empty, moves the lowest non-empty bucket's entries
/// into lower buckets around that bucket's earliest time. Every step reads and writes arrays in
/// order, so 100,000 pending events cost little more than 1,000 (a binary heap's random accesses
/// miss the caches there). An event scheduled before `last_` (possible only through the queue's own
/// interface, after next_time(); Simulation never does it) re-buckets everything once.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "tidesim/sim/engine/time.hpp"

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

  /// At most this many events pending at once (cancelled ones count until they come out; their
  /// slots alone would take 12 GB); schedule() throws std::length_error beyond it.
  static constexpr std::size_t kMaxSlots = std::size_t{1} << 28;
  /// At most this many events scheduled over the queue's life (schedule() and reschedule()
  /// together); schedule() throws std::length_error beyond it. It is 68 times the events `tidesim
  /// run` allows a run by default (--max-events 10^9), and 1.9 hours of dispatching at 10 M
  /// events per second.
  static constexpr std::uint64_t kMaxSequence = std::uint64_t{1} << 36;

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
  static constexpr int kSlotBits = 28;  // kMaxSlots; the sequence takes the other 36 bits
  static constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;
  static_assert(kMaxSlots == std::size_t{1} << kSlotBits);
  static_assert(kMaxSequence == std::uint64_t{1} << (64 - kSlotBits));
  /// A slot's key when it holds no pending event.
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  static constexpr int kBuckets = 65;

  struct Entry {
    std::uint64_t time;  // the event's time, offset so that unsigned order is time order
    std::uint64_t key;   // sequence << kSlotBits | slot: orders ties by sequence
    std::uint32_t slot() const { return static_cast<std::uint32_t>(key & kSlotMask); }
  };
  struct Slot {
    Callback fn;
    std::uint64_t key = kNoKey;  // the key of its pending event; kNoKey: none
    std::uint32_t generation = 1;
  };
  static std::uint64_t encode(TimePoint t) {
    return static_cast<std::uint64_t>(t.time_since_epoch().count()) ^ (std::uint64_t{1} << 63);
  }
  static TimePoint decode(std::uint64_t t) {
    return TimePoint(Duration(static_cast<std::int64_t>(t ^ (std::uint64_t{1} << 63))));
  }
  int bucket_of(std::uint64_t time) const;
  void insert(const Entry& e);
  /// Makes bucket 0 hold the earliest entries if the earliest time is at or before `until`
  /// (encoded); returns false when no entry is left there. Entries may be dead.
  bool fill_front(std::uint64_t until);
  /// Drops dead entries at the front; true when a live entry at or before `until` is in front.
  bool live_front(std::uint64_t until);
  void rebase(std::uint64_t time);
  std::uint32_t take_slot();

  std::vector<Entry> buckets_[kBuckets];
  std::uint64_t bucket_min_[kBuckets] = {};
  std::uint64_t non_empty_ = 0;  // bit b-1 set: bucket b (1-64) has entries
  std::size_t front_ = 0;        // next entry of bucket 0
  std::uint64_t last_ = 0;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_sequence_ = 0;
  std::size_t live_ = 0;
};

}  // namespace tidesim
