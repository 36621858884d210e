// Jobs of two PodSets in runs (workloads::JobSpec::leader): hand-worked runs on
// tests/sim/data/tas-run.yaml (four one-GPU nodes of 32 CPUs, racks gpu-01/gpu-02 in leaf-0000
// and gpu-03/gpu-04 in leaf-0001) with a gang G of 2 one-GPU workers and a CPU-only leader,
// after one-pod fillers pinned to a node; the quota a leader adds; Kueue's webhook on groups;
// and the Kueue scheduler case of two PodSets placed one after the other.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/gang_run.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

constexpr const char* kRequired = "kueue.x-k8s.io/podset-required-topology";
constexpr const char* kGroup = "kueue.x-k8s.io/podset-group-name";
constexpr const char* kLeaf = "network.topology.nvidia.com/leaf";

using test::Filler;

struct Outcome : test::TopologyGangOutcome {
  std::string leader_node;  // where G's leader pod was bound
};

// G (2 workers of 1 GPU, 100 s, all-or-nothing) with a leader of `leader_cpus` CPUs and no GPU,
// submitted at 1 s after the fillers; `annotations` on the workers' template, which the leader
// shares (a mix entry's `leader:` starts from the workers' template).
Outcome run_group(const std::string& policy, const std::map<std::string, std::string>& annotations,
                  const std::vector<Filler>& fillers, std::int64_t leader_cpus = 4,
                  const std::map<std::string, std::string>& leader_selector = {}) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  Workload w = test::gang_after_fillers(s, fillers);
  workloads::JobSpec& g = w.jobs.back();
  for (const auto& [k, v] : annotations) {
    g.pod_template.annotations[k] = v;
  }
  PodSpec leader = g.pod_template;
  leader.requests = Resources{};
  leader.requests.cpu_milli = leader_cpus * 1000;
  for (const auto& [k, v] : leader_selector) {
    leader.node_selector[k] = v;
  }
  g.leader = leader;
  RunSignals signals;
  Outcome o;
  signals.job.connect([&o](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound && e.pod.starts_with("G-leader-")) {
      o.leader_node = e.node;
    }
  });
  test::run_recording_topology(s, w, policy, signals, o);
  return o;
}

constexpr double kTol = 1.0;

TEST(PodSetGroupRun, ARequiredGroupLandsInOneRackWithBothPodSets) {
  // F1 holds gpu-02's GPU: leaf-0000 has room for 1 worker, leaf-0001 for 2. The group (workers
  // and leader, required leaf) is placed as one: only leaf-0001 holds both workers, so the
  // leader goes there too (it would fit in either leaf by its CPUs). G's three pods bind at 1 s.
  const Outcome o =
      run_group("required-leaf", {{kRequired, kLeaf}, {kGroup, "lws"}}, {{"gpu-02", 3}});
  EXPECT_EQ(o.summary.succeeded, 2);
  // Inside the leaf the two hosts tie for the leader (one worker each, 32 free CPUs each):
  // sortedDomainsWithLeader ends on the level values, so gpu-03 takes it.
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-03", "gpu-03", "gpu-04"}));
  EXPECT_EQ(o.leader_node, "gpu-03");
  EXPECT_NEAR(o.bound_s.at("G"), 1.0, kTol);
  ASSERT_EQ(o.topology.size(), 1U);
  EXPECT_TRUE(o.topology[0].admitted);
  // Its span over the three pods: 1 leaf.
  ASSERT_EQ(o.topology[0].span.size(), 3U);
  EXPECT_EQ(o.topology[0].span[1], (std::pair<std::string, int>{kLeaf, 1}));
}

