// Plugins added to the registry (policies/registry.hpp): the out-of-tree example plugin
// (examples/out-of-tree-plugin/fewest_pods.cpp, compiled into this program) registered by an
// explicit call (register_plugin, what tidesim::cli::with_plugin does) and, under another name,
// by a static PluginRegistrar; each joins the default registry, a config enables it by name, and
// it decides between two nodes that only it tells apart. Its own program, so that no other test
// sees the extra plugins.
#include <gtest/gtest.h>

#include <stdexcept>

#include "examples/out-of-tree-plugin/fewest_pods.hpp"

#include "tests/policies/test_cluster.hpp"
#include "tidesim/policies/config.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::policies {
namespace {

// The static path: registered before main().
const PluginRegistrar kStatic{"FewestPodsStatic", fewest::fewest_pods_entry()};

class Registration : public ::testing::Test {
 protected:
  // The explicit path, once for the program (a second call would be refused).
  static void SetUpTestSuite() {
    if (!registered_plugins().contains("FewestPods")) {
      register_plugin("FewestPods", fewest::fewest_pods_entry());
    }
  }
};

TEST_F(Registration, BothPathsPutThePluginInTheDefaultRegistry) {
  EXPECT_TRUE(registered_plugins().contains("FewestPods"));
  EXPECT_TRUE(registered_plugins().contains("FewestPodsStatic"));
  const Registry r = builtin_registry();
  EXPECT_TRUE(r.contains("FewestPods"));
  EXPECT_TRUE(r.contains("FewestPodsStatic"));
  EXPECT_TRUE(r.contains("NodeResourcesFit"));  // the built-ins are still there
}

TEST_F(Registration, ANameRegisteredTwiceIsRefused) {
  EXPECT_THROW(register_plugin("FewestPods", fewest::fewest_pods_entry()), std::logic_error);
  EXPECT_THROW(PluginRegistrar("FewestPodsStatic", fewest::fewest_pods_entry()), std::logic_error);
}

TEST_F(Registration, AConfigEnablesItByName) {
  const SchedulerConfig config =
      load_scheduler_config_file("examples/out-of-tree-plugin/fewest-pods.yaml");
  Scheduler scheduler(config, config.profiles.front(), 1);  // the default registry

  ClusterView cluster;
  cluster.nodes.push_back(testing::make_node("busy", 8000, 64LL << 30, 4));
  cluster.nodes.push_back(testing::make_node("idle", 8000, 64LL << 30, 4));
  cluster.nodes[0].pods.push_back(testing::make_pod("old", 100, 1 << 20));

  // Alike but for the bound pod: FewestPods gives "busy" 100 x (8 - 1) / 8 = 87 and "idle" 100.
  const auto pod = testing::make_pod("new", 100, 1 << 20);
  const ScheduleResult r = scheduler.schedule_one(*pod, cluster, nullptr, TimePoint{});
  ASSERT_TRUE(r.node) << r.reason;
  EXPECT_EQ(cluster.nodes[*r.node].node.name, "idle");
}

}  // namespace
}  // namespace tidesim::policies
