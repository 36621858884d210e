// SchedulingQueue: PrioritySort, back-off 1 s doubling to 10 s, unschedulable set, events, 5 min.
#include <gtest/gtest.h>

#include "policies/queue.hpp"

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;

PodPtr pod(const std::string& name, int priority = 0) {
  auto p = std::make_shared<PodSpec>();
  p->name = name;
  p->priority = priority;
  return p;
}

TimePoint at(Duration d) {
  return TimePoint{} + d;
}

TEST(SchedulingQueue, PrioritySortThenFifo) {
  SchedulingQueue q;
  q.add(pod("a"), at(0s));
  q.add(pod("b", 10), at(1s));
  q.add(pod("c"), at(1s));
  EXPECT_EQ((*q.pop(at(2s)))->name, "b");
  EXPECT_EQ((*q.pop(at(2s)))->name, "a");
  EXPECT_EQ((*q.pop(at(2s)))->name, "c");
  EXPECT_FALSE(q.pop(at(2s)));
  SchedulingQueue fifo(QueueOptions{.order = QueueOrder::kFifo});
  fifo.add(pod("a"), at(0s));
  fifo.add(pod("b", 10), at(1s));
  EXPECT_EQ((*fifo.pop(at(2s)))->name, "a");
}

// calculateBackoffDuration: 1, 2, 4, 8, 10, 10 s for attempts 1..6.
TEST(SchedulingQueue, BackoffDoublesToTheCap) {
  SchedulingQueue q;
  EXPECT_EQ(q.backoff_duration(1), 1s);
  EXPECT_EQ(q.backoff_duration(2), 2s);
  EXPECT_EQ(q.backoff_duration(4), 8s);
  EXPECT_EQ(q.backoff_duration(5), 10s);
  EXPECT_EQ(q.backoff_duration(9), 10s);
}

TEST(SchedulingQueue, UnschedulableWaitsForEventOrTimeout) {
  SchedulingQueue q;
  q.add(pod("a"), at(0s));
  auto p = *q.pop(at(0s));
  q.add_unschedulable(p, at(0s));
  EXPECT_EQ(q.unschedulable_size(), 1u);
  EXPECT_FALSE(q.pop(at(60s)));
  // Without events it is retried after 5 minutes.
  EXPECT_EQ(q.next_ready_time(at(60s)), at(300s));
  // A cluster event at 0.5 s: back-off (1 s after the failure at 0 s) not over -> back-off queue.
  q.on_cluster_event(at(500ms));
  EXPECT_EQ(q.backoff_size(), 1u);
  EXPECT_EQ(q.next_ready_time(at(500ms)), at(1s));
  EXPECT_FALSE(q.pop(at(900ms)));
  p = *q.pop(at(1s));
  EXPECT_EQ(p->name, "a");
  // Second failure at 10 s: back-off now 2 s; an event at 20 s moves it straight to active.
  q.add_unschedulable(p, at(10s));
  q.on_cluster_event(at(20s));
  EXPECT_EQ(q.active_size(), 1u);
  EXPECT_EQ(q.next_ready_time(at(20s)), at(20s));
  EXPECT_EQ(q.size(), 1u);
}

TEST(SchedulingQueue, EventDuringTheCycleSendsThePodToBackoff) {
  SchedulingQueue q;
  q.add(pod("a"), at(0s));
  auto p = *q.pop(at(0s));
  q.on_cluster_event(at(0s));  // e.g. a pod finished while "a" was being scheduled
  q.add_unschedulable(p, at(0s));
  EXPECT_EQ(q.backoff_size(), 1u);
  EXPECT_EQ(q.next_ready_time(at(0s)), at(1s));
}

TEST(SchedulingQueue, TimeoutAndDone) {
  SchedulingQueue q;
  q.add(pod("a"), at(0s));
  auto p = *q.pop(at(0s));
  q.add_unschedulable(p, at(0s));
  p = *q.pop(at(300s));  // after 5 minutes
  EXPECT_EQ(p->name, "a");
  q.done(*p);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.next_ready_time(at(300s)));
}

}  // namespace
}  // namespace tidesim::policies
