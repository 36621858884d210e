// SchedulingQueue: PrioritySort, back-off 1 s doubling to 10 s, unschedulable set, events, 5 min.
#include <gtest/gtest.h>

#include "tidesim/policies/queue.hpp"

#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

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

// A plugin that registers for the events it is given, with the hint it is given.
class Registered final : public Plugin {
 public:
  explicit Registered(std::vector<ClusterEventWithHint> events) : events_(std::move(events)) {}
  std::string_view name() const override { return "Registered"; }
  std::vector<ClusterEventWithHint> events_to_register() const override { return events_; }

 private:
  std::vector<ClusterEventWithHint> events_;
};

// Two plugins: one registered for cluster events alone (as every built-in plugin but
// LoadAwareFilter), one for metrics events too (as LoadAwareFilter); bits 1 and 2.
struct TwoPlugins {
  Registered cluster{{ClusterEventWithHint{.event = kClusterChanged, .hint = {}}}};
  Registered metrics{{ClusterEventWithHint{.event = kClusterChanged, .hint = {}},
                      ClusterEventWithHint{.event = kMetricsChanged, .hint = {}}}};
  std::vector<const Plugin*> list{&cluster, &metrics};
  QueueingHintMap map{list};
};

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

// A metrics event (a scrape) moves only the pods a metrics-reading plugin rejected; the one
// rejected for resources waits for a cluster event. One during the cycle sends a pod rejected by
// metrics to back-off, and leaves one rejected for resources unschedulable.
TEST(SchedulingQueue, AMetricsEventMovesOnlyPodsRejectedByMetrics) {
  const TwoPlugins plugins;
  ASSERT_EQ(plugins.map.bit(&plugins.cluster), 1u);
  ASSERT_EQ(plugins.map.bit(&plugins.metrics), 2u);
  SchedulingQueue q;
  q.set_queueing_hints(&plugins.map);
  q.add(pod("metrics"), at(0s));
  q.add(pod("resources"), at(0s));
  q.add_unschedulable(*q.pop(at(0s)), at(0s), 2);
  q.add_unschedulable(*q.pop(at(0s)), at(0s), 1);
  EXPECT_EQ(q.unschedulable_size(), 2u);
  q.on_metrics_event(at(15s));
  EXPECT_EQ(q.unschedulable_size(), 1u);
  EXPECT_EQ(q.active_size(), 1u);
  EXPECT_EQ((*q.pop(at(15s)))->name, "metrics");
  EXPECT_FALSE(q.pop(at(15s)));
  q.on_cluster_event(at(20s));
  EXPECT_EQ((*q.pop(at(20s)))->name, "resources");

  SchedulingQueue during;
  during.set_queueing_hints(&plugins.map);
  during.add(pod("metrics"), at(0s));
  during.add(pod("resources"), at(0s));
  auto m = *during.pop(at(0s));
  auto r = *during.pop(at(0s));
  during.on_metrics_event(at(0s));  // a scrape while both were being scheduled
  during.add_unschedulable(m, at(0s), 2);
  during.add_unschedulable(r, at(0s), 1);
  EXPECT_EQ(during.backoff_size(), 1u);
  EXPECT_EQ(during.unschedulable_size(), 1u);
  EXPECT_EQ((*during.pop(at(1s)))->name, "metrics");
}

