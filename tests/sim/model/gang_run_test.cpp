// A gang's failures inside a run (sim/model/gang_failures.hpp, docs/failures.md "Gangs, in a
// run"): a 2-node gang on a small cluster, one failure injected at 25 min on one of its nodes,
// and its end worked by hand for a hot spare, a node replaced in the rack and the whole gang
// rescheduled; the failed node unused until its repair while another job takes the freed node.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/common/errors.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

double secs(TimePoint t) {
  return to_seconds(t - TimePoint{});
}

// The file is named after the running test too: ctest runs this file's tests in parallel
// processes, which must not write the same path.
Scenario scenario_from(const std::string& name, const std::string& text) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const auto path =
      std::filesystem::temp_directory_path() / ("tidesim-gang-run-" + test + "-" + name + ".yaml");
  std::ofstream(path) << text;
  return load_scenario(path.string());
}

// `nodes` nodes of 4 A10s; one gang of two 4-GPU pods (all-or-nothing), 60 min of work.
// faults.gang: random failures off, detection 3 min, rescheduling 10 min, replacement 2 min,
// loading 2 min plus the checkpoint's read (1 B at 1 TB/s: nothing), a checkpoint every 10 min
// of compute (its 1 B write stalls nothing), a faulty GPU repaired in 30 min, one hot spare.
std::string text(int nodes, const std::string& on_failure, const std::string& injected) {
  return "name: gang-run\n"
         "cluster:\n"
         "  node_groups:\n"
         "    - {name: gpu, count: " +
         std::to_string(nodes) +
         ", gpu: A10, topology: a10x4-pcie}\n"
         "workload:\n"
         "  arrivals: {process: burst, count: 1}\n"
         "  jobs:\n"
         "    - {name: gang, pod: {gpus: 4}, replicas: 2, gang: {mode: all-or-nothing},\n"
         "       model: resnet50, batch_size: 64, duration: 60m}\n"
         "policies: [default-k8s]\n"
         "run: {until: 30d}\n"
         "faults:\n"
         "  gang:\n"
         "    random: false\n"
         "    on_failure: " +
         on_failure +
         "\n"
         "    spares: 1\n"
         "    detection: 3m\n"
         "    rescheduling: 10m\n"
         "    replacement: 2m\n"
         "    loading: 2m\n"
         "    checkpoint: {interval: 10m, size: 1, bandwidth: 1TB/s}\n"
         "    components: {faulty_gpu: {repair: 30m}}\n" +
         injected;
}

struct Seen {
  std::vector<JobEvent> events;
  std::vector<GangLifeRecord> lives;
  RunSummary summary;
  std::vector<const JobEvent*> of(const std::string& job, JobEventKind kind) const {
    std::vector<const JobEvent*> out;
    for (const auto& e : events) {
      if (e.job == job && e.kind == kind) {
        out.push_back(&e);
      }
    }
    return out;
  }
};

Seen run(const Scenario& s, std::optional<workloads::JobSpec> extra = std::nullopt) {
  Workload w = make_jobs(s, 1);
  w.jobs.at(0).name = "gang";  // the workload's one job, by a name the tests use
  if (extra) {
    w.jobs.push_back(*extra);
  }
  RunSignals signals;
  Seen seen;
  signals.job.connect([&](const JobEvent& e) { seen.events.push_back(e); });
  signals.gang_life.connect([&](const GangLifeRecord& r) { seen.lives.push_back(r); });
  seen.summary = run_policy(s, w, s.policies[0], 1, signals);
  return seen;
}

// The undisturbed gang: its start, its run time W (60 min of work at its two-node speed) and
// the node of its first pod.
struct Baseline {
  double start = 0.0;
  double work = 0.0;
  std::string node;
};

Baseline baseline(int nodes) {
  const Seen seen = run(scenario_from("base", text(nodes, "spare", "")));
  Baseline b;
  b.start = secs(seen.of("gang", JobEventKind::kStarted).at(0)->at);
  b.work = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at) - b.start;
  b.node = seen.of("gang", JobEventKind::kBound).at(0)->node;
  return b;
}

std::string inject(const std::string& node) {
  return "    injected: [{at: 25m, node: " + node + ", component: faulty_gpu}]\n";
}

