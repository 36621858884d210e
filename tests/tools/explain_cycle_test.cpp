// `tidesim explain SCENARIO --at T` (sim/experiments/run.hpp explain_cycle; docs/policies.md): the
// replayed run is the run, so the explained cycle of a pod chooses the node the run bound it to,
// at the time it bound it, and a tie at the highest total is reported with the drawn node.
#include <gtest/gtest.h>

#include <chrono>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

struct Recorded {
  Scenario scenario;
  Workload workload;
  SeedRun run;
};

Recorded record(const std::string& path, std::size_t policy, std::uint64_t seed) {
  Recorded r{load_scenario(path), {}, {}};
  r.workload = make_jobs(r.scenario, seed);
  Recorder recorder(r.scenario.policies[policy].name, seed,
                    RecorderOptions{.record_series = false, .collectors = {}});
  RunSignals signals;
  recorder.attach(signals);
  const RunSummary summary =
      run_policy(r.scenario, r.workload, r.scenario.policies[policy], seed, signals);
  r.run = recorder.finish(summary.end);
  return r;
}

TimePoint at_seconds(double s) {
  return TimePoint(std::chrono::round<Duration>(std::chrono::duration<double>(s)));
}

std::string chosen(const ExplainedCycle& c) {
  return c.result.node ? c.result.details.at(static_cast<std::size_t>(*c.result.node)).node : "";
}

TEST(ExplainCycle, APodsLastCycleIsTheOneThatBoundItWhereTheRunBoundIt) {
  // The seed benchmark under both of its policies: the first, a middle and the last attempt the
  // run bound (pods that waited, so their last cycle is not their first, are among them).
  for (const std::size_t policy : {0u, 1u}) {
    const Recorded r = record("scenarios/seed-benchmark.yaml", policy, 2);
    std::vector<const AttemptRecord*> bound;
    for (const AttemptRecord& a : r.run.attempts) {
      if (a.bound_s) {
        bound.push_back(&a);
      }
    }
    ASSERT_GT(bound.size(), 10u);
    for (const AttemptRecord* a : {bound.front(), bound[bound.size() / 2], bound.back()}) {
      const auto c = explain_cycle(r.scenario, r.workload, r.scenario.policies[policy], 2,
                                   at_seconds(*a->bound_s), a->pod);
      ASSERT_TRUE(c) << a->pod;
      EXPECT_EQ(c->pod.name, a->pod);
      EXPECT_NEAR(to_seconds(c->at), *a->bound_s, 1e-6) << a->pod;
      EXPECT_EQ(chosen(*c), a->node) << a->pod;
      EXPECT_EQ(c->result.details.size(), 8u);  // every node, with its verdict
    }
  }
}

TEST(ExplainCycle, TheFirstCycleAtOrAfterATime) {
  const Recorded r = record("scenarios/seed-benchmark.yaml", 0, 1);
  // At 0 s the first pod is placed on an empty cluster: default-k8s scores the 8 identical nodes
  // alike, so all 8 tie and the scheduler's seeded stream draws the node the run bound it to.
  const auto first =
      explain_cycle(r.scenario, r.workload, r.scenario.policies[0], 1, TimePoint{}, "");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->at, TimePoint{});
  const AttemptRecord* attempt = nullptr;
  for (const AttemptRecord& a : r.run.attempts) {
    if (a.pod == first->pod.name) {
      attempt = &a;
    }
  }
  ASSERT_NE(attempt, nullptr);
  EXPECT_EQ(attempt->bound_s, 0.0);
  EXPECT_EQ(chosen(*first), attempt->node);
  int top = 0;
  for (const auto& d : first->result.details) {
    top += d.scored && d.total == first->result.details.front().total ? 1 : 0;
  }
  EXPECT_EQ(top, 8);
  EXPECT_EQ(first->scheduler, "default-k8s");
  // Past the run's end there is no cycle; a pod that does not exist has none.
  EXPECT_FALSE(explain_cycle(r.scenario, r.workload, r.scenario.policies[0], 1,
                             at_seconds(r.run.end_s + 1), ""));
  EXPECT_FALSE(explain_cycle(r.scenario, r.workload, r.scenario.policies[0], 1, at_seconds(100),
                             "no-such-pod"));
}

}  // namespace
}  // namespace tidesim::app
