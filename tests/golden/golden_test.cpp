// Golden scenarios: the pinned scenarios (the list at the end) run through the `tidesim` CLI with
// seeds 1 and 2 and every policy it names; the result JSON, less what depends on the machine or
// the build (normalise() below), must match tests/golden/<scenario>-seeds-1-2.json. Numbers are
// compared with a relative tolerance of 1e-9 (docs/ci.md "Golden scenarios" says why).
//
// With TIDESIM_UPDATE_GOLDEN=1 the test writes the golden files instead of comparing:
// tools/update-golden.sh does that, on purpose, and the diff is reviewed before it is committed.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// One golden scenario: its file, the data folder's files it reads (none for most), and whether
/// its golden file keeps the per-job records and events of every run.
struct GoldenCase {
  std::string name;                  ///< scenario file name without .yaml; names the golden file
  std::vector<std::string> needs{};  ///< files it reads, relative to the data folder
  /// False for trace replays: openb's 8,152 jobs x 4 runs make a 16 MB file that no one reviews;
  /// its metrics and summary still cover every job.
  bool per_job = true;
};

/// Names the case in gtest's messages (instead of a byte dump).
void PrintTo(const GoldenCase& c, std::ostream* os) {
  *os << c.name;
}

/// The seeds every golden run uses.
constexpr std::string_view kSeeds = "--seed 1 --seed 2";

/// Relative tolerance of numeric comparisons, and the absolute one below which two numbers near
/// zero are equal.
constexpr double kRelativeTolerance = 1e-9;
constexpr double kAbsoluteTolerance = 1e-12;

/// How many differences a failure lists (the total is always given).
constexpr std::size_t kMaxListed = 20;

std::string golden_path(const GoldenCase& c) {
  return "tests/golden/" + c.name + "-seeds-1-2.json";
}

bool updating() {
  const char* v = std::getenv("TIDESIM_UPDATE_GOLDEN");
  return v != nullptr && std::string_view(v) == "1";
}

/// The result JSON less what varies between machines or builds: the tidesim version (it names
/// the release, not the model), the scenario's path (as given on the command line) and hash
/// (of the file's text, so it changes with a comment), and the provenance (the commit, the
/// command line and the inputs' hashes: tests/tools/provenance_test.cpp checks it). Runs carry
/// no wall times and the result no host names or dates; `summary` is derived from the runs and
/// kept. Without `per_job`, the runs' `jobs`, `events` and `attempts` are left out too.
json normalise(json result, bool per_job = true) {
  auto& metadata = result.at("metadata");
  metadata.erase("tidesim_version");
  metadata.erase("provenance");
  // Descriptions of the scenario (tools/lib/scenario_describe.hpp), pinned by its name already.
  metadata.erase("cluster");
  metadata.erase("workload");
  metadata.at("scenario").erase("path");
  metadata.at("scenario").erase("hash");
  if (!per_job) {
    for (auto& run : result.at("runs")) {
      run.erase("jobs");
      run.erase("events");
      run.erase("attempts");
    }
  }
  return result;
}

/// What `tidesim ARGS` wrote on stdout, with its exit code; stderr (progress, errors) goes to
/// `err_file`.
tidesim::test::CliOutput run_cli(const std::string& args, const std::string& err_file) {
  return tidesim::test::run_capturing(args, "2> " + err_file);
}

/// A number as the JSON writer prints it: the shortest text that reads back as the same value.
std::string number_text(const json& v) {
  return v.dump();
}

std::string short_text(const json& v) {
  if (v.is_number()) {
    return number_text(v);
  }
  std::string s = v.dump();
  return s.size() > 80 ? s.substr(0, 77) + "..." : s;
}

/// A label that makes an array element findable in a diff: the policy and seed of a run, the
/// name of a job or metric, the kind and time of an event.
std::string label_of(const json& element) {
  if (!element.is_object()) {
    return "";
  }
  if (element.contains("policy") && element.contains("seed")) {
    return "{" + element["policy"].get<std::string>() + " seed " + element["seed"].dump() + "}";
  }
  if (element.contains("name") && element["name"].is_string()) {
    return "{" + element["name"].get<std::string>() + "}";
  }
  if (element.contains("kind") && element.contains("t_s")) {
    return "{" + element["kind"].dump() + " at " + number_text(element["t_s"]) + " s}";
  }
  return "";
}

bool numbers_equal(const json& a, const json& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    // Both integers (signed or unsigned): exact, without the detour through double.
    return a == b;
  }
  const double x = a.get<double>();
  const double y = b.get<double>();
  const double d = std::fabs(x - y);
  return d <= kAbsoluteTolerance || d <= kRelativeTolerance * std::max(std::fabs(x), std::fabs(y));
}

