// The scheduling loop alone: its queue comes from the profile, and a cluster event wakes a cycle
// at once even while a delayed one (the unschedulable flush) is pending.
#include "tidesim/policies/scheduling_loop.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;

// A one-node cluster with `gpus` GPUs; bind() adds the pod to the view and records the time.
struct OneNode : BindTarget {
  explicit OneNode(Simulation& s, int gpus) : sim(s) {
    NodeInfo n;
    n.node.name = "node";
    n.node.labels["kubernetes.io/hostname"] = "node";
    n.node.allocatable = Resources{4000, 16LL << 30, gpus, 0, {}};
    view.nodes.push_back(n);
  }
  bool pod_alive(const PodSpec& pod) const override { return !deleted.contains(pod.name); }
  bool bind(const PodSpec& pod, int node, std::span<const int> chosen) override {
    view.nodes[static_cast<std::size_t>(node)].add_pod(std::make_shared<PodSpec>(pod), sim.now());
    bound_at[pod.name] = sim.now();
    cards[pod.name].assign(chosen.begin(), chosen.end());
    return true;
  }
  Simulation& sim;
  ClusterView view;
  std::map<std::string, TimePoint> bound_at;
  std::map<std::string, std::vector<int>> cards;  // the cards each bind was handed
  std::set<std::string> deleted;
};

PodPtr pod(const std::string& name, std::int32_t priority = 0) {
  auto p = std::make_shared<PodSpec>();
  p->name = name;
  p->priority = priority;
  p->requests.gpus = 1;
  return p;
}

TEST(SchedulingLoop, AClusterEventWakesTheLoopBeforeTheUnschedulableFlush) {
  Simulation sim;
  OneNode cluster(sim, 1);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), cluster.view, cluster, 10ms, nullptr,
                      nullptr);
  loop.add(pod("a"));
  loop.add(pod("b"));
  sim.run(TimePoint(50s));
  ASSERT_EQ(cluster.bound_at.count("a"), 1u);
  EXPECT_EQ(cluster.bound_at.at("a"), TimePoint{});
  EXPECT_EQ(cluster.bound_at.count("b"), 0u) << "no GPU left for b";
  // b waits in the unschedulable set; the only cycle due is its 5-minute flush (popped at 10 ms).
  ASSERT_TRUE(loop.next_cycle());
  EXPECT_EQ(*loop.next_cycle(), TimePoint(10ms + 5min));
  // At 50 s a freed GPU (pod a deleted) is a cluster event: b binds now, not at the flush.
  sim.schedule_at(TimePoint(50s), [&] {
    cluster.view.nodes[0].remove_pod("a");
    loop.on_cluster_event();
  });
  sim.run(TimePoint(400s));
  ASSERT_EQ(cluster.bound_at.count("b"), 1u);
  EXPECT_EQ(cluster.bound_at.at("b"), TimePoint(50s));
}

TEST(SchedulingLoop, BindIsHandedTheCardsTheCycleChose) {
  // gpu-packing's card chooser puts a 300-milli pod on the fuller card (card 1: 500 milli left);
  // the loop hands that choice to the binder with the node, as the cycle's result.
  Simulation sim;
  OneNode cluster(sim, 2);
  cluster.view.nodes[0].node.labels["tidesim.io/gpu-model"] = "T4";
  cluster.view.nodes[0].gpu_milli_left = {1000, 500};
  SchedulingLoop loop(sim, make_scheduler("gpu-packing", 1), cluster.view, cluster, 10ms, nullptr,
                      nullptr);
  auto p = std::make_shared<PodSpec>();
  p->name = "shared";
  p->requests.cpu_milli = 100;
  p->requests.gpu_milli = 300;
  loop.add(p);
  auto whole = pod("whole");  // one whole GPU: only card 0 is whole
  loop.add(whole);
  sim.run();
  ASSERT_EQ(cluster.cards.count("shared"), 1u);
  EXPECT_EQ(cluster.cards.at("shared"), (std::vector<int>{1}));
  ASSERT_EQ(cluster.cards.count("whole"), 1u);
  EXPECT_EQ(cluster.cards.at("whole"), (std::vector<int>{0}));
}

