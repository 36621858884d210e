// Pollux' scheduler (sim/admission/pollux.hpp) and its allocation search
// (sim/admission/pollux_search.hpp), worked by hand on three jobs and four GPUs.
#include "tidesim/sim/admission/pollux.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "tests/sim/admission/two_nodes.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// Two nodes of two GPUs; job j's speedup is `weights[j]` x replicas (any nodes).
PolluxProblem problem(std::vector<double> weights, PolluxState base) {
  PolluxProblem p;
  p.jobs = static_cast<int>(weights.size());
  p.nodes = 2;
  p.node_gpus = {2, 2};
  p.max_replicas.assign(weights.size(), 4);
  p.base = std::move(base);
  p.restart_factor.assign(weights.size(), 1.0);
  p.speedup = [weights](int j, int, int r) { return weights[static_cast<std::size_t>(j)] * r; };
  return p;
}

TEST(PolluxSearch, TheValueIsThePowerMeanOfScaledSpeedups) {
  PolluxProblem p = problem({1.0, 0.5}, {2, 0, 0, 2});
  // N / G = 2 / 4. Job 0 on 2 GPUs: 2 x 0.5 = 1; job 1 on 2: 0.5 x 2 x 0.5 = 0.5. p = -1:
  // ((1/1.001 + 1/0.501) / 2)^-1.
  EXPECT_NEAR(p.value({2, 0, 0, 2}), 1.0 / ((1.0 / 1.001 + 1.0 / 0.501) / 2.0), 1e-12);
  // A job whose row changes pays its restart factor: job 1 moved to node 0 with factor 0.25.
  p.restart_factor = {1.0, 0.25};
  EXPECT_NEAR(p.value({0, 2, 2, 0}), 1.0 / ((1.0 / 1.001 + 1.0 / (0.125 + 0.001)) / 2.0), 1e-12);
  // p = 0: the geometric mean.
  p.p = 0;
  EXPECT_NEAR(p.value({2, 0, 0, 2}), std::sqrt(1.0 * 0.5), 1e-12);
}

TEST(PolluxSearch, RepairKeepsOneDistributedJobPerNodeTheCapsAndTheGpus) {
  PolluxProblem p = problem({1, 1, 1}, PolluxState(6, 0));
  RandomStream rng(7);
  // Jobs 0 and 1 both span both nodes: job 0 (first) keeps them, job 1 loses both entries.
  PolluxState x = {1, 1, 1, 1, 0, 0};
  pollux_repair(p, x, rng);
  EXPECT_EQ(x, (PolluxState{1, 1, 0, 0, 0, 0}));
  // Node 0 holds 2 GPUs: job 0 takes 2, job 2 (later in job order) what is left, none.
  x = {2, 0, 0, 0, 2, 0};
  pollux_repair(p, x, rng);
  EXPECT_EQ(x, (PolluxState{2, 0, 0, 0, 0, 0}));
  // A job over its cap loses replicas down to it.
  p.max_replicas = {1, 4, 4};
  x = {2, 0, 0, 0, 0, 0};
  pollux_repair(p, x, rng);
  EXPECT_EQ(x, (PolluxState{1, 0, 0, 0, 0, 0}));
}

// Issue 46, item 1: a replica of a job whose pods take two GPUs takes two of its node's GPUs.
TEST(PolluxSearch, MultiGpuPodsRepairCountsGpusNotReplicas) {
  PolluxProblem p = problem({1, 1, 1}, PolluxState(6, 0));
  p.replica_gpus = {2, 2, 1};
  RandomStream rng(7);
  // Node 0 (2 GPUs) holds one 2-GPU replica: job 0 keeps one of its two, job 1 none, job 2 none.
  PolluxState x = {2, 0, 1, 0, 1, 0};
  pollux_repair(p, x, rng);
  EXPECT_EQ(x, (PolluxState{1, 0, 0, 0, 0, 0}));
  // The search never gives a node more GPUs than it has.
  const std::vector<PolluxState> pop = pollux_search(p, {}, PolluxSearchConfig{}, rng);
  for (const PolluxState& s : pop) {
    for (int n = 0; n < 2; ++n) {
      int gpus = 0;
      for (int j = 0; j < 3; ++j) {
        gpus += s[static_cast<std::size_t>(j * 2 + n)] * p.gpus_per_replica(j);
      }
      EXPECT_LE(gpus, 2) << "node " << n;
    }
  }
}

// Every allocation of three jobs over two 2-GPU nodes that repair leaves as it is: the best value
// by brute force.
double best_by_brute_force(const PolluxProblem& p) {
  double best = 0;
  RandomStream rng(1);
  for (int code = 0; code < 729; ++code) {  // 3^6: each entry 0, 1 or 2
    PolluxState x(6);
    int c = code;
    for (int& v : x) {
      v = c % 3;
      c /= 3;
    }
    PolluxState fixed = x;
    pollux_repair(p, fixed, rng);
    if (fixed == x) {
      best = std::max(best, p.value(x));
    }
  }
  return best;
}

