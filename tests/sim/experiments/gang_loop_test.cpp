// Gangs in the scheduling loop, against a one-node cluster whose cards the test can read at any
// time: Coscheduling's Permit (wait, allow together, reject together on timeout) and the
// all-or-nothing mode; without a PodGroup, pods bind one by one as before.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tidesim/policies/scheduling_loop.hpp"

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;

// One node with `gpus` GPUs. reserve() puts a pod in the view (its GPUs are held), allow()
// binds it, unreserve() takes it out again; every hold is recorded with its duration.
struct GangNode : BindTarget {
  GangNode(Simulation& s, int gpus) : sim(s) {
    NodeInfo n;
    n.node.name = "node";
    n.node.labels["kubernetes.io/hostname"] = "node";
    n.node.allocatable = Resources{64000, 256LL << 30, gpus, 0, {}};
    view.nodes.push_back(n);
  }
  bool pod_alive(const PodSpec&) const override { return true; }
  bool bind(const PodSpec& pod, int node, std::span<const int> cards) override {
    return reserve(pod, node, cards) && (allow(pod), true);
  }
  bool reserve(const PodSpec& pod, int node, std::span<const int> /*cards*/) override {
    view.nodes[static_cast<std::size_t>(node)].add_pod(std::make_shared<PodSpec>(pod), sim.now());
    held_since[pod.name] = sim.now();
    return true;
  }
  void allow(const PodSpec& pod) override { bound_at[pod.name] = sim.now(); }
  void unreserve(const PodSpec& pod) override {
    view.nodes[0].remove_pod(pod.name);
    holds.push_back(sim.now() - held_since.at(pod.name));
    held_since.erase(pod.name);
  }
  std::int64_t gpus_held() const { return view.nodes[0].requested.gpus; }

  Simulation& sim;
  ClusterView view;
  std::map<std::string, TimePoint> held_since;
  std::map<std::string, TimePoint> bound_at;
  std::vector<Duration> holds;  // reservations undone, how long each was held
};

PodPtr member(const std::string& name, const std::string& group) {
  auto p = std::make_shared<PodSpec>();
  p->name = name;
  p->requests.gpus = 1;
  if (!group.empty()) {
    p->labels[kPodGroupLabel] = group;
  }
  return p;
}

// Reads the GPUs held at each of `times` (seconds) while the simulation runs to the last.
std::vector<std::int64_t> held_at(Simulation& sim, const GangNode& node,
                                  std::vector<double> times) {
  std::vector<std::int64_t> out(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    sim.schedule_at(TimePoint(from_seconds(times[i])), [&, i] { out[i] = node.gpus_held(); });
  }
  sim.run(TimePoint(from_seconds(times.back())));
  return out;
}

