// Kubernetes' Workload API gangs in the scheduling loop under the built-in profile
// "default-k8s-gang": GangScheduling (KEP-4671, v1.35 alpha: PreEnqueue quorum, Permit until
// minCount are assumed or bound, a 5-minute group deadline, no PostFilter) and TopologyPlacement
// (KEP-5732, v1.36 alpha: the whole group inside one value of its topology label). Every number
// below is worked by hand from those rules; cycles are 10 ms apart, pods one GPU unless said.
#include <gtest/gtest.h>

#include <map>

#include "tidesim/policies/scheduling_loop.hpp"

namespace tidesim::policies {
namespace {

using namespace std::chrono_literals;

constexpr Duration kKepTimeout = std::chrono::minutes(5);  // DefaultSchedulingTimeoutDuration

// Nodes named n0.. with `gpus` GPUs each, labelled rack=<racks[i]>; reserve() puts a pod in the
// view, allow() binds it, unreserve() takes it out again, recording how long it was held.
struct Racks : BindTarget {
  Racks(Simulation& s, const std::vector<std::string>& racks, int gpus) : sim(s) {
    for (std::size_t i = 0; i < racks.size(); ++i) {
      NodeInfo n;
      n.node.name = "n" + std::to_string(i);
      n.node.labels["kubernetes.io/hostname"] = n.node.name;
      n.node.labels["rack"] = racks[i];
      n.node.allocatable = Resources{64000, 256LL << 30, gpus, 0, {}};
      view.nodes.push_back(n);
    }
  }
  bool pod_alive(const PodSpec&) const override { return true; }
  bool bind(const PodSpec& pod, int node, std::span<const int> cards) override {
    return reserve(pod, node, cards) && (allow(pod), true);
  }
  bool reserve(const PodSpec& pod, int node, std::span<const int> /*cards*/) override {
    view.nodes[static_cast<std::size_t>(node)].add_pod(std::make_shared<PodSpec>(pod), sim.now());
    held_since[pod.name] = sim.now();
    node_of[pod.name] = node;
    return true;
  }
  void allow(const PodSpec& pod) override { bound_at[pod.name] = sim.now(); }
  void unreserve(const PodSpec& pod) override {
    view.nodes[static_cast<std::size_t>(node_of.at(pod.name))].remove_pod(pod.name);
    holds.push_back(sim.now() - held_since.at(pod.name));
    held_since.erase(pod.name);
    node_of.erase(pod.name);
  }
  std::int64_t gpus_held() const {
    std::int64_t g = 0;
    for (const auto& n : view.nodes) {
      g += n.requested.gpus;
    }
    return g;
  }
  std::string rack_of(const std::string& pod) const {
    return view.nodes[static_cast<std::size_t>(node_of.at(pod))].node.labels.at("rack");
  }

  Simulation& sim;
  ClusterView view;
  std::map<std::string, TimePoint> held_since;
  std::map<std::string, int> node_of;
  std::map<std::string, TimePoint> bound_at;
  std::vector<Duration> holds;
};

PodPtr member(const std::string& name, const std::string& group, std::int64_t gpus = 1) {
  auto p = std::make_shared<PodSpec>();
  p->name = name;
  p->requests.gpus = gpus;
  p->labels[kPodGroupLabel] = group;
  return p;
}

// A Workload pod group with policy gang (workloads/k8s_workload.hpp gang_of).
PodGroup workload_gang(const std::string& name, int min_count, std::string topology_key = "") {
  return PodGroup{name, PodGroup::Mode::kPermit, min_count, kKepTimeout,
                  0,    std::move(topology_key)};
}

SchedulingLoop make_loop(Simulation& sim, Racks& racks) {
  return SchedulingLoop(sim, make_scheduler("default-k8s-gang", 1), racks.view, racks, 10ms,
                        nullptr, nullptr);
}

// KEP-4671, placed whole: 4 pods, minCount 4, 4 free GPUs. Pods 0-2 are reserved at 0, 10 and
// 20 ms and wait at Permit; pod 3's Permit at 30 ms sees 3 assumed + itself = minCount and allows
// all four: every pod binds at 30 ms.
TEST(WorkloadGang, PlacedWholeInTheCycleOfTheLastPod) {
  Simulation sim;
  Racks racks(sim, {"a"}, 4);
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 4));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(1s));
  ASSERT_EQ(racks.bound_at.size(), 4u);
  for (const auto& [pod, at] : racks.bound_at) {
    EXPECT_EQ(at, TimePoint(30ms)) << pod;
  }
}