// At 1,500 s the gang has run 1,500 - s; its checkpoints at 600 s and 1,200 s of compute hold
// 1,200 s: 300 - s is lost. It resumes with W - 1,200 s of work after detection (180 s) and
// loading (120 s), plus 0 for a spare, the replacement (120 s) for a node of its rack; the new
// pod is scheduled at once (one cycle, 10 ms). End: 1,500 + 300 (+ 120) + W - 1,200.
void expect_replaced(const std::string& on_failure, double overhead) {
  const Baseline b = baseline(3);
  EXPECT_NEAR(b.work, 3600.0, 1.0);
  const Seen seen = run(scenario_from(on_failure, text(3, on_failure, inject(b.node))));
  const auto evicted = seen.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 1u);  // the failed node's pod only
  EXPECT_EQ(evicted[0]->node, b.node);
  EXPECT_DOUBLE_EQ(secs(evicted[0]->at), 1500.0);
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 3u);  // two pods, then the replacement, on the third node
  EXPECT_NE(bound[2]->node, bound[0]->node);
  EXPECT_NE(bound[2]->node, bound[1]->node);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 1500.0 + 300.0 + overhead, 0.05);
  const double end = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at);
  EXPECT_NEAR(end, 1500.0 + 300.0 + overhead + b.work - 1200.0, 0.1);
  ASSERT_EQ(seen.lives.size(), 1u);
  const GangLifeRecord& l = seen.lives[0];
  EXPECT_NEAR(l.lost_work, 300.0 - b.start, 1e-6);
  EXPECT_NEAR(l.detection, 180.0, 1e-6);
  EXPECT_NEAR(l.restart, 120.0 + overhead, 0.05);
  EXPECT_NEAR(l.wall, end - b.start, 1e-6);
  EXPECT_NEAR(l.productive + l.lost_work + l.detection + l.restart + l.checkpoint, l.wall, 1e-6);
  EXPECT_EQ(l.unexpected.at(0), (std::pair<std::string, int>{"faulty_gpu", 1}));
}

TEST(GangRun, HotSpareTakesTheFailedNodesPlace) {
  expect_replaced("spare", 0.0);
}

TEST(GangRun, ReplaceNodeTakesAFreeNodeOfTheRack) {
  expect_replaced("replace_node", 120.0);
}

// Two nodes, restart_gang, and a one-pod job of 4 GPUs submitted at 60 s that waits behind the
// gang. At 1,500 s the failed node A goes down for 30 min and the gang is evicted: the waiting
// job takes the freed node B at once; nothing binds to A before 3,300 s; the gang, two nodes,
// is placed when A returns (3,300 s) and starts after detection, rescheduling and loading
// (180 + 600 + 120 s): 4,200 s, ending W - 1,200 s later.
TEST(GangRun, RestartGangWaitsForTheSchedulerWhileTheFreedNodeServesAnotherJob) {
  const Baseline b = baseline(2);
  const Scenario s = scenario_from("restart", text(2, "restart_gang", inject(b.node)));
  workloads::JobSpec small = make_jobs(s, 1).jobs.at(0);
  small.name = "small";
  small.replicas = 1;
  small.gang.reset();
  small.submit_time = TimePoint(std::chrono::seconds(60));
  small.steps /= 4;  // it ends before the failed node's repair
  const Seen seen = run(s, small);
  EXPECT_EQ(seen.summary.succeeded, 2);
  const auto small_bound = seen.of("small", JobEventKind::kBound);
  ASSERT_EQ(small_bound.size(), 1u);
  EXPECT_NEAR(secs(small_bound[0]->at), 1500.0, 0.05);
  EXPECT_NE(small_bound[0]->node, b.node);
  EXPECT_LT(secs(seen.of("small", JobEventKind::kSucceeded).at(0)->at), 3300.0);
  for (const auto& e : seen.events) {
    if (e.kind == JobEventKind::kBound && e.node == b.node) {
      EXPECT_TRUE(secs(e.at) < 1500.0 || secs(e.at) >= 3300.0) << e.pod << " at " << secs(e.at);
    }
  }
  EXPECT_EQ(seen.of("gang", JobEventKind::kEvicted).size(), 2u);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 3300.0 + 900.0, 0.05);
  EXPECT_NEAR(secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at), 4200.0 + b.work - 1200.0,
              0.1);
  ASSERT_EQ(seen.lives.size(), 2u);  // the small job is a gang of one pod, never interrupted
  const GangLifeRecord& l = seen.lives[0].job == "gang" ? seen.lives[0] : seen.lives[1];
  EXPECT_NEAR(l.detection, 180.0, 1e-6);
  EXPECT_NEAR(l.restart, 4200.0 - 1500.0 - 180.0, 0.05);
}

