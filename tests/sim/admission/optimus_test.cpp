// Optimus as the Pollux artifact runs it (sim/admission/optimus.hpp), worked by hand: three
// elastic jobs on two nodes of two GPUs, their remaining seconds per GPU count given.
#include "tidesim/sim/admission/optimus.hpp"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <stdexcept>

#include "tests/sim/admission/two_nodes.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;
using Names = std::vector<std::string>;

JobView elastic(int id, int max_replicas, bool admitted = false, int replicas = 1) {
  JobView j = testing::job_view(id);
  j.elastic = true;
  j.replicas = replicas;
  j.gpus = replicas;
  j.min_replicas = 1;
  j.max_replicas = max_replicas;
  j.admitted = admitted;
  return j;
}

using testing::two_nodes;

// Remaining seconds of each job by its GPU count: A 100/60/45/40, B 50/20, C 30/28.
const std::map<int, std::vector<double>> kRemaining = {
    {0, {100, 60, 45, 40}}, {1, {50, 20}}, {2, {30, 28}}};

JobPolicyState state_at(TimePoint now, std::vector<JobView> jobs, const ClusterView& cluster,
                        std::vector<std::vector<int>>* asked = nullptr) {
  JobPolicyState s;
  s.now = now;
  s.jobs = std::move(jobs);
  s.capacity_gpus = 4;
  s.cluster = &cluster;
  s.remaining_seconds = [asked](int id, const std::vector<int>& placement, int batch) {
    if (batch != 0) {
      throw std::logic_error("Optimus keeps each job's batch");
    }
    if (asked != nullptr) {
      asked->push_back(placement);
    }
    const int gpus = std::accumulate(placement.begin(), placement.end(), 0);
    return kRemaining.at(id).at(static_cast<std::size_t>(gpus - 1));
  };
  return s;
}

AdmissionConfig config() {
  AdmissionConfig c;
  c.policy = "optimus";
  return c;
}

TEST(Optimus, OneGpuEachThenTheLargestMarginalGain) {
  const ClusterView cluster = two_nodes();
  OptimusPolicy p(config());
  std::vector<std::vector<int>> asked;
  const JobDecision d = p.decide(
      state_at(TimePoint(60s), {elastic(0, 4), elastic(1, 2), elastic(2, 4)}, cluster, &asked));
  // One GPU each (1 left). Gains: A 100 - 60 = 40, B 50 - 20 = 30, C 30 - 28 = 2: A gets the
  // last GPU. B and C stay at one.
  EXPECT_EQ(d.run, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(d.replicas, (std::map<int, int>{{0, 2}, {1, 1}, {2, 1}}));
  // The gains are computed on GPUs packed onto full nodes: 3 GPUs as {2, 1}.
  EXPECT_NE(std::find(asked.begin(), asked.end(), std::vector<int>{2, 1}), asked.end());
  // Placement, fewest GPUs first: B takes node-a (most free, first of equals), C node-b, A the
  // last GPU of each; nodes that had the same free GPUs are interchangeable, so A names both.
  EXPECT_EQ(d.nodes.at(1), (Names{"node-a"}));
  EXPECT_EQ(d.nodes.at(2), (Names{"node-b"}));
  EXPECT_EQ(d.nodes.at(0), (Names{"node-a", "node-b"}));
}

TEST(Optimus, KeepsJobsWhoseSizeHoldsAndDecidesOnlyAtRounds) {
  const ClusterView cluster = two_nodes();
  OptimusPolicy p(config());
  // Between rounds the admitted jobs keep their GPUs and nothing else happens.
  const JobDecision d30 =
      p.decide(state_at(TimePoint(30s), {elastic(0, 4, true), elastic(1, 2)}, cluster));
  EXPECT_EQ(d30.run, (std::vector<int>{0}));
  EXPECT_TRUE(d30.replicas.count(0) == 0 || d30.replicas.at(0) == 1);
  EXPECT_EQ(p.interval(), Duration(30s));
  // At 60 s: A (admitted on 1) and B one each, 2 left: A's gain 40 > B's 30: A 2, then A's gain
  // 60 - 45 = 15 < B's 30: B 2. Both change size: both are placed afresh.
  const JobDecision d60 =
      p.decide(state_at(TimePoint(60s), {elastic(0, 4, true), elastic(1, 2)}, cluster));
  EXPECT_EQ(d60.replicas, (std::map<int, int>{{0, 2}, {1, 2}}));
  EXPECT_EQ(d60.nodes.size(), 2u);
}

TEST(Optimus, AFixedSizeJobGetsItsSizeOrNothing) {
  const ClusterView cluster = two_nodes();
  OptimusPolicy p(config());
  JobView fixed = elastic(1, 3, false, 3);
  fixed.elastic = false;
  fixed.min_replicas = fixed.max_replicas = 3;
  // A one GPU, the fixed job its 3: none left, so no gain is taken and C gets nothing.
  const JobDecision d =
      p.decide(state_at(TimePoint(60s), {elastic(0, 4), fixed, elastic(2, 4)}, cluster));
  EXPECT_EQ(d.run, (std::vector<int>{0, 1}));
  EXPECT_EQ(d.replicas, (std::map<int, int>{{0, 1}}));
}

TEST(Optimus, IsRegisteredAndChecksItsArguments) {
  EXPECT_TRUE(find_job_policy("optimus").has_value());
  // Its args are decoded by Fields when the scenario is read (tests/tools/scenario_test.cpp);
  // string args a configuration made in code holds are refused.
  AdmissionConfig c = config();
  c.args["rounds"] = "false";
  EXPECT_THROW(OptimusPolicy{c}, std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
