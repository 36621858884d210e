// `tidesim topo` through the CLI binary: exit codes and output.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"

namespace {

using Result = tidesim::test::CliOutput;
using tidesim::test::run;

TEST(TopoCli, PresetTable) {
  TIDESIM_REQUIRE_CLI();
  const Result r = run("topo dgx1-v100");
  ASSERT_EQ(r.code, 0) << r.out;
  // The matrix comes first, in nvidia-smi form.
  EXPECT_EQ(r.out.rfind("\tGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\n"
                        "GPU0\t X \tNV1\tNV1\tNV2\tNV2\tSYS\tSYS\tSYS\n",
                        0),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("NVLink groups: [0 1 2 3 4 5 6 7]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Best ring over all GPUs: 50.0 GB/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GPU4   NUMA 1"), std::string::npos) << r.out;
}

TEST(TopoCli, HypotheticalPresetSaysSo) {
  TIDESIM_REQUIRE_CLI();
  const Result r = run("topo a10x4-nvlink-mesh");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("real A10s have no NVLink"), std::string::npos) << r.out;
  // NV4 at GA102 bridge speed: 4 x 14.0625 = 56.25 GB/s, printed with one decimal.
  EXPECT_NE(r.out.find("Best ring over all GPUs: 56.2 GB/s"), std::string::npos) << r.out;
}

TEST(TopoCli, SharedFileRoundTripsAndNamesGroups) {
  const std::string path = std::string(TIDESIM_SHARED_DATA_DIR) + "/topo/dgx1_v100.txt";
  TIDESIM_REQUIRE_CLI();
  TIDESIM_REQUIRE_FILE(path);
  const Result r = run("topo " + path + " --gpu V100-SXM2-16");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("GPU7\tSYS\tSYS\tSYS\tNV1\tNV2\tNV1\tNV2\t X \n"), std::string::npos);
  EXPECT_NE(r.out.find("NVLink groups: [0 1 2 3 4 5 6 7]"), std::string::npos);
}

TEST(TopoCli, Json) {
  TIDESIM_REQUIRE_CLI();
  const Result r = run("topo tests/topologies/data/soc_old_driver.txt --format json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["gpus"], 4);
  EXPECT_EQ(j["nics"], 1);
  EXPECT_EQ(j["matrix"][0][2], "SOC");
  EXPECT_TRUE(j["bandwidth_bytes_per_s"][1][1].is_null());
  EXPECT_DOUBLE_EQ(j["bandwidth_bytes_per_s"][0][1].get<double>(), 25e9);  // PIX, PCIe Gen4
  EXPECT_EQ(j["numa"][2]["numa_node"], 1);
  EXPECT_TRUE(j["nvlink_groups"].empty());
}

TEST(TopoCli, BadInputExitsTwo) {
  TIDESIM_REQUIRE_CLI();
  Result r = run("topo tests/topologies/data/bad_asymmetric.txt");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("bad_asymmetric.txt:3"), std::string::npos) << r.out;
  r = run("topo dgx-9000");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("hgx-a100x4"), std::string::npos) << r.out;
  r = run("topo dgx1-v100 --format xml");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("topo tests/topologies/data/spaces_prompt.txt --gpu Z80");
  EXPECT_EQ(r.code, 2) << r.out;
}

}  // namespace
