// Sweeps (tools/lib/sweep_spec.hpp, tools/lib/sweep.hpp, `tidesim sweep`): the cells a file makes,
// byte-identical merged results whatever ran them (threads, shards), resuming, and cells that a
// `tidesim run` command reproduces.
#include "tidesim/tools/lib/sweep.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/data_folder.hpp"
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

// `columns:` names a swept key's column in metrics.csv; a key the sweep does not vary, an empty
// name and a name metrics.csv already has (policy, seed, a key's path) are errors at their line.
TEST(SweepSpec, ColumnsNameTheSweptKeys) {
  const std::string file = out_dir("columns") + ".yaml";
  const std::string head = "scenario: " + fs::absolute("tests/tools/data/two_rings.yaml").string() +
                           "\ngrid:\n  workload.arrivals.count: [1, 2]\n";
  std::ofstream(file) << head << "columns: {workload.arrivals.count: burst}\n";
  EXPECT_EQ(load_sweep(file).columns.at("workload.arrivals.count"), "burst");
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"columns: {seeds: burst}\n", "columns.seeds: is not a key the sweep varies"},
      {"columns: {workload.arrivals.count: ''}\n", "expected a column name"},
      {"columns: {workload.arrivals.count: seed}\n", "'seed' is already a column"},
      {"columns: [burst]\n", "columns: expected a mapping"}};
  for (const auto& [text, want] : bad) {
    std::ofstream(file) << head << text;
    try {
      (void)load_sweep(file);
      ADD_FAILURE() << "no error for " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(file + ":4:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  }
}

// Every sweep shipped in scenarios/sweeps/ is planned as `tidesim sweep` plans it before any cell
// runs: each variant's scenario read with its overrides and built (validate's checks). The
// scenarios themselves are validated by ShippedScenarios.Validate (tests/CMakeLists.txt).
TEST(ShippedSweeps, EveryVariantIsReadAndBuilt) {
  TIDESIM_REQUIRE_FILE(data_folder() + "/pollux");  // pollux-job-loads.yaml generates workloads
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator("scenarios/sweeps")) {
    if (entry.path().extension() == ".yaml") {
      files.push_back(entry.path().string());
    }
  }
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    try {
      const SweepPlan plan = plan_sweep(load_sweep(file), true);
      EXPECT_FALSE(plan.cells.empty()) << file;
    } catch (const InputError& e) {
      ADD_FAILURE() << e.what();
    }
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

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

std::size_t display_width(const std::string& s) {
  std::size_t n = 0;
  for (const unsigned char c : s) {
    n += (c & 0xC0) != 0x80 ? 1 : 0;
  }
  return n;
}

// metrics.csv beside the merged result: one row per variant, policy and seed, the swept key's
// value in its own column and the policy's own name; a burst of N ring jobs submits N jobs.
TEST_F(CliSweep, WritesTidyMetricsWithTheSweptValues) {
  const std::string dir = out_dir("tidy");
  const auto r = cli("sweep " + kSweep + " -o " + dir + " --threads 2");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find(dir + "/metrics.csv"), std::string::npos) << r.out;
  const auto lines = lines_of(read_file(dir + "/metrics.csv"));
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_TRUE(lines[0].starts_with("policy,seed,workload.arrivals.count,gpu_util_stddev,"))
      << lines[0];
  std::vector<std::string> columns;
  std::stringstream h(lines[0]);
  for (std::string c; std::getline(h, c, ',');) {
    columns.push_back(c);
  }
  const auto submitted = static_cast<std::size_t>(
      std::find(columns.begin(), columns.end(), "jobs_submitted") - columns.begin());
  ASSERT_LT(submitted, columns.size());
  for (std::size_t k = 0; k < 12; ++k) {
    std::vector<std::string> cells;
    std::stringstream row(lines[k + 1]);
    for (std::string c; std::getline(row, c, ',');) {
      cells.push_back(c);
    }
    ASSERT_GT(cells.size(), submitted) << lines[k + 1];
    // Cells in variant, policy, seed order: 3 bursts x 2 policies x seeds 1, 2.
    EXPECT_EQ(cells[0], k % 4 < 2 ? "default-k8s" : "load-aware") << k;
    EXPECT_EQ(cells[1], std::to_string(k % 2 + 1)) << k;
    EXPECT_EQ(cells[2], std::to_string(k / 4 + 1)) << k;
    EXPECT_EQ(cells[submitted], std::to_string(k / 4 + 1)) << k;
  }
}

// The table compares the policies within each variant (one line per burst size, a column per
// policy, not one per policy x variant), shows the headline metrics (--all-metrics the rest), and
// fits a terminal.
// With `columns:`, metrics.csv (and the Python table, from the same view) names the key's column
// so; the values are those of the key's path without it.
TEST_F(CliSweep, MetricsCsvNamesTheColumnAsTheSweepSays) {
  const std::string dir = out_dir("named");
  const std::string file = dir + ".yaml";
  std::ofstream(file) << "scenario: " << fs::absolute("tests/tools/data/two_rings.yaml").string()
                      << "\ngrid:\n  workload.arrivals.count: [1, 2]\npolicies: [default-k8s]\n"
                      << "columns: {workload.arrivals.count: burst}\n";
  ASSERT_EQ(cli("sweep " + file + " -o " + dir + " --threads 2 -q").code, 0);
  const auto lines = lines_of(read_file(dir + "/metrics.csv"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0].starts_with("policy,seed,burst,gpu_util_stddev,")) << lines[0];
  for (std::size_t i = 1; i < 3; ++i) {  // policy, seed, burst
    std::vector<std::string> cells;
    std::stringstream row(lines[i]);
    for (std::string c; std::getline(row, c, ',');) {
      cells.push_back(c);
    }
    ASSERT_GE(cells.size(), 3u);
    EXPECT_EQ(cells[0], "default-k8s");
    EXPECT_EQ(cells[2], std::to_string(i)) << lines[i];
  }
}

TEST_F(CliSweep, TableComparesPoliciesWithinEachVariant) {
  const std::string dir = out_dir("table");
  const auto r = tidesim::test::run_capturing("sweep " + kSweep + " -o " + dir + " --threads 2",
                                              "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 4u);
  for (const char* column : {"metric", "better", "count", "default-k8s", "load-aware",
                             "difference, 95% CI", "verdict"}) {
    EXPECT_NE(lines[0].find(column), std::string::npos) << column << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("[count="), std::string::npos) << r.out;
  for (const auto& line : lines) {
    EXPECT_LE(display_width(line), 120u) << line;
  }
  // The mean wait's block: its label once, then one line per burst size 1, 2, 3.
  const auto wait = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.starts_with("mean task wait");
  });
  ASSERT_NE(wait, lines.end()) << r.out;
  ASSERT_LT(wait + 2, lines.end());
  EXPECT_TRUE((wait + 1)->starts_with(" ")) << r.out;
  EXPECT_EQ(r.out.find("jobs submitted"), std::string::npos) << r.out;
  const auto all = tidesim::test::run_capturing("sweep " + kSweep + " -o " + dir + " --all-metrics",
                                                "2>/dev/null");
  ASSERT_EQ(all.code, 0);
  EXPECT_NE(all.out.find("jobs submitted"), std::string::npos) << all.out;
  // CSV: the comparison per variant after the swept key's column.
  const auto csv = tidesim::test::run_capturing("sweep " + kSweep + " -o " + dir + " --format csv",
                                                "2>/dev/null");
  ASSERT_EQ(csv.code, 0);
  EXPECT_TRUE(csv.out.starts_with("workload.arrivals.count,metric,unit,direction,policy,"))
      << csv.out;
  EXPECT_NE(csv.out.find("\n3,mean_wait_s,s,lower,load-aware,2,"), std::string::npos) << csv.out;

  // The report of the merged result charts each headline metric against the burst size.
  ASSERT_EQ(cli("report " + dir + "/result.json -o " + dir + "/report.html").code, 0);
  const std::string html = read_file(dir + "/report.html");
  const auto sweep = html.find("<h2 id=\"sweep\">Sweep</h2>");
  EXPECT_NE(sweep, std::string::npos);
  // Its metrics: one table per burst size, the policies' own names as columns, after the sweep's
  // charts and folded in one <details>.
  EXPECT_LT(sweep, html.find("<details id=\"all-metrics-table\">"));
  EXPECT_LT(html.rfind("<img "), html.find("<details id=\"all-metrics-table\">"));
  EXPECT_NE(html.find("<h3>workload.arrivals.count = 3</h3>\n<table>\n<thead><tr><th>metric</th>"
                      "<th>better</th><th>default-k8s</th><th>load-aware</th>"),
            std::string::npos);
  // `report` prints the same table as `sweep`.
  const auto table = tidesim::test::run_capturing("report " + dir + "/result.json", "2>&1");
  EXPECT_EQ(table.out, r.out);
  EXPECT_NE(html.find("alt=\"mean task wait against workload.arrivals.count\""), std::string::npos);
}