// A 4-pod job (1 GPU per pod) on a node with 3 free GPUs, all-or-nothing: each cycle tries the
// whole gang and undoes its 3 reservations within the cycle, so at no sampled instant is a GPU
// held and no pod is bound. One more GPU (a cluster event) lets all four bind in one cycle.
TEST(GangLoop, AllOrNothingHoldsNoGpuWhileTheGangCannotFit) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kAllOrNothing, 4, 60s, 0, ""});
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  EXPECT_EQ(held_at(sim, node, {0.005, 0.5, 5, 50, 120, 400}),
            (std::vector<std::int64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(node.bound_at.empty());
  // At 400 s a fourth GPU appears: the whole gang binds at that instant (one cycle).
  sim.schedule_at(TimePoint(400s), [&] {
    node.view.nodes[0].node.allocatable.gpus = 4;
    loop.on_cluster_event();
  });
  sim.run(TimePoint(401s));
  ASSERT_EQ(node.bound_at.size(), 4u);
  for (const auto& [pod, at] : node.bound_at) {
    EXPECT_EQ(at, TimePoint(400s)) << pod;
  }
  EXPECT_EQ(node.gpus_held(), 4);
}

// The gang capacity gate (run.gang_capacity_gate): the same 4-pod gang on 3 free GPUs is never
// tried while 3 x floor(free / 1) < 4, so no pod is reserved and undone (without the gate each
// cycle reserves 3 and undoes them: the test above), and every cycle is one gated cycle. When
// the fourth GPU appears the gang binds at that instant, as without the gate.
TEST(GangLoop, TheCapacityGateTriesNoPodOfAGangTheClusterCannotHold) {
  for (const bool gate : {false, true}) {
    Simulation sim;
    GangNode node(sim, 3);
    SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                        nullptr);
    loop.set_gang_capacity_gate(gate);
    loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kAllOrNothing, 4, 60s, 0, ""});
    for (int i = 0; i < 4; ++i) {
      loop.add(member("job-" + std::to_string(i), "job"));
    }
    sim.run(TimePoint(399s));
    EXPECT_TRUE(node.bound_at.empty());
    if (gate) {
      EXPECT_TRUE(node.holds.empty());
      EXPECT_GE(loop.counters().cycles, 1u);
      EXPECT_EQ(loop.counters().gated, loop.counters().cycles);
    } else {
      EXPECT_GE(node.holds.size(), 3u);  // at least one cycle reserved 3 pods and undid them
      EXPECT_EQ(loop.counters().gated, 0u);
    }
    const std::uint64_t before = loop.counters().cycles;
    sim.schedule_at(TimePoint(400s), [&] {
      node.view.nodes[0].node.allocatable.gpus = 4;
      loop.on_cluster_event();
    });
    sim.run(TimePoint(401s));
    ASSERT_EQ(node.bound_at.size(), 4u) << gate;
    for (const auto& [pod, at] : node.bound_at) {
      EXPECT_EQ(at, TimePoint(400s)) << pod;
    }
    EXPECT_EQ(loop.counters().cycles - before, 4u);  // one cycle per pod, all placed
  }
}

// Precise queueing hints (run.queueing_hints: precise) for an all-or-nothing gang: it moves back
// only when the free GPUs could hold it. Node: 4 GPUs; "busy-2" (2 GPUs) and "busy-1" (1 GPU)
// bind at 0 and 10 ms. Kubernetes' hint: the 4-pod gang (1 GPU each) fails at 20 ms (job-0
// reserved, job-1 finds no GPU: two cycles) and is retried at 60 s. Precise: at 20 ms 1 free GPU
// cannot hold the gang, so each of its four pods is put back as it comes up (no cycle); at 60 s
// busy-1 is deleted, and 2 free GPUs still cannot hold 4 pods: the four stay (four more kept).
// At 120 s busy-2 is deleted: 4 free, the gang moves and binds at that instant (four cycles)
// either way.
TEST(GangLoop, PreciseHintsRetryAGangOnlyWhenTheClusterCouldHoldIt) {
  std::map<SchedulingLoop::QueueingHints, std::uint64_t> cycles;
  for (const auto hints :
       {SchedulingLoop::QueueingHints::kKubernetes, SchedulingLoop::QueueingHints::kPrecise}) {
    Simulation sim;
    GangNode node(sim, 4);
    SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                        nullptr);
    loop.set_queueing_hints(hints);
    auto busy = std::make_shared<PodSpec>(*member("busy-2", ""));
    busy->requests.gpus = 2;
    loop.add(busy);
    loop.add(member("busy-1", ""));
    loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kAllOrNothing, 4, 60s, 0, ""});
    for (int i = 0; i < 4; ++i) {
      loop.add(member("job-" + std::to_string(i), "job"));
    }
    for (const auto& [at, gone] :
         std::map<Duration, std::string>{{60s, "busy-1"}, {120s, "busy-2"}}) {
      sim.schedule_at(TimePoint(at), [&, gone = gone] {
        ASSERT_TRUE(node.view.nodes[0].remove_pod(gone));
        loop.on_cluster_event(std::set<int>{0});
      });
    }
    sim.run(TimePoint(121s));
    ASSERT_EQ(node.bound_at.size(), 6u);
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(node.bound_at.at("job-" + std::to_string(i)), TimePoint(120s));
    }
    cycles[hints] = loop.counters().cycles;
    if (hints == SchedulingLoop::QueueingHints::kPrecise) {
      EXPECT_EQ(loop.counters().hinted_skips, 4u + 4u);
      EXPECT_EQ(loop.counters().cycles, 2u + 4u);
    } else {
      EXPECT_EQ(loop.counters().hinted_skips, 0u);
    }
  }
  // Kubernetes' retry at 60 s places job-0 and job-1 and fails at job-2 (three more cycles).
  EXPECT_EQ(cycles[SchedulingLoop::QueueingHints::kKubernetes], 2u + 2u + 3u + 4u);
}

