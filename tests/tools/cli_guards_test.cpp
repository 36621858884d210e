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

// The seed benchmark with its burst of 100 jobs made `count`, in the test's folder (its
// manifests named by absolute paths).
std::string seed_burst(const std::string& dir, const std::string& count) {
  std::string text = test::read_file("scenarios/seed-benchmark.yaml");
  const std::string from = "count: 100}";
  if (text.find(from) == std::string::npos) {
    return "";
  }
  text.replace(text.find(from), from.size(), "count: " + count + "}");
  const std::string manifests = (std::filesystem::current_path() / "scenarios/manifests/").string();
  for (auto at = text.find("manifest: manifests/"); at != std::string::npos;
       at = text.find("manifest: manifests/", at)) {
    text.replace(at, 20, "manifest: " + manifests);
  }
  const std::string f = dir + "/burst.yaml";
  std::ofstream(f) << text;
  return f;
}

// The 10^7-job burst (the largest count allowed) failed with bad_alloc after minutes of
// building jobs. Estimate by hand for the seed benchmark (2 policies, 10 seeds): the job lists,
// 10 x 10^7 x 2,500 B, and the runs' state, 20 x 10^7 x 14,500 B: 3.15e12 B, 2,933.7 GiB, over
// the default 16 GiB; it is refused at once. Its events are within the default budget: the
// retries of its backlog are bounded by one cycle per 10 ms over the 30 days.
TEST_F(Guards, TenMillionJobsAreRefusedBeforeAnyJobIsBuilt) {
  const std::string f = seed_burst(dir_, "10000000");
  ASSERT_FALSE(f.empty());
  const auto o = run("run " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "tidesim: error: " + f +
                ": the run is estimated at 2933.7 GiB of memory, over the budget of 16.0 GiB "
                "(--max-memory); --force runs it anyway\n");
}

// `validate` builds the first seed's jobs: it is held to the same guards, before any job is
// built (it ended in std::bad_alloc under a 4 GB address-space limit), with the same message,
// and --force, --max-events and --max-memory as `run`.
TEST_F(Guards, ValidateIsHeldToTheSameGuards) {
  const std::string f = seed_burst(dir_, "10000000");
  ASSERT_FALSE(f.empty());
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.out,
            "tidesim: error: " + f +
                ": the run is estimated at 2933.7 GiB of memory, over the budget of 16.0 GiB "
                "(--max-memory); --force runs it anyway\n");
  const auto small = run("validate tests/tools/data/solo.yaml --max-events 26");
  EXPECT_EQ(small.code, 2);
  EXPECT_NE(small.out.find("27 events per run"), std::string::npos) << small.out;
  const auto forced = run("validate tests/tools/data/solo.yaml --max-events 26 --force");
  EXPECT_EQ(forced.code, 0) << forced.out;
  EXPECT_NE(forced.out.find("tidesim: warning: tests/tools/data/solo.yaml: the run is estimated"),
            std::string::npos)
      << forced.out;
  EXPECT_NE(forced.out.find("tests/tools/data/solo.yaml: ok ("), std::string::npos) << forced.out;
}

// tests/tools/data/solo.yaml is estimated at 27 events
// (tests/sim/experiments/run_estimate_test.cpp) and 17,000 bytes; its run counts 26 or 27 events (a
// sample counts 2 at once on its one node).
TEST_F(Guards, ABudgetIsConfigurableAndForceRunsAnyway) {
  const auto o = run("run tests/tools/data/solo.yaml --max-events 26");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.out.find("27 events per run (1 jobs, 1 pods, 11 samples x 1 nodes to 1m43s, "),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("over the budget of 26 (--max-events)"), std::string::npos) << o.out;
  EXPECT_EQ(run("run tests/tools/data/solo.yaml --max-events 27").code, 0);
  const auto memory = run("run tests/tools/data/solo.yaml --max-memory 16000");
  EXPECT_EQ(memory.code, 2);
  EXPECT_NE(memory.out.find("16.6 KiB of memory, over the budget of 15.6 KiB (--max-memory)"),
            std::string::npos)
      << memory.out;
  // --force runs it, and the measured guard holds it to --max-memory as it goes (no process
  // lives in 16,000 bytes): cut, exit 1, as --max-events cuts a forced run.
  const auto forced = run("run tests/tools/data/solo.yaml --max-memory 16000 --force");
  EXPECT_EQ(forced.code, 1) << forced.out;
  EXPECT_EQ(
      forced.out.rfind("tidesim: warning: tests/tools/data/solo.yaml: the run is estimated", 0), 0u)
      << forced.out;
  EXPECT_NE(forced.out.find("tidesim: failed: --max-memory 15.6 KiB reached: the process held "),
            std::string::npos)
      << forced.out;
  EXPECT_EQ(run("run tests/tools/data/solo.yaml --force --max-events 1e9").code, 0);
  const auto bad = run("run tests/tools/data/solo.yaml --max-memory lots");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("--max-memory: 'lots' is not a byte size"), std::string::npos) << bad.out;
}

