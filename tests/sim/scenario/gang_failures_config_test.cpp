// The `faults.gang` section: defaults, overrides, and bad input refused at its place (file,
// line, column and field).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/common/errors.hpp"
#include "tests/common/temp_file.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim {
namespace {

using test::message_of;

// A one-node scenario whose `faults.gang:` body starts at line 7 (its lines indented by 4).
std::string scenario_file(const std::string& name, const std::string& gang) {
  return test::temp_file("gang-" + name,
                         std::string("name: gang\ncluster:\n  node_groups:\n"
                                     "    - {name: gpu, count: 2, gpu: H100-SXM, topology: "
                                     "hgx-h100x8}\nfaults:\n  gang:\n") +
                             gang + test::kOneJobWorkload);
}

std::string error_of(const std::string& name, const std::string& gang) {
  const std::string file = scenario_file(name, gang);
  const std::string message = message_of([&] { (void)load_scenario(file); });
  std::filesystem::remove(file);
  return message;
}

TEST(GangFailuresConfig, DefaultsAreLlama3sCountsOverItsDeviceHours) {
  const std::string file = scenario_file("defaults", "    spares: 4\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  const GangFailuresConfig& g = s.faults.gang;
  ASSERT_TRUE(g.enabled);
  ASSERT_EQ(g.components.size(), 18u);
  // 148 faulty-GPU interruptions over 16,384 GPUs x 1,296 h; 35 switch or cable ones over
  // 2,048 nodes x 1,296 h (Dubey et al., arXiv 2407.21783, Table 5).
  EXPECT_EQ(g.components[0].name, "faulty_gpu");
  EXPECT_DOUBLE_EQ(g.components[0].rate_per_hour, 148.0 / (16'384.0 * 1'296.0));
  EXPECT_EQ(g.components[3].name, "network_switch_cable");
  EXPECT_EQ(g.components[3].per, FailureComponent::Per::kNode);
  EXPECT_DOUBLE_EQ(g.components[3].rate_per_hour, 35.0 / (2'048.0 * 1'296.0));
  EXPECT_DOUBLE_EQ(g.planned_rate_per_node_hour, 47.0 / (2'048.0 * 1'296.0));
  EXPECT_EQ(g.spares, 4);
  EXPECT_EQ(g.on_failure, OnFailure::kSpare);
  EXPECT_TRUE(g.checkpoint.young_daly);
  EXPECT_FALSE(g.checkpoint.async);
  EXPECT_DOUBLE_EQ(g.checkpoint.bandwidth, 2e12);
  // Off unless the section is there.
  const std::string plain = test::temp_file(
      "gang-off",
      "name: off\ncluster:\n  node_groups:\n    - {name: gpu, count: 1, gpu: H100-SXM, "
      "topology: hgx-h100x8}\n" +
          std::string(test::kOneJobWorkload));
  EXPECT_FALSE(load_scenario(plain).faults.gang.enabled);
  std::filesystem::remove(plain);
}

TEST(GangFailuresConfig, EveryParameterCanBeOverridden) {
  const std::string file =
      scenario_file("override",
                    "    components: {faulty_gpu: {rate: 1e-5, repair: 12h}, ssd: {per: gpu}}\n"
                    "    planned: {rate: 0, downtime: 1h}\n"
                    "    detection: 1m\n    rescheduling: 20m\n    replacement: 5m\n"
                    "    loading: 30s\n    on_failure: replace_node\n"
                    "    checkpoint: {interval: 30m, size: 1TB, bandwidth: 100GB/s, mode: async,"
                    " snapshot_bandwidth: 25GB/s}\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  const GangFailuresConfig& g = s.faults.gang;
  EXPECT_DOUBLE_EQ(g.components[0].rate_per_hour, 1e-5);
  EXPECT_EQ(g.components[0].repair, std::chrono::hours(12));
  EXPECT_EQ(g.components[11].name, "ssd");
  EXPECT_EQ(g.components[11].per, FailureComponent::Per::kGpu);
  EXPECT_DOUBLE_EQ(g.planned_rate_per_node_hour, 0.0);
  EXPECT_EQ(g.planned_downtime, std::chrono::hours(1));
  EXPECT_EQ(g.detection, std::chrono::minutes(1));
  EXPECT_EQ(g.rescheduling, std::chrono::minutes(20));
  EXPECT_EQ(g.replacement, std::chrono::minutes(5));
  EXPECT_EQ(g.loading, std::chrono::seconds(30));
  EXPECT_EQ(g.on_failure, OnFailure::kReplaceNode);
  EXPECT_FALSE(g.checkpoint.young_daly);
  EXPECT_EQ(g.checkpoint.interval, std::chrono::minutes(30));
  EXPECT_DOUBLE_EQ(*g.checkpoint.size_bytes, 1e12);
  EXPECT_DOUBLE_EQ(g.checkpoint.bandwidth, 100e9);
  EXPECT_TRUE(g.checkpoint.async);
  EXPECT_DOUBLE_EQ(g.checkpoint.snapshot_bandwidth, 25e9);
}

TEST(GangFailuresConfig, BadInputNamesFileLineColumnAndField) {
  std::string e = error_of("policy", "    on_failure: restart\n");
  EXPECT_NE(e.find("tidesim-gang-policy-"), std::string::npos) << e;
  EXPECT_NE(e.find(":7:17: faults.gang.on_failure:"), std::string::npos) << e;
  e = error_of("component", "    components: {faulty_gpus: {rate: 1e-6}}\n");
  EXPECT_NE(e.find(":7:18: faults.gang.components.faulty_gpus:"), std::string::npos) << e;
  EXPECT_NE(e.find("faulty_gpu"), std::string::npos) << e;  // the allowed keys
  e = error_of("rate", "    components: {nic: {rate: -1}}\n");
  EXPECT_NE(e.find(":7:30: faults.gang.components.nic.rate:"), std::string::npos) << e;
  e = error_of("interval", "    checkpoint: {interval: often}\n");
  EXPECT_NE(e.find(":7:28: faults.gang.checkpoint.interval:"), std::string::npos) << e;
  e = error_of("snapshot", "    checkpoint: {snapshot_bandwidth: 1GB/s}\n");
  EXPECT_NE(e.find(":7:38: faults.gang.checkpoint.snapshot_bandwidth: applies to mode: async"),
            std::string::npos)
      << e;
  e = error_of("spares", "    spares: -2\n");
  EXPECT_NE(e.find(":7:13: faults.gang.spares:"), std::string::npos) << e;
  e = error_of("unknown", "    spare: 2\n");
  EXPECT_NE(e.find(":7:5: faults.gang.spare:"), std::string::npos) << e;
  e = error_of("leaf-gpu", "    components: {faulty_gpu: {per: leaf}}\n");
  EXPECT_NE(e.find(":7:36: faults.gang.components.faulty_gpu.per: a GPU component per leaf"),
            std::string::npos)
      << e;
  e = error_of("injected-node", "    injected: [{at: 1h, node: gpu-09, component: nic}]\n");
  EXPECT_NE(e.find(":7:31: faults.gang.injected[0].node: no node is called 'gpu-09'"),
            std::string::npos)
      << e;
  e = error_of("injected-component", "    injected: [{at: 1h, node: gpu-01, component: gpu}]\n");
  EXPECT_NE(e.find(":7:50: faults.gang.injected[0].component: no component is called 'gpu'"),
            std::string::npos)
      << e;
  e = error_of("random", "    random: sometimes\n");
  EXPECT_NE(e.find(":7:13: faults.gang.random:"), std::string::npos) << e;
  e = error_of("partition-missing", "    on_failure: restart_partition\n");
  EXPECT_NE(e.find(":7:17: faults.gang.on_failure: restart_partition needs partition_size"),
            std::string::npos)
      << e;
  e = error_of("partition-zero", "    on_failure: restart_partition\n    partition_size: 0\n");
  EXPECT_NE(e.find(":8:21: faults.gang.partition_size:"), std::string::npos) << e;
  e = error_of("partition-spare", "    partition_size: 2\n");
  EXPECT_NE(
      e.find(":7:21: faults.gang.partition_size: applies to on_failure: restart_partition only"),
      std::string::npos)
      << e;
}

// Volcano's RestartPartition with its partitionPolicy.partitionSize.
TEST(GangFailuresConfig, RestartPartitionReadsItsPartitionSize) {
  const std::string file =
      scenario_file("partition", "    on_failure: restart_partition\n    partition_size: 4\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  EXPECT_EQ(s.faults.gang.on_failure, OnFailure::kRestartPartition);
  EXPECT_EQ(s.faults.gang.partition_size, 4);
  EXPECT_STREQ(to_string(OnFailure::kRestartPartition), "restart_partition");
}

// A per-node component switched to a leaf keeps Llama 3's count over its 1,024 top-of-rack
// switches (two hosts each, section 3.3.1): 35 / (1,024 x 1,296 h); injected failures by name.
TEST(GangFailuresConfig, LeafComponentsAndInjectedFailures) {
  const std::string file =
      scenario_file("leaf",
                    "    components: {network_switch_cable: {per: leaf}}\n    random: false\n"
                    "    injected: [{at: 25m, node: gpu-02, component: network_switch_cable},\n"
                    "               {at: 2h, node: gpu-01, component: planned}]\n");
  const Scenario s = load_scenario(file);
  std::filesystem::remove(file);
  const GangFailuresConfig& g = s.faults.gang;
  EXPECT_EQ(g.components[3].per, FailureComponent::Per::kLeaf);
  EXPECT_DOUBLE_EQ(g.components[3].rate_per_hour, 35.0 / (1'024.0 * 1'296.0));
  EXPECT_FALSE(g.random);
  ASSERT_EQ(g.injected.size(), 2u);
  EXPECT_EQ(g.injected[0].at, TimePoint(std::chrono::minutes(25)));
  EXPECT_EQ(g.injected[0].node, 1);
  EXPECT_EQ(g.injected[0].component, 3);
  EXPECT_EQ(g.injected[1].node, 0);
  EXPECT_EQ(g.injected[1].component, -1);
}

}  // namespace
}  // namespace tidesim
