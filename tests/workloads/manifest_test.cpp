#include "tidesim/workloads/manifest.hpp"

#include <gtest/gtest.h>

#include "tests/common/errors.hpp"

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/workloads/job.hpp"

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
            "v1 Pod, scheduling.k8s.io/v1 PriorityClass, scheduling.x-k8s.io/v1alpha1 PodGroup, "
            "scheduling.volcano.sh/v1beta1 PodGroup, scheduling.k8s.io/v1alpha1 Workload");
  const std::string pod_head = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n";
  EXPECT_EQ(message_of([&] {
              parse_manifests(pod_head + "  priorityClassName: high\n  containers: [{name: a}]\n",
                              "p.yaml");
            }),
            "p.yaml:5:22: spec.priorityClassName: no PriorityClass named 'high' (Kubernetes' "
            "Priority admission refuses the pod); known: system-cluster-critical, "
            "system-node-critical");
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

// Issue 46, item 5: a Job's GPUs, its pods' GPU limit x parallelism, in exact 64-bit arithmetic
// and within a job's most: 2^31-1 x 2 ran with gpus -2, 2^62 x 4 wrapped to 0, 2^63-1 was refused
// as "gpus must be at least 1" naming the scenario. Each is refused at the limit's line and
// column in the manifest.
TEST(Manifest, GpuLimitOverflowIsRefusedAtTheManifestsPlace) {
  const auto job = [](const std::string& gpus, int parallelism) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: big}\nspec:\n  parallelism: " +
           std::to_string(parallelism) +
           "\n  template:\n    spec:\n      containers:\n      - name: a\n        resources:\n"
           "          limits: {nvidia.com/gpu: \"" +
           gpus + "\"}\n";
  };
  const std::string field = "spec.template.spec.containers[0].resources.limits.nvidia.com/gpu";
  EXPECT_EQ(message_of([&] { parse_manifests(job("2147483647", 2), "j.yaml"); }),
            "j.yaml:11:36: " + field +
                ": 2147483647 GPUs per pod x 2 pod(s) is more than a job may ask (100000 GPUs)");
  EXPECT_EQ(message_of([&] { parse_manifests(job("4611686018427387904", 4), "j.yaml"); }),
            "j.yaml:11:36: " + field +
                ": 4611686018427387904 GPUs per pod x 4 pod(s) is more than a job may ask "
                "(100000 GPUs)");
  EXPECT_EQ(message_of([&] { parse_manifests(job("9223372036854775807", 1), "j.yaml"); }),
            "j.yaml:11:36: " + field +
                ": 9223372036854775807 GPUs per pod x 1 pod(s) is more than a job may ask "
                "(100000 GPUs)");
  // A Pod's own limit too; and a job within the bound loads.
  EXPECT_NE(
      message_of([&] {
        parse_manifests(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n"
            "  containers:\n  - name: a\n    resources:\n"
            "      requests: {nvidia.com/gpu: 100001}\n",
            "p.yaml");
      }).find("p.yaml:8:34: spec.containers[0].resources.requests.nvidia.com/gpu: 100001 GPUs"),
      std::string::npos);
  EXPECT_EQ(parse_manifests(job("8", 4), "j.yaml")[0].pod.requests.gpus, 8);
}

// PriorityClasses resolved as Kubernetes' Priority admission plugin does
// (plugin/pkg/admission/priority/admission.go, admitPod): a pod's class gives its priority and
// preemptionPolicy, a globalDefault class applies to pods that name none, and the built-in
// system classes exist without being declared.
TEST(ManifestPriority, ClassesGiveValuePolicyAndDefault) {
  const auto all = parse_manifests(R"(apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
description: urgent jobs
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: normal}
value: 10
globalDefault: true
---
apiVersion: batch/v1
kind: Job
metadata: {name: urgent}
spec:
  template:
    spec:
      priorityClassName: high
      containers: [{name: c}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: plain}
spec:
  template:
    spec:
      containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: critical}