TEST(PodSetGroupRun, AGroupThatDoesNotFitWaitsWithKueuesReason) {
  // F1 holds gpu-02 for 100 s, F2 gpu-04 for 300 s: each leaf has room for 1 of the 2 workers.
  // The group waits with Kueue's reason until F1 ends at 100 s; then
  // leaf-0000 holds it: the workers bind on gpu-01 and gpu-02 and the leader on gpu-01, having
  // waited 99 s for the topology.
  const Outcome o = run_group("required-leaf", {{kRequired, kLeaf}, {kGroup, "lws"}},
                              {{"gpu-02", 1}, {"gpu-04", 3}});
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_EQ(o.nodes.at("G"), (std::multiset<std::string>{"gpu-01", "gpu-01", "gpu-02"}));
  EXPECT_EQ(o.leader_node, "gpu-01");  // the hosts tie, as in the test above
  EXPECT_NEAR(o.bound_s.at("G"), 100.0, kTol);
  ASSERT_EQ(o.topology.size(), 2U);
  EXPECT_FALSE(o.topology[0].admitted);
  // pkg/cache/scheduler/tas_flavor_snapshot.go's notFitMessage for the workers' 2 pods (the
  // group's reason, which both PodSets get), in the Workload's message
  // (flavorassigner.go, Assignment.Message): every PodSet that does not fit, leader first.
  const std::string why =
      "topology \"default\" allows to fit only 1 out of 2 pod(s). Total nodes: 4; excluded: "
      "resource \"nvidia.com/gpu\": 2";
  EXPECT_EQ(o.topology[0].reason, "couldn't assign flavors to pod set leader: " + why +
                                      "; couldn't assign flavors to pod set worker: " + why);
  EXPECT_TRUE(o.topology[1].admitted);
  EXPECT_NEAR(o.topology[1].topology_wait_s, 99.0, kTol);
}

TEST(PodSetGroupRun, TheGangHoldsTheWorkersUntilTheLeaderIsPlaced) {
  // No topology. F1 asks 20 of gpu-02's 32 CPUs (and its GPU) for 100 s; G's leader asks 20
  // CPUs on gpu-02 (a node selector). The workers fit at 1 s on gpu-01 and gpu-03, but the
  // all-or-nothing gang counts the leader too (min_member 3): nothing of G binds before F1
  // ends at 100 s, then all three pods bind together, the leader on gpu-02.
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  Workload w = test::gang_after_fillers(s, {{"gpu-02", 1}});
  w.jobs[0].pod_template.requests.cpu_milli = 20'000;
  workloads::JobSpec& g = w.jobs.back();
  PodSpec leader = g.pod_template;
  leader.requests = Resources{};
  leader.requests.cpu_milli = 20'000;
  leader.node_selector["kubernetes.io/hostname"] = "gpu-02";
  g.leader = leader;
  RunSignals signals;
  std::vector<double> bound;
  std::string leader_node;
  signals.job.connect([&bound, &leader_node](const JobEvent& e) {
    if (e.kind == JobEventKind::kBound && e.job == "G") {
      bound.push_back(to_seconds(e.at));
      if (e.pod.starts_with("G-leader-")) {
        leader_node = e.node;
      }
    }
  });
  test::GangOutcome o;
  test::run_recording_binds(s, w, "no-topology", signals, o);
  EXPECT_EQ(o.summary.succeeded, 2);
  ASSERT_EQ(bound.size(), 3U);
  for (const double t : bound) {
    EXPECT_NEAR(t, 100.0, kTol);
  }
  EXPECT_EQ(leader_node, "gpu-02");
}

TEST(PodSetGroupRun, QuotaRequestsAreSummedOverThePodSets) {
  // 3 workers of 2 GPUs, 1 CPU, 4 GiB and a leader of 4 CPUs, 16 GiB: Kueue charges the sum of
  // the two PodSets' requests (workload.PodSetRequest per PodSet, summed by the flavor assigner).
  QuotaConfig q;
  q.resources = {kGpuResource, "cpu", "memory", "pods"};
  workloads::JobSpec job;
  job.replicas = 3;
  job.pod_template.requests.gpus = 2;
  job.pod_template.requests.cpu_milli = 1000;
  job.pod_template.requests.memory_bytes = 4LL << 30;
  PodSpec leader;
  leader.requests.cpu_milli = 4000;
  leader.requests.memory_bytes = 16LL << 30;
  job.leader = leader;
  EXPECT_EQ(quota_requests(q, job),
            (std::vector<std::int64_t>{6, 3 * 1000 + 4000, 3 * (4LL << 30) + (16LL << 30), 4}));
}