// KEP-4671, not at all: 4 pods, minCount 4, 3 GPUs. Pods 0-2 wait from 0, 10, 20 ms; pod 3 fits
// nowhere at 30 ms. GangScheduling has no PostFilter (Coscheduling would reject the three at
// once, gang_loop_test.cpp), so they hold their GPUs until the group's deadline, set by the first
// wait: 5 minutes after 0 s. Then all three are rejected together (held 300 s, 299.99 s,
// 299.98 s) and no pod is ever bound.
TEST(WorkloadGang, NotAtAllWaitersReleasedAtTheFiveMinuteDeadline) {
  Simulation sim;
  Racks racks(sim, {"a"}, 3);
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 4));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  std::vector<std::int64_t> held;
  for (const double t : {0.035, 299.99}) {
    sim.schedule_at(TimePoint(from_seconds(t)), [&] { held.push_back(racks.gpus_held()); });
  }
  sim.run(TimePoint(300s) + 5ms);
  EXPECT_EQ(held, (std::vector<std::int64_t>{3, 3}));
  ASSERT_GE(racks.holds.size(), 3u);
  EXPECT_EQ(racks.holds[0], Duration(300s));
  EXPECT_EQ(racks.holds[1], Duration(300s) - Duration(10ms));
  EXPECT_EQ(racks.holds[2], Duration(300s) - Duration(20ms));
  sim.run(TimePoint(900s));
  EXPECT_TRUE(racks.bound_at.empty());
  for (const Duration d : racks.holds) {
    EXPECT_LE(d, kKepTimeout);
  }
}

// KEP-4671, minCount < count: 4 pods, minCount 2, 3 GPUs. Pod 0 waits at 0 ms; pod 1 completes
// the quorum at 10 ms and both bind then; pod 2's Permit at 20 ms counts the 2 bound pods
// (assumed or assigned) and binds at once; pod 3 finds no GPU and stays pending. Three of the
// four run: the gang is all-or-nothing for minCount pods only.
TEST(WorkloadGang, MinCountBelowCountBindsTheQuorumThenTheRest) {
  Simulation sim;
  Racks racks(sim, {"a"}, 3);
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 2));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(10s));
  ASSERT_EQ(racks.bound_at.size(), 3u);
  EXPECT_EQ(racks.bound_at.at("job-0"), TimePoint(10ms));
  EXPECT_EQ(racks.bound_at.at("job-1"), TimePoint(10ms));
  EXPECT_EQ(racks.bound_at.at("job-2"), TimePoint(20ms));
  EXPECT_EQ(racks.bound_at.count("job-3"), 0u);
  EXPECT_TRUE(racks.holds.empty());
}

// KEP-4671 PreEnqueue: minCount 4 but only 3 pods exist: none is even reserved.
TEST(WorkloadGang, FewerPodsThanMinCountAreNotScheduled) {
  Simulation sim;
  Racks racks(sim, {"a"}, 8);
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 4));
  for (int i = 0; i < 3; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(10s));
  EXPECT_TRUE(racks.bound_at.empty());
  EXPECT_TRUE(racks.held_since.empty());
  EXPECT_EQ(loop.pending(), 3u);
}

// KEP-5732, fits one rack: racks a (n0, n1) and b (n2, n3) of 8-GPU nodes; a 8-GPU pod runs on
// n0. A 2-pod gang of 8-GPU pods, minCount 2, topology key "rack": rack a holds 1 more such pod
// (infeasible), rack b 2 (feasible): both pods land in rack b (default-k8s alone could put the
// first on n1, which ties with n2 and n3).
TEST(WorkloadGang, TopologyGroupLandsInTheRackThatHoldsIt) {
  Simulation sim;
  Racks racks(sim, {"a", "a", "b", "b"}, 8);
  auto other = member("other", "none", 8);
  racks.reserve(*other, 0, {});
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 2, "rack"));
  for (int i = 0; i < 2; ++i) {
    loop.add(member("job-" + std::to_string(i), "job", 8));
  }
  sim.run(TimePoint(1s));
  ASSERT_EQ(racks.bound_at.size(), 2u);
  EXPECT_EQ(racks.rack_of("job-0"), "b");
  EXPECT_EQ(racks.rack_of("job-1"), "b");
  EXPECT_EQ(racks.bound_at.at("job-0"), TimePoint(10ms));
}

