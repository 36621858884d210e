// A run's Kueue queues and Volcano HyperNodes taken from its cluster snapshot (`queues:
// {from_snapshot: true}`, `hypernodes: {from_snapshot: true}`, docs/scenarios.md): the snapshot
// of `tidesim admit`'s tests (tests/tools/data/admit/cluster.yaml) read by
// tests/sim/data/snapshot-kueue-run.yaml, and conflicts between the snapshot's objects and the
// scenario's refused at their place.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tests/common/errors.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

using test::message_of;
using ::testing::HasSubstr;

constexpr const char* kScenario = "tests/sim/data/snapshot-kueue-run.yaml";
constexpr const char* kQueues = "queues: {from_snapshot: true}";

TEST(SnapshotQueues, TheSnapshotsKueueObjectsBecomeThePolicysQueues) {
  const Scenario s = load_scenario(kScenario);
  const QuotaConfig& q = *s.policies[0].admission->quotas;
  ASSERT_EQ(q.topologies.size(), 1u);
  EXPECT_EQ(q.topologies[0].name, "gpu-topology");
  EXPECT_EQ(q.topologies[0].levels, (std::vector<std::string>{"network.topology.nvidia.com/block",
                                                              "network.topology.nvidia.com/rack",
                                                              "kubernetes.io/hostname"}));
  ASSERT_EQ(q.flavors.size(), 1u);
  EXPECT_EQ(q.flavors[0].name, "h100");
  EXPECT_EQ(q.flavors[0].topology_name, "gpu-topology");
  EXPECT_EQ(q.flavors[0].node_labels, (std::map<std::string, std::string>{{"gpu", "h100"}}));
  ASSERT_EQ(q.cluster_queues.size(), 1u);
  EXPECT_EQ(q.cluster_queues[0].name, "training");
  EXPECT_EQ(nominal_of(q, 0, 0), 64);  // nvidia.com/gpu nominalQuota
  // LocalQueue research/team-a, by its name (a run's job names its queue without a namespace).
  EXPECT_EQ(q.local_queues, (std::map<std::string, int>{{"team-a", 0}}));
  EXPECT_THAT(q.flavors[0].where.file, HasSubstr("admit/cluster.yaml"));
}

TEST(SnapshotQueues, ARunPlacesTheJobAsTidesimAdmitDoes) {
  // tidesim admit tests/tools/data/admit/cluster.yaml workload-rack.yaml (docs/topology-aware.md)
  // gives b1-r1-n1=1 b1-r1-n2=2: b1-r1 has 4 + 8 GPUs free (the running pod holds 4 of n1), the
  // other racks 16, so BestFit takes the tightest rack holding all three pods. The run binds
  // the job's pods there at its start.
  const Scenario s = load_scenario(kScenario);
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  std::multiset<std::string> nodes;
  std::vector<TopologyEvent> topology;
  signals.job.connect([&](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound) {
      nodes.insert(e.node);
    }
  });
  signals.topology.connect([&](const TopologyEvent& e) { topology.push_back(e); });
  const RunSummary summary = run_policy(s, w, s.policies[0], 1, signals);
  EXPECT_EQ(summary.succeeded, 1);
  EXPECT_EQ(nodes, (std::multiset<std::string>{"b1-r1-n1", "b1-r1-n2", "b1-r1-n2"}));
  ASSERT_EQ(topology.size(), 1u);
  EXPECT_TRUE(topology[0].admitted) << topology[0].reason;
  EXPECT_EQ(topology[0].topology, "gpu-topology");
}

// snapshot-kueue-run.yaml with its `queues:` replaced by `queues`, loaded: the InputError's text.
std::string load_error(const std::string& queues) {
  std::ifstream in(kScenario);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  yaml.replace(yaml.find(kQueues), std::string(kQueues).size(), queues);
  const std::string rel = "../../tools/data/admit/cluster.yaml";
  yaml.replace(yaml.find(rel), rel.size(),
               std::filesystem::absolute("tests/tools/data/admit/cluster.yaml").string());
  const std::string path = test::temp_file("snapshot-queues", yaml);
  const std::string message = message_of([&] { (void)load_scenario(path); });
  std::filesystem::remove(path);
  return message;
}