// Kueue's webhook on groups (jobframework/tas_validation.go, ValidatePodSetGroupingTopology),
// refused when the run loads with the job named.
TEST(PodSetGroupRun, KueuesWebhookRefusesBadGroups) {
  const Scenario s = load_scenario("tests/sim/data/tas-run.yaml");
  struct Case {
    std::map<std::string, std::string> leader_annotations;
    std::string want;
  };
  for (const Case& c : std::vector<Case>{
           {{{kGroup, "other"}},
            "kueue.x-k8s.io/podset-group-name: can only define groups of exactly 2 pod sets, "
            "got: 1 pod set(s)"},
           {{{kRequired, "kubernetes.io/hostname"}},
            "kueue.x-k8s.io/podset-group-name: must specify "
            "'kueue.x-k8s.io/podset-required-topology' or "
            "'kueue.x-k8s.io/podset-preferred-topology' topology consistent with the other pod "
            "set in group 'lws'"}}) {
    Workload w = make_jobs(s, 1);
    workloads::JobSpec& j = w.jobs[0];
    j.pod_template.annotations = {{kRequired, kLeaf}, {kGroup, "lws"}};
    PodSpec leader = j.pod_template;
    leader.requests = Resources{};
    for (const auto& [k, v] : c.leader_annotations) {
      leader.annotations[k] = v;
    }
    j.leader = leader;
    RunSignals signals;
    try {
      run_policy(s, w, s.policies[0], 1, signals);
      ADD_FAILURE() << "expected an InputError: " << c.want;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.want), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("job '" + j.name + "'"), std::string::npos) << e.what();
    }
  }
}