// Precise hints answer once for all the all-or-nothing gangs of one shape, and move as many as
// the free GPUs could hold. Node: 8 GPUs, held by two 4-GPU pods (cycles 1, 2). Gangs g1 and g2,
// each two pods of 2 GPUs: at 20 ms their four pods come up and are put back without a cycle
// (the free GPUs hold no gang). At 60 s busy-a is deleted: 4 free GPUs are floor(4 / 2) = 2 pod
// slots, one gang: g1's pods (first in the unschedulable set) move, g2's stay (2 kept). g1 binds
// at 60 s (cycles 3, 4). At 120 s busy-b is deleted and g2 moves and binds (cycles 5, 6).
TEST(GangLoop, PreciseHintsMoveAsManyGangsOfAShapeAsTheFreeGpusCouldHold) {
  Simulation sim;
  GangNode node(sim, 8);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.set_queueing_hints(SchedulingLoop::QueueingHints::kPrecise);
  for (const char* name : {"busy-a", "busy-b"}) {
    auto busy = std::make_shared<PodSpec>(*member(name, ""));
    busy->requests.gpus = 4;
    loop.add(busy);
  }
  for (const char* gang : {"g1", "g2"}) {
    loop.add_pod_group(PodGroup{gang, PodGroup::Mode::kAllOrNothing, 2, 60s, 0, ""});
    for (int i = 0; i < 2; ++i) {
      auto p =
          std::make_shared<PodSpec>(*member(std::string(gang) + "-" + std::to_string(i), gang));
      p->requests.gpus = 2;
      loop.add(p);
    }
  }
  for (const auto& [at, gone] :
       std::map<Duration, std::string>{{60s, "busy-a"}, {120s, "busy-b"}}) {
    sim.schedule_at(TimePoint(at), [&, at = at, gone = gone] {
      ASSERT_TRUE(node.view.nodes[0].remove_pod(gone));
      loop.on_cluster_event(std::set<int>{0});
      EXPECT_EQ(loop.queue().active_size(), 2u) << to_seconds(at);
      EXPECT_EQ(loop.queue().unschedulable_size(), at == 60s ? 2u : 0u);
    });
  }
  sim.run(TimePoint(121s));
  EXPECT_EQ(node.bound_at.at("g1-0"), TimePoint(60s));
  EXPECT_EQ(node.bound_at.at("g1-1"), TimePoint(60s));
  EXPECT_EQ(node.bound_at.at("g2-0"), TimePoint(120s));
  EXPECT_EQ(node.bound_at.at("g2-1"), TimePoint(120s));
  EXPECT_EQ(loop.counters().cycles, 2u + 2u + 2u);
  EXPECT_EQ(loop.counters().hinted_skips, 4u + 2u);
}

// A failed all-or-nothing cycle undoes every reservation, so the ClusterView is as before it and
// a pod equivalent to one that failed before the gang's cycle reuses that failure (fast fail).
// Node: 3 GPUs. At 0 s "big-0" (4 GPUs, no gang) fails, running the filters (cycle 1, 10 ms);
// at 10 ms the 4-pod gang (1 GPU each) reserves 3 pods, fails the fourth and undoes all
// (cycles 2-5, 40 ms); at 50 ms "big-1", equal to big-0 but for its name, fails without the
// filters: 6 cycles, 1 fast-failed, nothing bound, no GPU held.
TEST(GangLoop, AFailedAllOrNothingCycleKeepsRememberedFailures) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kAllOrNothing, 4, 60s, 0, ""});
  auto big = [](const std::string& name) {
    auto p = std::make_shared<PodSpec>(*member(name, ""));
    p->requests.gpus = 4;
    return PodPtr(p);
  };
  loop.add(big("big-0"));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  loop.add(big("big-1"));
  sim.run(TimePoint(60ms));
  EXPECT_EQ(loop.counters().cycles, 6u);
  EXPECT_EQ(loop.counters().fast_failed, 1u);
  EXPECT_TRUE(node.bound_at.empty());
  EXPECT_EQ(node.gpus_held(), 0);
  EXPECT_EQ(node.holds.size(), 3u);  // the gang's three reservations, undone
}

