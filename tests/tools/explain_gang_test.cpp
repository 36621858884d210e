// `tidesim explain SCENARIO --pod NAME` on a pod of an all-or-nothing gang
// (sim/experiments/explain_gang.hpp; docs/policies.md, "Explaining a gang"), on
// tests/tools/data/gang_wait.yaml: three nodes of 8 GPUs, two gangs of two 8-GPU pods submitted at
// 0 s. Worked by hand: the first gang takes two whole nodes at 0 s; the second's first cycle, two
// cycle times later, finds one node with 8 free GPUs (the one the first gang left), room for 1 of
// its 2 pods, so it is 1 short and waits; it is bound when the first gang's pods end, on the nodes
// the run's attempt log records. Under the `quota` policy the ClusterQueue's 16 nominal GPUs are
// the first gang's, so the second is held by admission and has no cycle.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/experiments/explain_gang.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

constexpr const char* kScenario = "tests/tools/data/gang_wait.yaml";

struct Recorded {
  Scenario scenario;
  Workload workload;
  SeedRun run;
};

Recorded record(std::size_t policy) {
  Recorded r{load_scenario(kScenario), {}, {}};
  r.workload = make_jobs(r.scenario, 1);
  Recorder recorder(r.scenario.policies[policy].name, 1,
                    RecorderOptions{.record_series = false, .collectors = {}});
  RunSignals signals;
  recorder.attach(signals);
  const RunSummary summary =
      run_policy(r.scenario, r.workload, r.scenario.policies[policy], 1, signals);
  r.run = recorder.finish(summary.end);
  return r;
}

// The attempt records of job `job`'s first attempt.
std::vector<AttemptRecord> attempts_of(const Recorded& r, const std::string& job) {
  std::vector<AttemptRecord> out;
  for (const AttemptRecord& a : r.run.attempts) {
    if (a.job == job && a.attempt == 0) {
      out.push_back(a);
    }
  }
  return out;
}

TEST(ExplainGang, TheWaitingGangsCyclesNameTheMissingNodeAndTheMembersNodes) {
  const Recorded r = record(0);
  ASSERT_EQ(r.workload.jobs.size(), 2u);
  const std::string first = r.workload.jobs[0].name;
  const std::string second = r.workload.jobs[1].name;
  const std::vector<AttemptRecord> a1 = attempts_of(r, first);
  const std::vector<AttemptRecord> a2 = attempts_of(r, second);
  ASSERT_EQ(a1.size(), 2u);
  ASSERT_EQ(a2.size(), 2u);
  // The node the first gang left free at 0 s.
  std::set<std::string> left{"node-01", "node-02", "node-03"};
  for (const auto& a : a1) {
    EXPECT_EQ(a.bound_s, 0.0);
    left.erase(a.node);
  }
  ASSERT_EQ(left.size(), 1u);

  const std::string pod = a2[0].pod;
  ASSERT_EQ(all_or_nothing_job(r.workload, pod), 1);
  const auto g = explain_gang(r.scenario, r.workload, r.scenario.policies[0], 1,
                              TimePoint(r.scenario.run.until), pod);
  ASSERT_TRUE(g);
  EXPECT_EQ(g->job, second);
  EXPECT_EQ(g->members, 2);
  EXPECT_EQ(g->member_request.gpus, 8);
  EXPECT_EQ(g->submitted, TimePoint{});
  EXPECT_EQ(g->waiting_since, TimePoint{});
  EXPECT_TRUE(g->admission.empty());
  ASSERT_GE(g->cycles.size(), 2u);
  const GangCycle& c0 = g->cycles.front();
  // Right after the first gang's cycle, which tried its two pods (a cycle time each).
  EXPECT_EQ(c0.at, TimePoint(2 * r.scenario.run.cycle_time));
  EXPECT_FALSE(c0.placed);
  ASSERT_EQ(c0.room.size(), 1u);
  EXPECT_EQ(c0.room[0].node, *left.begin());
  EXPECT_EQ(c0.room[0].free_gpus, 8);
  EXPECT_EQ(c0.room[0].members, 1);
  EXPECT_EQ(c0.room_total, 1);
  EXPECT_EQ(c0.missing, "needs 2 pods of 8 GPUs; nodes with 8 free GPUs found, holding 1 (" +
                            *left.begin() + ": 1): 1 short");
  // The last cycle placed both members where the run's attempt log has them, when it has them.
  const GangCycle& last = g->cycles.back();
  EXPECT_TRUE(last.placed);
  ASSERT_EQ(last.nodes.size(), 2u);
  ASSERT_EQ(g->bound.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto it = std::find_if(a2.begin(), a2.end(),
                                 [&](const AttemptRecord& a) { return a.pod == last.tried[i]; });
    ASSERT_NE(it, a2.end());
    EXPECT_EQ(last.nodes[i], it->node);
    EXPECT_NEAR(to_seconds(last.at), *it->bound_s, 1e-6);
    EXPECT_EQ(g->bound[i], std::make_pair(it->pod, it->node));
  }
  // Bound no earlier than the first gang's end.
  EXPECT_GE(to_seconds(*g->bound_at), *a1[0].ended_s);
  // Every cycle before the last one failed for want of a second node.
  for (std::size_t i = 0; i + 1 < g->cycles.size(); ++i) {
    EXPECT_FALSE(g->cycles[i].placed);
    EXPECT_EQ(g->cycles[i].room_total, 1) << i;
  }
  // A pod of no gang, or of no job, is not a gang's.
  EXPECT_FALSE(all_or_nothing_job(r.workload, second + "-2-0"));
  EXPECT_FALSE(all_or_nothing_job(r.workload, "nothing-0-0"));
}

