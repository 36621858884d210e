// Scenario values that exited 0 with a meaning other than the one written (issue 25): a seed
// listed twice.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "tests/common/errors.hpp"
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

}  // namespace
}  // namespace tidesim