// Fast fail of an equivalent gang: two all-or-nothing jobs of four 1-GPU pods, 3 GPUs. At 0 ms
// job a's cycle tries its four pods (three reserved, the fourth fits nowhere: 4 cycles, 40 ms)
// and undoes the reservations; at 40 ms job b, the same shape (four pods of one class) in the
// same cluster, gets a's outcomes without the filters or any reservation: 4 more cycles, all
// fast-failed, ending at 80 ms. A cluster event at 1 s makes the memory stale: after their 1 s
// back-offs (ready at 1 s and 1.04 s) a runs in full again (3 more reservations) and b replays it.
TEST(GangLoop, AnEquivalentAllOrNothingGangFailsFastInAnUnchangedCluster) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  for (const std::string job : {"a", "b"}) {
    loop.add_pod_group(PodGroup{job, PodGroup::Mode::kAllOrNothing, 4, 60s, 0, ""});
    for (int i = 0; i < 4; ++i) {
      loop.add(member(job + "-" + std::to_string(i), job));
    }
  }
  sim.run(TimePoint(75ms));
  EXPECT_EQ(loop.counters().cycles, 8u);  // b's cycle started at 40 ms and is charged 4 cycle times
  // Nothing is ready before the unschedulable set's 5-minute flush of a's pods (failed at 0 s).
  EXPECT_EQ(loop.next_cycle(), std::optional<TimePoint>(TimePoint(300s)));
  sim.run(TimePoint(1s - 1ms));
  EXPECT_EQ(loop.counters().fast_failed, 4u);
  EXPECT_EQ(node.holds.size(), 3u);  // only a's reservations were ever made
  EXPECT_TRUE(node.bound_at.empty());
  loop.on_cluster_event();
  sim.run(TimePoint(3s));
  EXPECT_EQ(loop.counters().cycles, 16u);
  EXPECT_EQ(loop.counters().fast_failed, 8u);
  EXPECT_EQ(node.holds.size(), 6u);
  EXPECT_EQ(node.gpus_held(), 0);
}

// Two full nodes (3 and 2 GPUs, held by pods outside any gang): a 2-pod all-or-nothing gang
// fails at its first pod, reserving nothing. A deletion on node 1 that leaves it full (its 2-GPU
// pod replaced by another) is announced with its node: the gang's retry checks node 1 alone, finds
// it still rejects the first pod, and replays the failure (one cycle, fast-failed) instead of
// filtering both nodes. A change not known by its node runs the cycle.
TEST(GangLoop, AGangThatFailedAtItsFirstPodFailsFastWhileTheChangedNodesStillRejectIt) {
  Simulation sim;
  GangNode node(sim, 3);
  NodeInfo other;
  other.node.name = "other";
  other.node.labels["kubernetes.io/hostname"] = "other";
  other.node.allocatable = Resources{64000, 256LL << 30, 2, 0, {}};
  node.view.nodes.push_back(other);
  auto filler = [](const std::string& name, int gpus) {
    auto p = std::make_shared<PodSpec>();
    p->name = name;
    p->requests.gpus = gpus;
    return p;
  };
  node.view.nodes[0].add_pod(filler("f0", 3), sim.now());
  node.view.nodes[1].add_pod(filler("f1", 2), sim.now());
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"a", PodGroup::Mode::kAllOrNothing, 2, 60s, 0, ""});
  loop.add(member("a-0", "a"));
  loop.add(member("a-1", "a"));
  sim.run(TimePoint(1s));
  EXPECT_EQ(loop.counters().cycles, 1u);  // the first pod fit nowhere: one pod tried
  EXPECT_EQ(loop.counters().fast_failed, 0u);
  node.view.nodes[1].remove_pod("f1");
  node.view.nodes[1].add_pod(filler("f2", 2), sim.now());
  loop.on_cluster_event(std::set<int>{1});
  sim.run(TimePoint(5s));
  EXPECT_EQ(loop.counters().cycles, 2u);
  EXPECT_EQ(loop.counters().fast_failed, 1u) << "node 1 still rejects a-0: the failure stands";
  loop.on_cluster_event();
  sim.run(TimePoint(10s));
  EXPECT_EQ(loop.counters().cycles, 3u);
  EXPECT_EQ(loop.counters().fast_failed, 1u) << "a change anywhere: the cycle runs";
  EXPECT_TRUE(node.holds.empty()) << "nothing was ever reserved";
  EXPECT_TRUE(node.bound_at.empty());
}

