// Outputs that fit the work, end to end: the progress line (never on stdout nor in result files;
// on stderr only when asked with --progress when stderr is not a terminal; --quiet), the time
// series a run records (--series, --series-step, --series-seed), and `promtool check metrics` on
// `run --output` (skipped without promtool, failed under CI=true).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/csv.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tidesim::test::read_file;
using tidesim::test::run_capturing;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `text` without its warning lines ("tidesim: warning: ..."): two_rings.yaml's job warns as
// `tidesim validate` warns (a worker's evaluation peak), which `run` prints too.
std::string without_warnings(const std::string& text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size() - 1) + 1;
    const std::string line = text.substr(at, end - at);
    if (line.rfind("tidesim: warning: ", 0) != 0) {
      out += line;
    }
    at = end;
  }
  return out;
}

class CliOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    TIDESIM_REQUIRE_CLI();
    fs::create_directories(dir_);
  }
  std::string dir_ = ::testing::TempDir() + "/tidesim_cli_outputs_" + std::to_string(::getpid());
  const std::string scenario_ = "tests/tools/data/two_rings.yaml";
};

TEST_F(CliOutputs, NoProgressWhenStderrIsNotATerminal) {
  const std::string err = dir_ + "/err";
  const auto r = run_capturing("run " + scenario_ + " --seed 1 --seed 2 --output " + dir_ + "/out",
                               "2> " + err);
  ASSERT_EQ(r.code, 0) << read_file(err);
  // stderr holds only the note of the files written (and warnings); stdout only the table.
  EXPECT_EQ(without_warnings(read_file(err)),
            "tidesim: wrote result.json, metrics.csv, jobs.csv, attempts.csv, nodes.csv, "
            "cards.csv, metrics.om.txt to " +
                dir_ + "/out\n");
  EXPECT_FALSE(contains(r.out, "runs ")) << r.out;
  EXPECT_FALSE(contains(r.out, "\r"));
}

TEST_F(CliOutputs, ProgressWhenAskedGoesToStderrOnly) {
  const std::string err = dir_ + "/err";
  const auto r = run_capturing(
      "run " + scenario_ + " --seed 1 --seed 2 --progress --output " + dir_ + "/out", "2> " + err);
  ASSERT_EQ(r.code, 0) << read_file(err);
  const std::string e = read_file(err);
  // Off a terminal, --progress writes whole lines (no carriage return) and always the final one:
  // 2 policies x 2 seeds = 4 runs.
  EXPECT_TRUE(contains(e, "runs 4/4 100%")) << e;
  EXPECT_TRUE(contains(e, " events/s")) << e;
  EXPECT_TRUE(contains(e, "  done in ")) << e;
  EXPECT_FALSE(contains(e, "\r")) << e;
  EXPECT_FALSE(contains(r.out, "runs 4/4")) << r.out;
  for (const auto& f : fs::directory_iterator(dir_ + "/out")) {
    EXPECT_FALSE(contains(read_file(f.path().string()), "events/s")) << f.path();
  }
}

TEST_F(CliOutputs, QuietSaysNothingOnStderr) {
  const std::string err = dir_ + "/err";
  const auto r = run_capturing("run " + scenario_ + " --seed 1 --quiet --output " + dir_ + "/out",
                               "2> " + err);
  ASSERT_EQ(r.code, 0) << read_file(err);
  EXPECT_EQ(without_warnings(read_file(err)), "");       // warnings are not progress: they stay
  EXPECT_TRUE(contains(r.out, "default-k8s")) << r.out;  // the table is still printed
  // --progress and --quiet contradict each other: a usage error.
  const auto both = tidesim::test::run("run " + scenario_ + " --progress --quiet");
  EXPECT_EQ(both.code, 2) << both.out;
}

TEST_F(CliOutputs, SweepProgressWhenAsked) {
  const std::string err = dir_ + "/err";
  const auto r = run_capturing(
      "sweep tests/tools/data/sweep_small.yaml -o " + dir_ + "/sweep --threads 2 --progress",
      "2> " + err);
  ASSERT_EQ(r.code, 0) << read_file(err);
  const std::string e = read_file(err);
  // 3 burst sizes x 2 policies x 2 seeds = 12 cells.
  EXPECT_TRUE(contains(e, "cells 12/12 100%")) << e;
  EXPECT_FALSE(contains(r.out, "cells 12/12")) << r.out;
  EXPECT_FALSE(contains(read_file(dir_ + "/sweep/result.json"), "events/s"));
}

