// The research workflow's command line end to end: named policies and the CLI's rough edges
// (percentages, negative seeds, misspelt commands, report formats by extension, µs durations,
// errors of a copied scenario).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/engine/time.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tidesim::test::read_file;
using tidesim::test::run;

std::string out_dir() {
  const std::string d =
      ::testing::TempDir() + "/tidesim_cli_workflow_" + std::to_string(::getpid());
  fs::create_directories(d);
  return d;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs tests/tools/data/solo.yaml and saves its JSON result at `path`.
void write_result(const std::string& path) {
  const auto r =
      tidesim::test::run_capturing("run tests/tools/data/solo.yaml --format json", "2>/dev/null");
  ASSERT_EQ(r.code, 0);
  std::ofstream(path) << r.out;
}

class CliWorkflow : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
  std::string dir_ = out_dir();
};

TEST_F(CliWorkflow, NamedPoliciesAreTwoColumnsOfTheSameDefinition) {
  const auto r =
      run("run tests/tools/data/solo.yaml --policy a=first-fit --policy b=first-fit --format json "
          "--threads 1");
  ASSERT_EQ(r.code, 0) << r.out;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["metadata"]["policies"], json::array({"a", "b"}));
  ASSERT_EQ(doc["runs"].size(), 2u);
  EXPECT_EQ(doc["runs"][0]["policy"], "a");
  EXPECT_EQ(doc["runs"][1]["policy"], "b");
  // One definition, one seed: the same run twice.
  EXPECT_EQ(doc["runs"][0]["metrics"], doc["runs"][1]["metrics"]);
}

TEST_F(CliWorkflow, TwoPoliciesWithOneNameAreRefused) {
  // A file's label is its name less the extension: scenarios/schedulers/load-aware.yaml is
  // "load-aware", as is the built-in.
  const auto r =
      run("run tests/tools/data/solo.yaml --policy load-aware "
          "--policy scenarios/schedulers/load-aware.yaml");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out,
                       "--policy: two policies are named 'load-aware' ('load-aware' and "
                       "'scenarios/schedulers/load-aware.yaml')"))
      << r.out;
  const auto same =
      run("run tests/tools/data/solo.yaml --policy x=first-fit --policy x=load-aware");
  EXPECT_EQ(same.code, 2) << same.out;
  EXPECT_TRUE(contains(same.out, "two policies are named 'x'")) << same.out;
  const auto empty = run("run tests/tools/data/solo.yaml --policy =first-fit");
  EXPECT_EQ(empty.code, 2) << empty.out;
}

TEST_F(CliWorkflow, DefaultToleranceTakesAPercentSign) {
  const std::string result = dir_ + "/r.json";
  write_result(result);
  for (const char* pct : {"5%", "5", "2.5%", "0"}) {
    const auto r = run("check " + result + " --baseline " + result + " --default-tolerance " + pct);
    EXPECT_EQ(r.code, 0) << pct << ": " << r.out;
  }
  for (const char* pct : {"-1", "abc", "5%%", "%"}) {
    const auto r =
        run("check " + result + " --baseline " + result + " --default-tolerance '" + pct + "'");
    EXPECT_EQ(r.code, 2) << pct << ": " << r.out;
    EXPECT_TRUE(contains(r.out, "--default-tolerance: must be a non-negative number of percent"))
        << r.out;
  }
}