// With spares: 0, `spare` falls back to the whole gang: on three nodes it is placed at once on
// the two healthy ones and starts 180 + 600 + 120 s after the failure.
TEST(GangRun, SpareFallsBackToTheWholeGangWithoutSpares) {
  const Baseline b = baseline(3);
  std::string t = text(3, "spare", inject(b.node));
  t.replace(t.find("spares: 1"), 9, "spares: 0");
  const Seen seen = run(scenario_from("nospare", t));
  EXPECT_EQ(seen.of("gang", JobEventKind::kEvicted).size(), 2u);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 1500.0 + 900.0, 0.05);
}

// A failure whose component loses no node restarts the gang in place after detection and
// loading: no pod is evicted.
TEST(GangRun, SoftwareFailureRestartsInPlace) {
  const Baseline b = baseline(3);
  const std::string t = text(
      3, "spare", "    injected: [{at: 25m, node: " + b.node + ", component: software_bug}]\n");
  const Seen seen = run(scenario_from("software", t));
  EXPECT_TRUE(seen.of("gang", JobEventKind::kEvicted).empty());
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 1500.0 + 300.0, 1e-6);
  EXPECT_NEAR(secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at), 1800.0 + b.work - 1200.0,
              0.1);
}

// Blocking checkpoints stall the gang: 10 GB at 1 GB/s is 10 s after every 600 s of compute, so
// the gang runs at 600 / 610 of its speed and W becomes W x 610 / 600.
TEST(GangRun, BlockingCheckpointsPushTheEndBack) {
  const Baseline b = baseline(3);
  std::string t = text(3, "spare", "");
  t.replace(t.find("size: 1, bandwidth: 1TB/s"), 25, "size: 10GB, bandwidth: 1GB/s");
  const Seen seen = run(scenario_from("stalls", t));
  const double start = secs(seen.of("gang", JobEventKind::kStarted).at(0)->at);
  const double end = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at);
  EXPECT_NEAR(end - start, b.work * 610.0 / 600.0, 0.1);
  ASSERT_EQ(seen.lives.size(), 1u);
  EXPECT_NEAR(seen.lives[0].checkpoint, (end - start) * 10.0 / 610.0, 10.0);
}

