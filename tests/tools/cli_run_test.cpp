// `tidesim run`, `validate` and `--version` end to end: exit codes, messages, determinism.
#include <gtest/gtest.h>
#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/version.hpp"

namespace {

namespace fs = std::filesystem;

std::string out_dir() {
  // One folder per process: ctest runs each test as its own process, in parallel.
  const std::string d = ::testing::TempDir() + "/tidesim_cli_run_" + std::to_string(::getpid());
  fs::create_directories(d);
  return d;
}

using tidesim::test::read_file;
using tidesim::test::run;

class CliRun : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
  std::string log_ = out_dir() + "/log";
};

TEST_F(CliRun, Version) {
  EXPECT_EQ(run("--version", log_), 0);
  EXPECT_EQ(read_file(log_), std::string("tidesim ") + tidesim::kVersion + "\n");
}

TEST_F(CliRun, ValidateAcceptsTheShippedScenarios) {
  EXPECT_EQ(run("validate scenarios/seed-benchmark.yaml scenarios/seed-benchmark-pcie.yaml", log_),
            0)
      << read_file(log_);
  EXPECT_NE(read_file(log_).find("scenarios/seed-benchmark.yaml: ok (8 nodes, 100 jobs"),
            std::string::npos);
}

TEST_F(CliRun, MisspeltKeyExitsTwoNamingTheLine) {
  const std::string bad = out_dir() + "/misspelt.yaml";
  std::ofstream(bad) << "cluster:\n  node_groups:\n    - name: a\n      gpu: A10\n"
                        "      topology: a10x4-pcie\n      cuont: 3\n"
                        "workload: {arrivals: {process: burst, count: 1}, jobs: [{model: resnet50, "
                        "batch_size: 64, steps: 1}]}\npolicies: [first-fit]\n";
  EXPECT_EQ(run("validate " + bad, log_), 2);
  const std::string msg = read_file(log_);
  EXPECT_NE(msg.find(bad + ":6:7: cluster.node_groups[0].cuont: unknown key; allowed keys here:"),
            std::string::npos)
      << msg;
  EXPECT_EQ(run("run " + bad, log_), 2);
}

TEST_F(CliRun, BadUsageExitsTwo) {
  EXPECT_EQ(run("run --format xml", log_), 2);
  EXPECT_EQ(run("run --threads 0", log_), 2);
  EXPECT_EQ(run("frobnicate", log_), 2);
  EXPECT_EQ(run("run " + out_dir() + "/absent.yaml", log_), 2);
  EXPECT_NE(read_file(log_).find("absent.yaml: cannot open scenario file"), std::string::npos);
  EXPECT_EQ(run("run tests/tools/data/solo.yaml --policy no-such-policy", log_), 2)
      << read_file(log_);
}

TEST_F(CliRun, JsonIsIdenticalWhateverTheThreadCount) {
  const std::string a = out_dir() + "/t1.json";
  const std::string b = out_dir() + "/t2.json";
  const std::string args =
      "run tests/tools/data/two_rings.yaml --seed 1 --seed 2 --seed 3 "
      "--format json --threads ";
  // stdout alone: two_rings.yaml's job warns (as validate warns) on stderr.
  const auto one = tidesim::test::run_capturing(args + "1", "2>/dev/null");
  const auto two = tidesim::test::run_capturing(args + "2", "2>/dev/null");
  ASSERT_EQ(one.code, 0) << one.out;
  ASSERT_EQ(two.code, 0) << two.out;
  EXPECT_EQ(one.out, two.out);
  const auto doc = nlohmann::json::parse(one.out);
  EXPECT_EQ(doc["metadata"]["seeds"], nlohmann::json::array({1, 2, 3}));
  EXPECT_EQ(doc["metadata"]["policies"], nlohmann::json::array({"default-k8s", "load-aware"}));
}

