// OpenMetrics text (checked with promtool; skipped without it, failed under CI=true) and CSV
// writers.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/require.hpp"
#include "tests/tools/sample_result.hpp"
#include "tidesim/sim/input/csv.hpp"
#include "tidesim/tools/lib/csv_out.hpp"
#include "tidesim/tools/lib/openmetrics.hpp"

namespace tidesim::app {
namespace {

std::string openmetrics_text(bool seed_names) {
  std::ostringstream out;
  OpenMetricsOptions options;
  options.seed_names = seed_names;
  write_openmetrics(out, test::sample_result(), options);
  return out.str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(OpenMetrics, SeedNamesLabelsAndEof) {
  const std::string text = openmetrics_text(true);
  ASSERT_GE(text.size(), 6u);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
  // Seed 1 of default-k8s, node n1, card 0: 20 GiB of 24 GiB in use from its first busy sample
  // (110 s: wait 100 + 10 x seed) on. Node series are change points: a row at 110 s and one at
  // the last sample (600 s), none at 200 s where nothing changed.
  const std::string n1_card0 =
      "ai_gpu_memory_utilization{gpu_id=\"0\",node=\"n1\",policy=\"default-k8s\",seed=\"1\"} ";
  EXPECT_NE(text.find(n1_card0 + "0.8333333333333334 1704067310\n"), std::string::npos);
  EXPECT_NE(text.find(n1_card0 + "0.8333333333333334 1704067800\n"), std::string::npos);
  EXPECT_EQ(text.find(n1_card0 + "0.8333333333333334 1704067400\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE ai_nvlink_competition_index gauge"), std::string::npos);
  EXPECT_NE(text.find("ai_storage_await_ms{device=\"data\",node=\"n2\""), std::string::npos);
  // Counters: one OOM kill at 305 s shows from the 310 s sample on.
  EXPECT_NE(text.find("tidesim_oom_kills_total{policy=\"default-k8s\",seed=\"1\"} 0 1704067500"),
            std::string::npos);
  EXPECT_NE(text.find("tidesim_oom_kills_total{policy=\"default-k8s\",seed=\"1\"} 1 1704067510"),
            std::string::npos);
  // Only seed 1 recorded series.
  EXPECT_EQ(text.find("seed=\"2\""), std::string::npos);
}

TEST(OpenMetrics, PrometheusConventionsByDefault) {
  const std::string text = openmetrics_text(false);
  // Shares end in _ratio, with their UNIT; the await is in seconds; counters end in _total and are
  // typed counter under that name.
  EXPECT_NE(text.find("# TYPE ai_gpu_memory_utilization_ratio gauge\n"
                      "# UNIT ai_gpu_memory_utilization_ratio ratio\n"
                      "# HELP ai_gpu_memory_utilization_ratio "),
            std::string::npos);
  EXPECT_NE(text.find("ai_gpu_memory_utilization_ratio{gpu_id=\"0\",node=\"n1\",policy=\"default-"
                      "k8s\",seed=\"1\"} 0.8333333333333334 1704067310\n"),
            std::string::npos);
  EXPECT_NE(text.find("# UNIT ai_storage_await_seconds seconds\n"), std::string::npos);
  EXPECT_NE(text.find("# UNIT tidesim_gpu_memory_used_bytes bytes\n"), std::string::npos);
  EXPECT_NE(text.find("# TYPE tidesim_oom_kills_total counter\n"
                      "# HELP tidesim_oom_kills_total GPU OOM kills so far.\n"),
            std::string::npos);
  EXPECT_EQ(text.find("ai_storage_await_ms"), std::string::npos);
  EXPECT_EQ(text.find("# TYPE tidesim_gpu_utilization gauge"), std::string::npos);
  // Every family has its HELP right after TYPE (or TYPE and UNIT).
  std::istringstream lines(text);
  std::string line;
  std::string last;
  int families = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("# HELP ")) {
      ++families;
      EXPECT_TRUE(last.starts_with("# TYPE ") || last.starts_with("# UNIT ")) << line;
    }
    last = line;
  }
  EXPECT_EQ(families, 16);
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

TEST(OpenMetrics, PromtoolAcceptsIt) {
  TIDESIM_REQUIRE_TOOL("promtool", "prometheus");
  const std::string dir = test::temp_dir("promtool");
  std::ofstream(dir + "/base.om") << openmetrics_text(false);
  std::ofstream(dir + "/seed.om") << openmetrics_text(true);
  // By default (Prometheus' conventions) the lint is clean.
  EXPECT_EQ(
      std::system(
          ("promtool check metrics < " + dir + "/base.om > " + dir + "/base.lint 2>&1").c_str()),
      0)
      << read_file(dir + "/base.lint");
  // With the seed's names the only finding is the seed's own `_ms` suffix (exit 3 = lint
  // findings, not a parse error).
  const int rc = std::system(
      ("promtool check metrics < " + dir + "/seed.om > " + dir + "/seed.lint 2>&1").c_str());
  const std::string lint = read_file(dir + "/seed.lint");
  EXPECT_EQ(WEXITSTATUS(rc), 3) << lint;
  EXPECT_EQ(lint, "ai_storage_await_ms metric names should not contain abbreviated units\n");
  // The TSDB loads it (counters typed under their `_total` name included).
  EXPECT_EQ(std::system(("promtool tsdb create-blocks-from openmetrics " + dir + "/base.om " + dir +
                         "/tsdb > " + dir + "/tsdb.log 2>&1")
                            .c_str()),
            0)
      << read_file(dir + "/tsdb.log");
}

TEST(Csv, JobsNodesAndCards) {
  const auto result = test::sample_result();
  std::ostringstream jobs;
  write_jobs_csv(jobs, result);
  const std::string j = jobs.str();
  // Header + 2 policies x 3 seeds x 4 jobs.
  EXPECT_EQ(std::count(j.begin(), j.end(), '\n'), 1 + 24);
  // default-k8s seed 1, job-1: bound at 111, wait 111, finished at 520, JCT 520, 1 OOM kill.
  EXPECT_NE(j.find("default-k8s,1,job-1,succeeded,1,1,n1,0,111,111,520,111,520,1,1,0,true,"),
            std::string::npos)
      << j;
  std::ostringstream nodes;
  write_node_series_csv(nodes, result);
  const std::string n = nodes.str();
  // Header + 2 runs with series x 2 nodes x 3 change points: the first sample, the first busy
  // one (the nodes' state changes once), the last sample.
  EXPECT_EQ(std::count(n.begin(), n.end(), '\n'), 1 + 2 * 2 * 3);
  std::ostringstream cards;
  write_card_series_csv(cards, result);
  const std::string c = cards.str();
  EXPECT_EQ(std::count(c.begin(), c.end(), '\n'), 1 + 2 * 2 * 3 * 2);
}

// Names with commas, quotes and line breaks are quoted, and the one CSV reader gives them back.
TEST(Csv, OddNamesReadBackExactly) {
  auto result = test::sample_result();
  const std::string policy = "my \"best\", policy";
  const std::string job = "job\r\nwith,lines\n";
  result.runs[0].policy = policy;
  result.runs[0].jobs[0].name = job;
  result.runs[0].jobs[0].job_class = "a \"class\", odd";
  std::ostringstream jobs;
  write_jobs_csv(jobs, result);
  const std::string text = jobs.str();
  CsvReader reader(text, "jobs.csv");
  std::vector<std::string> fields;
  ASSERT_TRUE(reader.next(fields));  // the header
  const std::size_t columns = fields.size();
  EXPECT_EQ(columns, 33u);
  std::size_t rows = 0;
  while (reader.next(fields)) {
    ASSERT_EQ(fields.size(), columns) << "line " << reader.line();
    if (rows == 0) {
      EXPECT_EQ(fields[0], policy);
      EXPECT_EQ(fields[2], job);
      EXPECT_EQ(fields[19], "a \"class\", odd");
      EXPECT_EQ(reader.line(), 2);
    } else if (rows == 1) {
      EXPECT_EQ(reader.line(), 5);  // the first row spans lines 2 to 4
    }
    ++rows;
  }
  EXPECT_EQ(rows, 24u);
}

}  // namespace
}  // namespace tidesim::app