// A fabric whose leaves hold two nodes: gpu-a-01 and gpu-a-02 under leaf 0, the b nodes under
// leaf 1; the gang must run on the a nodes (node selector). A switch failure injected on
// gpu-a-01 (per leaf, repaired in 30 min) takes down both nodes under its leaf: the gang loses
// two nodes, so even with a spare it is rescheduled whole, and it waits for the repair (its
// nodes are the a nodes only): placed at 3,300 s, started 900 s later.
TEST(GangRun, LeafFailureTakesDownEveryNodeUnderItsLeaf) {
  const std::string t =
      "name: gang-leaf\n"
      "cluster:\n"
      "  fabric: {nics_per_node: 4, nic_bandwidth: 100Gbit/s, tiers: [{name: leaf, nodes: 2}]}\n"
      "  node_groups:\n"
      "    - {name: gpu-a, count: 2, gpu: A10, topology: a10x4-pcie, labels: {pair: a}}\n"
      "    - {name: gpu-b, count: 2, gpu: A10, topology: a10x4-pcie, labels: {pair: b}}\n"
      "workload:\n"
      "  arrivals: {process: burst, count: 1}\n"
      "  jobs:\n"
      "    - {name: gang, pod: {gpus: 4, node_selector: {pair: a}}, replicas: 2,\n"
      "       gang: {mode: all-or-nothing}, model: resnet50, batch_size: 64, duration: 60m}\n"
      "policies: [default-k8s]\n"
      "run: {until: 30d}\n"
      "faults:\n"
      "  gang:\n"
      "    random: false\n"
      "    spares: 1\n"
      "    detection: 3m\n"
      "    rescheduling: 10m\n"
      "    loading: 2m\n"
      "    checkpoint: {interval: 10m, size: 1, bandwidth: 1TB/s}\n"
      "    components: {network_switch_cable: {per: leaf, repair: 30m}}\n"
      "    injected: [{at: 25m, node: gpu-a-01, component: network_switch_cable}]\n";
  const Seen seen = run(scenario_from("leaf", t));
  EXPECT_EQ(seen.of("gang", JobEventKind::kEvicted).size(), 2u);
  for (const auto& e : seen.events) {
    if (e.kind == JobEventKind::kBound) {
      EXPECT_TRUE(secs(e.at) < 1500.0 || secs(e.at) >= 3300.0) << e.pod << " at " << secs(e.at);
    }
  }
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 3300.0 + 900.0, 0.05);
  ASSERT_EQ(seen.lives.size(), 1u);
  int leaf = 0;
  for (const auto& [name, count] : seen.lives[0].unexpected) {
    leaf += name == "network_switch_cable" ? count : 0;
  }
  EXPECT_EQ(leaf, 1);
}

// Four nodes of 4 A10s under leaves of two nodes (gpu-01 and gpu-02 under leaf 0, gpu-03 and
// gpu-04 under leaf 1), the gang of two 4-GPU pods, a switch failure (`per: leaf`, repaired in
// 30 min) injected at 25 min on gpu-01 (none when `failure` is false); `spares` hot spares.
std::string leaf_text(const std::string& on_failure, int spares, bool failure = true) {
  return "name: gang-leaves\n"
         "cluster:\n"
         "  fabric: {nics_per_node: 4, nic_bandwidth: 100Gbit/s, tiers: [{name: leaf, nodes: 2}]}\n"
         "  node_groups:\n"
         "    - {name: gpu, count: 4, gpu: A10, topology: a10x4-pcie}\n"
         "workload:\n"
         "  arrivals: {process: burst, count: 1}\n"
         "  jobs:\n"
         "    - {name: gang, pod: {gpus: 4}, replicas: 2, gang: {mode: all-or-nothing},\n"
         "       model: resnet50, batch_size: 64, duration: 60m}\n"
         "policies: [default-k8s]\n"
         "run: {until: 30d}\n"
         "faults:\n"
         "  gang:\n"
         "    random: false\n"
         "    on_failure: " +
         on_failure + "\n    spares: " + std::to_string(spares) +
         "\n"
         "    detection: 3m\n"
         "    rescheduling: 10m\n"
         "    replacement: 2m\n"
         "    loading: 2m\n"
         "    checkpoint: {interval: 10m, size: 1, bandwidth: 1TB/s}\n"
         "    components: {network_switch_cable: {per: leaf, repair: 30m}}\n" +
         (failure ? "    injected: [{at: 25m, node: gpu-01, component: network_switch_cable}]\n"
                  : "");
}

