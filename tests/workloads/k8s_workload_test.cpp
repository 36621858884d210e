// Kubernetes' Workload API (workloads/k8s_workload.hpp): the scheduling.k8s.io/v1alpha1 Workload
// in manifests with pods' spec.workloadRef, and a job class's `workload` field in scenarios; every
// error names file, line, column and field.
#include "tidesim/workloads/k8s_workload.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/manifest.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;
using test::message_of;

// Lines 1-12: a Workload with a gang group (topology key rack) and a basic group; then Jobs.
const std::string kWorkload =
    "apiVersion: scheduling.k8s.io/v1alpha1\n"
    "kind: Workload\n"
    "metadata: {name: train, namespace: default}\n"
    "spec:\n"
    "  controllerRef: {apiGroup: batch, kind: Job, name: train}\n"
    "  podGroups:\n"
    "  - name: workers\n"
    "    policy: {gang: {minCount: 3}}\n"
    "    schedulingConstraints: {topology: [{key: rack}]}\n"
    "  - name: loose\n"
    "    policy: {basic: {}}\n"
    "---\n";

std::string job(const std::string& name, const std::string& ref, int parallelism = 4) {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name +
         "}\nspec:\n  parallelism: " + std::to_string(parallelism) +
         "\n  template:\n    spec:\n      workloadRef: " + ref +
         "\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]\n";
}

// A Job whose pods reference the gang group becomes a permit-mode gang with minMember =
// minCount, the 5-minute timeout of the v1.35 plugin, and the group's topology key; one that
// references the basic group is no gang.
TEST(K8sWorkload, ManifestPodsJoinTheirPodGroup) {
  const auto all = parse_manifests(kWorkload + job("a", "{name: train, podGroup: workers}") +
                                       "---\n" + job("b", "{name: train, podGroup: loose}"),
                                   "w.yaml");
  ASSERT_EQ(all.size(), 2u);
  ASSERT_TRUE(all[0].gang);
  EXPECT_EQ(*all[0].gang, (GangSpec{GangMode::kPermit, 3, std::chrono::minutes(5), false, true,
                                    "rack", std::nullopt, std::nullopt}));
  EXPECT_FALSE(all[1].gang);
}

// Each replica key is a gang of its own: two Jobs may join one group with different keys.
TEST(K8sWorkload, ReplicaKeysAreSeparateGangs) {
  const auto all = parse_manifests(
      kWorkload + job("a", "{name: train, podGroup: workers, podGroupReplicaKey: '0'}") + "---\n" +
          job("b", "{name: train, podGroup: workers, podGroupReplicaKey: '1'}"),
      "w.yaml");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_TRUE(all[0].gang && all[1].gang);
}

TEST(K8sWorkload, ManifestErrorsNameFileLineColumnAndField) {
  // The Job starts on line 13; its workloadRef is on line 20, column 20.
  EXPECT_EQ(message_of([&] {
              parse_manifests(kWorkload + job("a", "{name: nope, podGroup: w}"), "w.yaml");
            }),
            "w.yaml:20:20: spec.template.spec.workloadRef.name: no Workload named 'nope' "
            "(scheduling.k8s.io/v1alpha1) in the scenario's manifests");
  EXPECT_EQ(message_of([&] {
              parse_manifests(kWorkload + job("a", "{name: train, podGroup: w}"), "w.yaml");
            }),
            "w.yaml:20:20: spec.template.spec.workloadRef.podGroup: pod group \"w\" doesn't "
            "exist for a workload \"train\"");
  EXPECT_EQ(message_of([&] {
              parse_manifests(kWorkload + job("a", "{name: train, podGroup: workers}") + "---\n" +
                                  job("b", "{name: train, podGroup: workers}"),
                              "w.yaml");
            }),
            "w.yaml:30:20: spec.template.spec.workloadRef: pod group 'workers' of Workload "
            "'train' (replica key '') is already joined by Job 'a'; tidesim's gangs are per job: "
            "give each Job its own replica key");
  // minCount 3 > 2 pods: at minCount (line 8, column 31).
  EXPECT_EQ(message_of([&] {
              parse_manifests(kWorkload + job("a", "{name: train, podGroup: workers}", 2),
                              "w.yaml");
            }),
            "w.yaml:8:31: spec.podGroups[0].policy.gang.minCount: pod group 'workers': minCount 3 "
            "is more than the "
            "job's 2 pods; the gang could never form");
  EXPECT_EQ(
      message_of([&] { parse_manifests(kWorkload + job("a", "{name: train}"), "w.yaml"); }),
      "w.yaml:20:20: spec.template.spec.workloadRef.podGroup: missing required field (a string)");
}

