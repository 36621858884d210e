// Scenario values that exited 0 with a meaning other than the one written (issue 25): a seed
// listed twice, and a node group's memory given as a bare number of bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tests/common/errors.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

using test::message_of;

// A one-node scenario whose lines 9 and 10 are `memory` and `seeds`, written to a file.
std::string scenario_file(const std::string& name, const std::string& memory,
                          const std::string& seeds) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("tidesim-silent-" + name + "-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(path) << "name: silent\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - name: gpu\n"
                         "      count: 1\n"
                         "      gpu: A10\n"
                         "      topology: " TIDESIM_SOURCE_DIR
                         "/tests/topologies/data/single_gpu.txt\n"
                         "      cpu: 8\n"
                         "      memory: "
                      << memory << "\nseeds: " << seeds
                      << "\nworkload:\n"
                         "  arrivals: {process: burst, count: 1}\n"
                         "  jobs:\n"
                         "    - {name: job, pod: {gpus: 1}, model: resnet50, batch_size: 64, "
                         "duration: 100s}\n"
                         "policies: [default-k8s]\n";
  return path.string();
}

// `seeds: [3, 1, 3]` ran seed 3 twice and reported "3 seeds" with an interval narrowed by two
// identical replicas. The repeated seed is refused at its place (line 10; the list starts at
// column 8, its third element at column 15).
TEST(SilentInputs, ASeedListedTwiceIsRefused) {
  const std::string f = scenario_file("seeds", "64Gi", "[3, 1, 3]");
  EXPECT_EQ(message_of([&] { load_scenario(f); }),
            f + ":10:15: seeds[2]: seed 3 is listed twice (also seeds[0]); each seed is one "
                "replica");
  EXPECT_EQ(load_scenario(scenario_file("distinct", "64Gi", "[3, 1, 2]")).seeds,
            (std::vector<std::uint64_t>{3, 1, 2}));
}

// `memory: 192` is 192 bytes, as Kubernetes reads it, and ran with no word: no pod with a memory
// request fits. It is read as written, with a warning at its place that check_scenario (and so
// `tidesim validate`) reports.
TEST(SilentInputs, ANodeMemoryUnderOneMiBIsWarnedAbout) {
  const std::string f = scenario_file("memory", "192", "1");
  const Scenario s = load_scenario(f);
  EXPECT_EQ(s.cluster.groups.at(0).memory_bytes, 192);
  const std::string warning = f +
                              ":9:15: cluster.node_groups[0].memory: 192 bytes is less than 1 MiB; "
                              "a number without a unit is bytes (did you mean 192Gi?)";
  ASSERT_EQ(s.cluster.warnings, std::vector<std::string>{warning});
  const auto warnings = check_scenario(s, make_jobs(s, 1));
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), warning), warnings.end());
  // With a unit, no suggestion; 1Mi (1,048,576 bytes) has no warning.
  const std::string ki = scenario_file("memory-ki", "512Ki", "1");
  EXPECT_EQ(load_scenario(ki).cluster.warnings,
            std::vector<std::string>{
                ki + ":9:15: cluster.node_groups[0].memory: '512Ki' is 524288 bytes, less than "
                     "1 MiB"});
  EXPECT_TRUE(load_scenario(scenario_file("memory-mi", "1Mi", "1")).cluster.warnings.empty());
}

}  // namespace
}  // namespace tidesim
