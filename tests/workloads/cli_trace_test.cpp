// Runs the `tidesim trace` subcommands as a user would.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/csv.hpp"

namespace {

using Result = tidesim::test::CliOutput;
using tidesim::test::run;

TEST(CliTrace, StatsOfTheRealOpenbTrace) {
  const std::string path =
      std::string(TIDESIM_SHARED_DATA_DIR) + "/traces/openb_pod_list_default.csv";
  TIDESIM_REQUIRE_CLI();
  TIDESIM_REQUIRE_FILE(path);
  const Result table = run("trace stats " + path);
  EXPECT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("jobs    8,152"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("           1     6,989"), std::string::npos) << table.out;
  const Result json = run("trace stats --format json " + path);
  EXPECT_EQ(json.code, 0);
  EXPECT_NE(json.out.find("\"0\": 1088"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"8\": 44"), std::string::npos);
  EXPECT_NE(json.out.find("\"2\": 16"), std::string::npos);
  EXPECT_NE(json.out.find("\"4\": 15"), std::string::npos);
}

TEST(CliTrace, MalformedRowExitsTwoWithTheLine) {
  TIDESIM_REQUIRE_CLI();
  const std::string path = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/bad_openb.csv";
  const Result r = run("trace stats " + path);
  EXPECT_EQ(r.code, 2);
  // Column 15: where "two" begins in "p2,6000,12288,two,...".
  EXPECT_NE(r.out.find("bad_openb.csv:4:15: num_gpu: 'two' is not an integer"), std::string::npos)
      << r.out;
}

TEST(CliTrace, ConvertPhillyToNative) {
  TIDESIM_REQUIRE_CLI();
  const std::string in = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/philly_small.csv";
  const auto out = std::filesystem::temp_directory_path() / "tidesim_philly_native.csv";
  const Result r = run("trace convert " + in + " " + out.string() + " --from philly");
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(out);
  std::string header, first;
  std::getline(f, header);
  std::getline(f, first);
  EXPECT_EQ(first, "philly-0,60,66,1,1,0,0,0,,,,11cb48,true,false,,,,,,,");
  const Result stats = run("trace stats " + out.string());
  EXPECT_EQ(stats.code, 0);
  EXPECT_NE(stats.out.find("(native)"), std::string::npos);
}

const std::string kData = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/";

TEST(CliTrace, BadAcmeRowExitsTwoWithFileLineAndColumn) {
  TIDESIM_REQUIRE_CLI();
  const Result r = run("trace stats " + kData + "bad_acme.csv --format csv");
  EXPECT_EQ(r.code, 2);
  // Column 79: where s2's end_time (hour 24) begins.
  EXPECT_NE(r.out.find("bad_acme.csv:3:79: end_time: '2023-03-01 24:12:05+08:00' is not a time "
                       "YYYY-MM-DD HH:MM:SS[+HH:MM]"),
            std::string::npos)
      << r.out;
}

TEST(CliTrace, PaiJobTableWithoutItsTaskTableExitsTwo) {
  TIDESIM_REQUIRE_CLI();
  const auto dir = std::filesystem::temp_directory_path() / "tidesim_pai_alone";
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(kData + "pai2020/pai_job_table.csv", dir / "pai_job_table.csv",
                             std::filesystem::copy_options::overwrite_existing);
  const Result r = run("trace stats " + (dir / "pai_job_table.csv").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("a PAI-2020 job table is read with pai_task_table.csv beside it"),
            std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

// The csv row has AcmeTrace's data/cluster_summary.csv header (InternLM/AcmeTrace @6d6ac9c),
// with `id` first.
TEST(CliTrace, StatsCsvHasTheClusterSummaryColumns) {
  TIDESIM_REQUIRE_CLI();
  const Result r = run("trace stats " + kData + "helios_small.csv --format csv --id Helios");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')),
            "id,job_num,cpu_job_num,gpu_job_num,avg_run_time_gpu,avg_que_time_gpu,avg_gpu_num,"
            "med_run_time_gpu,med_que_time_gpu,med_gpu_num,max_run_time_gpu,max_gpu,"
            "complete_rate_gpu,cancel_rate_gpu,fail_rate_gpu,complete_gpu_time,cancel_gpu_time,"
            "fail_gpu_time,complete_rate_gpu_time,cancel_rate_gpu_time,fail_rate_gpu_time,"
            "avg_run_time_cpu,avg_que_time_cpu,med_run_time_cpu,med_que_time_cpu,"
            "complete_rate_cpu,cancel_rate_cpu,fail_rate_cpu");
  // 7 jobs, 2 of them CPU jobs (gpu_num 0).
  EXPECT_NE(r.out.find("\nHelios,7,2,5,"), std::string::npos) << r.out;
  const Result json = run("trace stats " + kData + "helios_small.csv --format json");
  EXPECT_NE(json.out.find("\"fail_rate_gpu\": 0.4"), std::string::npos) << json.out;
}

// A replay ends each job as its trace did: s2 (FAILED) fails and s3 (CANCELLED) is cancelled
// once their traced run times (120 s, 7,200 s) are done; s1 (COMPLETED) succeeds.
TEST(CliTrace, ReplayEndsJobsAsTheTraceDid) {
  TIDESIM_REQUIRE_CLI();
  const auto dir = std::filesystem::temp_directory_path() / "tidesim_acme_replay";
  std::filesystem::remove_all(dir);
  const Result r = run("run " + kData + "acme_replay.yaml -q --output " + dir.string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::ifstream f(dir / "jobs.csv");
  std::stringstream text;
  text << f.rdbuf();
  const std::string csv = text.str();
  tidesim::CsvReader reader(csv, "jobs.csv");
  std::vector<std::string> header, row;
  ASSERT_TRUE(reader.next(header));
  const auto col = [&](const std::string& c) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), c) - header.begin());
  };
  std::map<std::string, std::vector<std::string>> jobs;
  while (reader.next(row) && row.size() == header.size()) {
    jobs[row[col("job")]] = row;
  }
  ASSERT_EQ(jobs.size(), 10u) << csv;
  const auto state = [&](const std::string& j) { return jobs.at(j)[col("state")]; };
  EXPECT_EQ(state("s1"), "succeeded");
  EXPECT_EQ(state("s2"), "failed");
  EXPECT_EQ(state("s3"), "cancelled");
  EXPECT_EQ(state("s6"), "failed");  // NODE_FAIL
  EXPECT_EQ(state("s9"), "cancelled");
  const auto ran = [&](const std::string& j) {
    return std::stod(jobs.at(j)[col("finish_s")]) - std::stod(jobs.at(j)[col("start_s")]);
  };
  EXPECT_NEAR(ran("s2"), 120.0, 6.0);
  EXPECT_NEAR(ran("s3"), 7200.0, 360.0);
  std::filesystem::remove_all(dir);
}

}  // namespace