spec:
  priorityClassName: system-node-critical
  priority: 2000001000
  containers: [{name: c}]
)",
                                   "classes.yaml");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].pod.priority, 1000);
  EXPECT_EQ(all[0].pod.preemption_policy, "Never");
  // No class: the globalDefault class's value, and its (defaulted) PreemptLowerPriority.
  EXPECT_EQ(all[1].pod.priority, 10);
  EXPECT_EQ(all[1].pod.preemption_policy, "PreemptLowerPriority");
  // A built-in class; a spec.priority equal to the class's value is allowed.
  EXPECT_EQ(all[2].pod.priority, 2'000'001'000);
  EXPECT_EQ(all[2].pod.preemption_policy, "PreemptLowerPriority");
  EXPECT_FALSE(all[0].gang);
}

// With no class named and no globalDefault class, a pod keeps the spec.priority it gives (as
// tidesim's manifests always did; Kubernetes would accept only 0) and its preemptionPolicy.
TEST(ManifestPriority, NoClassKeepsTheSpecPriority) {
  const auto all = parse_manifests(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  priority: 5\n"
      "  preemptionPolicy: Never\n  containers: [{name: a}]\n",
      "p.yaml");
  EXPECT_EQ(all[0].pod.priority, 5);
  EXPECT_EQ(all[0].pod.preemption_policy, "Never");
}

TEST(ManifestPriority, ErrorsNameFileLineColumnAndField) {
  // Lines 1-5: a class; 6-12: a Job; line 13 on: what each case adds to the pod spec.
  const std::string classes =
      "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\n"
      "value: 1000\n---\n";
  const std::string job =
      "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  template:\n    spec:\n"
      "      containers: [{name: c}]\n";
  const auto error = [&](const std::string& extra) {
    return message_of([&] { parse_manifests(classes + job + extra, "e.yaml"); });
  };
  // Column 26 = 6 spaces + "priorityClassName: " (19 characters) + 1.
  EXPECT_EQ(error("      priorityClassName: low\n"),
            "e.yaml:13:26: spec.template.spec.priorityClassName: no PriorityClass named 'low' "
            "(Kubernetes' Priority admission refuses the pod); known: high, "
            "system-cluster-critical, system-node-critical");
  // admitPod refuses a spec.priority or preemptionPolicy that differs from the class's.
  EXPECT_EQ(error("      priorityClassName: high\n      priority: 5\n"),
            "e.yaml:14:17: spec.template.spec.priority: the integer value of priority (5) must "
            "not be provided in pod spec; priority admission controller computed 1000 from the "
            "PriorityClass 'high'");
  EXPECT_EQ(error("      priorityClassName: high\n      preemptionPolicy: Never\n"),
            "e.yaml:14:25: spec.template.spec.preemptionPolicy: the string value of "
            "PreemptionPolicy (Never) must not be provided in pod spec; priority admission "
            "controller computed PreemptLowerPriority from the PriorityClass 'high'");
  // A globalDefault class applies to a pod naming none, so its spec.priority must match too.
  EXPECT_EQ(message_of([&] {
              parse_manifests(
                  "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: d}\n"
                  "value: 7\nglobalDefault: true\n---\n" +
                      job + "      priority: 5\n",
                  "d.yaml");
            }),
            "d.yaml:14:17: spec.template.spec.priority: the integer value of priority (5) must "
            "not be provided in pod spec; priority admission controller computed 7 from the "
            "PriorityClass 'd'");
  // Class validation (pkg/apis/scheduling/validation ValidatePriorityClass and the plugin's
  // validatePriorityClass).
  const auto class_error = [&](const std::string& name, const std::string& rest) {
    return message_of([&] {
      parse_manifests("apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " +
                          name + "}\n" + rest + job,
                      "c.yaml");
    });
  };
  EXPECT_EQ(class_error("huge", "value: 1000000001\n---\n"),
            "c.yaml:4:8: value: maximum allowed value of a user defined priority is 1000000000");
  EXPECT_EQ(class_error("system-mine", "value: 5\n---\n"),
            "c.yaml:3:18: metadata.name: priority class names with 'system-' prefix are reserved "
            "for system use only (system-cluster-critical 2000000000, system-node-critical "
            "2000001000, globalDefault false)");
  EXPECT_EQ(class_error("system-node-critical", "value: 2000001000\n---\n"), "(no error)");
  EXPECT_EQ(class_error("a",
                        "value: 1\nglobalDefault: true\n---\n"
                        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                        "metadata: {name: b}\nvalue: 2\nglobalDefault: true\n---\n"),
            "c.yaml:11:16: globalDefault: PriorityClass a (c.yaml:5:16) is already marked as "
            "default. Only one default can exist");
  EXPECT_EQ(class_error("a",
                        "value: 1\n---\n"
                        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                        "metadata: {name: a}\nvalue: 2\n---\n"),
            "c.yaml:8:18: metadata.name: PriorityClass 'a' is declared twice (first at "
            "c.yaml:3:18)");
  EXPECT_NE(class_error("a", "value: 1\npreemptionPolicy: Sometimes\n---\n")
                .find("c.yaml:5:19: preemptionPolicy:"),
            std::string::npos);
}

