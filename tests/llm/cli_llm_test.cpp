// `tidesim llm` as a user runs it: Calculon's files, tidesim's job file, both formats, and bad
// input exiting 2 with its place.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/data_folder.hpp"

namespace {

using tidesim::test::run;

const std::string kData = std::string(TIDESIM_SOURCE_DIR) + "/tests/llm/data/";

std::string calculon(const std::string& model, const std::string& mode) {
  const std::string d = tidesim::data_folder() + "/llm/";
  return "--model " + d + "models/" + model + ".json --execution " + d + "validation/seqsel/tab5/" +
         model + "_" + mode + ".json --system " + d + "systems/a100_80g.json";
}

TEST(CliLlm, CalculonFilesAsJson) {
  TIDESIM_REQUIRE_CLI();
  TIDESIM_REQUIRE_FILE(tidesim::data_folder() + "/llm/models/gpt3-175B.json");
  const auto r = tidesim::test::run_capturing(
      "llm --format json " + calculon("gpt3-175B", "seqsel"), "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["step_seconds"].get<double>(), 13.75, 13.75 * 0.15);
  EXPECT_GT(j["mfu"].get<double>(), 0.3);
  EXPECT_LT(j["mfu"].get<double>(), 0.7);
  EXPECT_GT(j["memory_bytes_per_gpu"].get<double>(), 0);
  for (const char* part :
       {"compute", "tp_comm", "pp_comm", "dp_comm", "bubble", "optimizer", "recompute"}) {
    EXPECT_TRUE(j["parts"].contains(part)) << part;
  }
  for (const char* part : {"weights", "gradients", "optimizer", "activations"}) {
    EXPECT_TRUE(j["memory"].contains(part)) << part;
  }
  EXPECT_TRUE(j["fits"].get<bool>());
}

TEST(CliLlm, JobFileAsTable) {
  TIDESIM_REQUIRE_CLI();
  const auto r =
      run("llm " + std::string(TIDESIM_SOURCE_DIR) + "/examples/llm/gpt3-175B-seqsel.yaml");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("bubble"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("activations"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("MFU"), std::string::npos) << r.out;
}

TEST(CliLlm, ALayoutThatOverflowsTheCardDoesNotFit) {
  TIDESIM_REQUIRE_CLI();
  const auto r = tidesim::test::run_capturing("llm --format json " + kData + "does_not_fit.yaml",
                                              "2>/dev/null");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_FALSE(j["fits"].get<bool>());
  EXPECT_GT(j["memory_bytes_per_gpu"].get<double>(), j["memory_capacity_bytes"].get<double>());
  EXPECT_NE(run("llm " + kData + "does_not_fit.yaml").out.find("DOES NOT FIT"), std::string::npos);
}

TEST(CliLlm, BadInputExitsTwoWithThePlace) {
  TIDESIM_REQUIRE_CLI();
  auto r = run("llm " + kData + "bad_tp.yaml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad_tp.yaml:3:15: execution.tensor_par: tensor parallelism 6 does not "
                       "divide the attention heads (64)"),
            std::string::npos)
      << r.out;
  TIDESIM_REQUIRE_FILE(tidesim::data_folder() + "/llm/models/megatron-22B.json");
  const std::string d = tidesim::data_folder() + "/llm/";
  r = run("llm --model " + d + "models/megatron-22B.json --execution " + kData +
          "bad_net.json --system " + d + "systems/a100_80g.json");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad_net.json:6:21: tensor_par_net: network 3 does not exist"),
            std::string::npos)
      << r.out;
  r = run("llm " + kData + "bad_tp.yaml --model x.json");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("llm " + kData + "missing.yaml");
  EXPECT_EQ(r.code, 2) << r.out;
}

}  // namespace
