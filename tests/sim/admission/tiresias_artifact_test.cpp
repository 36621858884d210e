// Tiresias as the Pollux artifact runs it (sim/admission/tiresias_artifact.hpp): its rounds, its
// queue walk and its greedy placement, worked by hand on three jobs and four GPUs.
#include "tidesim/sim/admission/tiresias_artifact.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>

#include "tests/sim/admission/two_nodes.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;
using Names = std::vector<std::string>;

JobView job(int id, int gpus, bool admitted = false) {
  JobView j = testing::job_view(id);
  j.gpus = gpus;
  j.admitted = admitted;
  return j;
}

using testing::two_nodes;

JobPolicyState state_at(TimePoint now, std::vector<JobView> jobs, const ClusterView& cluster) {
  JobPolicyState s;
  s.now = now;
  s.jobs = std::move(jobs);
  s.capacity_gpus = 4;
  s.cluster = &cluster;
  return s;
}

AdmissionConfig config(std::vector<double> thresholds = {57'600.0}) {
  AdmissionConfig c;
  c.policy = "tiresias-artifact";
  c.thresholds = std::move(thresholds);
  return c;
}

// A (3 GPUs), B (2) and C (1) arrive in that order on 2 x 2 GPUs; the first round is at 60 s.
TEST(TiresiasArtifact, DecidesOnlyAtRounds) {
  const ClusterView cluster = two_nodes();
  TiresiasArtifactPolicy p(config());
  // At 30 s (between rounds) nothing is admitted although all four GPUs are free; the next
  // decision is due at the round, 30 s later.
  const JobDecision d30 = p.decide(state_at(TimePoint(30s), {job(0, 3)}, cluster));
  EXPECT_TRUE(d30.run.empty());
  EXPECT_EQ(p.interval(), Duration(30s));
  // At 60 s: queue 0 is A, B, C. A fits (3 of 4, 1 left), B (2) does not and is walked past,
  // C (1) takes the last GPU.
  const JobDecision d60 =
      p.decide(state_at(TimePoint(60s), {job(0, 3), job(1, 2), job(2, 1)}, cluster));
  EXPECT_EQ(d60.run, (std::vector<int>{0, 2}));
  EXPECT_EQ(p.interval(), Duration(60s));
  // At 90 s A ended: its GPUs stay idle until the next round; C keeps its own.
  const JobDecision d90 = p.decide(state_at(TimePoint(90s), {job(1, 2), job(2, 1, true)}, cluster));
  EXPECT_EQ(d90.run, (std::vector<int>{2}));
  EXPECT_TRUE(d90.nodes.empty());
}

TEST(TiresiasArtifact, PlacesGreedilyOnTheNodesWithMostFreeGpus) {
  const ClusterView cluster = two_nodes();
  TiresiasArtifactPolicy p(config());
  const JobDecision d =
      p.decide(state_at(TimePoint(60s), {job(0, 3), job(1, 2), job(2, 1)}, cluster));
  // A: both nodes have 2 free; the first of them (node-a) gives 2, then node-b 1.
  EXPECT_EQ(p.planned(0), (std::map<int, int>{{0, 2}, {1, 1}}));
  EXPECT_EQ(d.nodes.at(0), (Names{"node-a", "node-b"}));
  // C: node-b's last GPU. node-a and node-b had the same free GPUs before A, so the framework may
  // have filled either: C's hint names both (the one with a GPU left is the one it fits).
  EXPECT_EQ(p.planned(2), (std::map<int, int>{{1, 1}}));
  EXPECT_EQ(d.nodes.at(2), (Names{"node-a", "node-b"}));
}

// The pods (the job's ranks) list the nodes in the order the job took them, as the artifact's
// allocation does (the order its measured placement is read in, workloads/pollux.hpp): on nodes
// of 1, 3 and 2 free GPUs a 6-GPU job takes node-b (3), node-c (2), then node-a (1).
TEST(TiresiasArtifact, PodsListTheNodesInTheOrderTaken) {
  ClusterView cluster;
  for (const auto& [name, gpus] : {std::pair{"node-a", 1}, {"node-b", 3}, {"node-c", 2}}) {
    NodeInfo n;
    n.node.name = name;
    n.node.allocatable.gpus = gpus;
    cluster.nodes.push_back(n);
  }
  TiresiasArtifactPolicy p(config());
  JobPolicyState s = state_at(TimePoint(60s), {job(0, 6)}, cluster);
  s.capacity_gpus = 6;
  const JobDecision d = p.decide(s);
  EXPECT_EQ(d.pod_nodes.at(0), (Names{"node-b", "node-b", "node-b", "node-c", "node-c", "node-a"}));
}

TEST(TiresiasArtifact, DemotesAtTheThresholdAndKeepsWhatTheKeptJobsHold) {
  const ClusterView cluster = two_nodes();
  // One threshold of 120 GPU-s.
  TiresiasArtifactPolicy p(config({120.0}));
  ASSERT_EQ(p.decide(state_at(TimePoint(60s), {job(0, 3), job(1, 2), job(2, 1)}, cluster)).run,
            (std::vector<int>{0, 2}));
  // At 120 s A has 60 s x 3 GPUs = 180 GPU-s >= 120: queue 1. C has 60 GPU-s: queue 0, before
  // B. Walk: B (2 of 4), C (1, 1 left), A (3) does not fit: A is suspended.
  const JobDecision d =
      p.decide(state_at(TimePoint(120s), {job(0, 3, true), job(1, 2), job(2, 1, true)}, cluster));
  EXPECT_EQ(d.run, (std::vector<int>{1, 2}));
  EXPECT_EQ(p.queues().entry(0).queue, 1);
  EXPECT_EQ(p.queues().entry(2).queue, 0);
  // C keeps node-b's GPU (its plan: no pod of it is bound in this hand-built cluster); A's are
  // free again, so node-a has 2 free, node-b 1: B takes node-a's 2.
  EXPECT_EQ(p.planned(0), (std::map<int, int>{}));
  EXPECT_EQ(p.planned(1), (std::map<int, int>{{0, 2}}));
  EXPECT_EQ(d.nodes.at(1), (Names{"node-a"}));
  EXPECT_EQ(d.nodes.count(2), 0u) << "a kept job gets no new hint";
}

TEST(TiresiasArtifact, BoundPodsOverrideThePlan) {
  // C (1 GPU, admitted) has its pod bound on node-a, not where a plan would put it.
  ClusterView cluster = two_nodes();
  auto pod = std::make_shared<PodSpec>();
  pod->name = "job-2-0";
  pod->labels[kJobLabel] = "job-2";
  pod->requests.gpus = 1;
  cluster.nodes[0].add_pod(pod);
  TiresiasArtifactPolicy p(config());
  // B (2 GPUs) arrives: node-a has 1 free, node-b 2: B goes to node-b.
  const JobDecision d = p.decide(state_at(TimePoint(60s), {job(1, 2), job(2, 1, true)}, cluster));
  EXPECT_EQ(d.run, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.nodes.at(1), (Names{"node-b"}));
}

TEST(TiresiasArtifact, EachDifferenceCanBeTurnedOff) {
  const ClusterView cluster = two_nodes();
  AdmissionConfig c = config();
  c.typed_args = ArtifactArgs{.rounds = false, .artifact_placement = false};
  TiresiasArtifactPolicy p(c);
  // Without rounds it decides at 30 s; without placement it names no node.
  const JobDecision d = p.decide(state_at(TimePoint(30s), {job(0, 3), job(1, 2)}, cluster));
  EXPECT_EQ(d.run, (std::vector<int>{0}));
  EXPECT_TRUE(d.nodes.empty());
  EXPECT_EQ(p.interval(), Duration(60s));
  // Its args are read by decode_artifact_args, each error at its field.
  const auto decode = [](const std::string& yaml) {
    Fields f(load_yaml_string(yaml, "args.yaml"), "args.yaml", "args");
    const ArtifactArgs a = decode_artifact_args(f);
    f.finish();
    return a;
  };
  EXPECT_FALSE(decode("{placement: framework}").artifact_placement);
  EXPECT_TRUE(decode("{}").rounds);
  EXPECT_THROW(decode("{rounds: yes}"), InputError);
  EXPECT_THROW(decode("{placment: artifact}"), InputError);
}

TEST(TiresiasArtifact, IsRegistered) {
  const auto entry = find_job_policy("tiresias-artifact");
  ASSERT_TRUE(entry.has_value());
  EXPECT_TRUE(entry->consolidate_by_default);
  EXPECT_EQ(make_job_policy(config())->name(), "tiresias-artifact");
}

}  // namespace
}  // namespace tidesim