// One Workload object on its own, with each kind of mistake.
std::string workload_error(const std::string& groups) {
  return message_of([&] {
    parse_manifest_file(
        "apiVersion: scheduling.k8s.io/v1alpha1\nkind: Workload\n"
        "metadata: {name: w}\nspec:\n  podGroups:\n" +
            groups,
        "w.yaml");
  });
}

TEST(K8sWorkload, WorkloadObjectErrors) {
  EXPECT_EQ(workload_error("  - {name: g, policy: {gang: {minCount: 2}}}\n"), "(no error)");
  EXPECT_EQ(workload_error("  - {name: g, policy: {gang: {minCount: 0}}}\n"),
            "w.yaml:6:41: spec.podGroups[0].policy.gang.minCount: 0 is out of range [1, "
            "2147483647]");
  EXPECT_EQ(workload_error("  - {name: g, policy: {basic: {}, gang: {minCount: 2}}}\n"),
            "w.yaml:6:23: spec.podGroups[0].policy: set only one of basic and gang");
  EXPECT_EQ(workload_error("  - {name: g, policy: {}}\n"),
            "w.yaml:6:23: spec.podGroups[0].policy: set one of basic: {} and gang");
  EXPECT_EQ(workload_error("  - {name: G_1, policy: {basic: {}}}\n"),
            "w.yaml:6:12: spec.podGroups[0].name: 'G_1' is not a DNS label (lower-case letters, "
            "digits and '-', at most 63)");
  EXPECT_EQ(
      workload_error("  - {name: g, policy: {basic: {}}}\n  - {name: g, policy: {basic: {}}}\n"),
      "w.yaml:7:12: spec.podGroups[1].name: duplicate pod group name 'g'");
  EXPECT_EQ(workload_error("  - {name: g, policy: {gang: {minCount: 2}}, schedulingConstraints: "
                           "{topology: [{key: a}, {key: b}]}}\n"),
            "w.yaml:6:80: spec.podGroups[0].schedulingConstraints.topology: at most one topology "
            "constraint (KEP-5732: a single constraint)");
  EXPECT_EQ(workload_error("  - {name: g, policy: {gang: {minCount: 2, maxCount: 3}}}\n"),
            "w.yaml:6:44: spec.podGroups[0].policy.gang.maxCount: unknown key; allowed keys here: "
            "minCount");
  std::string nine;
  for (int i = 0; i < 9; ++i) {
    nine += "  - {name: g" + std::to_string(i) + ", policy: {basic: {}}}\n";
  }
  EXPECT_EQ(workload_error(nine),
            "w.yaml:6:3: spec.podGroups: at most 8 pod groups (WorkloadMaxPodGroups)");
}

WorkloadSpec scenario(const std::string& job_fields) {
  const auto doc = load_yaml_string(
      "workload:\n  arrivals: {process: burst, count: 1, at: 0s}\n  jobs:\n  - name: t\n    model: "
      "resnet50\n    batch_size: 32\n"
      "    pod: {gpus: 1}\n    steps: 100\n" +
          job_fields,
      "s.yaml");
  return parse_workload(doc["workload"], "s.yaml", TIDESIM_SOURCE_DIR);
}

// The scenario's job class field `workload`: one pod group entry as a Workload writes it.
TEST(K8sWorkload, ScenarioJobClassField) {
  const auto spec = scenario(
      "    workload:\n      name: workers\n      policy: {gang: {minCount: 2}}\n"
      "      schedulingConstraints: {topology: [{key: network.topology.nvidia.com/leaf}]}\n");
  ASSERT_TRUE(spec.mix[0].job.gang);
  EXPECT_EQ(spec.mix[0].job.gang->min_member, 2);
  EXPECT_EQ(spec.mix[0].job.gang->schedule_timeout, std::chrono::minutes(5));
  EXPECT_EQ(spec.mix[0].job.gang->topology_key, "network.topology.nvidia.com/leaf");
  EXPECT_TRUE(spec.mix[0].job.gang->workload_api);
  EXPECT_EQ(
      message_of([] { scenario("    workload: {name: w, policy: {basic: {}}}\n    gang: {}\n"); }),
      "s.yaml:9:15: workload.jobs[0].workload: set one of gang and workload");
  EXPECT_EQ(message_of([] {
              scenario(
                  "    workload: {name: w, policy: {basic: {}}, schedulingConstraints: "
                  "{topology: [{key: rack}]}}\n");
            }),
            "s.yaml:9:22: workload.jobs[0].workload.schedulingConstraints: pod group 'w': a "
            "topology constraint on a basic "
            "pod group is not modelled (KEP-5732 checks it only for the pods it sees); use "
            "policy.gang");
  EXPECT_EQ(
      message_of([] { scenario("    workload: {name: w, policy: {gang: {minCount: -1}}}\n"); }),
      "s.yaml:9:51: workload.jobs[0].workload.policy.gang.minCount: -1 is out of range [1, "
      "2147483647]");
}

}  // namespace
}  // namespace tidesim::workloads
