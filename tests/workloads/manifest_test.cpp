#include "workloads/manifest.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include "sim/api/cluster_view.hpp"
#include "workloads/job.hpp"

namespace tidesim::workloads {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

using test::message_of;

TEST(Manifest, SeedResnet50HeavyLoadsAsWritten) {
  const auto all = load_manifests(TIDESIM_SOURCE_DIR "/scenarios/manifests/resnet50-heavy.yaml");
  ASSERT_EQ(all.size(), 1u);
  const JobTemplate& t = all[0];
  EXPECT_EQ(t.kind, "Job");
  EXPECT_EQ(t.name, "resnet50-heavy");
  EXPECT_EQ(t.parallelism, 1);
  EXPECT_EQ(t.backoff_limit, 6);
  EXPECT_EQ(t.pod.requests.gpus, 1);
  EXPECT_EQ(t.pod.requests.memory_bytes, 16 * kGiB);
  EXPECT_EQ(t.pod.limits.memory_bytes, 24 * kGiB);
  EXPECT_EQ(t.pod.env.at("AI_LOAD_TYPE"), "GPU_HEAVY");
  EXPECT_EQ(t.pod.image, "pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime");
  EXPECT_EQ(t.pod.scheduler_name, "load-aware-scheduler");
  EXPECT_EQ(t.pod.labels.at("job-name"), "resnet50-heavy");
  EXPECT_EQ(nvlink_need(t.pod, NvlinkRule{}), NvlinkNeed::kNone);
  // The image contains "pytorch": the load-aware plugins' default detection finds it.
  EXPECT_EQ(nvlink_need(t.pod, NvlinkRule{.detect_pytorch_image = true}),
            NvlinkNeed::kAutoDetected);
}

TEST(Manifest, SeedGpt2DpLoadsAsWritten) {
  const auto all = load_manifests(TIDESIM_SOURCE_DIR "/scenarios/manifests/gpt2-dp.yaml");
  ASSERT_EQ(all.size(), 1u);
  const PodSpec& pod = all[0].pod;
  EXPECT_EQ(pod.node_selector.at("nvidia.com/gpu.present"), "true");
  ASSERT_EQ(pod.pod_anti_affinity.required.size(), 1u);
  const auto& term = pod.pod_anti_affinity.required[0];
  EXPECT_EQ(term.topology_key, "kubernetes.io/hostname");
  ASSERT_EQ(term.label_selector.match_expressions.size(), 1u);
  EXPECT_EQ(term.label_selector.match_expressions[0].key, "app");
  EXPECT_EQ(term.label_selector.match_expressions[0].op, "In");
  EXPECT_EQ(term.label_selector.match_expressions[0].values, std::vector<std::string>{"gpt2-dp"});
  EXPECT_EQ(nvlink_need(pod, NvlinkRule{}), NvlinkNeed::kDeclared);
  EXPECT_EQ(pod.requests.gpus, 0);  // as written, it requests no GPU
  EXPECT_FALSE(pod.labels.contains("app"));
}

TEST(Manifest, UnquotedTrueAsTheSeedTextShowsItAlsoLoads) {
  const auto all = parse_manifests(
      "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: gpt2-dp\nspec:\n  template:\n"
      "    spec:\n      nodeSelector:\n        nvidia.com/gpu.present: true\n"
      "      containers:\n      - name: trainer\n        image: x\n        env:\n"
      "        - name: AI_NV_LINK_REQUIRED\n          value: true\n",
      "seed.yaml");
  EXPECT_EQ(all[0].pod.node_selector.at("nvidia.com/gpu.present"), "true");
  EXPECT_EQ(nvlink_need(all[0].pod, NvlinkRule{}), NvlinkNeed::kDeclared);
}

TEST(Manifest, MultiDocumentPodsAndJobs) {
  const auto all = parse_manifests(
      "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  labels: {app: a}\n"
      "  annotations: {ai.auto-nvlink: \"true\"}\nspec:\n  priority: 100\n"
      "  tolerations:\n  - {key: gpu, operator: Exists, effect: NoSchedule}\n"
      "  containers:\n  - name: a\n    image: img\n    resources:\n      limits:\n"
      "        cpu: 500m\n        nvidia.com/gpu: 2\n  - name: b\n    image: side\n"
      "    resources:\n      requests: {cpu: \"1\", memory: 1Gi}\n"
      "  initContainers:\n  - name: init\n    image: i\n    resources:\n"
      "      requests: {cpu: \"4\"}\n"
      "---\n"
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 4\n"
      "  backoffLimit: 2\n  template:\n    metadata:\n      labels: {app: gpt2-dp}\n"
      "    spec:\n      containers:\n      - name: c\n        image: pytorch/x\n",
      "multi.yaml");
  ASSERT_EQ(all.size(), 2u);
  const PodSpec& p = all[0].pod;
  EXPECT_EQ(all[0].kind, "Pod");
  EXPECT_EQ(p.labels.at("app"), "a");
  EXPECT_EQ(p.priority, 100);
  // Requests default to limits; containers add up (500m + 1000m = 1500m), but the init
  // container's 4 CPUs are the larger: effective request 4000m.
  EXPECT_EQ(p.requests.cpu_milli, 4000);
  EXPECT_EQ(p.requests.gpus, 2);
  EXPECT_EQ(p.requests.memory_bytes, kGiB);
  EXPECT_EQ(p.image, "img");  // the first container's image
  ASSERT_EQ(p.tolerations.size(), 1u);
  EXPECT_EQ(p.tolerations[0].op, "Exists");
  EXPECT_EQ(all[1].parallelism, 4);
  EXPECT_EQ(all[1].completions, 4);
  EXPECT_EQ(all[1].backoff_limit, 2);
  EXPECT_EQ(all[1].pod.labels.at("app"), "gpt2-dp");
}

TEST(Manifest, RestartPolicyOfAJob) {
  const std::string head =
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n";
  const std::string containers = "      containers: [{name: a}]\n";
  // Unset (as in the seed's manifests): Never, the Job controller replaces failed pods.
  EXPECT_EQ(parse_manifests(head + containers, "j.yaml")[0].restart_policy, RestartPolicy::kNever);
  EXPECT_EQ(parse_manifests(head + containers + "      restartPolicy: OnFailure\n", "j.yaml")[0]
                .restart_policy,
            RestartPolicy::kOnFailure);
  // The API server rejects Always for a Job; tidesim says where.
  EXPECT_EQ(message_of([&] {
              parse_manifests(head + containers + "      restartPolicy: Always\n", "j.yaml");
            }),
            "j.yaml:8:22: spec.template.spec.restartPolicy: a Job's pods must restart Never or "
            "OnFailure, not Always");
}

TEST(Manifest, UnsupportedKindsAndFieldsAreErrors) {
  EXPECT_EQ(message_of([] {
              parse_manifests("apiVersion: apps/v1\nkind: Deployment\nspec: {}\n", "d.yaml");
            }),
            "d.yaml:2:7: kind: unsupported kind 'apps/v1 Deployment'; supported: batch/v1 Job, "
            "v1 Pod");
  const std::string pod_head = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n";
  EXPECT_EQ(message_of([&] {
              parse_manifests(pod_head + "  priorityClassName: high\n  containers: [{name: a}]\n",
                              "p.yaml");
            }),
            "p.yaml:5:22: spec.priorityClassName: not supported: priority classes are not "
            "resolved; give spec.priority");
  EXPECT_NE(message_of([&] {
              parse_manifests(pod_head + "  containers: [{name: a}]\n  nodeSelectr: {a: b}\n",
                              "p.yaml");
            }).find("p.yaml:6:3: spec.nodeSelectr: unknown key"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              parse_manifests(pod_head +
                                  "  containers:\n  - name: a\n    resources:\n"
                                  "      requests: {nvidia.com/gpu: 0.5}\n",
                              "p.yaml");
            }).find("p.yaml:8:34: spec.containers[0].resources.requests.nvidia.com/gpu:"),
            std::string::npos);
  EXPECT_NE(message_of([&] {
              parse_manifests(pod_head +
                                  "  containers: [{name: a}]\n  affinity:\n"
                                  "    podAffinity:\n"
                                  "      requiredDuringSchedulingIgnoredDuringExecution:\n"
                                  "      - topologyKey: zone\n"
                                  "        namespaceSelector: {}\n",
                              "p.yaml");
            }).find("namespaceSelector: not supported"),
            std::string::npos);
  EXPECT_NE(message_of([] {
              parse_manifests("---\n---\n", "empty.yaml");
            }).find("no manifest in the file"),
            std::string::npos);
}