// The gang is placed on gpu-01 and gpu-02, both under leaf 0, so the failure loses both of its
// nodes. With two spares each lost node gets its own: both pods are replaced through the
// scheduler on gpu-03 and gpu-04 (the only healthy nodes), and the gang restarts once both are
// bound: 1,500 + 180 (detection) + 0 + 120 (loading) = 1,800 s, ending W - 1,200 s later
// (checkpoints at 600 s and 1,200 s of compute hold 1,200 s). With one spare not every lost
// node finds one: the whole gang is evicted and requeued, placed at once on gpu-03 and gpu-04,
// and starts after detection, rescheduling and loading: 1,500 + 900 s. replace_node finds no
// idle node in the lost nodes' rack (the leaf is the rack: both are down): the whole gang too.
TEST(GangRun, ALeafFailureReplacesEveryLostNodeOrFallsBackToTheWholeGang) {
  const Seen base = run(scenario_from("leaf-base", leaf_text("spare", 2, false)));
  const double work = secs(base.of("gang", JobEventKind::kSucceeded).at(0)->at) -
                      secs(base.of("gang", JobEventKind::kStarted).at(0)->at);
  const Seen spared = run(scenario_from("leaf-spares", leaf_text("spare", 2)));
  const auto bound = spared.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 4u);
  EXPECT_EQ(bound[0]->node, "gpu-01");
  EXPECT_EQ(bound[1]->node, "gpu-02");
  const double start = secs(spared.of("gang", JobEventKind::kStarted).at(0)->at);
  const auto evicted = spared.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 2u);
  EXPECT_DOUBLE_EQ(secs(evicted[0]->at), 1500.0);
  // The replacements, bound one scheduling cycle after the failure, one on each spare.
  EXPECT_NEAR(secs(bound[2]->at), 1500.0, 0.05);
  EXPECT_NEAR(secs(bound[3]->at), 1500.0, 0.05);
  EXPECT_EQ((std::set<std::string>{bound[2]->node, bound[3]->node}),
            (std::set<std::string>{"gpu-03", "gpu-04"}));
  const auto started = spared.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 1800.0, 0.05);
  EXPECT_NEAR(secs(spared.of("gang", JobEventKind::kSucceeded).at(0)->at), 1800.0 + work - 1200.0,
              0.1);
  ASSERT_EQ(spared.lives.size(), 1u);
  EXPECT_NEAR(spared.lives[0].lost_work, 300.0 - start, 1e-6);
  EXPECT_NEAR(spared.lives[0].detection, 180.0, 1e-6);
  EXPECT_NEAR(spared.lives[0].restart, 120.0, 0.05);

  for (const auto& [on_failure, spares] :
       {std::pair<std::string, int>{"spare", 1}, {"replace_node", 2}}) {
    const Seen whole = run(scenario_from("leaf-" + on_failure, leaf_text(on_failure, spares)));
    EXPECT_EQ(whole.of("gang", JobEventKind::kEvicted).size(), 2u) << on_failure;
    const auto again = whole.of("gang", JobEventKind::kStarted);
    ASSERT_EQ(again.size(), 2u) << on_failure;
    EXPECT_NEAR(secs(again[1]->at), 1500.0 + 900.0, 0.05) << on_failure;
    for (const auto* b : whole.of("gang", JobEventKind::kBound)) {
      if (secs(b->at) >= 1500.0) {
        EXPECT_TRUE(b->node == "gpu-03" || b->node == "gpu-04") << on_failure << " " << b->node;
      }
    }
  }
}

// The replica index of a pod named <job>-<replica>-<attempt>.
int replica_of(const std::string& pod) {
  const std::size_t last = pod.rfind('-');
  const std::size_t first = pod.rfind('-', last - 1);
  return std::stoi(pod.substr(first + 1, last - first - 1));
}