// The same job in permit mode with minResources (4 GPUs): Coscheduling's PreFilter sees 3 free
// and rejects every pod before it is reserved, so no GPU is ever held.
TEST(GangLoop, PermitWithMinResourcesHoldsNoGpuWhileTheGangCannotFit) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kPermit, 4, 60s, 4, ""});
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  EXPECT_EQ(held_at(sim, node, {0.005, 0.015, 0.5, 5, 61, 200}),
            (std::vector<std::int64_t>{0, 0, 0, 0, 0, 0}));
  EXPECT_TRUE(node.bound_at.empty());
  EXPECT_TRUE(node.holds.empty()) << "nothing was ever reserved";
}

// Permit without minResources, minMember 4, 3 GPUs: pods 0-2 are reserved at 0, 10 and 20 ms
// and wait at Permit; pod 3 fits nowhere at 30 ms, and with 1 of 4 missing (25 % > 10 %)
// Coscheduling's PostFilter rejects the three at once: held 30, 20 and 10 ms. They retry after
// their back-off and are rejected again the same way; every hold is far below the timeout.
TEST(GangLoop, PermitRejectsTheWaitingPodsWhenASiblingFitsNowhere) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kPermit, 4, 60s, 0, ""});
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  EXPECT_EQ(held_at(sim, node, {0.025, 0.035}), (std::vector<std::int64_t>{3, 0}));
  ASSERT_GE(node.holds.size(), 3u);
  EXPECT_EQ(node.holds[0], Duration(30ms));
  EXPECT_EQ(node.holds[1], Duration(20ms));
  EXPECT_EQ(node.holds[2], Duration(10ms));
  sim.run(TimePoint(300s));
  EXPECT_TRUE(node.bound_at.empty());
  for (const Duration d : node.holds) {
    EXPECT_LE(d, Duration(60s));
  }
}

// The timeout: minMember 10, 10 pods, 9 GPUs. Pods 0-8 are reserved at 0..80 ms and wait;
// pod 9 fits nowhere at 90 ms, but only 1 of 10 is missing (10 %, not more), so Coscheduling's
// PostFilter keeps them waiting. The first waiting pod's 60 s timeout (it waited from 0 s)
// rejects all nine at 60 s: held 60 s down to 59.92 s, never longer. The rejection frees cards
// (a cluster event), so pod 9, whose own back-off is over, is reserved in the cycle at 60 s and
// waits alone (1 GPU held at 60.5 s) while the nine sit out their 1 s back-off; its group never
// completes on 9 GPUs, so its own timeout rejects it again.
TEST(GangLoop, PermitHoldsNoGpuPastTheGroupTimeout) {
  Simulation sim;
  GangNode node(sim, 9);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kPermit, 10, 60s, 0, ""});
  for (int i = 0; i < 10; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  EXPECT_EQ(held_at(sim, node, {0.085, 30, 59.99, 60.5}), (std::vector<std::int64_t>{9, 9, 9, 1}));
  ASSERT_EQ(node.holds.size(), 9u);
  EXPECT_EQ(node.holds.front(), Duration(60s));
  EXPECT_EQ(node.holds.back(), Duration(60s) - Duration(80ms));
  sim.run(TimePoint(600s));
  EXPECT_TRUE(node.bound_at.empty());
  for (const Duration d : node.holds) {
    EXPECT_LE(d, Duration(60s));
  }
}

