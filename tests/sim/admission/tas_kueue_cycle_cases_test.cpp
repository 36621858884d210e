// Kueue's scheduler-level TAS cases with several ResourceFlavors or ClusterQueues, run through
// the quota walk a run uses (select_with_quotas with its flavour assignment and
// tas::flavor_mismatch, Kueue's checkPodSetAndFlavorMatchForTAS) and Kueue's placement on each
// flavour's snapshot (tests/sim/admission/kueue_cycle_harness.hpp). Each case names its
// upstream test and case: kubernetes-sigs/kueue @ff69552e79ad21652c36caa97038382e55625cf7,
// pkg/scheduler/scheduler_tas_test.go. They compare the flavour and topologyAssignment of each
// admission upstream expects, or that a workload stays pending.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/sim/admission/kueue_cycle_harness.hpp"

namespace tidesim::tas {
namespace {

constexpr std::int64_t kMi = std::int64_t{1} << 20;
const std::vector<std::string> kHostLevel = {kHostnameLabel};

TasNode node(const std::string& name, std::map<std::string, std::string> labels,
             ResourceMap allocatable) {
  TasNode n;
  n.name = name;
  n.labels = std::move(labels);
  n.allocatable = std::move(allocatable);
  return n;
}

TasNode tas_node(const std::string& host, ResourceMap allocatable) {
  return node(host, {{"tas-node", "true"}, {kHostnameLabel, host}}, std::move(allocatable));
}

TasPodSet podset(std::int32_t count, ResourceMap requests, std::optional<TopologyRequest> r) {
  TasPodSet ps;
  ps.name = "one";
  ps.count = count;
  ps.requests = std::move(requests);
  ps.topology = std::move(r);
  return ps;
}

TopologyRequest required(const std::string& level) {
  TopologyRequest r;
  r.required = level;
  return r;
}

TopologyRequest preferred(const std::string& level) {
  TopologyRequest r;
  r.preferred = level;
  return r;
}

void expect_admitted(const std::map<std::string, CycleOutcome>& got, const std::string& name,
                     const std::string& flavor, const std::optional<TopologyAssignment>& want) {
  SCOPED_TRACE("workload " + name);
  ASSERT_TRUE(got.contains(name));
  const CycleOutcome& o = got.at(name);
  EXPECT_TRUE(o.admitted) << o.reason;
  EXPECT_EQ(o.flavor, flavor);
  EXPECT_EQ(o.assignment, want);
}

std::map<std::string, CycleOutcome> run(const CycleCase& c) {
  return run_cycle(c, kueue_cycle_order(c));
}

// TestScheduleForTAS's defaultSingleNode, single-level topology, flavours "tas-default" (with
// it) and "default" (without), and ClusterQueue "tas-main" over `flavors` with 50 CPUs each.
CycleCase single_node_case(const std::vector<std::string>& flavors) {
  CycleCase c;
  c.nodes = {tas_node("x1", {{"cpu", 1000}, {"memory", kGi}, {"pods", 10}})};
  c.topologies = {{"tas-single-level", kHostLevel}};
  c.flavors = {{"tas-default", {{"tas-node", "true"}}, "tas-single-level"}, {"default", {}, ""}};
  CycleQueue q{.name = "tas-main"};
  for (const std::string& f : flavors) {
    q.flavors.push_back({f, {{"cpu", 50000}}});
  }
  c.queues = {q};
  return c;
}

// TestScheduleForTAS "workload requiring TAS skips the non-TAS flavor".
TEST(TasKueueSeveralFlavors, RequiringTasSkipsTheNonTasFlavor) {
  CycleCase c = single_node_case({"default", "tas-default"});
  c.workloads = {{.name = "foo", .podset = podset(1, {{"cpu", 1000}}, required(kHostnameLabel))}};
  expect_admitted(run(c), "foo", "tas-default", on_hosts({{"x1", 1}}));
}

// TestScheduleForTAS "workload which does not need TAS skips the TAS flavor".
TEST(TasKueueSeveralFlavors, NotNeedingTasSkipsTheTasFlavor) {
  CycleCase c = single_node_case({"tas-default", "default"});
  c.workloads = {{.name = "foo", .podset = podset(1, {{"cpu", 1000}}, std::nullopt)}};
  expect_admitted(run(c), "foo", "default", std::nullopt);
}

// TestScheduleForTAS "workload with mixed PodSets (requiring TAS and not)": each PodSet gets
// its flavour on its own (Kueue assigns flavours per PodSet group); here each is a job of the
// queue, in the workload's PodSet order.
TEST(TasKueueSeveralFlavors, MixedPodSetsEachGetTheirFlavor) {
  CycleCase c = single_node_case({"tas-default", "default"});
  c.workloads = {{.name = "launcher", .podset = podset(1, {{"cpu", 500}}, std::nullopt)},
                 {.name = "worker", .podset = podset(1, {{"cpu", 500}}, required(kHostnameLabel))}};
  const auto got = run_cycle(c, {0, 1});
  expect_admitted(got, "launcher", "default", std::nullopt);
  expect_admitted(got, "worker", "tas-default", on_hosts({{"x1", 1}}));
}

// TestScheduleForTAS "workload requests topology level which is only present in second flavor".
TEST(TasKueueSeveralFlavors, LevelOnlyInTheSecondFlavor) {
  CycleCase c;
  c.nodes = {node("x1", {{"tas-node", "true"}, {"cloud.com/custom-level", "x1"}},
                  {{"cpu", 1000}, {"pods", 10}})};
  c.topologies = {{"tas-single-level", kHostLevel},
                  {"tas-custom-topology", {"cloud.com/custom-level"}}};
  c.flavors = {{"tas-default", {{"tas-node", "true"}}, "tas-single-level"},
               {"tas-custom-flavor", {{"tas-node", "true"}}, "tas-custom-topology"}};
  c.queues = {CycleQueue{
      .name = "tas-main",
      .flavors = {{"tas-default", {{"cpu", 50000}}}, {"tas-custom-flavor", {{"cpu", 50000}}}}}};
  c.workloads = {
      {.name = "foo", .podset = podset(1, {{"cpu", 1000}}, required("cloud.com/custom-level"))}};
  const TopologyAssignment want{.levels = {"cloud.com/custom-level"},
                                .domains = {DomainAssignment{.values = {"x1"}, .count = 1}}};
  expect_admitted(run(c), "foo", "tas-custom-flavor", want);
}

// Two flavours of the single-level topology over the same two nodes of 400m CPU and 400Mi.
CycleCase shared_nodes_case(ResourceMap quota_a, ResourceMap quota_b, const std::string& a,
                            const std::string& b) {
  CycleCase c;
  for (const char* host : {"x1", "x2"}) {
    c.nodes.push_back(tas_node(host, {{"cpu", 400}, {"memory", 400 * kMi}, {"pods", 10}}));
  }
  c.topologies = {{"tas-single-level", kHostLevel}};
  c.flavors = {{a, {{"tas-node", "true"}}, "tas-single-level"},
               {b, {{"tas-node", "true"}}, "tas-single-level"}};
  c.queues = {CycleQueue{.name = "tas-main", .flavors = {{a, quota_a}, {b, quota_b}}}};
  return c;
}

// TestScheduleForTAS "two ResourceFlavors share nodes: pending workload lands on the fallback
// flavor when the primary flavor is full". tas-flavor-a's quota is used up by two admitted
// workloads on x1, so the pending one takes tas-flavor-b, whose snapshot sees their usage on
// the shared node x1. (Upstream's tas-flavor-b also has a node taint the pending workload
// tolerates; a ResourceFlavor's nodeTaints are not modelled, and tolerated they change nothing.)
TEST(TasKueueSeveralFlavors, SharedNodesFallbackFlavorSeesThePrimaryUsage) {
  CycleCase c =
      shared_nodes_case({{"cpu", 400}, {"memory", 400 * kMi}},
                        {{"cpu", 100}, {"memory", 100 * kMi}}, "tas-flavor-a", "tas-flavor-b");
  const ResourceMap admitted = {{"cpu", 200}, {"memory", 200 * kMi}};
  for (const char* name : {"primary-admitted-1", "primary-admitted-2"}) {
    c.workloads.push_back({.name = name,
                           .podset = podset(1, admitted, preferred(kHostnameLabel)),
                           .admitted_flavor = "tas-flavor-a",
                           .admitted_assignment = on_hosts({{"x1", 1}})});
  }
  c.workloads.push_back(
      {.name = "pending-wl",
       .podset = podset(1, {{"cpu", 100}, {"memory", 100 * kMi}}, preferred(kHostnameLabel))});
  expect_admitted(run(c), "pending-wl", "tas-flavor-b", on_hosts({{"x2", 1}}));
}

// TestScheduleForTAS "multi-PodSet workload across sibling flavors must not self-overlap on
// shared node": ps-b, placed after ps-a, sees ps-a's usage on x1. Deviation: upstream pins each
// PodSet to its flavour by the flavours' node taints (not modelled); here ps-b leaves flavor-a
// because its quota (400m) cannot hold both PodSets' 600m. Each PodSet is a job of the queue.
TEST(TasKueueSeveralFlavors, SiblingFlavorsDoNotSelfOverlap) {
  const ResourceMap quota = {{"cpu", 400}, {"memory", 400 * kMi}};
  CycleCase c = shared_nodes_case(quota, quota, "flavor-a", "flavor-b");
  const ResourceMap each = {{"cpu", 300}, {"memory", 300 * kMi}};
  c.workloads = {{.name = "ps-a", .podset = podset(1, each, preferred(kHostnameLabel))},
                 {.name = "ps-b", .podset = podset(1, each, preferred(kHostnameLabel))}};
  const auto got = run_cycle(c, {0, 1});
  expect_admitted(got, "ps-a", "flavor-a", on_hosts({{"x1", 1}}));
  expect_admitted(got, "ps-b", "flavor-b", on_hosts({{"x2", 1}}));
}

}  // namespace
}  // namespace tidesim::tas