json result_of(const std::string& dir) {
  return json::parse(read_file(dir + "/result.json"));
}

TEST_F(CliOutputs, SeriesScopeStepAndSeeds) {
  const std::string base = "run " + scenario_ + " --policy default-k8s --seed 1 --seed 2 ";
  // Default: full series for the first seed only.
  ASSERT_EQ(tidesim::test::run(base + "--output " + dir_ + "/full").code, 0);
  const json full = result_of(dir_ + "/full");
  ASSERT_FALSE(full["runs"][0]["series"].is_null());
  EXPECT_TRUE(full["runs"][1]["series"].is_null());
  EXPECT_EQ(full["runs"][0]["series"]["nodes"].size(), 1u);  // the one DGX-1
  const auto samples = full["runs"][0]["series"]["t_s"].size();

  // summary: the cluster-level series, no node; seed 2 chosen instead of the first.
  ASSERT_EQ(
      tidesim::test::run(base + "--output " + dir_ + "/summary --series summary --series-seed 2")
          .code,
      0);
  const json summary = result_of(dir_ + "/summary");
  EXPECT_TRUE(summary["runs"][0]["series"].is_null());
  ASSERT_FALSE(summary["runs"][1]["series"].is_null());
  EXPECT_EQ(summary["runs"][1]["series"]["nodes"].size(), 0u);
  EXPECT_GE(summary["runs"][1]["series"]["t_s"].size(), 4u);
  // Metrics do not depend on what is recorded.
  EXPECT_EQ(summary["runs"][0]["metrics"], full["runs"][0]["metrics"]);

  // The run samples every 10 s from 0 to 50 s and once more when it ends (58.46 s): 7 samples.
  // A 20 s step keeps the first sample at or after 0, 20, 40 and 60 s: 0, 20 and 40.
  EXPECT_EQ(samples, 7u);
  ASSERT_EQ(tidesim::test::run(base + "--output " + dir_ + "/step --series-step 20s").code, 0);
  const json step = result_of(dir_ + "/step");
  EXPECT_EQ(step["runs"][0]["series"]["t_s"], json::array({0.0, 20.0, 40.0}));
  EXPECT_EQ(step["runs"][0]["series"]["nodes"][0]["t_s"].back(), 40.0);

  // none: no series at all; all: every seed.
  ASSERT_EQ(tidesim::test::run(base + "--output " + dir_ + "/none --series none").code, 0);
  EXPECT_TRUE(result_of(dir_ + "/none")["runs"][0]["series"].is_null());
  ASSERT_EQ(tidesim::test::run(base + "--output " + dir_ + "/all --series-seed all").code, 0);
  EXPECT_FALSE(result_of(dir_ + "/all")["runs"][1]["series"].is_null());
}

// metrics.csv: one row per policy and seed, columns policy, seed, then every metric, each value
// the one result.json holds (read back exactly).
TEST_F(CliOutputs, RunWritesTidyMetrics) {
  const auto r =
      tidesim::test::run("run " + scenario_ + " --seed 1 --seed 2 --output " + dir_ + "/tidy");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "wrote result.json, metrics.csv,")) << r.out;
  const json result = result_of(dir_ + "/tidy");
  std::istringstream csv(read_file(dir_ + "/tidy/metrics.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  std::vector<std::string> header;
  for (std::size_t at = 0; at != std::string::npos;) {
    const auto comma = line.find(',', at);
    header.push_back(line.substr(at, comma == std::string::npos ? comma : comma - at));
    at = comma == std::string::npos ? comma : comma + 1;
  }
  ASSERT_GE(header.size(), 6u);
  EXPECT_EQ(header[0], "policy");
  EXPECT_EQ(header[1], "seed");
  EXPECT_EQ(header[2], "gpu_util_stddev");  // the catalogue's first
  EXPECT_EQ(header.size(), 2 + result["runs"][0]["metrics"].size());
  // 2 policies x 2 seeds, in the result's order.
  for (std::size_t k = 0; k < 4; ++k) {
    ASSERT_TRUE(std::getline(csv, line)) << k;
    const json& run = result["runs"][k];
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) {
      cells.push_back(cell);
    }
    ASSERT_GE(cells.size(), 3u) << line;
    EXPECT_EQ(cells[0], run["policy"].get<std::string>());
    EXPECT_EQ(cells[1], std::to_string(run["seed"].get<std::uint64_t>()));
    for (std::size_t c = 2; c < cells.size(); ++c) {
      if (run["metrics"].contains(header[c])) {
        EXPECT_EQ(std::stod(cells[c]), run["metrics"][header[c]].get<double>()) << header[c];
      }
    }
  }
  EXPECT_FALSE(std::getline(csv, line));
}