TEST(ExplainGang, AGangHeldByItsClusterQueueHasTheAdmissionReason) {
  const Recorded r = record(1);
  const std::string second = r.workload.jobs[1].name;
  const auto g = explain_gang(r.scenario, r.workload, r.scenario.policies[1], 1,
                              TimePoint(std::chrono::minutes(10)), second + "-0-0");
  ASSERT_TRUE(g);
  EXPECT_TRUE(g->cycles.empty());
  EXPECT_TRUE(g->bound.empty());
  EXPECT_EQ(g->admission,
            "not admitted: the job-level policy 'fifo' holds its pods (the job asks 16 GPUs); its "
            "ClusterQueue 'team' has 16 of its 16 nominal GPUs admitted");
  // Once the first gang ends, the second is admitted and placed in its first cycle.
  const auto later = explain_gang(r.scenario, r.workload, r.scenario.policies[1], 1,
                                  TimePoint(r.scenario.run.until), second + "-0-0");
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->admission.empty());
  ASSERT_EQ(later->cycles.size(), 1u);
  EXPECT_TRUE(later->cycles[0].placed);
  EXPECT_EQ(later->bound.size(), 2u);
}

class ExplainGangCli : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
};

TEST_F(ExplainGangCli, TextAndJsonNameTheMembersNodesAndWhatWasMissing) {
  const Recorded r = record(0);
  const std::string pod = r.workload.jobs[1].name + "-0-0";
  const auto text =
      test::run(std::string("explain ") + kScenario + " --policy default-k8s --pod " + pod);
  ASSERT_EQ(text.code, 0) << text.out;
  EXPECT_NE(text.out.find("is a member of the all-or-nothing gang"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("needs 2 pods of 8 GPUs; nodes with 8 free GPUs found, holding 1"),
            std::string::npos)
      << text.out;
  const std::vector<AttemptRecord> a2 = attempts_of(r, r.workload.jobs[1].name);
  for (const AttemptRecord& a : a2) {
    EXPECT_NE(text.out.find(a.pod + " on " + a.node), std::string::npos) << text.out;
  }
  EXPECT_NE(text.out.find("bound at t = "), std::string::npos) << text.out;
  const auto json = test::run(std::string("explain ") + kScenario +
                              " --policy default-k8s --format json --pod " + pod);
  ASSERT_EQ(json.code, 0) << json.out;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["gang"], r.workload.jobs[1].name);
  EXPECT_EQ(j["cycles"][0]["placed"], false);
  EXPECT_EQ(j["cycles"][0]["room_total"], 1);
  EXPECT_EQ(j["bound"].size(), 2u);
}

}  // namespace
}  // namespace tidesim::app