TEST(PolluxSearch, FindsTheBestAllocationOfThreeJobsOnFourGpus) {
  // Linear speedups 1, 1 and 3: the power mean (p = -1) favours balance, weighted by the
  // speedups: the brute force says what is best; the search must reach it from nothing.
  const PolluxProblem p = problem({1.0, 1.0, 3.0}, PolluxState(6, 0));
  RandomStream rng(42);
  const std::vector<PolluxState> pop = pollux_search(p, {}, PolluxSearchConfig{}, rng);
  ASSERT_FALSE(pop.empty());
  EXPECT_DOUBLE_EQ(p.value(pop.front()), best_by_brute_force(p));
  // Every GPU is used (an idle GPU could always raise some job's speedup).
  EXPECT_EQ(std::accumulate(pop.front().begin(), pop.front().end(), 0), 4);
}

TEST(PolluxSearch, IsDeterministicForAStream) {
  const PolluxProblem p = problem({1.0, 2.0, 3.0}, PolluxState(6, 0));
  RandomStream a(5);
  RandomStream b(5);
  EXPECT_EQ(pollux_search(p, {}, {}, a), pollux_search(p, {}, {}, b));
}

JobView elastic(int id, double attained) {
  JobView j = testing::job_view(id);
  j.elastic = true;
  j.gpus = j.replicas = 1;
  j.min_replicas = 1;
  j.max_replicas = 8;
  j.min_batch = 128;
  j.max_batch = 4096;
  j.min_atomic_batch = 32;
  j.max_atomic_batch = 256;
  j.attained_gpu_s = attained;
  return j;
}

using testing::two_nodes;

AdmissionConfig config() {
  AdmissionConfig c;
  c.policy = "pollux";
  c.seed = 3;
  return c;
}