// isPodWorthRequeuing (pkg/scheduler/backend/queue/scheduling_queue.go): a pod no plugin
// rejected moves on a cluster event and stays on a metrics event (no Kubernetes object changed);
// a pod moves only on the events its rejectors registered for; one rejector saying Queue is
// enough.
TEST(QueueingHintMap, APodMovesWhenOneOfItsRejectorsRegisteredForTheEvent) {
  const TwoPlugins plugins;
  const PodSpec p;
  const ClusterEventInfo cluster{.event = kClusterChanged, .nodes = {}};
  const ClusterEventInfo metrics{.event = kMetricsChanged, .nodes = {}};
  EXPECT_TRUE(plugins.map.worth_requeuing(p, 0, cluster));
  EXPECT_FALSE(plugins.map.worth_requeuing(p, 0, metrics));
  EXPECT_TRUE(plugins.map.worth_requeuing(p, 1, cluster));
  EXPECT_FALSE(plugins.map.worth_requeuing(p, 1, metrics));
  EXPECT_TRUE(plugins.map.worth_requeuing(p, 2, metrics));
  EXPECT_TRUE(plugins.map.worth_requeuing(p, 3, metrics));
  EXPECT_EQ(plugins.map.events_of(1), kClusterChanged);
  EXPECT_EQ(plugins.map.events_of(3), kClusterChanged | kMetricsChanged);
  EXPECT_EQ(plugins.map.bit(nullptr), 0u);
}