TEST(SchedulingLoop, CyclesAreSpacedByTheCycleTime) {
  Simulation sim;
  OneNode cluster(sim, 8);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), cluster.view, cluster, 10ms, nullptr,
                      nullptr);
  for (const char* name : {"a", "b", "c"}) {
    loop.add(pod(name));
  }
  sim.run();
  EXPECT_EQ(cluster.bound_at.at("a"), TimePoint(0ms));
  EXPECT_EQ(cluster.bound_at.at("b"), TimePoint(10ms));
  EXPECT_EQ(cluster.bound_at.at("c"), TimePoint(20ms));
  EXPECT_EQ(loop.counters().cycles, 3u);
  EXPECT_FALSE(loop.next_cycle()) << "idle once the queue is empty";
}

TEST(SchedulingLoop, DeletedPodsAreDroppedNotScheduled) {
  Simulation sim;
  OneNode cluster(sim, 8);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), cluster.view, cluster, 10ms, nullptr,
                      nullptr);
  loop.add(pod("a"));
  loop.add(pod("gone"));
  cluster.deleted.insert("gone");
  sim.run();
  EXPECT_EQ(cluster.bound_at.count("gone"), 0u);
  EXPECT_EQ(loop.pending(), 0u);
  EXPECT_EQ(loop.counters().cycles, 1u) << "a dropped pod takes no scheduling cycle";
}

TEST(SchedulingLoop, TheQueueFollowsTheProfilesQueueSort) {
  // Both pods wait for the one GPU; when it frees, PrioritySort (default-k8s) takes the
  // high-priority pod that came later, FIFOSort (first-fit) the one that came first.
  for (const auto& [scheduler, first] :
       std::map<std::string, std::string>{{"default-k8s", "high"}, {"first-fit", "low"}}) {
    Simulation sim;
    OneNode cluster(sim, 1);
    SchedulingLoop loop(sim, make_scheduler(scheduler, 1), cluster.view, cluster, 10ms, nullptr,
                        nullptr);
    loop.add(pod("busy"));
    sim.schedule_at(TimePoint(1s), [&] { loop.add(pod("low", 0)); });
    sim.schedule_at(TimePoint(2s), [&] { loop.add(pod("high", 100)); });
    sim.schedule_at(TimePoint(30s), [&] {
      cluster.view.nodes[0].remove_pod("busy");
      loop.on_cluster_event();
    });
    sim.run(TimePoint(31s));
    ASSERT_EQ(cluster.bound_at.count(first), 1u) << scheduler;
    EXPECT_EQ(cluster.bound_at.at(first), TimePoint(30s)) << scheduler;
    EXPECT_EQ(cluster.bound_at.size(), 2u) << scheduler << ": one GPU, so only one of the two";
  }
}

TEST(SchedulingLoop, TheQueueTakesItsBackOffFromTheConfiguration) {
  // b fails at 10 ms (its first attempt). At 2 s the GPU frees: with the default 1 s initial
  // back-off b's back-off is over and it binds at once; with podInitialBackoffSeconds 5 it waits
  // in the back-off queue until 10 ms + 5 s.
  for (const auto& [scheduler, expected] : std::map<std::string, TimePoint>{
           {"default-k8s", TimePoint(2s)}, {"tests/sim/data/backoff-5s.yaml", TimePoint(5010ms)}}) {
    Simulation sim;
    OneNode cluster(sim, 1);
    SchedulingLoop loop(sim, make_scheduler(scheduler, 1), cluster.view, cluster, 10ms, nullptr,
                        nullptr);
    loop.add(pod("a"));
    loop.add(pod("b"));
    sim.schedule_at(TimePoint(2s), [&] {
      cluster.view.nodes[0].remove_pod("a");
      loop.on_cluster_event();
    });
    sim.run(TimePoint(30s));
    ASSERT_EQ(cluster.bound_at.count("b"), 1u) << scheduler;
    EXPECT_EQ(cluster.bound_at.at("b"), expected) << scheduler;
  }
}

// Fast fail. One GPU, held by "a" from 0 s. Five more one-GPU pods arrive at 0 s; each pop fails
// (nothing fits) until "a" is deleted at 60 s. The outcome of every cycle (cycle count, bind
// times) must be the same whether the five are equivalent (equal but for their names and labels:
// one class, so all but the first failure in one cluster state reuse it) or not (a different env
// each: five classes, each pod reuses only its own failure).
struct Outcome {
  std::map<std::string, TimePoint> bound_at;
  std::uint64_t cycles = 0;
  std::uint64_t fast_failed = 0;
  std::vector<SchedulingEvent> events;
};