// validate builds what run builds: an unknown GPU, topology or model fails with its place.
TEST_F(CliRun, ValidateRejectsWhatRunRejectsWithThePlace) {
  const std::string dir = out_dir();
  const std::string head = "name: x\ncluster:\n  node_groups:\n";
  const std::string work =
      "workload:\n  arrivals: {process: burst, count: 1}\n  jobs:\n"
      "    - {pod: {gpus: 1}, model: MODEL, batch_size: 8, steps: 10}\npolicies: [default-k8s]\n";
  auto scenario = [&](const std::string& group, const std::string& model) {
    std::string w = work;
    w.replace(w.find("MODEL"), 5, model);
    return head + "    - " + group + "\n" + w;
  };
  const struct {
    std::string text;
    std::string expected;
  } cases[] = {
      {scenario("{name: n, gpu: A10X, topology: pcie-4}", "resnet50"),
       ":4:22: cluster.node_groups[0].gpu: unknown GPU model 'A10X'"},
      {scenario("{name: n, gpu: A10, topology: no-such-topology}", "resnet50"),
       ":4:7: topology: 'no-such-topology' is neither a preset nor a file"},
      {scenario("{name: n, gpu: A10, topology: pcie-4}", "resnet5O"),
       ":8:31: workload.jobs[0].model: unknown model 'resnet5O'"},
  };
  int i = 0;
  for (const auto& c : cases) {
    const std::string f = dir + "/bad" + std::to_string(i++) + ".yaml";
    std::ofstream(f) << c.text;
    for (const char* cmd : {"validate ", "run "}) {
      EXPECT_EQ(run(cmd + f, log_), 2) << cmd << f << ": " << read_file(log_);
      EXPECT_NE(read_file(log_).find(f + c.expected), std::string::npos)
          << cmd << "expected '" << c.expected << "' in: " << read_file(log_);
    }
  }
}

TEST_F(CliRun, ValidateWarnsAboutJobsThatCanNeverFit) {
  EXPECT_EQ(run("validate tests/tools/data/never_fits.yaml", log_), 0) << read_file(log_);
  EXPECT_NE(read_file(log_).find("warning: tests/tools/data/never_fits.yaml: job 'huge-0' "
                                 "(gpt2-1.5b fp32 batch 16): a worker holds"),
            std::string::npos)
      << read_file(log_);
}

TEST_F(CliRun, ValidateAcceptsASchedulerConfigurationOnItsOwn) {
  EXPECT_EQ(run("validate scenarios/schedulers/seed-scheduler-config.yaml", log_), 0)
      << read_file(log_);
  EXPECT_EQ(read_file(log_),
            "scenarios/schedulers/seed-scheduler-config.yaml: ok (KubeSchedulerConfiguration, 1 "
            "profile: load-aware-scheduler)\n");
}

TEST_F(CliRun, OutputFolderHoldsEveryFile) {
  const std::string d = out_dir() + "/outputs";
  fs::remove_all(d);
  ASSERT_EQ(run("run tests/tools/data/solo.yaml --output " + d, log_), 0) << read_file(log_);
  for (const char* f :
       {"result.json", "jobs.csv", "attempts.csv", "nodes.csv", "cards.csv", "metrics.om.txt"}) {
    EXPECT_TRUE(fs::exists(fs::path(d) / f)) << f;
  }
  // solo.yaml: one pod, bound in the first cycle, started after pod_startup 5 s, succeeded.
  const std::string attempts = read_file(d + "/attempts.csv");
  EXPECT_EQ(attempts.substr(0, attempts.find('\n')),
            "policy,seed,job,attempt,pod,node,cards,bound_s,started_s,ended_s,outcome,oom_card,"
            "oom_memory_used_bytes,oom_memory_capacity_bytes,oom_co_located");
  EXPECT_NE(attempts.find("\nfirst-fit,1,solo-0,0,solo-0-0-0,gpu-01,0,0,5,"), std::string::npos)
      << attempts;
  EXPECT_NE(attempts.find(",succeeded,,,,\n"), std::string::npos) << attempts;
  EXPECT_EQ(run("check " + d + "/result.json --baseline " + d + "/result.json", log_), 0)
      << read_file(log_);
}

}  // namespace

namespace {

// `tidesim validate` and `tidesim run` of a fill-mode scenario (docs/fgd.md): validate checks what
// the fill reads; run --format csv prints the curves, one row per policy and seed.
TEST(CliFill, ValidateAndRunAFillScenario) {
  TIDESIM_REQUIRE_CLI();
  const auto v = tidesim::test::run("validate tests/tools/data/openb/fill.yaml");
  EXPECT_EQ(v.code, 0) << v.out;
  EXPECT_NE(v.out.find("ok (fill: 4 nodes, 5 pods, 2 policies)"), std::string::npos) << v.out;
  const auto r = tidesim::test::run_capturing("run tests/tools/data/openb/fill.yaml --format csv",
                                              "2>/dev/null");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.rfind("workload,sc_policy,tune,seed,total_gpus,0,", 0), 0u) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 5);  // header + 2 policies x 2 seeds
}

}  // namespace
