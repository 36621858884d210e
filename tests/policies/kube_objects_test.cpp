// Node/Pod object reading for explain: the seed's gpt2-dp pod, annotations, errors.
#include <gtest/gtest.h>

#include "tidesim/policies/kube_objects.hpp"

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

}  // namespace
}  // namespace tidesim::policies