// tests/sim/data/tas-run.yaml with `from` replaced by `to`, loaded: the InputError's text.
std::string load_error(const std::string& from, const std::string& to) {
  std::ifstream in("tests/sim/data/tas-run.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::size_t at = yaml.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  yaml.replace(at, from.size(), to);
  yaml.replace(yaml.find("../../topologies"), 16,
               std::filesystem::absolute("tests/topologies").string());
  const std::string path = test::temp_file("podset-group-error", yaml);
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(PodSetGroupInput, ALeaderIsReadWithItsTemplate) {
  // The leader starts from the workers' template (the queue label, the required level) without
  // its requests and slice annotations; its own fields apply on top.
  const std::string path = [] {
    std::ifstream in("tests/sim/data/tas-run.yaml");
    std::stringstream text;
    text << in.rdbuf();
    std::string yaml = text.str();
    yaml.replace(yaml.find("      model: resnet50"), 0,
                 "      leader: {cpu: 4, memory: 8Gi, labels: {role: leader}}\n");
    const std::string labels = "labels: {kueue.x-k8s.io/queue-name: team}";
    yaml.replace(yaml.find(labels) + labels.size(), 0,
                 ", annotations: {kueue.x-k8s.io/podset-required-topology: "
                 "network.topology.nvidia.com/leaf, "
                 "kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname, "
                 "kueue.x-k8s.io/podset-slice-size: '2'}");
    yaml.replace(yaml.find("../../topologies"), 16,
                 std::filesystem::absolute("tests/topologies").string());
    return test::temp_file("podset-group-ok", yaml);
  }();
  const Scenario s = load_scenario(path);
  const Workload w = make_jobs(s, 1);
  ASSERT_TRUE(w.jobs[0].leader.has_value());
  const PodSpec& leader = *w.jobs[0].leader;
  EXPECT_EQ(leader.requests.cpu_milli, 4000);
  EXPECT_EQ(leader.requests.memory_bytes, 8LL << 30);
  EXPECT_EQ(leader.requests.gpus, 0);
  EXPECT_EQ(leader.labels.at("kueue.x-k8s.io/queue-name"), "team");
  EXPECT_EQ(leader.labels.at("role"), "leader");
  EXPECT_FALSE(w.jobs[0].pod_template.labels.contains("role"));
  EXPECT_EQ(leader.annotations,
            (std::map<std::string, std::string>{
                {"kueue.x-k8s.io/podset-required-topology", "network.topology.nvidia.com/leaf"}}));
  EXPECT_EQ(w.jobs[0].pod_template.annotations.size(), 3U);
}

TEST(PodSetGroupInput, BadLeadersAreRefusedWithTheirPlace) {
  // The job entry's `model: resnet50` is at line 26 of tas-run.yaml; the leader is put before
  // it, at line 26, column 7: a refused request is named at its value, an unknown key at the
  // key, a leader that is no mapping at itself.
  for (const auto& [leader, want] : std::vector<std::pair<std::string, std::string>>{
           {"leader: {cpu: 4, gpus: 1}",
            ":26:30: workload.jobs[0].leader.gpus: a leader coordinates and computes nothing: it "
            "asks no GPUs"},
           {"leader: {cpu: 4, gpu_milli: 500}",
            ":26:35: workload.jobs[0].leader.gpu_milli: a leader coordinates"},
           {"leader: {cpus: 4}", ":26:16: workload.jobs[0].leader.cpus: unknown key"},
           {"leader: 4", ":26:15: workload.jobs[0].leader: "}}) {
    const std::string got =
        load_error("      model: resnet50", "      " + leader + "\n      model: resnet50");
    EXPECT_NE(got.find("podset-group-error"), std::string::npos) << got;
    EXPECT_NE(got.find(want), std::string::npos) << got;
  }
}

// kubernetes-sigs/kueue @ff69552, pkg/scheduler/scheduler_tas_test.go, TestScheduleForTASCohorts,
// "workload with two PodSets exceeds node pods capacity": node x1 (2 CPUs, 1 pod), two PodSets
// of one 1-CPU pod each, both required at the hostname. The first takes the node's only pod
// slot; the second does not fit (Kueue: "couldn't assign flavors to pod set two: ..."). On the
// library, as a run places a job's two PodSets: a run's node has kubelet's 110 pods.
TEST(PodSetGroupKueueCases, TwoPodSetsExceedNodePodsCapacity) {
  tas::TasNode x1;
  x1.name = "x1";
  x1.labels = {{"tas-node", "true"}, {"kubernetes.io/hostname", "x1"}};
  x1.allocatable = {{"cpu", 2000}, {"pods", 1}};
  tas::TasSnapshot snapshot("tas-single-level", {"kubernetes.io/hostname"}, {x1}, {});
  std::vector<tas::TasPodSet> podsets;
  for (const char* name : {"one", "two"}) {
    tas::TasPodSet ps;
    ps.name = name;
    ps.count = 1;
    ps.requests = {{"cpu", 1000}};
    ps.topology = tas::TopologyRequest{};
    ps.topology->required = "kubernetes.io/hostname";
    podsets.push_back(ps);
  }
  const std::vector<tas::PodSetResult> got = snapshot.find_assignments(podsets, {});
  ASSERT_EQ(got.size(), 2U);
  EXPECT_TRUE(got[0].admitted());
  EXPECT_EQ(got[1].name, "two");
  EXPECT_EQ(got[1].reason,
            "topology \"tas-single-level\" doesn't allow to fit any of 1 pod(s). Total nodes: 1; "
            "excluded: resource \"pods\": 1");
}

}  // namespace
}  // namespace tidesim