TEST(SnapshotQueues, AnObjectInBothPlacesIsRefusedNamingIt) {
  const std::string topology = load_error(
      "queues:\n        from_snapshot: true\n"
      "        topologies: [{name: gpu-topology, levels: [kubernetes.io/hostname]}]");
  EXPECT_THAT(topology, HasSubstr("topologies[0].name: topology 'gpu-topology' is also in the "
                                  "cluster snapshot ("));
  EXPECT_THAT(topology, HasSubstr("admit/cluster.yaml:6)"));    // the Topology object's line
  EXPECT_THAT(topology, HasSubstr("tidesim-snapshot-queues"));  // the scenario's file
  EXPECT_THAT(load_error("queues:\n        from_snapshot: true\n"
                         "        resource_flavors: [{name: h100, node_labels: {gpu: h100}}]"),
              HasSubstr("resource_flavors[0].name: ResourceFlavor 'h100' is also in the cluster "
                        "snapshot (" +
                        std::filesystem::absolute("tests/tools/data/admit/cluster.yaml").string() +
                        ":15)"));
  EXPECT_THAT(load_error("queues:\n        from_snapshot: true\n"
                         "        cluster_queues: [{name: training, nominal_gpus: 8}]"),
              HasSubstr("cluster_queues[0].name: ClusterQueue 'training' is also in the cluster "
                        "snapshot ("));
  EXPECT_THAT(load_error("queues:\n        from_snapshot: true\n"
                         "        local_queues: {team-a: training}"),
              HasSubstr("local_queues.team-a: LocalQueue 'team-a' is also in the cluster "
                        "snapshot"));
}

TEST(SnapshotQueues, TheScenariosOwnObjectsAreAddedToTheSnapshots) {
  // A second queue of the scenario's own, on the snapshot's flavour: its LocalQueue is its name.
  const std::string path = [] {
    std::ifstream in(kScenario);
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    yaml.replace(yaml.find(kQueues), std::string(kQueues).size(),
                 "queues:\n        from_snapshot: true\n"
                 "        cluster_queues:\n"
                 "          - name: spare\n"
                 "            resource_groups:\n"
                 "              - covered_resources: [nvidia.com/gpu]\n"
                 "                flavors: [{name: h100, resources: [{name: nvidia.com/gpu, "
                 "nominal_quota: 8}]}]");
    const std::string rel = "../../tools/data/admit/cluster.yaml";
    yaml.replace(yaml.find(rel), rel.size(),
                 std::filesystem::absolute("tests/tools/data/admit/cluster.yaml").string());
    return test::temp_file("snapshot-queues-own", yaml);
  }();
  const Scenario s = load_scenario(path);
  std::filesystem::remove(path);
  const QuotaConfig& q = *s.policies[0].admission->quotas;
  ASSERT_EQ(q.cluster_queues.size(), 2u);
  EXPECT_EQ(q.cluster_queues[1].name, "spare");
  EXPECT_EQ(q.local_queues, (std::map<std::string, int>{{"team-a", 0}, {"spare", 1}}));
}

TEST(SnapshotQueues, FromSnapshotNeedsASnapshot) {
  const std::string file = test::temp_file(
      "snapshot-queues-none",
      "name: none\ncluster:\n  node_groups: [{name: n, count: 1, gpu: A10, topology: pcie-1}]\n"
      "workload:\n  arrivals: {process: burst, count: 1}\n"
      "  jobs: [{name: job, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 100s}]\n"
      "policies:\n  - {name: p, scheduler: default-k8s, admission: {policy: fifo, queues: "
      "{from_snapshot: true}}}\n");
  const std::string message = message_of([&] { (void)load_scenario(file); });
  std::filesystem::remove(file);
  EXPECT_THAT(message, HasSubstr("queues.from_snapshot: takes the Kueue objects of "
                                 "cluster.snapshot, which this scenario does not have"));
}