// Without -o the results go to <sweep name>.results in the working folder, not beside the file.
TEST_F(CliSweep, DefaultFolderIsInTheWorkingFolder) {
  const std::string work = out_dir("work");
  fs::create_directories(work);
  const std::string sweep = fs::absolute(kSweep).string();
  const std::string beside = fs::path(sweep).parent_path().string() + "/sweep_small.results";
  const bool was_beside = fs::exists(beside);
  const int rc = std::system(("cd " + work + " && " + std::string(TIDESIM_CLI) + " sweep " + sweep +
                              " --threads 2 -q > out.txt 2>&1")
                                 .c_str());
  ASSERT_EQ(rc, 0) << read_file(work + "/out.txt");
  EXPECT_TRUE(fs::exists(work + "/sweep_small.results/result.json"));
  EXPECT_TRUE(fs::exists(work + "/sweep_small.results/metrics.csv"));
  EXPECT_EQ(fs::exists(beside), was_beside);
}

// The five lines of pandas in docs/sweeps.md ("Reading a sweep") read a sweep's metrics.csv and
// plot the mean wait against the swept key (here the burst size). Skipped without pandas and
// matplotlib (Debian's python3-pandas and python3-matplotlib), which tidesim does not need.
TEST_F(CliSweep, TheDocsPandasScriptPlotsAMetricAgainstTheKey) {
  if (std::system("/usr/bin/python3 -c 'import pandas, matplotlib' > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "pandas or matplotlib is not installed";
  }
  const std::string doc = read_file("docs/sweeps.md");
  const auto start = doc.find("```python\n");
  ASSERT_NE(start, std::string::npos);
  std::string script = doc.substr(start + 10, doc.find("```", start + 10) - start - 10);
  EXPECT_EQ(std::count(script.begin(), script.end(), '\n'), 5) << script;
  const auto replace = [&script](const std::string& from, const std::string& to) {
    const auto at = script.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    script.replace(at, from.size(), to);
  };
  const std::string dir = out_dir("pandas");
  replace("seed-benchmark-nodes.results", dir);
  replace("cluster.node_groups[0].count", "workload.arrivals.count");
  replace("wait.png", dir + "/wait.png");
  ASSERT_EQ(cli("sweep " + kSweep + " -o " + dir + " --threads 2 -q").code, 0);
  std::ofstream(dir + "/plot.py") << script;
  const int rc = std::system(("MPLBACKEND=Agg /usr/bin/python3 " + dir + "/plot.py").c_str());
  EXPECT_EQ(rc, 0) << script;
  EXPECT_GT(fs::file_size(dir + "/wait.png"), 1000u);
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
