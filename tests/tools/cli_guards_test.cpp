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

// tests/tools/data/solo.yaml is estimated at 519,845 events (tests/sim/experiments/run_estimate_test.cpp).
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

// Fill mode (the FGD experiment, docs/fgd.md) is held to the same guards.
class FillGuards : public Guards {
 protected:
  // An openb node list of `nodes` one-GPU nodes, a pod list of `pods` pods of `milli` milli-GPU
  // each, and a fill scenario over them with `run.tune: TUNE` on line 9.
  std::string fill_scenario(int nodes, int pods, int milli, const std::string& tune) {
    {
      std::ofstream n(dir_ + "/nodes.csv");
      n << "sn,cpu_milli,memory_mib,gpu,model\n";
      for (int i = 0; i < nodes; ++i) {
        n << "node-" << i << ",64000,262144,1,T4\n";
      }
      std::ofstream p(dir_ + "/pods.csv");
      p << "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
           "deletion_time,scheduled_time\n";
      for (int i = 0; i < pods; ++i) {
        p << "pod-" << i << ",1000,1024," << (milli > 0 ? 1 : 0) << "," << milli
          << ",,LS,Running,0,10,0\n";
      }
    }
    const std::string f = dir_ + "/fill.yaml";
    std::ofstream(f)
        << "name: fill-guards\n"
           "cluster:\n"
           "  nodes_from: {file: nodes.csv, format: openb, sharing: {mode: fractional}}\n"
           "workload:\n"
           "  trace: {file: pods.csv, format: openb}\n"
           "policies: [fgd]\n"
           "seeds: [1]\n"
           "run:\n"
           "  tune: "
        << tune << "\n  mode: fill\n";
    return f;
  }
};

// Tuning a workload without a GPU request would append clones without end (the run never ended
// and its memory grew without bound): refused at run.tune (line 9, column 9).
TEST_F(FillGuards, TuningWithoutGpuRequestsIsRefusedAtRunTune) {
  const std::string f = fill_scenario(2, 3, 0, "1.3");
  const auto o = run("run " + f);
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find(f + ":9:9: run.tune: no pod of "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("would append clones without end"), std::string::npos) << o.out;
  EXPECT_EQ(run("run " + fill_scenario(2, 3, 0, "0")).code, 0);
}

// 4 pods, no tuning, 2 nodes: every arrival filters both nodes, 4 x 2 = 8 node evaluations.
TEST_F(FillGuards, TheEventBudgetCountsNodeEvaluations) {
  const std::string f = fill_scenario(2, 4, 500, "0");
  const auto o = run("run " + f + " --max-events 7");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find("8 node evaluations per run (4 pods arriving x 2 nodes: each arrival "
                       "filters every node), over the budget of 7 events (--max-events)"),
            std::string::npos)
      << o.out;
  EXPECT_EQ(run("run " + f + " --max-events 8").code, 0);
  EXPECT_EQ(run("run " + f + " --max-events 7 --force").code, 0);
}

// 40,000 arrivals, each filtering 2,000 nodes (8e7 node evaluations, a tenth of a second or
// more), against a 1 us timeout checked before every arrival: the run is cut, exit 1, nothing
// is printed as a result and --output is not written.
TEST_F(FillGuards, TimeoutCutsTheRunsAndWritesNothing) {
  const std::string f = fill_scenario(2000, 40000, 100, "0");
  const std::string out = dir_ + "/out";
  const auto o = run("run " + f + " --timeout 1us --output " + out);
  EXPECT_EQ(o.code, 1) << o.out;
  EXPECT_EQ(o.out,
            "tidesim: failed: --timeout 1us reached: 0 of 1 runs finished; no result "
            "written\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace tidesim
