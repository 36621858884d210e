// `tidesim run`, `validate` and `--version` end to end: exit codes, messages, determinism.
#include <gtest/gtest.h>
#include <unistd.h>
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
                        "workload: {}\npolicies: [first-fit]\n";
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
  ASSERT_EQ(run(args + "1", a), 0) << read_file(a);
  ASSERT_EQ(run(args + "2", b), 0) << read_file(b);
  EXPECT_EQ(read_file(a), read_file(b));
  const auto doc = nlohmann::json::parse(read_file(a));
  EXPECT_EQ(doc["metadata"]["seeds"], nlohmann::json::array({1, 2, 3}));
  EXPECT_EQ(doc["metadata"]["policies"], nlohmann::json::array({"default-k8s", "load-aware"}));
}

TEST_F(CliRun, OutputFolderHoldsEveryFile) {
  const std::string d = out_dir() + "/outputs";
  fs::remove_all(d);
  ASSERT_EQ(run("run tests/tools/data/solo.yaml --output " + d, log_), 0) << read_file(log_);
  for (const char* f : {"result.json", "jobs.csv", "nodes.csv", "cards.csv", "metrics.om.txt"}) {
    EXPECT_TRUE(fs::exists(fs::path(d) / f)) << f;
  }
  EXPECT_EQ(run("check " + d + "/result.json --baseline " + d + "/result.json", log_), 0)
      << read_file(log_);
}

}  // namespace