// A QueueingHintFn: the plugin's pods move only on a deletion on node 0 (a hint that reads the
// event's nodes); on a change at an unknown place, or on node 1, they stay. A pod rejected by it
// and by a plugin with no hint moves on every cluster event.
TEST(QueueingHintMap, AHintFnKeepsThePodsTheEventDoesNotHelp) {
  Registered node0{{ClusterEventWithHint{
      .event = kClusterChanged, .hint = [](const PodSpec&, const ClusterEventInfo& e) {
        return e.nodes != nullptr && e.nodes->contains(0) ? QueueingHint::kQueue
                                                          : QueueingHint::kQueueSkip;
      }}}};
  Registered plain{{ClusterEventWithHint{.event = kClusterChanged, .hint = {}}}};
  const std::vector<const Plugin*> list{&node0, &plain};
  const QueueingHintMap map(list);
  SchedulingQueue q;
  q.set_queueing_hints(&map);
  q.add(pod("hinted"), at(0s));
  q.add(pod("both"), at(0s));
  q.add_unschedulable(*q.pop(at(0s)), at(0s), 1);
  q.add_unschedulable(*q.pop(at(0s)), at(0s), 3);
  q.on_cluster_event(at(20s));  // nodes unknown
  EXPECT_EQ(q.unschedulable_size(), 1u);
  EXPECT_EQ((*q.pop(at(20s)))->name, "both");
  const std::set<int> node1{1};
  q.on_cluster_event(at(30s), &node1);
  EXPECT_EQ(q.unschedulable_size(), 1u);
  const std::set<int> node0_and_1{0, 1};
  q.on_cluster_event(at(40s), &node0_and_1);
  EXPECT_EQ(q.unschedulable_size(), 0u);
  EXPECT_EQ((*q.pop(at(40s)))->name, "hinted");
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

// take() (an all-or-nothing gang's siblings): finds this very object in whichever queue holds
// it and counts an attempt for it, as pop() would. a waits unschedulable, b in back-off, c is
// active; each is taken; an equal copy of a is not a (identity is the object), d was never added.
// b, taken with 1 attempt behind it, fails again at 10 s: its back-off is now 2 s (attempt 2), so
// an event at 11 s leaves it in back-off until 12 s (with 1 s it would be active at 11 s).
TEST(SchedulingQueue, TakeFindsThePodInAnyQueueAndCountsItsAttempt) {
  SchedulingQueue q;
  const PodPtr a = pod("a");
  const PodPtr b = pod("b");
  const PodPtr c = pod("c");
  q.add(a, at(0s));
  q.add(b, at(0s));
  q.add(c, at(0s));
  q.add_unschedulable(*q.pop(at(0s)), at(0s));  // a
  q.add_backoff(*q.pop(at(0s)), at(0s));        // b
  ASSERT_EQ(q.unschedulable_size(), 1u);
  ASSERT_EQ(q.backoff_size(), 1u);
  ASSERT_EQ(q.active_size(), 1u);
  EXPECT_FALSE(q.take(*pod("a")));
  EXPECT_FALSE(q.take(*pod("d")));
  EXPECT_TRUE(q.take(*c));
  EXPECT_TRUE(q.take(*b));
  EXPECT_TRUE(q.take(*a));
  EXPECT_FALSE(q.take(*a));
  EXPECT_EQ(q.size(), 0u);
  q.add_unschedulable(b, at(10s));
  q.on_cluster_event(at(11s));
  EXPECT_EQ(q.backoff_size(), 1u);
  EXPECT_EQ(q.next_ready_time(at(11s)), at(12s));
}

// Attempts belong to the pod's namespace/name: done() with another object of the same name
// forgets them, so x starts again at 1 attempt (back-off 1 s: active after an event at 21 s).
TEST(SchedulingQueue, AttemptsAreKeptByNamespaceAndName) {
  SchedulingQueue q;
  const PodPtr x = pod("x");
  q.add(x, at(0s));
  q.add_unschedulable(*q.pop(at(0s)), at(0s));
  q.on_cluster_event(at(5s));
  EXPECT_EQ(*q.pop(at(5s)), x);  // attempt 2
  q.done(*pod("x"));
  q.add(x, at(20s));
  q.add_unschedulable(*q.pop(at(20s)), at(20s));  // attempt 1 again: back-off 1 s
  q.on_cluster_event(at(21s));
  EXPECT_EQ(q.active_size(), 1u);
}

// pop(now, hint) against the loop its caller made before: pop(), and put_back() while the
// hint says so. Two queues take the same random pods, failures, events, back-offs and deaths over
// hours of simulated time (so that unschedulable pods time out, alone and together with active
// ones), with one priority and with several; at every pop the same pods are asked in the same
// order, the same pod is returned, and afterwards the queues hold the same pods in the same
// order with the same attempts (their whole order and back-offs compared at the end).
class UpHintLoop : public ::testing::TestWithParam<bool> {};

TEST_P(UpHintLoop, PopsAsPopAndPutBackDid) {
  const bool mixed = GetParam();
  std::mt19937_64 rng(mixed ? 7 : 11);
  SchedulingQueue before;
  SchedulingQueue after;
  std::vector<PodPtr> pods;
  int state = 0;  // what the hint's verdict depends on: moves on every "cluster change"
  const auto verdict = [&](const PodSpec& p) -> std::optional<int> {
    const std::size_t h = std::hash<std::string>{}(p.name + "/" + std::to_string(state));
    return h % 4 == 0 ? std::nullopt : std::optional<int>(static_cast<int>(h % 3) - 1);
  };
  std::vector<std::string> asked_before;
  std::vector<std::string> asked_after;
  const SchedulingQueue::UpHint hint = [&](const PodPtr& p) {
    asked_after.push_back(p->name);
    return verdict(*p);
  };
  const auto pop_before = [&](TimePoint now) -> std::optional<PodPtr> {
    while (true) {
      auto p = before.pop(now);
      if (!p) {
        return p;
      }
      asked_before.push_back((*p)->name);
      if (const auto g = verdict(**p)) {
        before.put_back(*p, now, *g);
      } else {
        return p;
      }
    }
  };
  TimePoint now{};
  int popped = 0;
  for (int step = 0; step < 6000; ++step) {
    now += std::chrono::seconds(rng() % 40);
    const int what = static_cast<int>(rng() % 100);
    if (what < 30) {
      auto p = std::make_shared<PodSpec>();
      p->name = "p" + std::to_string(pods.size());
      p->priority = mixed ? static_cast<std::int32_t>(rng() % 3) : 0;
      pods.push_back(p);
      before.add(p, now);
      after.add(p, now);
    } else if (what < 80) {
      const auto a = pop_before(now);
      const auto b = after.pop(now, hint);
      ASSERT_EQ(asked_before, asked_after) << "step " << step;
      ASSERT_EQ(a.has_value(), b.has_value()) << "step " << step;
      if (!a) {
        continue;
      }
      ASSERT_EQ(*a, *b) << "step " << step;
      ++popped;
      const int fate = static_cast<int>(rng() % 10);
      if (fate < 6) {  // unschedulable, under a hint group
        const int group = static_cast<int>(rng() % 3) - 1;
        before.add_unschedulable(*a, now, 0, group);
        after.add_unschedulable(*b, now, 0, group);
      } else if (fate < 9) {  // bound
        before.done(**a);
        after.done(**b);
      } else {  // an error: back-off
        before.add_backoff(*a, now);
        after.add_backoff(*b, now);
      }
    } else if (what < 82) {  // a cluster change: every verdict may differ now
      ++state;
      before.on_cluster_event(now);
      after.on_cluster_event(now);
    } else {
      ++state;
    }
    ASSERT_EQ(before.active_size(), after.active_size()) << "step " << step;
    ASSERT_EQ(before.backoff_size(), after.backoff_size()) << "step " << step;
    ASSERT_EQ(before.unschedulable_size(), after.unschedulable_size()) << "step " << step;
    ASSERT_EQ(before.next_ready_time(now), after.next_ready_time(now)) << "step " << step;
  }
  // Drained far in the future with a hint that tries everything: the same order.
  state = -1;
  now += std::chrono::hours(10);
  before.on_cluster_event(now);
  after.on_cluster_event(now);
  now += std::chrono::hours(1);
  while (true) {
    const auto a = before.pop(now);
    const auto b = after.pop(now);
    ASSERT_EQ(a.has_value(), b.has_value());
    if (!a) {
      break;
    }
    ASSERT_EQ(*a, *b);
  }
  // The cases that matter occurred: pods timed out and were put back many times.
  EXPECT_GT(popped, 1000);
  EXPECT_GT(asked_after.size(), static_cast<std::size_t>(popped) * 2);
}

INSTANTIATE_TEST_SUITE_P(OneOrManyPriorities, UpHintLoop, ::testing::Bool());

// The queue's parts on their own (scheduling_queue.go's backoffQ and unschedulablePods).
TEST(BackoffQueue, OrdersPodsByTheEndOfTheirBackoff) {
  BackoffQueue q(1s, 10s);
  // a: 3 attempts from 0 s, back-off 4 s; b: 1 attempt from 1 s, back-off 1 s.
  const BackoffQueue::Key ka = q.push(QueuedPod{.pod = pod("a"), .seq = 0, .attempts = 3});
  q.push(QueuedPod{.pod = pod("b"), .timestamp = at(1s), .seq = 1, .attempts = 1});
  EXPECT_EQ(ka, (BackoffQueue::Key{at(4s), 0}));
  EXPECT_EQ(q.first_end(), at(2s));
  EXPECT_EQ(q.pop_first().pod->name, "b");
  EXPECT_EQ(q.first_end(), at(4s));
  EXPECT_EQ(q.take(ka).pod->name, "a");
  EXPECT_TRUE(q.empty());
}

TEST(UnschedulablePods, FilesPodsUnderTheirGroupUntilTheyLeave) {
  UnschedulablePods u(5min);
  u.push(QueuedPod{.pod = pod("a"), .seq = 0, .group = 7}, at(1s));
  const UnschedulablePods::Key kb = u.push(QueuedPod{.pod = pod("b"), .seq = 1}, at(2s));
  EXPECT_EQ(u.size(), 2u);
  EXPECT_EQ(u.grouped(), 1u);
  EXPECT_EQ(u.groups().at(7).size(), 1u);
  // The first pod entered at 1 s: its timeout ends at 5 min 1 s.
  EXPECT_FALSE(u.first_timed_out(at(5min)));
  EXPECT_TRUE(u.first_timed_out(at(5min + 1s)));
  const QueuedPod a = u.erase(u.begin());
  EXPECT_EQ(a.pod->name, "a");
  EXPECT_EQ(a.group, -1);
  EXPECT_EQ(u.grouped(), 0u);
  EXPECT_TRUE(u.groups().empty());
  EXPECT_EQ(u.first_timeout_end(), at(5min + 2s));
  EXPECT_EQ(u.erase(u.find(kb)).pod->name, "b");
  EXPECT_TRUE(u.empty());
}

}  // namespace
}  // namespace tidesim::policies
