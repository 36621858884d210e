// Sweeps (tools/lib/sweep_spec.hpp, tools/lib/sweep.hpp, `tidesim sweep`): the cells a file makes,
// byte-identical merged results whatever ran them (threads, shards), resuming, and cells that a
// `tidesim run` command reproduces.
#include "tidesim/tools/lib/sweep.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::app {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tidesim::test::read_file;

const std::string kSweep = "tests/tools/data/sweep_small.yaml";

std::string out_dir(const std::string& name) {
  const std::string d =
      ::testing::TempDir() + "/tidesim_sweep_" + std::to_string(::getpid()) + "/" + name;
  fs::remove_all(d);
  fs::create_directories(fs::path(d).parent_path());
  return d;
}

tidesim::test::CliOutput cli(const std::string& args) {
  return tidesim::test::run(args);
}

TEST(SweepSpec, GridVariesTheFirstKeySlowestAfterTheCases) {
  const std::string file = out_dir("spec") + ".yaml";
  std::ofstream(file) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                      << "\nset: {run.until: 2h}\nseeds: 3\n"
                         "cases:\n  - {run.cycle_time: 10ms}\n  - {run.cycle_time: 20ms}\n"
                         "grid:\n  workload.arrivals.count: [1, 2]\n  run.pod_startup: [0s, 5s]\n";
  const SweepSpec spec = load_sweep(file);
  ASSERT_EQ(spec.variants.size(), 8u);
  // Labels shorten each key to the tail no other key ends with; the overrides keep it whole.
  EXPECT_EQ(spec.variants[0].label, "cycle_time=10ms, count=1, pod_startup=0s");
  EXPECT_EQ(spec.variants[1].label, "cycle_time=10ms, count=1, pod_startup=5s");
  EXPECT_EQ(spec.variants[2].label, "cycle_time=10ms, count=2, pod_startup=0s");
  EXPECT_EQ(spec.variants[4].label, "cycle_time=20ms, count=1, pod_startup=0s");
  ASSERT_EQ(spec.variants[4].overrides.size(), 3u);
  EXPECT_EQ(spec.variants[4].overrides[1].text(), "workload.arrivals.count=1");
  ASSERT_EQ(spec.common.size(), 2u);
  EXPECT_EQ(spec.common[0].text(), "run.until=2h");
  EXPECT_EQ(spec.common[1].text(), "seeds=3");
  // 8 variants x the scenario's 2 policies x 3 seeds, in variant, policy, seed order.
  const SweepPlan plan = plan_sweep(spec, false);
  ASSERT_EQ(plan.cells.size(), 48u);
  EXPECT_EQ(plan.cells[7].variant, 1u);
  EXPECT_EQ(plan.cells[7].policy.name, "default-k8s");
  EXPECT_EQ(plan.cells[7].seed, 2u);
  EXPECT_EQ(plan.cells[7].label, "default-k8s [cycle_time=10ms, count=1, pod_startup=5s]");
  EXPECT_EQ(plan.cells[7].id, "00007-default-k8s__cycle_time_10ms__count_1__pod_startup_5s_-seed2");
  EXPECT_EQ(plan.scenarios[1].run.pod_startup, std::chrono::seconds(5));
  EXPECT_EQ(plan.scenarios[1].run.until, std::chrono::hours(2));
}

TEST(SweepSpec, LabelsKeepWhatTellsKeysApart) {
  const std::string file = out_dir("labels") + ".yaml";
  std::ofstream(file) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                      << "\ngrid:\n  cluster.node_groups[0].count: [1]\n"
                         "  a.node_groups[0].count: [2]\n  count: [3]\n  x.y: [4]\n";
  const SweepSpec spec = load_sweep(file);
  ASSERT_EQ(spec.variants.size(), 1u);
  EXPECT_EQ(spec.variants[0].label,
            "cluster.node_groups[0].count=1, a.node_groups[0].count=2, count=3, y=4");
}