// The fuzzing finds that ran past any --max-events check for minutes, made small. --max-events
// holds during the run whatever its events are, --force or not: a run that passes it stops with
// exit 1 and writes nothing.
class Storms : public Guards {
 protected:
  std::string scenario(const std::string& name, int nodes, int jobs, int steps,
                       const std::string& rest) {
    const std::string f = dir_ + "/" + name + ".yaml";
    std::ofstream(f) << "name: " << name
                     << "\ncluster:\n  node_groups:\n    - {name: gpu, count: " << nodes
                     << ", gpu: A10, topology: a10x4-pcie}\nworkload:\n  arrivals: {process: "
                        "burst, count: "
                     << jobs
                     << "}\n  jobs:\n    - {name: j, pod: {gpus: 1}, model: resnet50, "
                        "precision: amp, batch_size: 64, steps: "
                     << steps << "}\npolicies: [default-k8s]\n"
                     << rest;
    return f;
  }
};

// A burst of 4,000 1-GPU jobs on one 4-card node for a day: the backlog goes through a cycle at
// every pod's end (about 2 million cycles; the estimate was 229 thousand events). Now estimated
// with its retries: one cycle per 10 ms while the backlog lasts (82,000 s), 8.2 million.
TEST_F(Storms, ARetryStormIsEstimatedAndCutAtMaxEvents) {
  const std::string f = scenario("retries", 1, 4000, 1000, "run: {until: 1d}\n");
  const auto o = run("run " + f + " --max-events 1e6");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find(" scheduling retries, 0 fault events), over the budget of 1,000,000"),
            std::string::npos)
      << o.out;
  const std::string out = dir_ + "/out";
  const auto cut = run("run " + f + " --max-events 20000 --force --quiet --output " + out);
  EXPECT_EQ(cut.code, 1) << cut.out;
  EXPECT_NE(cut.out.find("tidesim: failed: --max-events 20,000 reached: policy default-k8s seed 1 "
                         "passed 20,001 events at simulated time "),
            std::string::npos)
      << cut.out;
  EXPECT_NE(cut.out.find("raise --max-events to let it finish; no result written\n"),
            std::string::npos)
      << cut.out;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// Card errors every 10 s on 8 nodes for 2 days interrupt every job long before its first
// checkpoint, again and again (the estimate was 166 thousand events; the run grew past 318 MB in
// 20 s). Now estimated with its faults (32 cards x 172,800 s / 10 s errors, each restarting a
// job) and its retries, to the horizon.
TEST_F(Storms, AFaultStormIsEstimatedAndCutAtMaxEvents) {
  const std::string f =
      scenario("faults", 8, 100, 100000, "faults: {card_errors: {mtbf: 10s}}\nrun: {until: 2d}\n");
  const auto o = run("run " + f + " --max-events 1e6");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find(" samples x 8 nodes to 2d, "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find(" scheduling retries, 3,317,760 fault events)"), std::string::npos) << o.out;
  const auto cut = run("run " + f + " --max-events 20000 --force --quiet");
  EXPECT_EQ(cut.code, 1) << cut.out;
  EXPECT_NE(cut.out.find("tidesim: failed: --max-events 20,000 reached: policy default-k8s seed 1 "
                         "passed "),
            std::string::npos)
      << cut.out;
  // --timeout holds too, checked after every event.
  const auto timed = run("run " + f + " --force --quiet --timeout 1s");
  EXPECT_EQ(timed.code, 1) << timed.out;
  EXPECT_NE(timed.out.find("tidesim: failed: --timeout 1s reached: 0 of 1 runs finished"),
            std::string::npos)
      << timed.out;
}

// Issue 46, item 4: card errors every 4 s on 8 nodes for 30 days kept records of every fault
// (1.7-2.8 GB where the estimate said 1.6 MiB) until std::bad_alloc. The estimate counts the
// faults' records: refused up front under --max-memory 1GiB; forced, the measured guard stops it
// at its --max-memory, exit 1, never std::bad_alloc.
TEST_F(Storms, FaultHeavyRunUnderMaxMemoryIsRefusedOrStoppedByTheGuard) {
  const std::string f =
      scenario("faulty", 8, 100, 100000, "faults: {card_errors: {mtbf: 4s}}\nrun: {until: 30d}\n");
  const auto o = run("run " + f + " --max-memory 1GiB --max-events 1e12");
  EXPECT_EQ(o.code, 2) << o.out;
  EXPECT_NE(o.out.find(" of memory, over the budget of 1.0 GiB (--max-memory)"), std::string::npos)
      << o.out;
  const auto cut = run("run " + f + " --max-memory 64MiB --max-events 1e12 --force --quiet");
  EXPECT_EQ(cut.code, 1) << cut.out;
  EXPECT_NE(cut.out.find("tidesim: failed: --max-memory 64.0 MiB reached: the process held "),
            std::string::npos)
      << cut.out;
  EXPECT_EQ(cut.out.find("bad_alloc"), std::string::npos) << cut.out;
}

// --timeout 1us expires long before the run ends (the flag is checked after every event; the
// seed benchmark's run has about 10,000, milliseconds of work), so the run is always cut: exit 1,
// the message says which run was cut and where, and --output is not written.
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
