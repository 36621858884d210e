// run_scenario (tools/lib/run_scenario.hpp), the one run path of `tidesim run` and the Python
// module's tidesim.run: the runs it makes are the policies and seeds asked for, in policy order
// then seed order, the same whatever the thread count, and the metadata is filled as asked.
#include "tidesim/tools/lib/run_scenario.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {
namespace {

constexpr const char* kScenario = "scenarios/seed-benchmark.yaml";

RunResult run(const Scenario& s, RunRequest request) {
  request.path = kScenario;
  std::ostringstream warnings;
  return run_scenario(s, request, warnings).result;
}

TEST(RunScenario, RunsThePoliciesAndSeedsAskedTheSameWhateverTheThreads) {
  const Scenario s = load_scenario(kScenario);
  RunRequest request;
  request.seeds = {3, 1};
  request.threads = 1;
  const RunResult one = run(s, request);
  request.threads = 4;
  const RunResult four = run(s, request);
  // The scenario's two policies (default-k8s, load-aware) x the two seeds given, in that order.
  ASSERT_EQ(one.runs.size(), 4u);
  EXPECT_EQ(one.metadata.seeds, (std::vector<std::uint64_t>{3, 1}));
  EXPECT_EQ(one.policy_names(), (std::vector<std::string>{"default-k8s", "load-aware"}));
  for (std::size_t k = 0; k < one.runs.size(); ++k) {
    EXPECT_EQ(one.runs[k].policy, one.policy_names()[k / 2]);
    EXPECT_EQ(one.runs[k].seed, one.metadata.seeds[k % 2]);
    EXPECT_EQ(one.runs[k].metrics, four.runs[k].metrics) << "run " << k;
  }
}

TEST(RunScenario, FillsTheMetadataAsAsked) {
  const Scenario s = load_scenario(kScenario);
  RunRequest request;
  request.policy_specs = {"load-aware"};
  request.seeds = {2};
  request.headline = {"makespan_s"};
  request.reference = false;
  const RunResult r = run(s, request);
  EXPECT_EQ(r.policy_names(), (std::vector<std::string>{"load-aware"}));
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs.front().seed, 2u);
  EXPECT_EQ(r.metadata.headline_metrics, (std::vector<std::string>{"makespan_s"}));
  EXPECT_FALSE(r.reference.has_value());
  ASSERT_TRUE(r.metadata.provenance.has_value());
  EXPECT_NE(r.metadata.provenance->dump().find("--policy load-aware --seed 2"), std::string::npos);
}

TEST(RunScenario, RefusesASeedGivenTwice) {
  const Scenario s = load_scenario(kScenario);
  RunRequest request;
  request.seeds = {1, 1};
  try {
    (void)run(s, request);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "--seed");
  }
}

}  // namespace
}  // namespace tidesim::app
