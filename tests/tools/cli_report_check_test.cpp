// `tidesim report` and `tidesim check` end to end: files, exit codes.
#include <gtest/gtest.h>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::app {
namespace {

using test::read_file;
using test::run;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    dir_ = test::temp_dir("cli");
    save_result(test::sample_result(), dir_ + "/result.json");
  }
  std::string dir_;
};

TEST_F(Cli, ReportWritesEveryOutput) {
  const std::string d = dir_;
  EXPECT_EQ(run("report " + d + "/result.json -o " + d + "/report.html --jobs-csv " + d +
                    "/jobs.csv --nodes-csv " + d + "/nodes.csv --openmetrics " + d + "/run.om",
                d + "/log"),
            0)
      << read_file(d + "/log");
  EXPECT_NE(read_file(d + "/report.html").find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(read_file(d + "/jobs.csv").find("policy,seed,job"), std::string::npos);
  EXPECT_NE(read_file(d + "/nodes.csv").find("policy,seed,time_s,node"), std::string::npos);
  EXPECT_NE(read_file(d + "/run.om").find("# EOF"), std::string::npos);
  EXPECT_EQ(run("report " + d + "/result.json --format csv", d + "/csv.log"), 0);
  EXPECT_NE(read_file(d + "/csv.log").find("metric,unit,direction"), std::string::npos);
  EXPECT_EQ(run("report " + d + "/result.json", d + "/table.log"), 0);
  EXPECT_NE(read_file(d + "/table.log").find("mean task wait"), std::string::npos);
}

TEST_F(Cli, ReportBadInputExitsTwo) {
  EXPECT_EQ(run("report " + dir_ + "/absent.json", dir_ + "/log"), 2);
  EXPECT_NE(read_file(dir_ + "/log").find("absent.json"), std::string::npos);
  EXPECT_EQ(run("report " + dir_ + "/result.json --seed 99", dir_ + "/log"), 2);
  EXPECT_EQ(run("report " + dir_ + "/result.json --format xml", dir_ + "/log"), 2);
}

TEST_F(Cli, CheckPassesOnItsOwnRunAndFailsOnADoctoredBaseline) {
  const std::string d = dir_;
  EXPECT_EQ(
      run("check " + d + "/result.json --baseline " + d + "/result.json --junit " + d + "/ok.xml",
          d + "/ok.log"),
      0)
      << read_file(d + "/ok.log");
  EXPECT_NE(read_file(d + "/ok.xml").find("failures=\"0\""), std::string::npos);
  RunResult doctored = load_result(d + "/result.json");
  for (auto& r : doctored.runs) {
    r.metrics["oom_kills"] = 0.0;
    r.metrics["mean_wait_s"] *= 0.5;
  }
  save_result(doctored, d + "/baseline.json");
  EXPECT_EQ(run("check " + d + "/result.json --baseline " + d + "/baseline.json --junit " + d +
                    "/bad.xml",
                d + "/bad.log"),
            1);
  const std::string log = read_file(d + "/bad.log");
  EXPECT_NE(log.find("REGRESSED default-k8s oom_kills"), std::string::npos) << log;
  EXPECT_NE(log.find("REGRESSED load-aware mean_wait_s"), std::string::npos) << log;
  EXPECT_NE(read_file(d + "/bad.xml").find("<failure"), std::string::npos);
  // Tolerances can let the wait through, but not the OOM kills (baseline 0).
  EXPECT_EQ(run("check " + d + "/result.json --baseline " + d +
                    "/baseline.json --tolerance mean_wait_s=150",
                d + "/tol.log"),
            1);
  EXPECT_EQ(read_file(d + "/tol.log").find("mean_wait_s"), std::string::npos);
}

TEST_F(Cli, CheckBadInputExitsTwo) {
  const std::string d = dir_;
  EXPECT_EQ(run("check " + d + "/result.json --baseline " + d + "/absent.json", d + "/log"), 2);
  EXPECT_EQ(
      run("check " + d + "/result.json --baseline " + d + "/result.json --tolerance nonsense=5",
          d + "/log"),
      2);
  EXPECT_NE(read_file(d + "/log").find("--tolerance"), std::string::npos);
  EXPECT_EQ(run("check " + d + "/result.json", d + "/log"), 2);  // --baseline is required
}

}  // namespace
}  // namespace tidesim::app