/// Appends one line per difference between `golden` and `now` below `path`.
void differences(const json& golden, const json& now, const std::string& path,
                 std::vector<std::string>& out) {
  if (golden.is_number() && now.is_number()) {
    if (!numbers_equal(golden, now)) {
      const double g = golden.get<double>();
      const double n = now.get<double>();
      std::ostringstream line;
      line << path << ": golden " << number_text(golden) << ", now " << number_text(now);
      if (g != 0) {
        line.precision(3);
        line << " (" << std::showpos << 100.0 * (n - g) / std::fabs(g) << "%)";
      }
      out.push_back(line.str());
    }
    return;
  }
  if (golden.type() != now.type()) {
    out.push_back(path + ": golden " + short_text(golden) + ", now " + short_text(now));
    return;
  }
  if (golden.is_object()) {
    for (const auto& [key, value] : golden.items()) {
      if (!now.contains(key)) {
        out.push_back(path + "." + key + ": golden " + short_text(value) + ", now absent");
      } else {
        differences(value, now[key], path + "." + key, out);
      }
    }
    for (const auto& [key, value] : now.items()) {
      if (!golden.contains(key)) {
        out.push_back(path + "." + key + ": golden absent, now " + short_text(value));
      }
    }
    return;
  }
  if (golden.is_array()) {
    if (golden.size() != now.size()) {
      out.push_back(path + ": golden has " + std::to_string(golden.size()) + " elements, now " +
                    std::to_string(now.size()));
    }
    for (std::size_t i = 0; i < std::min(golden.size(), now.size()); ++i) {
      differences(golden[i], now[i], path + "[" + std::to_string(i) + "]" + label_of(golden[i]),
                  out);
    }
    return;
  }
  if (golden != now) {
    out.push_back(path + ": golden " + short_text(golden) + ", now " + short_text(now));
  }
}

/// The differences, metrics of the runs first (what a reviewer looks at), then the rest
/// (summary, jobs, events) in document order; empty when the two match.
std::vector<std::string> compare(const json& golden, const json& now) {
  std::vector<std::string> all;
  differences(golden, now, "result", all);
  std::stable_partition(all.begin(), all.end(), [](const std::string& line) {
    return line.starts_with("result.runs[") && line.find("}.metrics.") != std::string::npos;
  });
  return all;
}

std::string report(const std::vector<std::string>& diffs) {
  std::string text = std::to_string(diffs.size()) + " difference(s); the first " +
                     std::to_string(std::min(diffs.size(), kMaxListed)) + ":\n";
  for (std::size_t i = 0; i < std::min(diffs.size(), kMaxListed); ++i) {
    text += "  " + diffs[i] + "\n";
  }
  text +=
      "If the change is intended: tools/update-golden.sh, review `git diff tests/golden`, and "
      "commit it saying why the results changed (docs/ci.md).";
  return text;
}