// Permit: when the last member is reserved, every waiting sibling binds in that same cycle.
TEST(GangLoop, PermitBindsTheWholeGroupTogether) {
  Simulation sim;
  GangNode node(sim, 4);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  loop.add_pod_group(PodGroup{"job", PodGroup::Mode::kPermit, 4, 60s, 0, ""});
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(1s));
  ASSERT_EQ(node.bound_at.size(), 4u);
  for (const auto& [pod, at] : node.bound_at) {
    EXPECT_EQ(at, TimePoint(30ms)) << pod << ": the fourth pod's cycle is at 30 ms";
  }
  EXPECT_TRUE(node.holds.empty());
}

// Without a PodGroup the old behaviour stays: the pods bind one by one (0, 10, 20 ms) and hold
// their GPUs while the fourth waits.
TEST(GangLoop, WithoutGangsPodsBindOneByOne) {
  Simulation sim;
  GangNode node(sim, 3);
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), ""));
  }
  EXPECT_EQ(held_at(sim, node, {0.005, 0.015, 0.025, 100}),
            (std::vector<std::int64_t>{1, 2, 3, 3}));
  EXPECT_EQ(node.bound_at.size(), 3u);
  EXPECT_EQ(node.bound_at.at("job-0"), TimePoint(0ms));
  EXPECT_EQ(node.bound_at.at("job-1"), TimePoint(10ms));
  EXPECT_EQ(node.bound_at.at("job-2"), TimePoint(20ms));
}

// Preemption's nomination keeps the room for the preemptor. One GPU, held by L (priority 0).
// P (priority 10) fails at 0 s and preempts L; the test deletes a victim 30 s after it is named
// (the grace period). Cluster events at 5, 10, ..., 25 s make P retry and fail (it does not
// preempt again while L terminates): attempt 1 at 0 s; the events at 5, 10 and 15 s find its
// back-off (1, 2, 4 s) over and it fails at 5, 10, 15 s; at 20 s its 8 s back-off runs to 23 s,
// where it fails a fifth time; the event at 25 s leaves it in back-off to 23 + 10 (the cap) = 33 s.
// Q (priority 5) arrives at 29.5 s and fails; when L is deleted at 30 s, Q is ready at 30.5 s,
// before P. Q must not take the GPU: P is nominated there and counts on the node for pods of no
// higher priority (RunFilterPluginsWithNominatedPods). P binds at 33 s.
struct PreemptNode : GangNode {
  using GangNode::GangNode;
  void preempt(const PodSpec&, int,
               const std::vector<std::shared_ptr<const PodSpec>>& victims) override {
    for (const auto& v : victims) {
      const std::string name = v->name;
      if (!deleting.insert(name).second) {
        continue;
      }
      sim.schedule_in(30s, [this, name] {
        view.nodes[0].remove_pod(name);
        loop->on_cluster_event();
      });
    }
  }
  SchedulingLoop* loop = nullptr;
  std::set<std::string> deleting;
};

TEST(PreemptionLoop, TheNominatedNodeIsKeptForThePreemptor) {
  Simulation sim;
  PreemptNode node(sim, 1);
  auto low = member("L", "");
  node.view.nodes[0].add_pod(low, TimePoint{});
  SchedulingLoop loop(sim, make_scheduler("default-k8s", 1), node.view, node, 10ms, nullptr,
                      nullptr);
  node.loop = &loop;
  loop.enable_preemption(true);
  auto p = std::make_shared<PodSpec>(*member("P", ""));
  p->priority = 10;
  auto q = std::make_shared<PodSpec>(*member("Q", ""));
  q->priority = 5;
  loop.add(p);
  for (const int t : {5, 10, 15, 20, 25}) {
    sim.schedule_at(TimePoint(std::chrono::seconds(t)), [&] { loop.on_cluster_event(); });
  }
  sim.schedule_at(TimePoint(29500ms), [&] { loop.add(q); });
  sim.run(TimePoint(100s));
  ASSERT_EQ(node.bound_at.count("P"), 1u);
  EXPECT_EQ(node.bound_at.at("P"), TimePoint(33s));
  EXPECT_EQ(node.bound_at.count("Q"), 0u) << "Q took the room made for P";
  EXPECT_EQ(node.deleting, (std::set<std::string>{"L"}));
}

}  // namespace
}  // namespace tidesim::policies