TEST_F(CliOutputs, BadSeriesChoicesExitTwoNamingTheFlag) {
  const std::string base = "run " + scenario_ + " --seed 1 ";
  auto r = tidesim::test::run(base + "--output " + dir_ + "/x --series-seed 7");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--series-seed: seed 7 is not run (the run's seeds: 1)")) << r.out;
  r = tidesim::test::run(base + "--output " + dir_ + "/x --series-step 0s");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--series-step: '0s' must be positive")) << r.out;
  r = tidesim::test::run(base + "--output " + dir_ + "/x --series everything");
  EXPECT_EQ(r.code, 2) << r.out;
  r = tidesim::test::run(base + "--series summary");
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.out, "--series: time series are written only with --output DIR")) << r.out;
}

TEST_F(CliOutputs, PromtoolAcceptsRunOutput) {
  TIDESIM_REQUIRE_TOOL("promtool", "prometheus");
  ASSERT_EQ(tidesim::test::run("run " + scenario_ + " --seed 1 --output " + dir_ + "/om").code, 0);
  const std::string om = dir_ + "/om/metrics.om.txt";
  EXPECT_EQ(std::system(("promtool check metrics < " + om + " > " + dir_ + "/lint 2>&1").c_str()),
            0)
      << read_file(dir_ + "/lint");
  EXPECT_EQ(read_file(dir_ + "/lint"), "");
}

// jobs.csv says what each job is and how it ran: an LLM gang of 4 pods on a fabric, given an
// hour (tests/sim/data/llm_jobs.yaml), alone on the cluster, runs it at its reference step.
TEST_F(CliOutputs, JobsCsvSaysWhatEachJobIsAndHowItRan) {
  const std::string err = dir_ + "/err";
  const auto r = run_capturing(
      "run tests/sim/data/llm_jobs.yaml --seed 1 -q --output " + dir_ + "/llm", "2> " + err);
  ASSERT_EQ(r.code, 0) << read_file(err);
  const std::string text = read_file(dir_ + "/llm/jobs.csv");
  tidesim::CsvReader reader(text, "jobs.csv");
  std::vector<std::string> header, row;
  ASSERT_TRUE(reader.next(header));
  ASSERT_TRUE(reader.next(row));
  ASSERT_EQ(row.size(), header.size());
  const auto at = [&](const std::string& column) {
    const auto it = std::find(header.begin(), header.end(), column);
    EXPECT_NE(it, header.end()) << column;
    return it == header.end() ? std::string() : row[static_cast<std::size_t>(it - header.begin())];
  };
  EXPECT_EQ(at("job"), "llama8b-0");
  EXPECT_EQ(at("job_class"), "llama8b");
  EXPECT_EQ(at("kind"), "llm");
  EXPECT_EQ(at("model"), "llama3-8B");
  EXPECT_EQ(at("batch_size"), "1");  // the micro-batch
  EXPECT_EQ(at("stated_s"), "3600");
  EXPECT_GT(std::stoll(at("steps")), 0);
  EXPECT_EQ(at("gpus"), "32");
  // Alone, packed on its reference placement: its run time is what was stated, its step its
  // reference step, and its ring never shared.
  EXPECT_NEAR(std::stod(at("ideal_s")), 3600.0, 36.0);
  EXPECT_NEAR(std::stod(at("slowdown")), 1.0, 0.01);
  EXPECT_NEAR(std::stod(at("step_slowdown")), 1.0, 1e-9);
  EXPECT_GT(std::stod(at("mfu")), 0.0);
  EXPECT_LT(std::stod(at("mfu")), 1.0);
  EXPECT_GE(std::stod(at("comm_share")), 0.0);
  EXPECT_EQ(at("fabric_contended_s"), "0");
  EXPECT_EQ(at("lost_gpu_s"), "0");
  EXPECT_FALSE(reader.next(row));
}

}  // namespace