// KEP-5732, fits no rack: three 8-GPU pods, minCount 3, racks of two 8-GPU nodes: 4 free nodes
// in the cluster, but no rack holds 3. Nothing is reserved; the pods stay pending.
TEST(WorkloadGang, TopologyGroupThatFitsNoRackStaysPending) {
  Simulation sim;
  Racks racks(sim, {"a", "a", "b", "b"}, 8);
  SchedulingLoop loop = make_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 3, "rack"));
  for (int i = 0; i < 3; ++i) {
    loop.add(member("job-" + std::to_string(i), "job", 8));
  }
  sim.run(TimePoint(10s));
  EXPECT_TRUE(racks.bound_at.empty());
  EXPECT_TRUE(racks.held_since.empty());
  EXPECT_EQ(loop.pending(), 3u);
}

// KEP-4671 at v1.36, the pod group cycle (built-in "default-k8s-gang-v136": GangScheduling with
// podGroupSchedulingCycle). Rules: kubernetes/kubernetes pkg/scheduler/schedule_one_podgroup.go
// (podGroupSchedulingDefaultAlgorithm: every queued pod tried on one snapshot, feasible when
// Permit says Success for one; applyPodGroupAlgorithmResult: bind the placed pods, else all back
// unschedulable) and algorithm_podgroup.go (one run per placement, the best PlacementScore wins).
// One cycle time (10 ms) per pod evaluation.
SchedulingLoop make_v136_loop(Simulation& sim, Racks& racks) {
  return SchedulingLoop(sim, make_scheduler("default-k8s-gang-v136", 1), racks.view, racks, 10ms,
                        nullptr, nullptr);
}

// 4 pods, minCount 4, 3 GPUs: at 0 s pods 0-2 are placed (Permit: Wait) and pod 3 fits nowhere;
// no Permit said Success, so the group is rejected in that cycle: nothing is held afterwards
// (v1.35 holds 3 GPUs for 300 s, NotAtAllWaitersReleasedAtTheFiveMinuteDeadline), the cycle
// costs 4 evaluations (40 ms), and all four pods wait as unschedulable. At 5 s a fourth GPU
// appears (a cluster event): the pods' back-off (1 s after the attempt at 0 s) is over, so the
// next cycle runs at 5 s and binds all four then.
TEST(PodGroupCycle, GroupThatDoesNotFitIsRejectedAtOnceHoldingNothing) {
  Simulation sim;
  Racks racks(sim, {"a"}, 3);
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 4));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  std::vector<std::int64_t> held;
  for (const double t : {0.001, 0.035, 4.0}) {
    sim.schedule_at(TimePoint(from_seconds(t)), [&] { held.push_back(racks.gpus_held()); });
  }
  sim.schedule_at(TimePoint(5s), [&] {
    racks.view.nodes[0].node.allocatable.gpus = 4;
    loop.on_cluster_event();
  });
  sim.run(TimePoint(4500ms));
  EXPECT_EQ(held, (std::vector<std::int64_t>{0, 0, 0}));
  EXPECT_TRUE(racks.bound_at.empty());
  EXPECT_EQ(loop.pending(), 4u);
  EXPECT_EQ(loop.counters().cycles, 4u);
  sim.run(TimePoint(10s));
  ASSERT_EQ(racks.bound_at.size(), 4u);
  for (const auto& [pod, at] : racks.bound_at) {
    EXPECT_EQ(at, TimePoint(5s)) << pod;
  }
  EXPECT_EQ(loop.counters().cycles, 8u);
}

// 4 pods, minCount 2, 3 GPUs: one cycle at 0 s places pods 0-2 (pod 1's Permit says Success)
// and binds them at 0 s; pod 3 fits nowhere and goes back alone, holding nothing.
TEST(PodGroupCycle, MinCountBelowCountBindsWhatFitsInOneCycle) {
  Simulation sim;
  Racks racks(sim, {"a"}, 3);
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 2));
  for (int i = 0; i < 4; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(10s));
  ASSERT_EQ(racks.bound_at.size(), 3u);
  for (const std::string pod : {"job-0", "job-1", "job-2"}) {
    EXPECT_EQ(racks.bound_at.at(pod), TimePoint(0s)) << pod;
  }
  EXPECT_EQ(racks.bound_at.count("job-3"), 0u);
  EXPECT_EQ(racks.gpus_held(), 3);
  EXPECT_EQ(loop.pending(), 1u);
}

