// Bad MIG layouts in a scenario are input errors naming file, line, column and field.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

// Writes a one-group scenario with `gpu` and `sharing` to a temporary file and returns the error
// of loading it, without the file's path.
std::string error_of(const std::string& gpu, const std::string& sharing) {
  const std::string path =
      ::testing::TempDir() + "/mig_layout_" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(path) << "cluster:\n"
                         "  node_groups:\n"
                         "    - name: a\n"
                         "      gpu: "
                      << gpu
                      << "\n"
                         "      topology: hgx-a100x4\n"
                         "      sharing: "
                      << sharing
                      << "\nworkload: {arrivals: {process: burst, count: 1}, jobs: [{model: "
                         "resnet50, batch_size: 64, steps: 1}]}\npolicies: [default-k8s]\n";
  try {
    load_scenario(path);
  } catch (const InputError& e) {
    const std::string msg = e.what();
    return msg.substr(msg.find(':') + 1);
  }
  return "(no error)";
}

TEST(MigLayout, BadLayoutsAreRefusedAtTheirPlace) {
  EXPECT_EQ(error_of("A100-SXM4-40", "{mode: mig, layout: [4g.20gb, 3g.20gb]}"), "(no error)");
  // A profile the model lacks (1g.5gb is the 40 GB card's; the 80 GB card's smallest is 1g.10gb).
  EXPECT_EQ(error_of("A100-SXM4-80", "{mode: mig, layout: [1g.5gb]}"),
            "6:36: cluster.node_groups[0].sharing.layout: GPU model 'A100-SXM4-80' has no MIG "
            "profile '1g.5gb'; known: 1g.10gb, 1g.20gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb");
  // More slices than the card holds.
  EXPECT_EQ(error_of("A100-SXM4-40", "{mode: mig, layout: [3g.20gb, 3g.20gb, 1g.5gb]}"),
            "6:36: cluster.node_groups[0].sharing.layout: the layout takes 9 memory slices; a "
            "card has 8");
  // MIG on a model without MIG.
  EXPECT_EQ(error_of("A10", "{mode: mig, layout: [1g.5gb]}"),
            "6:36: cluster.node_groups[0].sharing.layout: GPU model 'A10' has no MIG (MIG "
            "profiles are known for A100-SXM4-40, A100-PCIe, A100-SXM4-80 and H100-SXM)");
  // No layout; a layout without MIG; the single strategy over mixed profiles.
  EXPECT_EQ(error_of("A100-SXM4-40", "{mode: mig}"),
            "6:16: cluster.node_groups[0].sharing.layout: missing required field");
  EXPECT_EQ(error_of("A100-SXM4-40", "{mode: exclusive, layout: [7g.40gb]}"),
            "6:42: cluster.node_groups[0].sharing.layout: only mig has this setting");
  EXPECT_EQ(error_of("A100-SXM4-40", "{mode: mig, layout: [4g.20gb, 3g.20gb], strategy: single}"),
            "6:66: cluster.node_groups[0].sharing.strategy: the single strategy needs every "
            "instance of one profile (the device plugin's rule); use mixed");
}

}  // namespace
}  // namespace tidesim