/// A file of the data folder the scenarios read as $TIDESIM_DATA/... (sim/input/data_folder.hpp):
/// the folder TIDESIM_DATA names, else ../shared/data beside the repository.
std::string data_file(const std::string& relative) {
  const char* v = std::getenv("TIDESIM_DATA");
  const std::string folder =
      v != nullptr && *v != '\0' ? std::string(v) : std::string(TIDESIM_SHARED_DATA_DIR);
  return folder + "/" + relative;
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, ResultMatchesTheGoldenFile) {
  const GoldenCase& c = GetParam();
  TIDESIM_REQUIRE_CLI();
  for (const auto& f : c.needs) {
    TIDESIM_REQUIRE_FILE(data_file(f));
  }
  const std::string scenario = "scenarios/" + c.name + ".yaml";
  const fs::path err =
      fs::temp_directory_path() / ("tidesim-golden-" + c.name + "-" + std::to_string(getpid()));
  const tidesim::test::CliOutput r = run_cli(
      "run " + scenario + " " + std::string(kSeeds) + " --format json --threads 2", err.string());
  const std::string stderr_text = tidesim::test::read_file(err.string());
  fs::remove(err);
  ASSERT_EQ(r.code, 0) << "tidesim run " << scenario << " failed:\n" << stderr_text;
  const json now = normalise(json::parse(r.out), c.per_job);

  if (updating()) {
    std::ofstream out(golden_path(c));
    ASSERT_TRUE(out) << "cannot write " << golden_path(c);
    out << now.dump(2) << "\n";
    std::cout << "wrote " << golden_path(c) << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(golden_path(c)))
      << golden_path(c) << " is missing: create it with tools/update-golden.sh";
  const json golden = json::parse(tidesim::test::read_file(golden_path(c)));
  const auto diffs = compare(golden, now);
  EXPECT_TRUE(diffs.empty()) << scenario << " no longer matches " << golden_path(c) << ": "
                             << report(diffs);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, Golden,
    ::testing::Values(GoldenCase{.name = "seed-benchmark"},
                      GoldenCase{.name = "seed-benchmark-pcie"},
                      GoldenCase{.name = "seed-benchmark-hami"},
                      GoldenCase{.name = "openb-default",
                                 .needs = {"traces/openb_node_list_all_node.csv",
                                           "traces/openb_pod_list_default.csv"},
                                 .per_job = false},
                      GoldenCase{.name = "pollux-workload-6",
                                 .needs = {"traces/pollux_workload-6.csv",
                                           "pollux/cifar10/placements.csv"},
                                 .per_job = false}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string name = info.param.name;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

// The comparison itself, on small documents.

TEST(GoldenCompare, EqualWithinTheTolerance) {
  const json a = json::parse(R"({"x": 1.0, "y": [1, 2], "z": "s", "w": 0.0})");
  const json b = json::parse(R"({"x": 1.0000000000001, "y": [1, 2], "z": "s", "w": 1e-15})");
  EXPECT_TRUE(compare(a, b).empty());
}

TEST(GoldenCompare, NamesTheRunAndMetricFirst) {
  const json golden = json::parse(R"({
    "summary": {"mean_wait_s": 1.0},
    "runs": [{"policy": "load-aware", "seed": 2, "metrics": {"mean_wait_s": 400.0},
              "jobs": [{"name": "gpt2-dp", "finish_s": 10.0}]}]})");
  json now = golden;
  now["summary"]["mean_wait_s"] = 2.0;
  now["runs"][0]["metrics"]["mean_wait_s"] = 401.0;
  now["runs"][0]["jobs"][0]["finish_s"] = nullptr;
  const auto d = compare(golden, now);
  ASSERT_EQ(d.size(), 3U);
  EXPECT_EQ(d[0],
            "result.runs[0]{load-aware seed 2}.metrics.mean_wait_s: golden 400.0, now 401.0 "
            "(+0.25%)");
  EXPECT_EQ(d[1],
            "result.runs[0]{load-aware seed 2}.jobs[0]{gpt2-dp}.finish_s: golden 10.0, now "
            "null");
  EXPECT_EQ(d[2], "result.summary.mean_wait_s: golden 1.0, now 2.0 (+100%)");
}

TEST(GoldenCompare, ReportsBeyondTheTolerance) {
  const json a = json::parse(R"({"x": 1.0})");
  const json b = json::parse(R"({"x": 1.00000001})");
  EXPECT_EQ(compare(a, b).size(), 1U);
}

TEST(GoldenCompare, ReportsMissingAndExtraFieldsAndLengths) {
  const json a = json::parse(R"({"gone": 1, "list": [1, 2, 3]})");
  const json b = json::parse(R"({"new": 1, "list": [1, 2]})");
  const auto d = compare(a, b);
  ASSERT_EQ(d.size(), 3U);
  EXPECT_EQ(d[0], "result.gone: golden 1, now absent");
  EXPECT_EQ(d[1], "result.list: golden has 3 elements, now 2");
  EXPECT_EQ(d[2], "result.new: golden absent, now 1");
}

TEST(GoldenCompare, IntegersAreExact) {
  const json a = json::parse(R"({"seed": 18446744073709551615})");
  const json b = json::parse(R"({"seed": 18446744073709551614})");
  EXPECT_EQ(compare(a, b).size(), 1U);
}

TEST(GoldenNormalise, DropsWhatVariesBetweenMachinesAndBuilds) {
  const json result = json::parse(R"({"metadata": {"tidesim_version": "0.1.0",
    "scenario": {"name": "s", "path": "scenarios/s.yaml", "hash": "fnv1a64:00"},
    "seeds": [1, 2]}, "runs": []})");
  const json n = normalise(result);
  EXPECT_EQ(n, json::parse(R"({"metadata": {"scenario": {"name": "s"}, "seeds": [1, 2]},
    "runs": []})"));
}

TEST(GoldenNormalise, WithoutPerJobRecordsKeepsTheMetrics) {
  const json result = json::parse(R"({"metadata": {"scenario": {"name": "s"}},
    "runs": [{"policy": "p", "seed": 1, "metrics": {"m": 1.0}, "jobs": [{}], "events": []}]})");
  EXPECT_EQ(normalise(result, false)["runs"][0],
            json::parse(R"({"policy": "p", "seed": 1, "metrics": {"m": 1.0}})"));
  EXPECT_EQ(normalise(result, true)["runs"][0], result["runs"][0]);
}

}  // namespace
