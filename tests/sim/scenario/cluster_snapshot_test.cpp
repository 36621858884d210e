// A scenario's starting cluster from a snapshot (`cluster.snapshot`, docs/scenarios.md): the
// hand-written tests/sim/data/snapshot/cluster.yaml (four 8-GPU H100 nodes and a CPU node; gpu-a
// runs a 6-GPU pod for ever, gpu-b an 8-GPU pod for 300 s more, gpu-c is cordoned, gpu-d
// NotReady) read by tests/sim/data/snapshot-run.yaml, and bad input refused at its place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "tests/common/errors.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

using test::message_of;
using ::testing::HasSubstr;

constexpr const char* kScenario = "tests/sim/data/snapshot-run.yaml";

const NodeGroup& group(const Scenario& s, const std::string& name) {
  for (const NodeGroup& g : s.cluster.groups) {
    if (g.name == name) {
      return g;
    }
  }
  throw std::runtime_error("no node " + name);
}

TEST(ClusterSnapshot, NodesComeFromTheSnapshotsNodeObjects) {
  const Scenario s = load_scenario(kScenario);
  ASSERT_EQ(s.cluster.groups.size(), 5u);
  for (const char* name : {"gpu-a", "gpu-b", "gpu-c", "gpu-d"}) {
    const NodeGroup& g = group(s, name);
    EXPECT_TRUE(g.exact_name);
    EXPECT_EQ(g.gpus, 8) << name;
    EXPECT_EQ(g.gpu_model, "H100-SXM") << name;  // its product label through gpu_models
    EXPECT_EQ(g.topology, "hgx-h100x8") << name;
    EXPECT_EQ(g.cpu_milli, 64'000) << name;
    EXPECT_EQ(g.memory_bytes, 512LL << 30) << name;
    EXPECT_EQ(g.labels.at("nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3") << name;
  }
  EXPECT_TRUE(group(s, "gpu-c").unschedulable);
  EXPECT_FALSE(group(s, "gpu-a").unschedulable);
  // NotReady: the node lifecycle controller's taint.
  ASSERT_EQ(group(s, "gpu-d").taints.size(), 1u);
  EXPECT_EQ(group(s, "gpu-d").taints[0].key, "node.kubernetes.io/not-ready");
  EXPECT_EQ(group(s, "gpu-d").taints[0].effect, "NoSchedule");
  EXPECT_TRUE(group(s, "gpu-a").taints.empty());
  const NodeGroup& cpu = group(s, "cpu-a");
  EXPECT_EQ(cpu.gpus, 0);
  EXPECT_EQ(cpu.gpu_model, "");
  EXPECT_EQ(cpu.topology, "pcie-0");
  EXPECT_EQ(cpu.cpu_milli, 16'000);
}

TEST(ClusterSnapshot, OnlyBoundUnfinishedPodsOfItsNodesRun) {
  const Scenario s = load_scenario(kScenario);
  ASSERT_TRUE(s.cluster.snapshot);
  const auto& pods = s.cluster.snapshot->pods;
  ASSERT_EQ(pods.size(), 2u);  // not done-0 (Succeeded), waiting-0 (no node), elsewhere-0
  EXPECT_EQ(pods[0].pod->name, "research/train-a-0");
  EXPECT_EQ(pods[0].node, "gpu-a");
  EXPECT_FALSE(pods[0].runs_for);
  EXPECT_EQ(pods[1].pod->name, "research/train-b-0");
  EXPECT_EQ(pods[1].node, "gpu-b");
  EXPECT_EQ(pods[1].runs_for, std::chrono::seconds(300));
  ASSERT_EQ(s.cluster.warnings.size(), 1u);
  EXPECT_THAT(s.cluster.warnings[0], HasSubstr("1 running pod(s) are bound to nodes not in the "
                                               "snapshot (the first: 'research/elsewhere-0')"));
}

TEST(ClusterSnapshot, RunningPodsHoldTheirRequestsFromTheStart) {
  const Scenario s = load_scenario(kScenario);
  FluidSolver fluid;
  const Cluster cluster(s, fluid);
  std::map<std::string, Resources> requested;
  for (const NodeInfo& n : cluster.view().nodes) {
    requested[n.node.name] = n.requested;
  }
  EXPECT_EQ(requested.at("gpu-a").gpus, 6);
  EXPECT_EQ(requested.at("gpu-a").cpu_milli, 8'000);
  EXPECT_EQ(requested.at("gpu-a").memory_bytes, 64LL << 30);
  EXPECT_EQ(requested.at("gpu-b").gpus, 8);
  EXPECT_EQ(requested.at("gpu-c").gpus, 0);
  EXPECT_EQ(requested.at("gpu-d").gpus, 0);
  ASSERT_EQ(cluster.snapshot_pods().size(), 2u);
  // The device plugin gave them cards: gpu-a has 2 free, gpu-b none.
  const ClusterNode& a = cluster.node(cluster.snapshot_pods()[0].node);
  EXPECT_EQ(a.name, "gpu-a");
  EXPECT_EQ(a.gpus->free_units(), 2);
}

// Jobs A (1 pod x 2 GPUs) and B (1 pod x 4 GPUs), both submitted at 0 s, 100 s each. Worked by
// hand: gpu-c is cordoned, gpu-d NotReady (tainted), gpu-b full and cpu-a has no GPUs; A fits
// only in gpu-a's 2 free GPUs and binds at 0 s; B fits nowhere until train-b-0 ends at 300 s and
// frees gpu-b, where it binds then.
TEST(ClusterSnapshot, AJobFitsOnlyWhereTheSnapshotLeavesRoom) {
  const Scenario s = load_scenario(kScenario);
  Workload w = make_jobs(s, 1);
  ASSERT_EQ(w.jobs.size(), 1u);
  w.jobs.resize(2, w.jobs[0]);
  for (std::size_t i = 0; i < 2; ++i) {
    w.jobs[i].name = i == 0 ? "A" : "B";
    w.jobs[i].pod_template.name = w.jobs[i].name;
    w.jobs[i].pod_template.requests.gpus = i == 0 ? 2 : 4;
  }
  std::map<std::string, std::string> node;
  std::map<std::string, double> bound_s;
  RunSignals signals;
  signals.job.connect([&](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound) {
      node[e.job] = e.node;
      bound_s[e.job] = to_seconds(e.at);
    }
  });
  const RunSummary r = run_policy(s, w, s.policies.front(), 1, signals);
  EXPECT_EQ(r.succeeded, 2);
  EXPECT_EQ(node.at("A"), "gpu-a");
  EXPECT_NEAR(bound_s.at("A"), 0.0, 1.0);
  EXPECT_EQ(node.at("B"), "gpu-b");
  EXPECT_NEAR(bound_s.at("B"), 300.0, 1.0);
}

// ---- bad input ----

std::string absolute(const std::string& path) {
  return std::filesystem::absolute(path).string();
}

// A scenario whose cluster is `section` (the lines under `cluster:`, indented by two spaces).
std::string scenario_error(const std::string& name, const std::string& section,
                           bool build_cluster = false) {
  const std::string file = test::temp_file(
      "snapshot-" + name, "name: snap\ncluster:\n" + section + test::kOneJobWorkload);
  const std::string message = message_of([&] {
    const Scenario s = load_scenario(file);
    if (build_cluster) {
      FluidSolver fluid;
      const Cluster cluster(s, fluid);
    }
  });
  std::filesystem::remove(file);
  return message;
}

// One 4-GPU node (its product label a catalogue name) and the pods of `pods` (YAML items).
std::string snapshot_file(const std::string& name, const std::string& pods,
                          const std::string& product = "H100-SXM") {
  return test::temp_file("snapshot-objects-" + name,
                         "apiVersion: v1\nkind: List\nitems:\n"
                         "- kind: Node\n"
                         "  metadata:\n"
                         "    name: n1\n"
                         "    labels: {nvidia.com/gpu.product: " +
                             product +
                             "}\n"
                             "  status:\n"
                             "    allocatable: {cpu: '16', memory: 64Gi, nvidia.com/gpu: '4'}\n" +
                             pods);
}

std::string pod(const std::string& name, const std::string& requests,
                const std::string& annotations = "{}") {
  return "- kind: Pod\n"
         "  metadata: {name: " +
         name + ", annotations: " + annotations +
         "}\n"
         "  spec:\n"
         "    nodeName: n1\n"
         "    containers: [{name: c, resources: {requests: " +
         requests + "}}]\n";
}

TEST(ClusterSnapshot, AShorthandPathReadsTheSnapshot) {
  const std::string snap = snapshot_file("shorthand", pod("p", "{nvidia.com/gpu: '3'}"));
  const std::string file =
      test::temp_file("snapshot-shorthand", "name: snap\ncluster:\n  snapshot: " + snap + "\n" +
                                                std::string(test::kOneJobWorkload));
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  std::filesystem::remove(snap);
  ASSERT_EQ(s.cluster.groups.size(), 1u);
  EXPECT_EQ(s.cluster.groups[0].gpu_model, "H100-SXM");
  EXPECT_EQ(s.cluster.groups[0].topology, "pcie-4");
  ASSERT_EQ(s.cluster.snapshot->pods.size(), 1u);
  EXPECT_EQ(s.cluster.snapshot->pods[0].pod->name, "default/p");
}

TEST(ClusterSnapshot, AProductOutsideTheCatalogueIsRefusedAtItsLabel) {
  const std::string e = scenario_error(
      "product", "  snapshot: {file: " + absolute("tests/sim/data/snapshot/cluster.yaml") + "}\n");
  // gpu-a's label value, line 14 column 31 of the fixture.
  EXPECT_THAT(e, HasSubstr("cluster.yaml:14:31: metadata.labels.nvidia.com/gpu.product: node "
                           "'gpu-a' has 8 nvidia.com/gpu and product 'NVIDIA-H100-80GB-HBM3'"));
}

TEST(ClusterSnapshot, APodItsNodeCannotHoldIsRefusedAtThePod) {
  const std::string snap = snapshot_file(
      "too-big", pod("p", "{nvidia.com/gpu: '2'}") + pod("q", "{nvidia.com/gpu: '3'}"));
  const std::string e = scenario_error("too-big", "  snapshot: " + snap + "\n", true);
  std::filesystem::remove(snap);
  EXPECT_THAT(e, HasSubstr(":15:3: spec.nodeName: pod 'default/q' asks for 3 nvidia.com/gpu on "
                           "node 'n1', whose cards cannot hold it"));
}

TEST(ClusterSnapshot, APodOverItsNodesCpuIsRefusedAtThePod) {
  const std::string snap = snapshot_file("cpu", pod("p", "{cpu: '20'}"));
  const std::string e = scenario_error("cpu", "  snapshot: " + snap + "\n", true);
  std::filesystem::remove(snap);
  EXPECT_THAT(e, HasSubstr(":10:3: spec.nodeName: pod 'default/p' does not fit on node 'n1' "
                           "beside the pods bound before it (cpu: 20000m requested, 16000m "
                           "allocatable)"));
}

TEST(ClusterSnapshot, ABadRunsForAnnotationIsRefusedAtIt) {
  const std::string snap =
      snapshot_file("runs-for", pod("p", "{cpu: '1'}", "{tidesim.io/runs-for: soon}"));
  const std::string e = scenario_error("runs-for", "  snapshot: " + snap + "\n");
  std::filesystem::remove(snap);
  EXPECT_THAT(e, HasSubstr(":11:58: "));
  EXPECT_THAT(e, HasSubstr("items[1].metadata.annotations[tidesim.io/runs-for]: 'soon'"));
}

TEST(ClusterSnapshot, SectionErrorsAreAtTheirKeys) {
  EXPECT_THAT(
      scenario_error("missing", "  snapshot: {file: no-such-snapshot.yaml}\n"),
      HasSubstr(":3:20: cluster.snapshot.file: snapshot 'no-such-snapshot.yaml' not found"));
  const std::string snap = snapshot_file("keys", "");
  EXPECT_THAT(scenario_error("runs", "  snapshot: {file: " + snap + ", runs_for: later}\n"),
              HasSubstr("cluster.snapshot.runs_for"));
  EXPECT_THAT(scenario_error("gpu", "  snapshot: {file: " + snap + ", gpu: H1000}\n"),
              HasSubstr("cluster.snapshot.gpu: unknown GPU model 'H1000'"));
  EXPECT_THAT(scenario_error("map", "  snapshot: {file: " + snap + ", gpu_models: {X: Y}}\n"),
              HasSubstr("cluster.snapshot.gpu_models.X: unknown GPU model 'Y'"));
  EXPECT_THAT(scenario_error("key", "  snapshot: {file: " + snap + ", nodes: 3}\n"),
              HasSubstr("cluster.snapshot.nodes: unknown key"));
  // Two Node objects of one name.
  const std::string twice = snapshot_file(
      "twice", "- kind: Node\n  metadata: {name: n1}\n  status: {allocatable: {cpu: '1'}}\n");
  EXPECT_THAT(scenario_error("twice", "  snapshot: " + twice + "\n"),
              HasSubstr(":10:3: metadata.name: a node named 'n1' is already in the snapshot"));
  std::filesystem::remove(twice);
  std::filesystem::remove(snap);
}

}  // namespace
}  // namespace tidesim