// Resources read as explain reads them (the shared reader, sim/api/pod_yaml.hpp): an explicit
// cpu "0" request stays 0 beside a limit (it used to be replaced by the limit, as if missing);
// ephemeral-storage is not modelled and dropped (it used to become an extended resource that no
// node advertises, so the pod could never fit); negative quantities are errors.
TEST(Manifest, ResourcesReadAsInExplain) {
  const std::string head =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n"
      "    resources:\n";
  const auto all = parse_manifests(head +
                                       "      requests: {cpu: \"0\", ephemeral-storage: 10Gi}\n"
                                       "      limits: {cpu: \"2\", memory: 1Gi}\n",
                                   "p.yaml");
  const PodSpec& p = all[0].pod;
  EXPECT_EQ(p.requests.cpu_milli, 0);
  EXPECT_EQ(p.requests.memory_bytes, kGiB);  // defaulted from the limit
  EXPECT_TRUE(p.requests.extended.empty());
  ASSERT_TRUE(p.containers);
  EXPECT_TRUE((*p.containers)[0].cpu_set);
  EXPECT_EQ(non_zero_requests(p).cpu_milli, 0);  // set to 0: no 100m default
  EXPECT_EQ(
      message_of([&] { parse_manifests(head + "      requests: {memory: -1Gi}\n", "p.yaml"); }),
      "p.yaml:8:26: spec.containers[0].resources.requests.memory: '-1Gi' is negative; "
      "resource quantities must be 0 or more");
}

}  // namespace
}  // namespace tidesim::workloads
