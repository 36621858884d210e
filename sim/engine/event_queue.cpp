#include "tidesim/sim/engine/event_queue.hpp"

#include <bit>
#include <cassert>
#include <stdexcept>

namespace tidesim {

std::uint32_t EventQueue::take_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  if (slots_.size() >= kMaxSlots) {
    throw std::length_error("event queue: more than 268,435,456 events pending at once");
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

int EventQueue::bucket_of(std::uint64_t time) const {
  return time == last_ ? 0 : 64 - std::countl_zero(time ^ last_);
}

void EventQueue::insert(const Entry& e) {
  const int b = bucket_of(e.time);
  std::vector<Entry>& bucket = buckets_[b];
  if (b > 0) {
    if (bucket.empty() || e.time < bucket_min_[b]) {
      bucket_min_[b] = e.time;
    }
    non_empty_ |= std::uint64_t{1} << (b - 1);
  }
  bucket.push_back(e);
}

void EventQueue::rebase(std::uint64_t time) {
  std::vector<Entry> all(buckets_[0].begin() + static_cast<std::ptrdiff_t>(front_),
                         buckets_[0].end());
  buckets_[0].clear();
  front_ = 0;
  for (int b = 1; b < kBuckets; ++b) {
    all.insert(all.end(), buckets_[b].begin(), buckets_[b].end());
    buckets_[b].clear();
  }
  non_empty_ = 0;
  last_ = time;
  // Entries of equal time come from one bucket, in sequence order, and stay in that order.
  for (const Entry& e : all) {
    insert(e);
  }
}

EventId EventQueue::schedule(TimePoint at_time, Callback fn) {
  if (next_sequence_ >= kMaxSequence) {
    throw std::length_error(
        "event queue: more than 2^36 (68.7 billion) events scheduled in one run");
  }
  const std::uint32_t s = take_slot();
  Slot& slot = slots_[s];
  slot.fn = std::move(fn);
  slot.key = next_sequence_++ << kSlotBits | s;
  const std::uint64_t time = encode(at_time);
  if (time < last_) {
    rebase(time);
  }
  insert(Entry{time, slot.key});
  ++live_;
  return EventId{s, slot.generation};
}

bool EventQueue::pending(EventId id) const {
  return id.valid() && id.slot < slots_.size() && slots_[id.slot].key != kNoKey &&
         slots_[id.slot].generation == id.generation;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) {
    return false;
  }
  Slot& slot = slots_[id.slot];
  slot.key = kNoKey;
  slot.fn = nullptr;
  // The entry stays in its bucket until it comes out; the slot is recycled only then, so a slot
  // has at most one entry in the queue. Bumping the generation makes `id` stale.
  ++slot.generation;
  --live_;
  return true;
}

EventId EventQueue::reschedule(EventId id, TimePoint at_time) {
  if (!pending(id)) {
    return {};
  }
  Callback fn = std::move(slots_[id.slot].fn);
  cancel(id);
  return schedule(at_time, std::move(fn));
}

bool EventQueue::fill_front(std::uint64_t until) {
  std::vector<Entry>& front = buckets_[0];
  if (front_ < front.size()) {
    return last_ <= until;
  }
  front.clear();
  front_ = 0;
  if (non_empty_ == 0) {
    return false;
  }
  const int b = std::countr_zero(non_empty_) + 1;
  if (bucket_min_[b] > until) {
    return false;
  }
  // Every entry of bucket b differs from the new last_ below bit b-1, so each moves to a lower
  // bucket, those at last_ itself to bucket 0. The entries of other buckets stay where they are:
  // the new last_ agrees with the old one from bit b-1 up. So an entry is always in the bucket
  // its time gives, entries of equal time share a bucket, and as every move and every schedule
  // appends, they stay in sequence order: bucket 0 needs no sorting.
  last_ = bucket_min_[b];
  std::vector<Entry>& from = buckets_[b];
  non_empty_ &= ~(std::uint64_t{1} << (b - 1));
  for (const Entry& e : from) {
    insert(e);
  }
  from.clear();
  return true;
}

bool EventQueue::live_front(std::uint64_t until) {
  while (fill_front(until)) {
    const Entry& e = buckets_[0][front_];
    if (slots_[e.slot()].key == e.key) {
      return true;
    }
    free_slots_.push_back(e.slot());
    ++front_;
  }
  return false;
}

std::optional<TimePoint> EventQueue::next_time() {
  if (!live_front(~std::uint64_t{0})) {
    return std::nullopt;
  }
  return decode(last_);
}

std::pair<TimePoint, EventQueue::Callback> EventQueue::pop() {
  TimePoint when{};
  Callback fn;
  [[maybe_unused]] const bool popped = pop_until(TimePoint::max(), when, fn);
  assert(popped);
  return {when, std::move(fn)};
}

bool EventQueue::pop_until(TimePoint until, TimePoint& when, Callback& fn) {
  if (!live_front(encode(until))) {
    return false;
  }
  const std::vector<Entry>& front = buckets_[0];
  const std::uint32_t s = front[front_].slot();
  ++front_;
  // The next event's slot is read when it comes out; fetch it while this one runs.
  if (front_ < front.size()) {
    __builtin_prefetch(&slots_[front[front_].slot()]);
  }
  Slot& slot = slots_[s];
  fn = std::move(slot.fn);  // leaves slot.fn empty
  slot.key = kNoKey;
  ++slot.generation;
  free_slots_.push_back(s);
  --live_;
  when = decode(last_);
  return true;
}

}  // namespace tidesim