Outcome five_waiting(bool equivalent, const std::string& scheduler = "default-k8s",
                     bool spread = false) {
  Simulation sim;
  OneNode cluster(sim, 1);
  Signal<SchedulingEvent> signal;
  Outcome out;
  signal.connect([&](const SchedulingEvent& e) { out.events.push_back(e); });
  SchedulingLoop loop(sim, make_scheduler(scheduler, 1), cluster.view, cluster, 10ms, nullptr,
                      &signal);
  loop.add(pod("a"));
  for (int i = 0; i < 5; ++i) {
    auto p = std::make_shared<PodSpec>(*pod("w" + std::to_string(i)));
    p->labels["job-name"] = p->name;
    if (!equivalent) {
      p->env["I"] = std::to_string(i);
    }
    if (spread) {
      p->topology_spread.push_back(TopologySpreadConstraint{});
      p->topology_spread.back().max_skew = 1;
      p->topology_spread.back().topology_key = "kubernetes.io/hostname";
      p->topology_spread.back().when_unsatisfiable = "ScheduleAnyway";
    }
    loop.add(p);
  }
  sim.schedule_at(TimePoint(60s), [&] {
    cluster.view.nodes[0].remove_pod("a");
    loop.on_cluster_event();
  });
  sim.run(TimePoint(400s));
  out.bound_at = cluster.bound_at;
  out.cycles = loop.counters().cycles;
  out.fast_failed = loop.counters().fast_failed;
  return out;
}

TEST(SchedulingLoop, EquivalentPodsFailFastWithTheSameOutcome) {
  const Outcome fast = five_waiting(true);
  const Outcome full = five_waiting(false);
  EXPECT_EQ(fast.bound_at, full.bound_at);
  EXPECT_EQ(fast.cycles, full.cycles);
  ASSERT_EQ(fast.events.size(), full.events.size());
  for (std::size_t i = 0; i < fast.events.size(); ++i) {
    EXPECT_EQ(fast.events[i].at, full.events[i].at) << i;
    EXPECT_EQ(fast.events[i].node, full.events[i].node) << i;
  }
  // a binds at 0; w0..w4 fail at 10..50 ms (w0 runs the filters, w1..w4 reuse its failure).
  // The deletion at 60 s moves all five back; w0 binds at 60 s (the cluster changed: filters
  // run), then w1 fails against the new state at 60.01 s and w2..w4 reuse that failure. Nothing
  // else frees the GPU, so the four wait for the 5-minute flush: popped again at 360.01 s ..
  // 360.04 s, in the same cluster state, all four reuse w1's failure.
  // Five classes: the first two rounds run the filters for every pod (each is the first of its
  // class in that state); in the flush round w1..w4 each reuse their own failure of 60.0x s.
  EXPECT_EQ(full.fast_failed, 4u);
  ASSERT_EQ(fast.bound_at.count("w0"), 1u);
  EXPECT_EQ(fast.bound_at.at("w0"), TimePoint(60s));
  EXPECT_EQ(fast.bound_at.size(), 2u);
  EXPECT_EQ(fast.cycles, 1u + 5u + 5u + 4u);
  EXPECT_EQ(fast.fast_failed, 4u + 3u + 4u);
}