// A scheduler-plugins PodGroup (apis/scheduling/v1alpha1) joined with the pod-group label makes
// the Job a Coscheduling gang (permit mode) with its minMember, scheduleTimeoutSeconds and
// minResources; a Volcano PodGroup (scheduling.volcano.sh/v1beta1) joined with the group-name
// annotation makes it an all-or-nothing gang, and its priorityClassName is the pods' priority.
TEST(ManifestPodGroup, GroupsBecomeGangs) {
  const auto all = parse_manifests(R"(apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: dp4}
spec:
  minMember: 3
  scheduleTimeoutSeconds: 120
  minResources: {nvidia.com/gpu: 6, cpu: "6"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: dp4}
spec:
  parallelism: 4
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: dp4}
    spec:
      containers:
      - name: c
        resources: {limits: {nvidia.com/gpu: 2, cpu: "2"}}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: dp8}
spec: {minMember: 8, queue: default, priorityClassName: high, minResources: {nvidia.com/gpu: 8}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: dp8}
spec:
  parallelism: 8
  template:
    metadata:
      annotations: {scheduling.k8s.io/group-name: dp8}
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: solo}
spec:
  template:
    spec:
      containers: [{name: c}]
)",
                                   "groups.yaml");
  ASSERT_EQ(all.size(), 3u);
  ASSERT_TRUE(all[0].gang);
  // minResources 6 GPUs and 6 CPUs = minMember 3 x the pod's 2 GPUs and 2 CPUs: GangSpec's
  // min_resources.
  EXPECT_EQ(*all[0].gang, (GangSpec{GangMode::kPermit, 3, std::chrono::seconds(120), true, false,
                                    "", std::nullopt, std::nullopt}));
  EXPECT_EQ(all[0].pod.priority, 0);
  ASSERT_TRUE(all[1].gang);
  // All-or-nothing: min_member 0 = every pod of the job; no timeout nor minResources are read.
  EXPECT_EQ(*all[1].gang, (GangSpec{GangMode::kAllOrNothing, 0, std::chrono::seconds(60), false,
                                    false, "", std::nullopt, std::nullopt}));
  EXPECT_EQ(all[1].pod.priority, 1000);  // the group's class
  EXPECT_FALSE(all[2].gang);
}