TEST_F(CliWorkflow, NegativeSeedIsRefused) {
  for (const char* cmd :
       {"run tests/tools/data/solo.yaml --seed -1", "run tests/tools/data/solo.yaml --seed=-1",
        "run tests/tools/data/solo.yaml --seed 18446744073709551616",
        "explain scenarios/explain/three-nodes.yaml --seed -1"}) {
    const auto r = run(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.out;
    EXPECT_FALSE(contains(r.out, "18446744073709551615")) << r.out;
  }
  const auto r = run("run tests/tools/data/solo.yaml --seed -1");
  EXPECT_TRUE(contains(r.out, "'-1' is not a non-negative integer")) << r.out;
}

TEST_F(CliWorkflow, MisspeltCommandSuggestsTheClosest) {
  const auto r = run("runn tests/tools/data/solo.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "unknown command 'runn' (did you mean 'run'?)")) << r.out;
  const auto v = run("valdiate x.yaml");
  EXPECT_EQ(v.code, 2);
  EXPECT_TRUE(contains(v.out, "did you mean 'validate'?")) << v.out;
  const auto far = run("frobnicate");
  EXPECT_EQ(far.code, 2);
  EXPECT_TRUE(contains(far.out, "unknown command 'frobnicate';")) << far.out;
  EXPECT_FALSE(contains(far.out, "did you mean")) << far.out;
}

// An unknown --policy is refused before any run, with the closest policy name when one is within
// two edits: the scenario's policies (solo.yaml lists first-fit) or a built-in scheduler.
TEST_F(CliWorkflow, MisspeltPolicySuggestsTheClosest) {
  const auto r = run("run tests/tools/data/solo.yaml --policy load-awre");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--policy: unknown policy 'load-awre' (did you mean 'load-aware'?)"))
      << r.out;
  EXPECT_TRUE(contains(r.out, "a built-in scheduler (")) << r.out;
  const auto labelled = run("run tests/tools/data/solo.yaml --policy mine=frist-fit");
  EXPECT_EQ(labelled.code, 2);
  EXPECT_TRUE(contains(labelled.out, "unknown policy 'frist-fit' (did you mean 'first-fit'?)"))
      << labelled.out;
  const auto far = run("run tests/tools/data/solo.yaml --policy frobnicate");
  EXPECT_EQ(far.code, 2);
  EXPECT_TRUE(contains(far.out, "unknown policy 'frobnicate':")) << far.out;
  EXPECT_FALSE(contains(far.out, "did you mean")) << far.out;
}

TEST_F(CliWorkflow, ReportWritesWhatTheExtensionSays) {
  const std::string result = dir_ + "/rep.json";
  write_result(result);
  const auto csv = run("report " + result + " --format csv");
  ASSERT_EQ(csv.code, 0) << csv.out;
  ASSERT_EQ(run("report " + result + " -o " + dir_ + "/r.csv").code, 0);
  EXPECT_EQ(read_file(dir_ + "/r.csv"), csv.out);
  const auto table = run("report " + result);
  ASSERT_EQ(run("report " + result + " -o " + dir_ + "/r.txt").code, 0);
  EXPECT_EQ(read_file(dir_ + "/r.txt"), table.out);
  ASSERT_EQ(run("report " + result + " -o " + dir_ + "/r.json").code, 0);
  EXPECT_TRUE(json::accept(read_file(dir_ + "/r.json")));
  ASSERT_EQ(run("report " + result + " -o " + dir_ + "/r.html").code, 0);
  EXPECT_NE(read_file(dir_ + "/r.html").find("<html"), std::string::npos);
  const auto clash = run("report " + result + " -o " + dir_ + "/x.csv --format html");
  EXPECT_EQ(clash.code, 2);
  EXPECT_TRUE(contains(clash.out, "--format: 'html' contradicts the output file")) << clash.out;
  EXPECT_FALSE(fs::exists(dir_ + "/x.csv"));
}

TEST(Durations, MicroSignIsMicroseconds) {
  using tidesim::parse_duration;
  EXPECT_EQ(parse_duration("150\u00b5s"), std::chrono::microseconds(150));  // micro sign
  EXPECT_EQ(parse_duration("150\u03bcs"), std::chrono::microseconds(150));  // Greek mu
  EXPECT_EQ(parse_duration("1ms150\u00b5s"), std::chrono::microseconds(1150));
  EXPECT_THROW((void)parse_duration("150\u00b5"), std::invalid_argument);
}

TEST_F(CliWorkflow, CopiedScenarioNamesTheKeyAndTheResolvedPath) {
  // Copied without its manifests folder: the relative path resolves against the copy's folder.
  const std::string copy = dir_ + "/copied.yaml";
  fs::copy_file("scenarios/seed-benchmark.yaml", copy, fs::copy_options::overwrite_existing);
  const auto r = run("validate " + copy);
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, copy + ":32:17: workload.jobs[0].manifest: "
                                     "'manifests/resnet50-heavy.yaml' is not a file"))
      << r.out;
  const std::string resolved =
      (fs::path(dir_) / "manifests/resnet50-heavy.yaml").lexically_normal().string();
  EXPECT_TRUE(contains(r.out, "looked at " + resolved)) << r.out;
}

}  // namespace