TEST(SweepSpec, BadFilesNameTheirPlace) {
  const std::string file = out_dir("bad") + ".yaml";
  std::ofstream(file) << "scenario: missing.yaml\n";
  try {
    (void)load_sweep(file);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(file + ":1:11: scenario: 'missing.yaml' is not a file"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(file) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                      << "\ngird: {seeds: [1, 2]}\n";
  EXPECT_THROW((void)load_sweep(file), InputError);
  std::ofstream(file) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                      << "\ngrid:\n  cluster.node_groups[3].count: [1, 2]\n";
  try {
    (void)plan_sweep(load_sweep(file), false);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cluster.node_groups has 1 item"), std::string::npos)
        << e.what();
  }
}

TEST(Shard, ParsesIndexOverCount) {
  EXPECT_EQ(parse_shard("0/2"), (Shard{0, 2}));
  EXPECT_EQ(parse_shard("9/10"), (Shard{9, 10}));
  for (const char* bad : {"2/2", "1/0", "-1/2", "1", "a/b", "1/2/3", "/2", "1/"}) {
    EXPECT_THROW((void)parse_shard(bad), InputError) << bad;
  }
}

class CliSweep : public ::testing::Test {
 protected:
  void SetUp() override { TIDESIM_REQUIRE_CLI(); }
};

TEST_F(CliSweep, ThreadsAndShardsGiveTheSameBytes) {
  const std::string one = out_dir("threads1");
  const std::string two = out_dir("threads2");
  const std::string halves = out_dir("halves");
  const auto a = cli("sweep " + kSweep + " -o " + one + " --threads 1 --format json");
  ASSERT_EQ(a.code, 0) << a.out;
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + two + " --threads 2").code, 0);
  const auto first = cli("sweep " + kSweep + " -o " + halves + " --shard 0/2 --threads 2");
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_NE(first.out.find("6 cells of other shards not done yet"), std::string::npos) << first.out;
  EXPECT_FALSE(fs::exists(halves + "/result.json"));
  const auto merge_early = cli("sweep " + kSweep + " -o " + halves + " --merge");
  EXPECT_EQ(merge_early.code, 1) << merge_early.out;
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + halves + " --shard 1/2").code, 0);
  const std::string merged = read_file(one + "/result.json");
  ASSERT_FALSE(merged.empty());
  EXPECT_EQ(read_file(two + "/result.json"), merged);
  EXPECT_EQ(read_file(halves + "/result.json"), merged);
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + halves + " --merge").code, 0);
  EXPECT_EQ(read_file(halves + "/result.json"), merged);

  // 3 burst sizes x 2 policies, each over seeds 1 and 2; a burst of N ring jobs has N jobs.
  const json doc = json::parse(merged);
  ASSERT_EQ(doc["metadata"]["policies"].size(), 6u);
  EXPECT_EQ(doc["metadata"]["policies"][0], "default-k8s [count=1]");
  EXPECT_EQ(doc["metadata"]["policies"][5], "load-aware [count=3]");
  EXPECT_EQ(doc["metadata"]["seeds"], json::array({1, 2}));
  ASSERT_EQ(doc["runs"].size(), 12u);
  for (std::size_t k = 0; k < 12; ++k) {
    EXPECT_EQ(doc["runs"][k]["jobs"].size(), k / 4 + 1) << k;
    EXPECT_EQ(doc["runs"][k]["seed"], k % 2 + 1) << k;
  }
  EXPECT_EQ(doc["metadata"]["provenance"]["sweep"]["cells"], 12);
  EXPECT_EQ(doc["metadata"]["provenance"]["command"], "tidesim sweep " + kSweep);
  // The --format json output is the merged result.
  EXPECT_NE(a.out.find(doc.dump(2)), std::string::npos);

  // report, check and the table read it.
  EXPECT_EQ(cli("report " + one + "/result.json").code, 0);
  EXPECT_EQ(cli("check " + one + "/result.json --baseline " + two + "/result.json").code, 0);
}

TEST_F(CliSweep, ResumesSkippingFinishedCells) {
  const std::string dir = out_dir("resume");
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + dir + " --threads 2").code, 0);
  const std::string merged = read_file(dir + "/result.json");
  const SweepPlan plan = plan_sweep(load_sweep(kSweep), false);
  fs::remove_all(cell_dir(dir, plan.cells[5]));
  fs::remove(dir + "/result.json");
  const auto again = cli("sweep " + kSweep + " -o " + dir + " --threads 2");
  ASSERT_EQ(again.code, 0) << again.out;
  EXPECT_NE(again.out.find("ran 1 cell, 11 already done"), std::string::npos) << again.out;
  EXPECT_EQ(read_file(dir + "/result.json"), merged);

  // The same folder with another sweep's cells is refused, not mixed.
  const std::string other = out_dir("other") + ".yaml";
  std::ofstream(other) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                       << "\ngrid: {workload.arrivals.count: [1, 2, 3]}\n"
                          "policies: [default-k8s, load-aware]\nseeds: [1, 2]\n";
  const auto mixed = cli("sweep " + other + " -o " + dir);
  EXPECT_EQ(mixed.code, 2) << mixed.out;
  EXPECT_NE(mixed.out.find("comes from another sweep"), std::string::npos) << mixed.out;
}

TEST_F(CliSweep, ACellIsWhatItsRunCommandGives) {
  const std::string dir = out_dir("cell");
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + dir + " --threads 2").code, 0);
  const SweepPlan plan = plan_sweep(load_sweep(kSweep), false);
  // Cell 7: variant 1 (a burst of 2), policy 1 (load-aware), seed 2 (of 3 x 2 x 2 cells).
  const json cell = json::parse(read_file(cell_result_path(dir, plan.cells[7])));
  std::string command = cell["metadata"]["provenance"]["command"];
  EXPECT_EQ(command,
            "tidesim run tests/tools/data/two_rings.yaml --policy load-aware --seed 2 "
            "--set 'seeds=[1, 2]' --set workload.arrivals.count=2");
  const auto r = tidesim::test::run_capturing(
      command.substr(std::string("tidesim ").size()) + " --format json", "2>/dev/null");
  ASSERT_EQ(r.code, 0);
  const json run = json::parse(r.out);
  EXPECT_EQ(run["runs"][0]["metrics"], cell["runs"][0]["metrics"]);
  EXPECT_EQ(run["runs"][0]["jobs"], cell["runs"][0]["jobs"]);
}

// A raised interrupt (a --timeout that has passed) starts no cell and stores nothing; the next
// call runs them all. The CLI refuses a timeout that is not a positive duration.
TEST_F(CliSweep, AnInterruptStoresNothingAndTheNextRunResumes) {
  const std::string dir = out_dir("interrupt");
  const SweepPlan plan = plan_sweep(load_sweep(kSweep), true);
  const std::atomic<bool> raised{true};
  const SweepProgress cut = run_cells(plan, dir, Shard{}, 2, {}, &raised);
  EXPECT_EQ(cut.ran, 0u);
  EXPECT_EQ(cut.cut, 12u);
  EXPECT_EQ(missing_cells(plan, dir).size(), 12u);
  const SweepProgress rest = run_cells(plan, dir, Shard{}, 2);
  EXPECT_EQ(rest.ran, 12u);
  EXPECT_EQ(rest.cut, 0u);
  EXPECT_TRUE(missing_cells(plan, dir).empty());
  const auto bad = cli("sweep " + kSweep + " -o " + dir + " --timeout -5s");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.out.find("--timeout"), std::string::npos) << bad.out;
}

}  // namespace
}  // namespace tidesim::app