// Incremental fast fail. Two nodes of one GPU each, held by "a" (node 0) and "b" (node 1). Two
// equivalent two-GPU pods ("big") and one one-GPU pod ("small") wait. At 60 s "b" is deleted and
// the loop told which node changed; the bigs still fit nowhere, the small now fits node 1. The
// outcome (bind times, cycles, events) must equal the one of a deletion announced without its node
// (every filter run), with more cycles reusing a failure: the first big's retry checks node 1 only.
Outcome two_nodes(bool tell_node,
                  SchedulingLoop::QueueingHints hints = SchedulingLoop::QueueingHints::kKubernetes,
                  std::uint64_t* hinted_skips = nullptr) {
  Simulation sim;
  OneNode cluster(sim, 1);
  NodeInfo second = cluster.view.nodes[0];
  second.node.name = "node-1";
  second.node.labels["kubernetes.io/hostname"] = "node-1";
  cluster.view.nodes.push_back(second);
  Signal<SchedulingEvent> signal;
  Outcome out;
  signal.connect([&](const SchedulingEvent& e) { out.events.push_back(e); });
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), cluster.view, cluster, 10ms, nullptr,
                      &signal);
  loop.set_queueing_hints(hints);
  loop.add(pod("a"));
  loop.add(pod("b"));
  for (int i = 0; i < 2; ++i) {
    auto big = std::make_shared<PodSpec>(*pod("big" + std::to_string(i)));
    big->requests.gpus = 2;
    loop.add(big);
  }
  loop.add(pod("small"));
  sim.schedule_at(TimePoint(60s), [&] {
    const int node = static_cast<int>(cluster.bound_at.count("b"));  // "b" went to node 1
    EXPECT_TRUE(cluster.view.nodes[static_cast<std::size_t>(node)].remove_pod("b"));
    if (tell_node) {
      loop.on_cluster_event(std::set<int>{node});
    } else {
      loop.on_cluster_event();
    }
  });
  sim.run(TimePoint(200s));
  out.bound_at = cluster.bound_at;
  out.cycles = loop.counters().cycles;
  out.fast_failed = loop.counters().fast_failed;
  if (hinted_skips != nullptr) {
    *hinted_skips = loop.counters().hinted_skips;
  }
  return out;
}

TEST(SchedulingLoop, ADeletionKnownByItsNodeChecksOnlyThatNode) {
  const Outcome told = two_nodes(true);
  const Outcome full = two_nodes(false);
  EXPECT_EQ(told.bound_at, full.bound_at);
  EXPECT_EQ(told.cycles, full.cycles);
  ASSERT_EQ(told.events.size(), full.events.size());
  for (std::size_t i = 0; i < told.events.size(); ++i) {
    EXPECT_EQ(told.events[i].at, full.events[i].at) << i;
    EXPECT_EQ(told.events[i].pod, full.events[i].pod) << i;
    EXPECT_EQ(told.events[i].node, full.events[i].node) << i;
  }
  // a and b bind at 0 and 10 ms; big0 fails at 20 ms (filters), big1 reuses it at 30 ms, small
  // fails at 40 ms (its own class). At 60 s all three retry: told, big0 checks node 1 alone
  // (still too small) and reuses its class's failure, and so does big1; small's check of node 1
  // finds room and it binds there. Announced without its node, big0 runs the filters again.
  ASSERT_EQ(told.bound_at.count("small"), 1u);
  EXPECT_EQ(told.bound_at.at("small"), TimePoint(60s + 20ms));
  EXPECT_EQ(full.fast_failed, 1u + 1u);
  EXPECT_EQ(told.fast_failed, 1u + 2u);
}

// Precise queueing hints (opt-in). The same run. Kubernetes' hint: as above, five cycles to
// 40 ms, and at 60 s all three waiting pods move back (big0 and big1 fail again, small binds at
// 60.02 s): eight cycles. Precise: big1 comes up at 30 ms with nothing changed since big0, of its
// class, failed, so it is put back without a cycle (small fails at 30 ms); at 60 s node 1 still
// rejects a two-GPU pod, so big0 and big1 stay and only small moves: it binds in the first
// cycle, at 60 s. Five cycles, three pods kept. Until 200 s no other cycle runs (the bigs'
// unschedulable timeout is later).
TEST(SchedulingLoop, PreciseHintsMoveOnlyThePodsTheDeletionMayHelp) {
  std::uint64_t skipped = 0;
  const Outcome precise = two_nodes(true, SchedulingLoop::QueueingHints::kPrecise, &skipped);
  const Outcome kube = two_nodes(true);
  ASSERT_EQ(precise.bound_at.count("small"), 1u);
  EXPECT_EQ(precise.bound_at.at("small"), TimePoint(60s));
  EXPECT_EQ(kube.bound_at.at("small"), TimePoint(60s + 20ms));
  EXPECT_EQ(skipped, 1u + 2u);
  EXPECT_EQ(precise.cycles, 4u + 1u);
  EXPECT_EQ(kube.cycles, 5u + 3u);
  // Announced without its node, the change may have helped anyone: all three move. big0 runs the
  // filters and fails; big1, after it in the same state, is put back; small binds at 60.01 s.
  skipped = 0;
  const Outcome unknown = two_nodes(false, SchedulingLoop::QueueingHints::kPrecise, &skipped);
  EXPECT_EQ(unknown.bound_at.at("small"), TimePoint(60s + 10ms));
  EXPECT_EQ(unknown.cycles, 4u + 2u);
  EXPECT_EQ(skipped, 1u + 1u);
}

