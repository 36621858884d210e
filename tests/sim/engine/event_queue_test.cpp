#include "tidesim/sim/engine/event_queue.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <utility>
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

TEST(EventQueue, AnEventBeforeTheLastTimeTakenOutStillComesFirst) {
  // next_time() moves the radix heap's base to 10; an event at 5 scheduled afterwards re-buckets
  // the queue and comes out first.
  EventQueue q;
  std::vector<int> order;
  q.schedule(at(10), [&] { order.push_back(10); });
  q.schedule(at(1000), [&] { order.push_back(1000); });
  EXPECT_EQ(q.next_time(), at(10));
  q.schedule(at(5), [&] { order.push_back(5); });
  q.schedule(at(10), [&] { order.push_back(11); });
  EXPECT_EQ(q.next_time(), at(5));
  while (q.next_time()) {
    q.pop().second();
  }
  EXPECT_EQ(order, (std::vector<int>{5, 10, 11, 1000}));
}

TEST(EventQueue, PopUntilLeavesLaterEventsAndAcceptsEarlierOnesAfterwards) {
  EventQueue q;
  std::vector<int> order;
  q.schedule(at(100), [&] { order.push_back(100); });
  TimePoint when{};
  EventQueue::Callback fn;
  EXPECT_FALSE(q.pop_until(at(50), when, fn));
  q.schedule(at(60), [&] { order.push_back(60); });
  ASSERT_TRUE(q.pop_until(at(200), when, fn));
  EXPECT_EQ(when, at(60));
  fn();
  ASSERT_TRUE(q.pop_until(at(200), when, fn));
  EXPECT_EQ(when, at(100));
  fn();
  EXPECT_EQ(order, (std::vector<int>{60, 100}));
}

// The queue against a reference (an ordered map keyed by time and scheduling order): random
// schedules (ties, far and near times, some before the last time taken out), cancels,
// reschedules and pop_until windows, 20,000 operations; every event must come out when and in
// the order the reference says, and ids must stay exact.
TEST(EventQueue, MatchesAnOrderedMapUnderRandomOperations) {
  std::mt19937_64 rng(7);
  EventQueue q;
  std::map<std::pair<std::int64_t, std::uint64_t>, int> reference;  // (time, order) -> label
  std::map<int, std::pair<EventId, std::pair<std::int64_t, std::uint64_t>>> live;
  std::uint64_t order = 0;
  std::int64_t now = 0;
  int next_label = 0;
  int fired = -1;
  auto add = [&](std::int64_t t) {
    const int label = next_label++;
    const EventId id = q.schedule(at(t), [&fired, label] { fired = label; });
    reference[{t, order}] = label;
    live[label] = {id, {t, order}};
    ++order;
  };
  for (int step = 0; step < 20000; ++step) {
    const int op = static_cast<int>(rng() % 10);
    if (op < 4) {
      const std::int64_t spans[] = {0, 1, 7, 1000, 1'000'000, 3'600'000'000};
      const std::int64_t span = spans[rng() % 6];
      // Mostly at or after `now`; sometimes before it (the queue's own interface allows it).
      const std::int64_t base = rng() % 8 == 0 ? now / 2 : now;
      add(base + (span == 0 ? 0 : static_cast<std::int64_t>(rng() % span)));
    } else if (op == 4 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      ASSERT_TRUE(q.pending(it->second.first));
      ASSERT_TRUE(q.cancel(it->second.first));
      EXPECT_FALSE(q.pending(it->second.first));
      reference.erase(it->second.second);
      live.erase(it);
    } else if (op == 5 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      const std::int64_t t = now + static_cast<std::int64_t>(rng() % 5000);
      const EventId moved = q.reschedule(it->second.first, at(t));
      ASSERT_TRUE(moved.valid());
      EXPECT_FALSE(q.pending(it->second.first));
      reference.erase(it->second.second);
      reference[{t, order}] = it->first;
      it->second = {moved, {t, order}};
      ++order;
    } else {
      const std::int64_t until = now + static_cast<std::int64_t>(rng() % 20000);
      TimePoint when{};
      EventQueue::Callback fn;
      while (q.pop_until(at(until), when, fn)) {
        ASSERT_FALSE(reference.empty());
        const auto first = reference.begin();
        EXPECT_EQ(when, at(first->first.first));
        fired = -1;
        fn();
        ASSERT_EQ(fired, first->second) << "step " << step;
        EXPECT_FALSE(q.pending(live.at(fired).first));
        live.erase(fired);
        now = std::max(now, first->first.first);
        reference.erase(first);
      }
      EXPECT_TRUE(reference.empty() || reference.begin()->first.first > until);
      now = std::max(now, until);
    }
    ASSERT_EQ(q.size(), reference.size());
    if (step % 97 == 0) {
      const auto next = q.next_time();
      ASSERT_EQ(next.has_value(), !reference.empty());
      if (next) {
        EXPECT_EQ(*next, at(reference.begin()->first.first));
      }
    }
  }
  while (q.next_time()) {
    const auto [when, fn] = q.pop();
    const auto first = reference.begin();
    EXPECT_EQ(when, at(first->first.first));
    fired = -1;
    fn();
    EXPECT_EQ(fired, first->second);
    reference.erase(first);
  }
  EXPECT_TRUE(reference.empty());
}

}  // namespace
}  // namespace tidesim