// Volcano's RestartPartition: five nodes, a gang of four 4-GPU pods in two partitions of two
// (pods 0 and 1, pods 2 and 3: Volcano's partition ix / partitionSize), a faulty GPU injected at
// 25 min on pod 0's node. Only partition 0 restarts: pods 0 and 1 are evicted and queued afresh
// (no node named), placed at once on the idle fifth node and pod 1's freed node (the failed node
// is down); pods 2 and 3 keep their nodes (no eviction, no new binding). The synchronous gang
// stalls meanwhile and every rank goes back to the checkpoint: it restarts after detection,
// rescheduling and loading, 1,500 + 180 + 600 + 120 = 2,400 s, ending W - 1,200 s later.
// restart_gang evicts all four.
TEST(GangRun, RestartPartitionRestartsOnlyTheFailedPodsPartition) {
  std::string t = text(5, "restart_partition", "");
  t.replace(t.find("replicas: 2"), 11, "replicas: 4");
  t.replace(t.find("    spares: 1\n"), 14, "    partition_size: 2\n");
  const Seen base = run(scenario_from("partition-base", t));
  const auto first = base.of("gang", JobEventKind::kBound);
  ASSERT_EQ(first.size(), 4u);
  std::map<int, std::string> node_of;  // replica -> node
  for (const auto* b : first) {
    node_of[replica_of(b->pod)] = b->node;
  }
  const double start = secs(base.of("gang", JobEventKind::kStarted).at(0)->at);
  const double work = secs(base.of("gang", JobEventKind::kSucceeded).at(0)->at) - start;

  const Seen seen = run(scenario_from("partition", t + inject(node_of[0])));
  const auto evicted = seen.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 2u);
  EXPECT_EQ((std::set<int>{replica_of(evicted[0]->pod), replica_of(evicted[1]->pod)}),
            (std::set<int>{0, 1}));
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 6u);
  for (std::size_t i = 4; i < 6; ++i) {
    EXPECT_NEAR(secs(bound[i]->at), 1500.0, 0.05);
    EXPECT_LT(replica_of(bound[i]->pod), 2);
    EXPECT_NE(bound[i]->node, node_of[0]);  // the failed node is down
    EXPECT_NE(bound[i]->node, node_of[2]);  // partition 1 keeps its nodes
    EXPECT_NE(bound[i]->node, node_of[3]);
  }
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 2400.0, 0.05);
  const double end = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at);
  EXPECT_NEAR(end, 2400.0 + work - 1200.0, 0.1);
  ASSERT_EQ(seen.lives.size(), 1u);
  EXPECT_NEAR(seen.lives[0].lost_work, 300.0 - start, 1e-6);
  EXPECT_NEAR(seen.lives[0].restart, 720.0, 0.05);

  std::string gang = t + inject(node_of[0]);
  gang.replace(gang.find("restart_partition"), 17, "restart_gang");
  gang.replace(gang.find("    partition_size: 2\n"), 22, "");
  const Seen whole = run(scenario_from("partition-gang", gang));
  EXPECT_EQ(whole.of("gang", JobEventKind::kEvicted).size(), 4u);
  EXPECT_NEAR(secs(whole.of("gang", JobEventKind::kStarted).at(1)->at), 2400.0, 0.05);
}

TEST(GangRun, RestartPartitionTakesTheGangsOwnPartitionPolicy) {
  // The gang's own partitionPolicy (one pod per partition) wins over faults.gang.partition_size
  // (two): only the failed node's pod restarts.
  std::string t = text(5, "restart_partition", "");
  t.replace(t.find("replicas: 2"), 11, "replicas: 4");
  t.replace(t.find("gang: {mode: all-or-nothing}"), 28,
            "gang: {mode: all-or-nothing, partition_policy: {total_partitions: 4, "
            "partition_size: 1}}");
  t.replace(t.find("    spares: 1\n"), 14, "    partition_size: 2\n");
  const Seen base = run(scenario_from("own-partition-base", t));
  std::map<int, std::string> node_of;  // replica -> node
  for (const auto* b : base.of("gang", JobEventKind::kBound)) {
    node_of[replica_of(b->pod)] = b->node;
  }
  ASSERT_EQ(node_of.size(), 4u);
  const Seen seen = run(scenario_from("own-partition", t + inject(node_of[0])));
  const auto evicted = seen.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(replica_of(evicted[0]->pod), 0);
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 5u);
  EXPECT_EQ(replica_of(bound[4]->pod), 0);
  EXPECT_NE(bound[4]->node, node_of[0]);  // the failed node is down
}

TEST(GangRun, InjectedFailureErrors) {
  const std::string bad_node = test::message_of([] {
    scenario_from(
        "bad-node",
        text(3, "spare", "    injected: [{at: 1m, node: nope, component: faulty_gpu}]\n"));
  });
  EXPECT_NE(bad_node.find("faults.gang.injected[0].node"), std::string::npos) << bad_node;
  EXPECT_NE(bad_node.find("no node is called 'nope'"), std::string::npos) << bad_node;
  const std::string bad_component = test::message_of([] {
    scenario_from("bad-component",
                  text(3, "spare", "    injected: [{at: 1m, node: gpu-01, component: gpu}]\n"));
  });
  EXPECT_NE(bad_component.find("faults.gang.injected[0].component"), std::string::npos)
      << bad_component;
  EXPECT_NE(bad_component.find("no component is called 'gpu'"), std::string::npos) << bad_component;
}

}  // namespace
}  // namespace tidesim
