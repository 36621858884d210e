// Shockwave's experiment end to end (scenarios/shockwave-tacc-32gpus.yaml, docs/gavel.md
// "Shockwave's experiment"): every policy against the artifact's simulated runs, the figures the
// scenario's `reference:` carries (scheduler/reproduce/pickles/tacc_32gpus/*_simulation.pickle),
// within issue 43's bounds: makespan and mean JCT within 5%, the share of unfair jobs within 3
// points. Seed 0; about 2 s. Skipped without the data folder (failed under CI=true).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/common/cli.hpp"
#include "tests/common/require.hpp"
#include "tidesim/sim/input/data_folder.hpp"

namespace tidesim::app {
namespace {

using json = nlohmann::json;

TEST(ShockwaveArtifact, EveryPolicyWithinTheBoundsOfTheArtifactsRuns) {
  TIDESIM_REQUIRE_CLI();
  TIDESIM_REQUIRE(std::filesystem::exists(data_folder() + "/shockwave/tacc_throughputs.json"),
                  "scenarios/shockwave-tacc-32gpus.yaml reads the data folder: set TIDESIM_DATA "
                  "or put the data at ../shared/data beside the repository");
  const test::CliOutput r = test::run_capturing(
      "run scenarios/shockwave-tacc-32gpus.yaml --format json --records none -q", "2>/dev/null");
  ASSERT_EQ(r.code, 0);
  const json result = json::parse(r.out);
  const json& reference = result.at("reference").at("values");
  const json& policies = result.at("summary").at("policies");
  ASSERT_EQ(policies.size(), 7U);
  for (const auto& [name, p] : policies.items()) {
    const auto mean = [&p](const char* metric) { return p.at(metric).at("mean").get<double>(); };
    const auto artifact = [&](const char* metric) {
      return reference.at(metric).at(name).get<double>();
    };
    EXPECT_LT(std::abs(mean("makespan_s") / artifact("makespan_s") - 1.0), 0.05) << name;
    EXPECT_LT(std::abs(mean("jct_mean_s") / artifact("jct_mean_s") - 1.0), 0.05) << name;
    EXPECT_LT(std::abs(mean("ftf_unfair_share") - artifact("ftf_unfair_share")), 0.03) << name;
  }
}

}  // namespace
}  // namespace tidesim::app
