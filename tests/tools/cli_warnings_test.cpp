// Runs that look right when they are wrong get warnings: validate names the jobs whose pods no
// node can hold, and run warns (stderr and metadata.warnings) when jobs never bound or when its
// policies read NVLink load that no job declares.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"

namespace tidesim {
namespace {

using test::run;

// solo.yaml's one job on its 4-GPU node, asking 16 GPUs.
const std::string kTooBig = "tests/tools/data/solo.yaml --set workload.jobs[0].pod.gpus=16";

// solo.yaml with `from` replaced by `to`, written as `name` in a temporary folder; its path, or
// "" when solo.yaml has no `from`.
std::string solo_with(const std::string& from, const std::string& to, const std::string& name) {
  std::ifstream in("tests/tools/data/solo.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find(from) == std::string::npos) {
    return "";
  }
  text.replace(text.find(from), from.size(), to);
  const auto dir = std::filesystem::temp_directory_path() / "tidesim-warnings";
  std::filesystem::create_directories(dir);
  const std::string f = (dir / name).string();
  std::ofstream(f) << text;
  return f;
}

TEST(Warnings, RunWarnsWhenJobsNeverBound) {
  const auto o = run("run " + kTooBig + " --set run.until=1h -q");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("tidesim: warning: tests/tools/data/solo.yaml: policy 'first-fit': jobs "
                       "never bound in 1 of 1 seed (seed 1: 1 of 1 jobs)"),
            std::string::npos)
      << o.out;
  // The default table shows the job that never bound.
  EXPECT_NE(o.out.find("jobs never bound"), std::string::npos) << o.out;
  const auto j =
      test::run_capturing("run " + kTooBig + " --set run.until=1h -q --format json", "2>/dev/null");
  const auto doc = nlohmann::json::parse(j.out);
  ASSERT_TRUE(doc["metadata"].contains("warnings")) << j.out.substr(0, 400);
  ASSERT_EQ(doc["metadata"]["warnings"].size(), 1u);
  EXPECT_EQ(doc["metadata"]["warnings"][0].get<std::string>().rfind("policy 'first-fit'", 0), 0u);
}

// Issue 29, item 9: a policy that reads NVLink load in a run whose jobs declare no NVLink need
// is named; a job that declares one (AI_NV_LINK_REQUIRED) silences it, and a policy that reads
// no load (first-fit) is never named.
TEST(Warnings, RunWarnsWhenPoliciesReadNvlinkButNoJobDeclaresIt) {
  const std::string base = "run tests/tools/data/solo.yaml -q ";
  const auto o = run(base + "--policy first-fit --policy load-aware");
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_EQ(o.out.find("first-fit' read"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("tidesim: warning: tests/tools/data/solo.yaml: policy 'load-aware' reads "
                       "NVLink load, but no job declares an NVLink need (env AI_NV_LINK_REQUIRED,"),
            std::string::npos)
      << o.out;
  const auto declared = run(base +
                            "--policy load-aware --set "
                            "workload.jobs[0].pod.env.AI_NV_LINK_REQUIRED=true");
  EXPECT_EQ(declared.code, 0) << declared.out;
  EXPECT_EQ(declared.out.find("NVLink load"), std::string::npos) << declared.out;
  const auto none = run(base + "--policy first-fit");
  EXPECT_EQ(none.out.find("NVLink load"), std::string::npos) << none.out;
}

// Issue 46, item 7: jobs (trace rows, arrivals) submitted after run.until: `validate` warned and
// `run` was silent. Both now print check_scenario's warning, the same line.
TEST(Warnings, RunWarnsAsValidateOfJobsAfterRunUntil) {
  std::string text = test::read_file("tests/tools/data/solo.yaml");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"count: 1}", "count: 1, at: 2h}"},
           {"run: {pod_startup: 5s}", "run: {pod_startup: 5s, until: 1h}"}}) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
  }
  const auto dir = std::filesystem::temp_directory_path() / "tidesim-warnings";
  std::filesystem::create_directories(dir);
  const std::string late = (dir / "late.yaml").string();
  std::ofstream(late) << text;
  ASSERT_FALSE(late.empty());
  const std::string expected =
      "tidesim: warning: " + late +
      ": 1 of 1 jobs are submitted after run.until (1h), the first 'solo-0' at 2h; the run ends "
      "before they arrive, so no result counts them (raise run.until to include them)";
  const auto v = run("validate " + late);
  EXPECT_NE(v.out.find(expected), std::string::npos) << v.out;
  const auto r = run("run " + late + " -q");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(expected), std::string::npos) << r.out;
}

TEST(Warnings, ValidateNamesPodsThatNoNodeCanHold) {
  const std::string f = solo_with("pod: {gpus: 1}", "pod: {gpus: 16}", "too-big.yaml");
  ASSERT_FALSE(f.empty());
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("tidesim: warning: " + f +
                       ": job 'solo-0': each pod asks 16 GPUs, 0 CPU, 0B memory, which no node can "
                       "allocate (the most any node has: 4 GPUs"),
            std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find(f + ": ok ("), std::string::npos) << o.out;
}

TEST(Warnings, ValidateNamesAPresetBuiltForOtherGpus) {
  const std::string f = solo_with("gpu: A10", "gpu: T4", "t4-on-a10-board.yaml");
  ASSERT_FALSE(f.empty());
  const auto o = run("validate " + f);
  EXPECT_EQ(o.code, 0) << o.out;
  EXPECT_NE(o.out.find("tidesim: warning: " + f +
                       ": node group 'gpu': topology preset 'a10x4-pcie' is a board of A10 or "
                       "A10G GPUs, not T4"),
            std::string::npos)
      << o.out;
}

TEST(Warnings, ARunInWhichEveryJobBoundHasNone) {
  const auto j =
      test::run_capturing("run tests/tools/data/solo.yaml -q --format json", "2>/dev/null");
  const auto doc = nlohmann::json::parse(j.out);
  EXPECT_FALSE(doc["metadata"].contains("warnings"));
}

}  // namespace
}  // namespace tidesim
