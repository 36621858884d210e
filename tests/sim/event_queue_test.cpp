#include "sim/engine/event_queue.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tidesim {
namespace {

TimePoint at(std::int64_t us) {
  return TimePoint(Duration(us));
}

TEST(EventQueue, PopsInTimeOrder) {
  EventQueue q;
  std::vector<int> order;
  q.schedule(at(30), [&] { order.push_back(3); });
  q.schedule(at(10), [&] { order.push_back(1); });
  q.schedule(at(20), [&] { order.push_back(2); });
  while (q.next_time()) {
    q.pop().second();
  }
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

TEST(EventQueue, SameTimeFiresInSchedulingOrder) {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) {
    q.schedule(at(5), [&order, i] { order.push_back(i); });
  }
  while (q.next_time()) {
    q.pop().second();
  }
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(order[i], i);
  }
}

TEST(EventQueue, CancelledEventNeverFires) {
  EventQueue q;
  bool fired = false;
  const EventId id = q.schedule(at(10), [&] { fired = true; });
  q.schedule(at(20), [] {});
  EXPECT_TRUE(q.pending(id));
  EXPECT_TRUE(q.cancel(id));
  EXPECT_FALSE(q.pending(id));
  EXPECT_FALSE(q.cancel(id)) << "a second cancel is a no-op";
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.next_time(), at(20));
  q.pop().second();
  EXPECT_FALSE(fired);
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, StaleIdDoesNotCancelARecycledSlot) {
  EventQueue q;
  const EventId first = q.schedule(at(1), [] {});
  q.pop();
  bool fired = false;
  const EventId second = q.schedule(at(2), [&] { fired = true; });
  EXPECT_EQ(first.slot, second.slot) << "the slot is reused";
  EXPECT_FALSE(q.cancel(first));
  q.pop().second();
  EXPECT_TRUE(fired);
}

TEST(EventQueue, RescheduleMovesTheEventAndKeepsItsCallback) {
  EventQueue q;
  std::vector<int> order;
  const EventId a = q.schedule(at(10), [&] { order.push_back(1); });
  q.schedule(at(20), [&] { order.push_back(2); });
  const EventId moved = q.reschedule(a, at(30));
  EXPECT_TRUE(moved.valid());
  EXPECT_FALSE(q.pending(a));
  EXPECT_TRUE(q.pending(moved));
  while (q.next_time()) {
    q.pop().second();
  }
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
  EXPECT_FALSE(q.reschedule(moved, at(40)).valid()) << "a fired event cannot be rescheduled";
}

TEST(EventQueue, RescheduledToSameTimeGoesAfterExistingTies) {
  EventQueue q;
  std::vector<int> order;
  const EventId a = q.schedule(at(10), [&] { order.push_back(1); });
  q.schedule(at(10), [&] { order.push_back(2); });
  q.reschedule(a, at(10));
  while (q.next_time()) {
    q.pop().second();
  }
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

TEST(EventQueue, EmptyQueueHasNoNextTime) {
  EventQueue q;
  EXPECT_FALSE(q.next_time().has_value());
  const EventId id = q.schedule(at(3), [] {});
  q.cancel(id);
  EXPECT_FALSE(q.next_time().has_value());
}

}  // namespace
}  // namespace tidesim