// Precise hints decide once for a class and move only as many of its pods as the changed nodes
// have room for. One node of 4 GPUs held by two 2-GPU pods; five 1-GPU pods w0..w4 wait. w0
// fails at 20 ms (cycle 3); at 30 ms w1..w4 come up with nothing changed and are put back
// without a cycle (4 kept). At 60 s busy-a is deleted: node 0 has 2 free GPUs, so the class
// (one check, for all five) may take floor(2 / 1) = 2 of them: w0 and w1, the first to enter
// the unschedulable set, move; w2..w4 stay (3 more kept), and keep their entry time of 30 ms.
// w0 binds at 60 s and w1 at 60.01 s (cycles 4, 5); no other cycle runs, and the next one is
// w2..w4's unschedulable timeout at 30 ms + 5 min. (Moving all five, as before, gives 5 active
// pods at 60 s and more than 5 cycles.)
TEST(SchedulingLoop, PreciseHintsMoveAClassOnlyAsFarAsTheFreedRoomGoes) {
  Simulation sim;
  OneNode cluster(sim, 4);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), cluster.view, cluster, 10ms, nullptr,
                      nullptr);
  loop.set_queueing_hints(SchedulingLoop::QueueingHints::kPrecise);
  for (const char* name : {"busy-a", "busy-b"}) {
    auto busy = std::make_shared<PodSpec>(*pod(name));
    busy->requests.gpus = 2;
    loop.add(busy);
  }
  for (int i = 0; i < 5; ++i) {
    loop.add(pod("w" + std::to_string(i)));
  }
  sim.schedule_at(TimePoint(60s), [&] {
    EXPECT_EQ(loop.queue().unschedulable_size(), 5u);
    EXPECT_EQ(loop.counters().hinted_skips, 4u);
    ASSERT_TRUE(cluster.view.nodes[0].remove_pod("busy-a"));
    loop.on_cluster_event(std::set<int>{0});
    EXPECT_EQ(loop.queue().active_size(), 2u);
    EXPECT_EQ(loop.queue().unschedulable_size(), 3u);
  });
  sim.run(TimePoint(100s));
  EXPECT_EQ(cluster.bound_at.at("w0"), TimePoint(60s));
  EXPECT_EQ(cluster.bound_at.at("w1"), TimePoint(60s + 10ms));
  EXPECT_EQ(cluster.bound_at.size(), 4u);
  EXPECT_EQ(loop.counters().cycles, 5u);
  EXPECT_EQ(loop.counters().hinted_skips, 4u + 3u);
  ASSERT_TRUE(loop.next_cycle());
  EXPECT_EQ(*loop.next_cycle(), TimePoint(30ms + 5min));
}

TEST(SchedulingLoop, NoFastFailForSpreadTermsOrProfilesThatReadMetrics) {
  EXPECT_EQ(five_waiting(true, "default-k8s", true).fast_failed, 0u);
  EXPECT_EQ(five_waiting(true, "load-aware").fast_failed, 0u);
}

TEST(SchedulingLoop, EquivalenceKeyLeavesOutIdentityOnly) {
  PodSpec a = *pod("a");
  a.labels["app"] = "x";
  PodSpec b = *pod("b");
  b.namespace_name = "other";
  EXPECT_EQ(equivalence_key(a), equivalence_key(b));
  b.requests.gpus = 2;
  EXPECT_NE(equivalence_key(a), equivalence_key(b)) << "requests matter";
  b = *pod("b");
  b.node_selector["zone"] = "z1";
  EXPECT_NE(equivalence_key(a), equivalence_key(b)) << "node selectors matter";
}

}  // namespace
}  // namespace tidesim::policies