// A snapshot folder: tests/tools/data/admit/cluster.yaml and a file of HyperNodes, one per rack
// (tier 1, the rack's two nodes) under one per block (tier 2).
std::string hypernode_snapshot() {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("tidesim-snapshot-hn-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::copy_file("tests/tools/data/admit/cluster.yaml", dir / "cluster.yaml",
                fs::copy_options::overwrite_existing);
  std::ofstream out(dir / "hypernodes.yaml");
  const auto hypernode = [&out](const std::string& name, int tier, const std::string& type,
                                const std::vector<std::string>& members) {
    out << "---\napiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {name: "
        << name << "}\nspec:\n  tier: " << tier << "\n  members:\n";
    for (const std::string& m : members) {
      out << "    - {type: " << type << ", selector: {exactMatch: {name: " << m << "}}}\n";
    }
  };
  for (const std::string b : {"b1", "b2"}) {
    for (const std::string r : {"r1", "r2"}) {
      hypernode(b + "-" + r, 1, "Node", {b + "-" + r + "-n1", b + "-" + r + "-n2"});
    }
    hypernode(b, 2, "HyperNode", {b + "-r1", b + "-r2"});
  }
  return dir.string();
}

TEST(SnapshotQueues, HyperNodesFromTheSnapshotPlaceAVolcanoGang) {
  // The gang of 3 pods x 4 GPUs with a hard network topology at tier 1 lands in one rack.
  const std::string dir = hypernode_snapshot();
  const std::string file = test::temp_file(
      "snapshot-hn", "name: hn\ncluster:\n  snapshot: {file: " + dir +
                         ", gpu: H100-SXM, topology: hgx-h100x8}\n"
                         "workload:\n  arrivals: {process: burst, count: 1}\n  jobs:\n"
                         "    - name: trainer\n      replicas: 3\n"
                         "      gang: {mode: all-or-nothing, network_topology: {mode: hard, "
                         "highest_tier_allowed: 1}}\n"
                         "      pod: {gpus: 4}\n      model: resnet50\n      batch_size: 64\n"
                         "      duration: 100s\n"
                         "policies:\n  - name: v\n    scheduler: default-k8s\n"
                         "    admission: {policy: volcano, hypernodes: {from_snapshot: true}}\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  std::filesystem::remove_all(dir);
  const volcano::HyperNodeSource& src = *s.policies[0].admission->hypernodes;
  ASSERT_EQ(src.listed.size(), 6u);
  EXPECT_EQ(src.listed[0].name, "b1-r1");
  EXPECT_EQ(src.listed[2].name, "b1");
  EXPECT_THAT(src.listed[0].where.file, HasSubstr("hypernodes.yaml"));
  RunSignals signals;
  std::set<std::string> racks;
  int bound = 0;
  signals.job.connect([&](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound) {
      racks.insert(e.node.substr(0, 5));  // "b1-r1-n2" -> "b1-r1"
      ++bound;
    }
  });
  const RunSummary summary = run_policy(s, make_jobs(s, 1), s.policies[0], 1, signals);
  EXPECT_EQ(summary.succeeded, 1);
  EXPECT_EQ(bound, 3);
  EXPECT_EQ(racks.size(), 1u);
}