// GangScheduling's PreEnqueue still holds: minCount 4, 3 pods exist: nothing placed or held.
TEST(PodGroupCycle, FewerPodsThanMinCountAreNotScheduled) {
  Simulation sim;
  Racks racks(sim, {"a"}, 8);
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 4));
  for (int i = 0; i < 3; ++i) {
    loop.add(member("job-" + std::to_string(i), "job"));
  }
  sim.run(TimePoint(10s));
  EXPECT_TRUE(racks.bound_at.empty());
  EXPECT_EQ(racks.gpus_held(), 0);
  EXPECT_EQ(loop.pending(), 3u);
}

// The best rack in one cycle: racks a (n0, n1) and b (n2, n3) of 8-GPU nodes, n0 full with an
// 8-GPU pod. Two 4-GPU pods, minCount 2, key rack: both placements are feasible (a: both on n1;
// b: on n2/n3), 2 pods each (PodGroupPodsCount 100 each). PlacementBinPacking, MostAllocated on
// cpu, memory and GPUs (weight 1 each) over the rack's 2 nodes with the proposed pods: a has
// GPUs 16/16 (100), b 8/16 (50); cpu 300m of 128 and memory 600Mi of 512Gi round to 0: a scores
// 100/3 = 33, b 50/3 = 16. Rack a wins; both pods bind on n1 at 0 s, in one cycle of 2
// placements x 2 pods = 4 evaluations.
TEST(PodGroupCycle, GroupPlacedInTheTightestRackInOneCycle) {
  Simulation sim;
  Racks racks(sim, {"a", "a", "b", "b"}, 8);
  auto other = member("other", "none", 8);
  racks.reserve(*other, 0, {});
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 2, "rack"));
  for (int i = 0; i < 2; ++i) {
    loop.add(member("job-" + std::to_string(i), "job", 4));
  }
  sim.run(TimePoint(1s));
  ASSERT_EQ(racks.bound_at.size(), 2u);
  for (const std::string pod : {"job-0", "job-1"}) {
    EXPECT_EQ(racks.node_of.at(pod), 1) << pod;
    EXPECT_EQ(racks.bound_at.at(pod), TimePoint(0s)) << pod;
  }
  EXPECT_EQ(loop.counters().cycles, 4u);
}

// Only the bound pods' placement afterwards: racks a (n0, n1), b (n2, n3) of 8-GPU nodes, n0
// full. Three 8-GPU pods, minCount 2, key rack: a holds 1 (infeasible), b holds 2: pods 0 and 1
// bind on n2 and n3 at 0 s, pod 2 goes back. When n0 is freed at 5 s, pod 2's cycle may use only
// rack b (the generator's required domain), which is full: it stays pending.
TEST(PodGroupCycle, LaterPodsKeepToTheBoundPodsPlacement) {
  Simulation sim;
  Racks racks(sim, {"a", "a", "b", "b"}, 8);
  auto other = member("other", "none", 8);
  racks.reserve(*other, 0, {});
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 2, "rack"));
  for (int i = 0; i < 3; ++i) {
    loop.add(member("job-" + std::to_string(i), "job", 8));
  }
  sim.schedule_at(TimePoint(5s), [&] {
    racks.unreserve(*other);
    loop.on_cluster_event();
  });
  sim.run(TimePoint(20s));
  ASSERT_EQ(racks.bound_at.size(), 2u);
  EXPECT_EQ(racks.rack_of("job-0"), "b");
  EXPECT_EQ(racks.rack_of("job-1"), "b");
  EXPECT_EQ(racks.bound_at.at("job-0"), TimePoint(0s));
  EXPECT_EQ(racks.bound_at.count("job-2"), 0u);
  EXPECT_EQ(loop.pending(), 1u);
}

// No rack holds the group: three 8-GPU pods, minCount 3, racks of two 8-GPU nodes. Both
// placements place 2 pods and fail at the third: rejected, nothing held, pending.
TEST(PodGroupCycle, TopologyGroupThatFitsNoRackHoldsNothing) {
  Simulation sim;
  Racks racks(sim, {"a", "a", "b", "b"}, 8);
  SchedulingLoop loop = make_v136_loop(sim, racks);
  loop.add_pod_group(workload_gang("job", 3, "rack"));
  for (int i = 0; i < 3; ++i) {
    loop.add(member("job-" + std::to_string(i), "job", 8));
  }
  sim.run(TimePoint(10s));
  EXPECT_TRUE(racks.bound_at.empty());
  EXPECT_EQ(racks.gpus_held(), 0);
  EXPECT_EQ(loop.pending(), 3u);
  EXPECT_EQ(loop.counters().cycles, 6u);
}

}  // namespace
}  // namespace tidesim::policies
