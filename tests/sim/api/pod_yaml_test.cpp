// The one Pod reader (sim/api/pod_yaml.hpp) in both of its modes.
#include "tidesim/sim/api/pod_yaml.hpp"

#include <gtest/gtest.h>

#include <string>

#include "tidesim/sim/input/yaml_fields.hpp"

namespace tidesim {
namespace {

constexpr std::int64_t kGi = 1LL << 30;

const char* kSpec = R"(containers:
- name: trainer
  image: pytorch/pytorch:2.0.1
  env:
  - {name: AI_NV_LINK_REQUIRED, value: "true"}
  resources:
    requests: {cpu: "0", memory: 16Gi, ephemeral-storage: 10Gi, hugepages-2Mi: 1Gi}
    limits: {cpu: "2", nvidia.com/gpu: "1", example.com/foo: 1k}
- name: sidecar-ish
  resources:
    limits: {memory: 1Gi}
initContainers:
- name: proxy
  restartPolicy: Always
  resources:
    requests: {cpu: 500m}
- name: fetch
  resources:
    requests: {cpu: "4", memory: 1Gi}
overhead: {cpu: 250m, memory: 120Mi}
nodeSelector: {nvidia.com/gpu.present: "true"}
tolerations:
- {key: gpu, operator: Exists, effect: NoSchedule}
priority: 2000001000
schedulerName: load-aware-scheduler
)";

PodSpec read(const std::string& text, PodReadMode mode) {
  PodSpec p;
  read_pod_spec(load_yaml_string(text, "pod.yaml"), "pod.yaml", "spec", mode, p);
  return p;
}

std::string error_of(const std::string& text, PodReadMode mode) {
  try {
    read(text, mode);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(PodYaml, ContainersInitContainersAndOverhead) {
  const PodSpec p = read(kSpec, PodReadMode::kManifest);
  ASSERT_TRUE(p.containers);
  ASSERT_EQ(p.containers->size(), 2u);
  const Container& c = (*p.containers)[0];
  // cpu "0" is set and stays 0 although the limit is 2 (a request is defaulted to the limit only
  // when the key is missing); the GPU and example.com/foo requests come from the limits.
  EXPECT_TRUE(c.cpu_set);
  EXPECT_EQ(c.requests.cpu_milli, 0);
  EXPECT_EQ(c.requests.gpus, 1);
  EXPECT_EQ(c.requests.extended.at("example.com/foo"), 1000);
  // ephemeral-storage and hugepages are not modelled: checked, then dropped.
  EXPECT_EQ(c.requests.extended.size(), 1u);
  EXPECT_TRUE((*p.containers)[1].memory_set);  // from its limit
  EXPECT_FALSE((*p.containers)[1].cpu_set);
  ASSERT_EQ(p.init_containers.size(), 2u);
  EXPECT_TRUE(p.init_containers[0].restartable);
  EXPECT_FALSE(p.init_containers[1].restartable);
  // cpu: containers 0 + sidecar 500m = 500m; fetch 4000m + sidecar 500m = 4500m; + 250m.
  EXPECT_EQ(p.requests.cpu_milli, 4750);
  // memory: containers 16Gi + 1Gi = 17Gi; fetch 1Gi -> 17Gi + 120Mi.
  EXPECT_EQ(p.requests.memory_bytes, 17 * kGi + (120LL << 20));
  EXPECT_EQ(p.limits.cpu_milli, 2000);
  EXPECT_EQ(p.image, "pytorch/pytorch:2.0.1");
  EXPECT_EQ(p.env.at("AI_NV_LINK_REQUIRED"), "true");
  EXPECT_EQ(p.priority, 2000001000);  // system-node-critical fits (int32)
  EXPECT_EQ(p.scheduler_name, "load-aware-scheduler");
}

TEST(PodYaml, BothModesReadTheSamePod) {
  EXPECT_EQ(read(kSpec, PodReadMode::kManifest), read(kSpec, PodReadMode::kServerObject));
}

TEST(PodYaml, UnknownKeysAreErrorsOnlyInManifests) {
  const std::string text = std::string(kSpec) + "volumes: []\nnodeSelectr: {a: b}\n";
  EXPECT_NE(
      error_of(text, PodReadMode::kManifest).find("pod.yaml:27:1: spec.nodeSelectr: unknown key"),
      std::string::npos)
      << error_of(text, PodReadMode::kManifest);
  EXPECT_EQ(error_of(text, PodReadMode::kServerObject), "(accepted)");
}

TEST(PodYaml, BadQuantitiesNameTheirPlace) {
  std::string text = kSpec;
  text.replace(text.find("cpu: 500m"), 9, "cpu: -500m");
  const std::string neg = error_of(text, PodReadMode::kServerObject);
  EXPECT_EQ(neg,
            "pod.yaml:16:21: spec.initContainers[0].resources.requests.cpu: '-500m' is negative; "
            "resource quantities must be 0 or more");
  text = kSpec;
  text.replace(text.find("nvidia.com/gpu: \"1\""), 19, "nvidia.com/gpu: 1e19");
  EXPECT_EQ(error_of(text, PodReadMode::kManifest),
            "pod.yaml:8:40: spec.containers[0].resources.limits.nvidia.com/gpu: '1e19' is out of "
            "range");
  text = kSpec;
  text.replace(text.find("ephemeral-storage: 10Gi"), 23, "ephemeral-storage: -1Gi");
  EXPECT_NE(
      error_of(text, PodReadMode::kServerObject)
          .find("spec.containers[0].resources.requests.ephemeral-storage: '-1Gi' is negative"),
      std::string::npos);
}

}  // namespace
}  // namespace tidesim
