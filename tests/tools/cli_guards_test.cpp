// Resource guards of `tidesim run` (docs/robustness.md, "Resource guards"): a run whose estimate
// passes its budget is refused with exit 2 before any job is built (or runs with --force), and
// --timeout stops the runs, exits 1 and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"

namespace tidesim {
namespace {

using test::run;

class Guards : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("guards");
  }
  std::string dir_;
};

// The 10^7-job burst (the largest count allowed) failed with bad_alloc after minutes of
// building jobs. Estimate by hand for the seed benchmark's cluster (8 nodes) and mix (every
// entry one pod, checkpoints every 30 min, load-aware reading telemetry): 10^7 jobs x 1,440
// checkpoints alone are 1.44e10 events, over the default budget of 10^9; it is refused at once.
TEST_F(Guards, TenMillionJobsAreRefusedBeforeAnyJobIsBuilt) {
  std::string text = test::read_file("scenarios/seed-benchmark.yaml");
  const std::string from = "count: 100}";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "count: 10000000}");
  // The copy lives elsewhere: its manifests are named by absolute paths.
  const std::string manifests = (std::filesystem::current_path() / "scenarios/manifests/").string();
  for (auto at = text.find("manifest: manifests/"); at != std::string::npos;
       at = text.find("manifest: manifests/", at)) {
    text.replace(at, 20, "manifest: " + manifests);
  }
  const std::string f = dir_ + "/burst.yaml";
  std::ofstream(f) << text;
  const auto o = run("run " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out.rfind("tidesim: error: " + f + ": the run is estimated at ", 0), 0u) << o.out;
  EXPECT_NE(o.out.find("(10,000,000 jobs, 10,000,000 pods, 259,200 samples x 8 nodes, "
                       "14,400,000,000 checkpoints"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("over the budget of 1,000,000,000 (--max-events)"), std::string::npos);
  EXPECT_NE(o.out.find("--force runs it anyway\n"), std::string::npos);
}

// tests/tools/data/solo.yaml is estimated at 519,845 events (tests/sim/run_estimate_test.cpp).
TEST_F(Guards, ABudgetIsConfigurableAndForceRunsAnyway) {
  const auto o = run("run tests/tools/data/solo.yaml --max-events 500000");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("519,845 events per run"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("over the budget of 500,000 (--max-events)"), std::string::npos) << o.out;
  const auto forced = run("run tests/tools/data/solo.yaml --max-events 500000 --force");
  EXPECT_EQ(forced.code, 0) << forced.out;
  EXPECT_EQ(
      forced.out.rfind("tidesim: warning: tests/tools/data/solo.yaml: the run is estimated", 0), 0u)
      << forced.out;
  EXPECT_EQ(run("run tests/tools/data/solo.yaml --max-events 519845").code, 0);
  const auto bad = run("run tests/tools/data/solo.yaml --max-memory lots");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--max-memory: 'lots' is not a byte size"), std::string::npos) << bad.out;
}

// --timeout 1us expires long before the first check of the flag (after 4,096 events; the seed
// benchmark's run has millions), so the run is always cut: exit 1, the message says which run
// was cut and where, and --output is not written.
TEST_F(Guards, TimeoutCutsTheRunAndWritesNothing) {
  const std::string out = dir_ + "/out";
  const auto o = run(
      "run scenarios/seed-benchmark.yaml --seed 1 --policy default-k8s --threads 1 --timeout 1us "
      "--output " +
      out);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_NE(o.out.find("tidesim: failed: --timeout 1us reached: 0 of 1 runs finished, policy "
                       "default-k8s seed 1 at simulated time "),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(" was cut; no result written\n"), std::string::npos) << o.out;
  EXPECT_FALSE(std::filesystem::exists(out));
  const auto bad = run("run tests/tools/data/solo.yaml --timeout 0s");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--timeout: '0s' must be positive"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace tidesim
