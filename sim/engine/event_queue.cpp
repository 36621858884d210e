#include "sim/engine/event_queue.hpp"

#include <algorithm>
#include <cassert>

namespace tidesim {

std::uint32_t EventQueue::take_slot() {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    return s;
  }
  slots_.emplace_back();
  return static_cast<std::uint32_t>(slots_.size() - 1);
}

EventId EventQueue::schedule(TimePoint at, Callback fn) {
  const std::uint32_t s = take_slot();
  Slot& slot = slots_[s];
  slot.fn = std::move(fn);
  slot.live = true;
  heap_.push_back(Entry{at.time_since_epoch().count(), next_sequence_++, s, slot.generation});
  std::push_heap(heap_.begin(), heap_.end(), later);
  ++live_;
  return EventId{s, slot.generation};
}

bool EventQueue::pending(EventId id) const {
  return id.valid() && id.slot < slots_.size() && slots_[id.slot].live &&
         slots_[id.slot].generation == id.generation;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) {
    return false;
  }
  Slot& slot = slots_[id.slot];
  slot.live = false;
  slot.fn = nullptr;
  // The heap entry still holds this generation; bumping it makes the entry dead. The slot is
  // recycled only when its dead entry leaves the heap, so a stale entry never matches a new event.
  ++slot.generation;
  --live_;
  return true;
}

EventId EventQueue::reschedule(EventId id, TimePoint at) {
  if (!pending(id)) {
    return {};
  }
  Callback fn = std::move(slots_[id.slot].fn);
  cancel(id);
  return schedule(at, std::move(fn));
}

void EventQueue::drop_dead_top() {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    const Slot& slot = slots_[top.slot];
    if (slot.live && slot.generation == top.generation) {
      return;
    }
    const std::uint32_t s = top.slot;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
    free_slots_.push_back(s);
  }
}

std::optional<TimePoint> EventQueue::next_time() {
  drop_dead_top();
  if (heap_.empty()) {
    return std::nullopt;
  }
  return TimePoint(Duration(heap_.front().time));
}

std::pair<TimePoint, EventQueue::Callback> EventQueue::pop() {
  TimePoint at{};
  Callback fn;
  [[maybe_unused]] const bool popped = pop_until(TimePoint::max(), at, fn);
  assert(popped);
  return {at, std::move(fn)};
}

bool EventQueue::pop_until(TimePoint until, TimePoint& at, Callback& fn) {
  drop_dead_top();
  if (heap_.empty() || heap_.front().time > until.time_since_epoch().count()) {
    return false;
  }
  const Entry top = heap_.front();
  std::pop_heap(heap_.begin(), heap_.end(), later);
  heap_.pop_back();
  Slot& slot = slots_[top.slot];
  fn = std::move(slot.fn);  // leaves slot.fn empty
  slot.live = false;
  ++slot.generation;
  free_slots_.push_back(top.slot);
  --live_;
  at = TimePoint(Duration(top.time));
  return true;
}

}  // namespace tidesim
