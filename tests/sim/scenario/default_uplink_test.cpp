// A node group's uplink when it writes none: the compute NICs of the machine its topology preset
// describes at the NIC efficiency (docs/scenarios.md, `uplink`), else 25 Gbit/s.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/common/temp_file.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

// The uplink of a one-group scenario whose group is `group` (inline YAML mapping entries).
double uplink_of(const std::string& group) {
  const std::string path = test::temp_file(
      "default-uplink", "name: uplink\ncluster:\n  node_groups:\n    - {name: g, count: 2, " +
                            group + "}\n" + test::kOneJobWorkload);
  const Scenario s = load_scenario(path);
  std::filesystem::remove(path);
  return s.cluster.groups.at(0).uplink_bandwidth;
}

constexpr double kGbit = 1e9 / 8.0;

TEST(DefaultUplink, IsTheNicsOfThePresetsMachine) {
  // DGX H100: 8 x ConnectX-7 at 400 Gbit/s, 0.93 of line rate: 8 x 50 GB/s x 0.93 = 372 GB/s.
  EXPECT_DOUBLE_EQ(uplink_of("gpu: H100-SXM, topology: hgx-h100x8"), 8 * 400 * kGbit * 0.93);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: H100-SXM, topology: hgx-h100x8") / 1e9, 372.0);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: A100-SXM4-40, topology: dgx-a100"), 8 * 200 * kGbit * 0.93);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: A100-SXM4-80, topology: hgx-a100x4"), 200 * kGbit * 0.93);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: V100-SXM2-16, topology: dgx1-v100"), 4 * 100 * kGbit * 0.93);
}

TEST(DefaultUplink, Is25GbitWhereTheMachineVaries) {
  EXPECT_DOUBLE_EQ(uplink_of("gpu: A10, topology: a10x4-pcie"), 25 * kGbit);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: A10, topology: a10x4-nvlink-mesh"), 25 * kGbit);
  EXPECT_DOUBLE_EQ(uplink_of("gpu: T4, topology: pcie-4"), 25 * kGbit);
}

TEST(DefaultUplink, AWrittenUplinkWins) {
  EXPECT_DOUBLE_EQ(uplink_of("gpu: H100-SXM, topology: hgx-h100x8, uplink: 100Gbit/s"),
                   100 * kGbit);
}

}  // namespace
}  // namespace tidesim
