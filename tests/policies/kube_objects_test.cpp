// Node/Pod object reading for explain: the seed's gpt2-dp pod, annotations, errors.
#include <gtest/gtest.h>

#include "tests/common/errors.hpp"
#include "tidesim/policies/kube_objects.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim::policies {
namespace {

// The seed's task-nvlink.yaml pod template (digest 3.4), as a Pod.
const char* kGpt2 = R"(apiVersion: v1
kind: Pod
metadata:
  name: gpt2-dp-0
  labels: {app: gpt2-dp}
spec:
  schedulerName: load-aware-scheduler
  nodeSelector:
    nvidia.com/gpu.present: "true"
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - key: app
            operator: In
            values: [gpt2-dp]
        topologyKey: kubernetes.io/hostname
  containers:
  - name: trainer
    image: pytorch/pytorch:2.0.1-cuda11.7-cudnn8-runtime
    resources:
      limits:
        nvidia.com/gpu: 1
      requests:
        memory: 16Gi
    env:
    - name: AI_NV_LINK_REQUIRED
      value: "true"
)";

TEST(KubeObjects, SeedGpt2Pod) {
  const auto pod = parse_pod(load_yaml_string(kGpt2, "gpt2.yaml"), "gpt2.yaml", "pod");
  EXPECT_EQ(pod->name, "gpt2-dp-0");
  EXPECT_EQ(pod->node_selector.at("nvidia.com/gpu.present"), "true");
  ASSERT_EQ(pod->pod_anti_affinity.required.size(), 1u);
  EXPECT_EQ(pod->pod_anti_affinity.required[0].topology_key, "kubernetes.io/hostname");
  EXPECT_EQ(pod->pod_anti_affinity.required[0].label_selector.match_expressions[0].values,
            std::vector<std::string>{"gpt2-dp"});
  EXPECT_EQ(pod->requests.gpus, 1);  // defaulted from the limit
  EXPECT_EQ(pod->requests.memory_bytes, 16LL << 30);
  EXPECT_EQ(pod->env.at("AI_NV_LINK_REQUIRED"), "true");
}

TEST(KubeObjects, BadOperatorNamesLineAndField) {
  std::string text = kGpt2;
  text.replace(text.find("operator: In"), 12, "operator: Inside");
  try {
    parse_pod(load_yaml_string(text, "gpt2.yaml"), "gpt2.yaml", "pod");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("gpt2.yaml:16:"), std::string::npos) << what;
    EXPECT_NE(what.find("matchExpressions[0].operator"), std::string::npos) << what;
  }
}

// Issue 46, item 6: a taint without `key` (or `effect`) is named missing at the taint's place,
// not "expected a scalar" where nothing is written.
TEST(KubeObjects, MessagesTaintWithoutKeyIsMissingAtItsPlace) {
  const std::string node =
      "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n"
      "  - {effect: NoSchedule}\nstatus:\n  allocatable: {nvidia.com/gpu: 4}\n";
  EXPECT_EQ(
      test::message_of([&] { parse_node(load_yaml_string(node, "n.yaml"), "n.yaml", "node"); }),
      "n.yaml:6:5: node.spec.taints[0].key: missing required field");
  std::string no_effect = node;
  no_effect.replace(no_effect.find("effect: NoSchedule"), 18, "key: gpu");
  EXPECT_EQ(test::message_of(
                [&] { parse_node(load_yaml_string(no_effect, "n.yaml"), "n.yaml", "node"); }),
            "n.yaml:6:5: node.spec.taints[0].effect: missing required field");
}

// The Pod reader is the manifests' one (sim/api/pod_yaml.hpp): a negative or out-of-range
// quantity is an error here too (explain used to accept nvidia.com/gpu: -1), and
// ephemeral-storage is dropped in both (manifests used to keep it as an extended resource that
// no node advertised).
TEST(KubeObjects, QuantitiesReadAsInManifests) {
  std::string text = kGpt2;
  text.replace(text.find("nvidia.com/gpu: 1"), 17, "nvidia.com/gpu: -1");
  try {
    parse_pod(load_yaml_string(text, "gpt2.yaml"), "gpt2.yaml", "pod");
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "gpt2.yaml:24:25: pod.spec.containers[0].resources.limits.nvidia.com/gpu: '-1' is "
              "negative; resource quantities must be 0 or more");
  }
  text = kGpt2;
  text.replace(text.find("memory: 16Gi"), 12, "memory: 16Gi\n        ephemeral-storage: 1Ti");
  const auto pod = parse_pod(load_yaml_string(text, "gpt2.yaml"), "gpt2.yaml", "pod");
  EXPECT_TRUE(pod->requests.extended.empty());
  EXPECT_EQ(pod->requests.memory_bytes, 16LL << 30);
}

