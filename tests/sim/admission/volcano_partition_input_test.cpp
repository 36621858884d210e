// A gang's Volcano partition policy and highestTierName as users write them: a scenario job's
// `gang.partition_policy` and `network_topology.highest_tier_name`, and a Volcano PodGroup's
// spec.subGroupPolicy and networkTopology.highestTierName (volcano-sh/apis scheduling/v1beta1
// SubGroupPolicySpec, NetworkTopologySpec), with errors that name file, line, column and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/common/errors.hpp"

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/workloads/manifest.hpp"

namespace tidesim {
namespace {

using test::message_of;
using workloads::NetworkTopologySpec;
using workloads::PartitionPolicySpec;

// A scenario with one 4-pod job whose gang is `gang` (line 13 on).
std::string scenario_error(const std::string& gang, workloads::JobSpec* out = nullptr) {
  const auto path = std::filesystem::temp_directory_path() / "tidesim-volcano-partition.yaml";
  std::ofstream(path) << "name: bad\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - {name: gpu, count: 1, gpu: A10, topology: a10x4-pcie}\n"
                         "workload:\n"
                         "  arrivals: {process: burst, count: 1}\n"
                         "  jobs:\n"
                         "    - name: job\n"
                         "      model: resnet50\n"
                         "      batch_size: 64\n"
                         "      replicas: 4\n"
                         "      duration: 100s\n"
                      << gang << "policies: [default-k8s]\n";
  try {
    const Scenario s = load_scenario(path.string());
    const Workload w = make_jobs(s, 1);
    if (out != nullptr) {
      *out = w.jobs.at(0);
    }
  } catch (const InputError& e) {
    const std::string m = e.what();
    const std::string p = path.string();
    return m.rfind(p, 0) == 0 ? "s.yaml" + m.substr(p.size()) : m;
  }
  return "(no error)";
}

TEST(VolcanoPartitionInput, ScenarioGangReadsPartitionPolicyAndTierNames) {
  workloads::JobSpec job;
  EXPECT_EQ(scenario_error("      gang:\n"
                           "        mode: all-or-nothing\n"
                           "        network_topology: {mode: hard, highest_tier_name: spine}\n"
                           "        partition_policy:\n"
                           "          total_partitions: 2\n"
                           "          partition_size: 2\n"
                           "          min_partitions: 1\n"
                           "          network_topology: {mode: soft}\n",
                           &job),
            "(no error)");
  ASSERT_TRUE(job.gang && job.gang->network_topology && job.gang->partition_policy);
  EXPECT_EQ(*job.gang->network_topology, (NetworkTopologySpec{true, 1, "spine"}));
  EXPECT_EQ(*job.gang->partition_policy,
            (PartitionPolicySpec{2, 2, 1, NetworkTopologySpec{false, 1, ""}}));
}

TEST(VolcanoPartitionInput, ScenarioErrorsNameLineColumnAndField) {
  // Both tier keys (Volcano's job webhook refuses them together).
  EXPECT_EQ(
      scenario_error("      gang: {mode: all-or-nothing, network_topology: {mode: hard, "
                     "highest_tier_allowed: 1, highest_tier_name: leaf}}\n"),
      "s.yaml:13:111: workload.jobs[0].gang.network_topology.highest_tier_name: must not "
      "specify 'highest_tier_allowed' and 'highest_tier_name' in networkTopology simultaneously");
  // Pods not totalPartitions x partitionSize.
  EXPECT_EQ(scenario_error("      gang: {mode: all-or-nothing, partition_policy: "
                           "{total_partitions: 3, partition_size: 2}}\n"),
            "s.yaml:13:13: workload.jobs[0].gang: partition_policy: the job's 4 pods are not "
            "total_partitions x partition_size (3 x 2)");
  EXPECT_EQ(scenario_error("      gang: {mode: all-or-nothing, partition_policy: "
                           "{total_partitions: 2, partition_size: 2, min_partitions: 3}}\n"),
            "s.yaml:13:111: workload.jobs[0].gang.partition_policy.min_partitions: 3 is more than "
            "total_partitions (2)");
  EXPECT_EQ(scenario_error("      gang: {mode: permit, partition_policy: "
                           "{total_partitions: 2, partition_size: 2}}\n"),
            "s.yaml:13:46: workload.jobs[0].gang.partition_policy: only mode: all-or-nothing "
            "(Volcano) reads partition_policy");
  EXPECT_EQ(scenario_error("      gang: {mode: all-or-nothing, partition_policy: "
                           "{total_partitions: 0, partition_size: 2}}\n"),
            "s.yaml:13:73: workload.jobs[0].gang.partition_policy.total_partitions: 0 is out of "
            "range [1, 100000]");
  EXPECT_EQ(scenario_error("      gang: {mode: all-or-nothing, partition_policy: "
                           "{total_partitions: 2, partition_size: 2, size: 4}}\n"),
            "s.yaml:13:95: workload.jobs[0].gang.partition_policy.size: unknown key; allowed keys "
            "here: min_partitions, network_topology, partition_size, total_partitions");
}

// A Volcano PodGroup with `spec` (line 4) and a 4-pod Job that joins it (lines 6 on).
std::string volcano(const std::string& spec) {
  return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: v}\n"
         "spec:\n" +
         spec +
         "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n"
         "  parallelism: 4\n  template:\n    metadata:\n"
         "      annotations: {scheduling.k8s.io/group-name: v}\n"
         "    spec:\n      containers: [{name: c}]\n";
}

TEST(VolcanoPartitionInput, PodGroupSubGroupPolicyBecomesThePartitionPolicy) {
  const auto all = workloads::parse_manifests(
      volcano("  minMember: 4\n"
              "  networkTopology: {mode: hard, highestTierName: spine}\n"
              "  subGroupPolicy:\n"
              "  - name: worker\n"
              "    subGroupSize: 2\n"
              "    minSubGroups: 1\n"
              "    matchLabelKeys: [volcano.sh/partition-id]\n"
              "    networkTopology: {mode: hard, highestTierAllowed: 1}\n"),
      "v.yaml");
  ASSERT_EQ(all.size(), 1u);
  ASSERT_TRUE(all[0].gang && all[0].gang->partition_policy);
  EXPECT_EQ(all[0].gang->network_topology, (NetworkTopologySpec{true, 1, "spine"}));
  // totalPartitions: the Job's 4 pods / subGroupSize 2.
  EXPECT_EQ(*all[0].gang->partition_policy,
            (PartitionPolicySpec{2, 2, 1, NetworkTopologySpec{true, 1, ""}}));
}

TEST(VolcanoPartitionInput, PodGroupErrorsNameFileLineColumnAndField) {
  const auto error = [](const std::string& spec) {
    return message_of([&] { workloads::parse_manifests(volcano(spec), "v.yaml"); });
  };
  EXPECT_EQ(error("  minMember: 4\n  networkTopology: {highestTierAllowed: 1, "
                  "highestTierName: leaf}\n"),
            "v.yaml:6:61: spec.networkTopology.highestTierName: must not specify "
            "'highestTierAllowed' and 'highestTierName' in networkTopology simultaneously");
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {subGroupSize: 2}\n"),
            "v.yaml:7:5: spec.subGroupPolicy[0].matchLabelKeys: missing required field");
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {subGroupSize: 2, matchLabelKeys: "
                  "[volcano.sh/task-spec]}\n"),
            "v.yaml:7:39: spec.subGroupPolicy[0].matchLabelKeys: expected "
            "[volcano.sh/partition-id]: the label Volcano's job controller gives a partitioned "
            "task's pods (tidesim gives its pods no other)");
  // Column 20: "  - {subGroupSize: " (19) + 1.
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {subGroupSize: 3, matchLabelKeys: "
                  "[volcano.sh/partition-id]}\n"),
            "v.yaml:7:20: spec.subGroupPolicy[0].subGroupSize: PodGroup 'v': the 4 pods of Job "
            "'j' do not split into groups of 3 (Volcano's job webhook: replicas must be "
            "totalPartitions x partitionSize)");
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {subGroupSize: 2, minSubGroups: 3, "
                  "matchLabelKeys: [volcano.sh/partition-id]}\n"),
            "v.yaml:7:37: spec.subGroupPolicy[0].minSubGroups: PodGroup 'v': minSubGroups 3 is "
            "more than the 2 groups of Job 'j' (the gang would never be valid)");
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {matchLabelKeys: "
                  "[volcano.sh/partition-id]}\n  - {matchLabelKeys: [volcano.sh/partition-id]}\n"),
            "v.yaml:7:3: spec.subGroupPolicy: expected a list of one entry: a tidesim job has one "
            "task (give the partition policy of its pods)");
  EXPECT_EQ(error("  minMember: 4\n  subGroupPolicy:\n  - {labelSelector: {matchLabels: {a: "
                  "b}}, matchLabelKeys: [volcano.sh/partition-id]}\n"),
            "v.yaml:7:21: spec.subGroupPolicy[0].labelSelector: not supported: every pod of a "
            "tidesim job belongs to its one task; group them with matchLabelKeys");
}

}  // namespace
}  // namespace tidesim