TEST(ManifestPodGroup, ErrorsNameFileLineColumnAndField) {
  // Lines 1-7: a Coscheduling group; 8 on: the Job(s).
  const std::string group =
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: dp4}\n"
      "spec:\n  minMember: 2\n  minResources: {nvidia.com/gpu: 4}\n---\n";
  const auto job = [](const std::string& name, const std::string& label) {
    return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name +
           "}\nspec:\n  parallelism: 2\n  template:\n    metadata:\n      labels: "
           "{scheduling.x-k8s.io/pod-group: " +
           label +
           "}\n    spec:\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: "
           "2}}}]\n";
  };
  EXPECT_EQ(message_of([&] { parse_manifests(group + job("a", "dp4"), "g.yaml"); }), "(no error)");
  // The label is on line 15; column 47 = 6 spaces + "labels: {" (9) +
  // "scheduling.x-k8s.io/pod-group: " (31) + 1.
  EXPECT_EQ(message_of([&] { parse_manifests(group + job("a", "nope"), "g.yaml"); }),
            "g.yaml:15:47: spec.template.metadata.labels.scheduling.x-k8s.io/pod-group: no "
            "PodGroup named 'nope' (scheduling.x-k8s.io/v1alpha1) in the scenario's manifests");
  // Two Jobs in one group: the second (its label on line 26) is refused.
  EXPECT_EQ(message_of([&] {
              parse_manifests(group + job("a", "dp4") + "---\n" + job("b", "dp4"), "g.yaml");
            }),
            "g.yaml:26:47: spec.template.metadata.labels.scheduling.x-k8s.io/pod-group: PodGroup "
            "'dp4' is already joined by Job 'a' (g.yaml:15:47); tidesim's gangs are per job: "
            "give each Job its own PodGroup");
  // minResources other than minMember pods' GPUs (2 x 2 = 4) is refused at the mapping.
  const std::string three_gpus =
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: dp4}\n"
      "spec:\n  minMember: 2\n  minResources: {nvidia.com/gpu: 3}\n---\n";
  EXPECT_EQ(message_of([&] { parse_manifests(three_gpus + job("a", "dp4"), "g.yaml"); }),
            "g.yaml:6:17: spec.minResources: PodGroup 'dp4' (Job 'a'): nvidia.com/gpu = 3 needs "
            "4: nvidia.com/gpu = minMember 2 x 2 per pod; tidesim models minResources as "
            "minMember pods' requests (docs/job-scheduling.md)");
  const std::string too_many =
      "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: dp4}\n"
      "spec:\n  minMember: 3\n---\n";
  EXPECT_EQ(message_of([&] { parse_manifests(too_many + job("a", "dp4"), "g.yaml"); }),
            "g.yaml:5:14: spec.minMember: PodGroup 'dp4': minMember 3 is more than the 2 pods of "
            "Job 'a' (Coscheduling would keep them pending)");
  // Volcano: a queue other than 'default', and a minMember short of the job's pods.
  const auto volcano = [](const std::string& spec) {
    return "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: v}\n"
           "spec: " +
           spec +
           "\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: "
           "{scheduling.k8s.io/group-name: v}\nspec:\n  containers: [{name: c}]\n";
  };
  EXPECT_EQ(message_of([&] { parse_manifests(volcano("{minMember: 1}"), "v.yaml"); }),
            "(no error)");
  EXPECT_EQ(
      message_of([&] { parse_manifests(volcano("{minMember: 1, queue: research}"), "v.yaml"); }),
      "v.yaml:4:29: spec.queue: not supported: Volcano queues are not modelled (only "
      "'default'); model teams sharing the cluster with Kueue queues "
      "(docs/job-scheduling.md)");
  // minMember 0 would make no gang at all. Column 19 = "spec: {minMember: " (18) + 1.
  EXPECT_EQ(message_of([&] { parse_manifests(volcano("{minMember: 0}"), "v.yaml"); }),
            "v.yaml:4:19: spec.minMember: 0 is out of range [1, 100000]");
  EXPECT_EQ(message_of([&] {
              parse_manifests(
                  "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: "
                  "v}\nspec: {minMember: 2}\n---\n" +
                      std::string("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n"
                                  "  parallelism: 4\n  template:\n    metadata:\n"
                                  "      annotations: {scheduling.k8s.io/group-name: v}\n"
                                  "    spec:\n      containers: [{name: c}]\n"),
                  "v.yaml");
            }),
            "v.yaml:4:19: spec.minMember: PodGroup 'v': minMember 2 differs from the 4 pods of Job "
            "'j'; tidesim's all-or-nothing gangs place all of a job's pods, so minMember must be "
            "its parallelism");
  // A file of classes and groups only is no job template.
  EXPECT_EQ(message_of([&] { parse_manifests(group, "g.yaml"); }),
            "g.yaml: no Job or Pod in the file");
}

}  // namespace
}  // namespace tidesim::workloads