TEST(SnapshotQueues, HyperNodesFromASnapshotWithoutThemAreRefused) {
  const std::string file = test::temp_file(
      "snapshot-hn-none",
      "name: hn\ncluster:\n  snapshot: {file: " +
          std::filesystem::absolute("tests/tools/data/admit/cluster.yaml").string() +
          ", gpu: H100-SXM, topology: hgx-h100x8}\n"
          "workload:\n  arrivals: {process: burst, count: 1}\n"
          "  jobs: [{name: job, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 100s}]\n"
          "policies:\n  - name: v\n    scheduler: default-k8s\n"
          "    admission: {policy: volcano, hypernodes: {from_snapshot: true}}\n");
  const std::string message = message_of([&] { (void)load_scenario(file); });
  std::filesystem::remove(file);
  EXPECT_THAT(message, HasSubstr("hypernodes.from_snapshot: the cluster snapshot has no "
                                 "HyperNode objects"));
}

// A scenario on the snapshot `snapshot` with one fifo policy taking its queues.
std::string objects_scenario(const std::string& name, const std::string& snapshot) {
  return test::temp_file(
      name, "name: objects\ncluster:\n  snapshot: {file: " + snapshot +
                ", gpu: H100-SXM, topology: hgx-h100x8}\n"
                "workload:\n  arrivals: {process: burst, count: 1}\n"
                "  jobs: [{name: job, pod: {gpus: 1, labels: {kueue.x-k8s.io/queue-name: team}}, "
                "model: resnet50, batch_size: 64, duration: 100s}]\n"
                "policies:\n  - name: q\n    scheduler: default-k8s\n"
                "    admission: {policy: fifo, queues: {from_snapshot: true}}\n");
}

constexpr const char* kObjects = "tests/sim/data/snapshot-kueue/objects.yaml";

TEST(SnapshotQueues, AClusterQueuesRulesAreReadInKueuesSpelling) {
  const std::string file =
      objects_scenario("snapshot-objects", std::filesystem::absolute(kObjects).string());
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  const QuotaConfig& q = *s.policies[0].admission->quotas;
  ASSERT_EQ(q.cluster_queues.size(), 1u);
  const ClusterQueueConfig& cq = q.cluster_queues[0];
  EXPECT_EQ(cq.cohort, "lab");  // spec.cohortName: no `cohorts:` entry needed
  EXPECT_TRUE(cq.strict_fifo);
  EXPECT_EQ(cq.when_can_borrow, WhenCanBorrow::kBorrow);  // MayStopSearch
  EXPECT_EQ(cq.when_can_preempt, WhenCanPreempt::kTryNextFlavor);
  EXPECT_EQ(cq.within_cluster_queue, WithinClusterQueue::kLowerPriority);
  EXPECT_EQ(q.resources, (std::vector<std::string>{"nvidia.com/gpu", "cpu"}));
  EXPECT_EQ(nominal_of(q, 0, 0), 16);
  EXPECT_EQ(nominal_of(q, 0, 1), 192'000);  // cpu "192" in millicores
  const int gpu_slot = slot_of(q, 0, 0);
  ASSERT_GE(gpu_slot, 0);
  EXPECT_EQ(cq.quota[static_cast<std::size_t>(gpu_slot)].borrowing_limit, 8);
  EXPECT_EQ(q.local_queues, (std::map<std::string, int>{{"team", 0}}));
  EXPECT_EQ(q.flavors[0].topology_name, "racks");
}

TEST(SnapshotQueues, ABadQuotaInTheSnapshotIsRefusedAtItsField) {
  std::ifstream in(kObjects);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string from = "nominalQuota: 16";
  yaml.replace(yaml.find(from), from.size(), "nominalQuota: lots");
  const std::string snapshot = test::temp_file("snapshot-objects-bad", yaml);
  const std::string file = objects_scenario("snapshot-objects-bad-scenario", snapshot);
  const std::string message = message_of([&] { (void)load_scenario(file); });
  std::filesystem::remove(file);
  std::filesystem::remove(snapshot);
  EXPECT_THAT(message, HasSubstr("tidesim-snapshot-objects-bad-"));  // the snapshot's file
  EXPECT_THAT(message, HasSubstr("document[4].spec.resourceGroups[0].flavors[0].resources[0]."
                                 "nominalQuota"));
}

}  // namespace
}  // namespace tidesim
