// Runs the `tidesim trace` subcommands as a user would.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"

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
  EXPECT_EQ(first, "philly-0,60,66,1,1,0,0,0,,,,11cb48,true,false,,,,");
  const Result stats = run("trace stats " + out.string());
  EXPECT_EQ(stats.code, 0);
  EXPECT_NE(stats.out.find("(native)"), std::string::npos);
}

}  // namespace
