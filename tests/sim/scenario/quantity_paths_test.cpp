// One quantity grammar (sim/input/units.hpp) on every path that reads a Kubernetes quantity: a
// scenario's inline pod and a Pod manifest read the same text to the same request, and a node
// group and a Node object's allocatable to the same amounts. Errors name file, line, column and
// field on either path.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/common/errors.hpp"
#include "tidesim/sim/api/pod_yaml.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/workloads/manifest.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

using test::message_of;

// Texts Kubernetes accepts for cpu or memory, among them the ones the scenario reader used to
// refuse ("1k" CPU, "1E3" memory) or read differently ("0.4m" CPU was 0m; Kubernetes rounds up).
const std::vector<std::string> kTexts = {"1k",  "1E3",  "1e3",    "1500m", ".5Gi",     "0.4m",
                                         "1.5", "16Gi", "100Mi",  "2",     "0",        "3.001n",
                                         "+4",  "1.G",  "2.5e-1", "7Ki",   "123456789"};

// `text` as a YAML string.
ConfigNode quoted(const std::string& text) {
  return load_yaml_string("\"" + text + "\"", "value");
}

// The request of a scenario's inline pod {cpu, memory}.
Resources inline_pod(const std::string& cpu, const std::string& memory) {
  const ConfigNode doc = load_yaml_string(
      "workload:\n  arrivals: {process: burst, count: 1}\n"
      "  jobs:\n  - {model: resnet50, batch_size: 64, steps: 1,\n"
      "     pod: {gpus: 1, cpu: \"" +
          cpu + "\", memory: \"" + memory + "\"}}\n",
      "s.yaml");
  const auto spec = workloads::parse_workload(doc["workload"], "s.yaml", TIDESIM_SOURCE_DIR);
  return spec.mix.at(0).job.pod_template.requests;
}

// The request of a Pod manifest's one container with requests {cpu, memory}.
Resources manifest_pod(const std::string& cpu, const std::string& memory) {
  const auto all = workloads::parse_manifests(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n"
      "    resources:\n      requests: {cpu: \"" +
          cpu + "\", memory: \"" + memory + "\"}\n",
      "p.yaml");
  return all.at(0).pod.requests;
}

TEST(QuantityPaths, AnInlinePodAndAManifestReadTheSameText) {
  for (const std::string& text : kTexts) {
    const Resources in = inline_pod(text, text);
    const Resources manifest = manifest_pod(text, text);
    EXPECT_EQ(in.cpu_milli, manifest.cpu_milli) << text;
    EXPECT_EQ(in.memory_bytes, manifest.memory_bytes) << text;
  }
  // The values, by hand: Kubernetes' MilliValue and Value, rounded up.
  EXPECT_EQ(inline_pod("1k", "1E3").cpu_milli, 1'000'000);
  EXPECT_EQ(inline_pod("1k", "1E3").memory_bytes, 1000);
  EXPECT_EQ(inline_pod("1500m", ".5Gi").cpu_milli, 1500);
  EXPECT_EQ(inline_pod("1500m", ".5Gi").memory_bytes, 1LL << 29);
  EXPECT_EQ(inline_pod("0.4m", "1500m").cpu_milli, 1);
  EXPECT_EQ(inline_pod("0.4m", "1500m").memory_bytes, 2);
}

// Extended resources: whole numbers on both paths ("2000m" is 2; "500m" is refused).
TEST(QuantityPaths, ExtendedResourcesReadTheSame) {
  const ConfigNode doc = load_yaml_string(
      "workload:\n  arrivals: {process: burst, count: 1}\n"
      "  jobs:\n  - {model: resnet50, batch_size: 64, steps: 1,\n"
      "     pod: {gpus: 1, extended_resources: {example.com/a: 1k, example.com/b: 2000m}}}\n",
      "s.yaml");
  const auto spec = workloads::parse_workload(doc["workload"], "s.yaml", TIDESIM_SOURCE_DIR);
  const auto manifest = workloads::parse_manifests(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n"
      "    resources:\n      requests: {example.com/a: 1k, example.com/b: 2000m}\n",
      "p.yaml");
  const auto& in = spec.mix.at(0).job.pod_template.requests.extended;
  const auto& from_manifest = manifest.at(0).pod.requests.extended;
  EXPECT_EQ(in.at("example.com/a"), 1000);
  EXPECT_EQ(in.at("example.com/b"), 2);
  EXPECT_EQ(in.at("example.com/a"), from_manifest.at("example.com/a"));
  EXPECT_EQ(in.at("example.com/b"), from_manifest.at("example.com/b"));
}

// A node group's cpu and memory and a Node object's allocatable.
TEST(QuantityPaths, ANodeGroupAndANodeObjectReadTheSameText) {
  for (const std::string& text : kTexts) {
    const Scenario s = load_scenario("tests/sim/data/preemption.yaml", [&](ConfigNode& doc) {
      doc["cluster"]["node_groups"][0].set("cpu", quoted(text));
      doc["cluster"]["node_groups"][0].set("memory", quoted(text));
    });
    const ResourceList node = read_resource_list(
        load_yaml_string("{cpu: \"" + text + "\", memory: \"" + text + "\"}", "n.yaml"), "n.yaml",
        "status.allocatable");
    EXPECT_EQ(s.cluster.groups.at(0).cpu_milli, node.amounts.cpu_milli) << text;
    EXPECT_EQ(s.cluster.groups.at(0).memory_bytes, node.amounts.memory_bytes) << text;
  }
  // A bare number is bytes on both paths, and the scenarios' "192GiB" is 192Gi.
  const Scenario s = load_scenario("tests/sim/data/preemption.yaml", [](ConfigNode& doc) {
    doc["cluster"]["node_groups"][0].set("memory", quoted("192"));
  });
  EXPECT_EQ(s.cluster.groups.at(0).memory_bytes, 192);
  const Scenario gib = load_scenario("tests/sim/data/preemption.yaml", [](ConfigNode& doc) {
    doc["cluster"]["node_groups"][0].set("memory", quoted("192GiB"));
  });
  EXPECT_EQ(gib.cluster.groups.at(0).memory_bytes, 192LL << 30);
}

TEST(QuantityPaths, ErrorsNameThePlaceAndTheField) {
  EXPECT_EQ(message_of([] { inline_pod("1x", "1Gi"); }),
            "s.yaml:5:26: workload.jobs[0].pod.cpu: '1x' is not a Kubernetes quantity (e.g. 500m, "
            "2, 16Gi, 1e3)");
  EXPECT_EQ(message_of([] { manifest_pod("1x", "1Gi"); }),
            "p.yaml:8:23: spec.containers[0].resources.requests.cpu: '1x' is not a Kubernetes "
            "quantity (e.g. 500m, 2, 16Gi, 1e3)");
  EXPECT_EQ(message_of([] { inline_pod("1", "-1Gi"); }),
            "s.yaml:5:39: workload.jobs[0].pod.memory: '-1Gi' is negative; sizes must be 0 or "
            "more");
  EXPECT_EQ(message_of([] { inline_pod("1e16", "1Gi"); }),
            "s.yaml:5:26: workload.jobs[0].pod.cpu: '1e16' is out of range");
}

}  // namespace
}  // namespace tidesim