TEST(KubeObjects, MetricsAnnotations) {
  KubeNode n;
  n.spec.name = "n1";
  n.spec.allocatable.gpus = 2;
  EXPECT_FALSE(metrics_from_annotations(n, "f"));
  n.annotations["tidesim.io/gpu-memory-utilization"] = "0.5,0.25";
  n.annotations["tidesim.io/storage-await-ms"] = "nvme0=3,sdb=7.5";
  n.annotations["tidesim.io/metrics-latency"] = "6s";
  const auto m = metrics_from_annotations(n, "f");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->first.gpu_memory_utilization, (std::vector<double>{0.5, 0.25}));
  EXPECT_DOUBLE_EQ(m->first.storage_await_ms.at("sdb"), 7.5);
  EXPECT_EQ(m->second, std::chrono::seconds(6));
  n.annotations["tidesim.io/nvlink-competition-index"] = "high";
  EXPECT_THROW(metrics_from_annotations(n, "f"), InputError);
}

// A Node with 2 cards and `annotations` (a YAML mapping's entries).
KubeNode two_card_node(const std::string& annotations) {
  const std::string text = "kind: Node\nmetadata:\n  name: n1\n  annotations:\n" + annotations +
                           "status:\n  allocatable: {nvidia.com/gpu: \"2\"}\n";
  return parse_node(load_yaml_string(text, "n.yaml"), "n.yaml", "items[0]");
}

std::string annotation_error(const std::string& annotations) {
  return test::message_of([&] { metrics_from_annotations(two_card_node(annotations), "n.yaml"); });
}

// Each of these was taken: 3 values on 2 cards made a phantom third card, 1.5 was read as 150%
// of a card's memory, and a device named twice kept its last value. Each is refused at its place.
TEST(KubeObjects, MetricsAnnotationsThatWouldChangeMeaningAreRefused) {
  const std::string util = "items[0].metadata.annotations.tidesim.io/gpu-memory-utilization";
  EXPECT_EQ(annotation_error("    tidesim.io/gpu-memory-utilization: \"0.1,0.2,0.3\"\n"),
            "n.yaml:5:40: " + util +
                ": 3 value(s) for a node with 2 card(s) (its allocatable nvidia.com/gpu); give "
                "one per card");
  EXPECT_EQ(annotation_error("    tidesim.io/gpu-memory-utilization: \"0.1\"\n"),
            "n.yaml:5:40: " + util +
                ": 1 value(s) for a node with 2 card(s) (its allocatable nvidia.com/gpu); give "
                "one per card");
  EXPECT_EQ(annotation_error("    tidesim.io/gpu-memory-utilization: \"0.1,1.5\"\n"),
            "n.yaml:5:40: " + util +
                ": '1.5' is not a utilisation; each card's value lies in "
                "[0, 1]");
  EXPECT_EQ(annotation_error("    tidesim.io/storage-await-ms: \"sdb=3,nvme0=1,sdb=9\"\n"),
            "n.yaml:5:34: items[0].metadata.annotations.tidesim.io/storage-await-ms: device 'sdb' "
            "is named twice");
  EXPECT_EQ(annotation_error("    tidesim.io/storage-await-ms: \"3,9\"\n"),
            "n.yaml:5:34: items[0].metadata.annotations.tidesim.io/storage-await-ms: more than "
            "one value without a device name; name each device (\"nvme0n1=6,sdb=3.5\")");
  // The limits themselves are taken: 0 and 1 on each of the 2 cards, each device once.
  const auto m = metrics_from_annotations(
      two_card_node("    tidesim.io/gpu-memory-utilization: \"0,1\"\n"
                    "    tidesim.io/storage-await-ms: \"sdb=3,nvme0=1\"\n"),
      "n.yaml");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->first.gpu_memory_utilization, (std::vector<double>{0.0, 1.0}));
  EXPECT_EQ(m->first.storage_await_ms.size(), 2u);
}

}  // namespace
}  // namespace tidesim::policies