TEST(Pollux, UnmeasuredJobsGetOneGpuEachAndDecideOnlyAtRounds) {
  const ClusterView cluster = two_nodes();
  PolluxPolicy policy(config());
  JobPolicyState s;
  s.now = TimePoint(60s);
  s.jobs = {elastic(0, 0), elastic(1, 0), elastic(2, 0)};
  s.capacity_gpus = 4;
  s.cluster = &cluster;
  // Never measured: each job may take at most max(2 x 0, 1) = 1 GPU (the artifact lets a job
  // grow to twice what it was profiled on), so each gets one and one GPU stays free.
  const JobDecision d = policy.decide(s);
  EXPECT_EQ(d.run, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(d.replicas, (std::map<int, int>{{0, 1}, {1, 1}, {2, 1}}));
  for (const int j : d.run) {
    EXPECT_EQ(d.pod_nodes.at(j).size(), 1u);
  }
  EXPECT_TRUE(d.move.empty());
  // Between rounds the admitted jobs keep their GPUs.
  s.now = TimePoint(90s);
  s.jobs[0].admitted = true;
  EXPECT_EQ(policy.decide(s).run, (std::vector<int>{0}));
  EXPECT_EQ(policy.interval(), Duration(30s));
}

TEST(Pollux, LearnsFromTheJobsReports) {
  const ClusterView cluster = two_nodes();
  PolluxPolicy policy(config());
  JobPolicyState s;
  s.now = TimePoint(60s);
  JobView j = elastic(0, 120);
  j.admitted = true;
  j.pods = j.pods_bound = 2;
  j.replicas = j.gpus = 2;
  j.nodes = {"node-a"};
  j.placement = {2};
  j.report = workloads::StepReport{64, 0, 0.5, 0.1, 3.0, 6.0};
  s.jobs = {j};
  s.capacity_gpus = 4;
  s.cluster = &cluster;
  (void)policy.decide(s);
  const PolluxPolicy::Learned* l = policy.learned(0);
  ASSERT_NE(l, nullptr);
  ASSERT_EQ(l->samples.size(), 1u);
  // One node, two replicas, atomic 64: a pass without sync takes step - sync = 0.4 s.
  EXPECT_EQ(l->samples[0].nodes, 1);
  EXPECT_EQ(l->samples[0].replicas, 2);
  EXPECT_DOUBLE_EQ(l->samples[0].accum_step_time, 0.4);
  EXPECT_DOUBLE_EQ(l->samples[0].optim_step_time, 0.5);
  EXPECT_TRUE(l->perf.has_value());
  EXPECT_DOUBLE_EQ(l->grad->var, 6.0);
  EXPECT_EQ(l->most_replicas, 2);
  // The same configuration again adds nothing.
  s.now = TimePoint(120s);
  (void)policy.decide(s);
  EXPECT_EQ(policy.learned(0)->samples.size(), 1u);
}

TEST(Pollux, AJobOfAFixedSizeRunsAtItsSizeOrWaits) {
  const ClusterView cluster = two_nodes();
  PolluxPolicy policy(config());
  JobView fixed = elastic(0, 0);
  fixed.elastic = false;
  fixed.replicas = fixed.gpus = fixed.min_replicas = fixed.max_replicas = 3;
  JobPolicyState s;
  s.now = TimePoint(60s);
  s.jobs = {fixed, elastic(1, 0), elastic(2, 0)};
  s.capacity_gpus = 4;
  s.cluster = &cluster;
  const JobDecision d = policy.decide(s);
  // Whatever the search finds, every chosen job has one node per pod, and the fixed job either
  // all three or none.
  for (const int j : d.run) {
    const int replicas = j == 0 ? 3 : d.replicas.at(j);
    EXPECT_EQ(static_cast<int>(d.pod_nodes.at(j).size()), replicas) << "job " << j;
  }
  EXPECT_EQ(d.replicas.count(0), 0u);
}

// Issue 46, item 1: on 8 GPUs (four nodes of two) five jobs of one 2-GPU pod each: at most four
// run (the search counted replicas against GPUs and chose jobs of 10 GPUs), each on a node of its
// own; an elastic job of 2-GPU pods is given replicas whose GPUs fit.
TEST(Pollux, MultiGpuPodsAreNotOverAllocated) {
  ClusterView cluster = two_nodes();
  for (const char* name : {"node-c", "node-d"}) {
    NodeInfo n;
    n.node.name = name;
    n.node.allocatable.gpus = 2;
    cluster.nodes.push_back(n);
  }
  PolluxPolicy policy(config());
  JobPolicyState s;
  s.now = TimePoint(60s);
  for (int id = 0; id < 5; ++id) {
    JobView j = elastic(id, 0);
    j.elastic = id == 4;
    j.gpus_per_replica = 2;
    j.replicas = j.min_replicas = 1;
    j.max_replicas = j.elastic ? 8 : 1;
    j.gpus = 2;
    s.jobs.push_back(j);
  }
  s.capacity_gpus = 8;
  s.cluster = &cluster;
  const JobDecision d = policy.decide(s);
  int gpus = 0;
  std::map<std::string, int> on_node;
  for (const int id : d.run) {
    const int replicas = d.replicas.contains(id) ? d.replicas.at(id) : 1;
    gpus += replicas * 2;
    ASSERT_EQ(static_cast<int>(d.pod_nodes.at(id).size()), replicas) << "job " << id;
    for (const std::string& node : d.pod_nodes.at(id)) {
      on_node[node] += 2;
    }
  }
  EXPECT_LE(gpus, 8);
  EXPECT_EQ(d.run.size(), 4u);
  for (const auto& [node, used] : on_node) {
    EXPECT_LE(used, 2) << node;
  }
}

TEST(Pollux, IsRegisteredAndChecksItsArguments) {
  const std::optional<JobPolicyEntry> entry = find_job_policy("pollux");
  ASSERT_TRUE(entry.has_value());
  ASSERT_TRUE(entry->decode);
  // Its args are decoded by Fields, each error naming the field with its place.
  const auto decode = [&entry](const std::string& yaml) {
    Fields f(load_yaml_string(yaml, "args.yaml"), "args.yaml", "args");
    PolluxArgs a = std::any_cast<PolluxArgs>(entry->decode(f));
    f.finish();
    return a;
  };
  const PolluxArgs a = decode("{p: 0.5, restart_delay: 10, population: 20, rounds: false}");
  EXPECT_EQ(a.p, 0.5);
  EXPECT_EQ(a.restart_delay_s, 10.0);
  EXPECT_EQ(a.max_replicas, 64);
  EXPECT_EQ(a.population, 20);
  EXPECT_EQ(a.generations, 100);
  EXPECT_FALSE(a.rounds);
  for (const auto& [yaml, field] :
       std::vector<std::pair<std::string, std::string>>{{"{p: two}", "args.p"},
                                                        {"{p: 2}", "args.p"},
                                                        {"{population: 0}", "args.population"},
                                                        {"{generations: 1.5}", "args.generations"},
                                                        {"{speed: 1}", "args.speed"}}) {
    try {
      decode(yaml);
      ADD_FAILURE() << yaml;
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), field) << yaml;
      EXPECT_EQ(e.where().line, 1) << yaml;
    }
  }
  // A configuration made in code with string args its entry did not decode is refused.
  AdmissionConfig c = config();
  c.args["p"] = "0.5";
  EXPECT_THROW(PolluxPolicy{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
