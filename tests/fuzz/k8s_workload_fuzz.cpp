// Fuzz harness: Kubernetes' Workload API (workloads/k8s_workload.hpp): the input as manifests
// (Workload objects and Jobs whose pods reference them with spec.workloadRef), and as one pod
// group entry, the form of a scenario job class's `workload` field.
#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/workloads/k8s_workload.hpp"
#include "tidesim/workloads/manifest.hpp"

namespace tidesim::fuzz {

int k8s_workload(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  expect_input_error_only([&] { (void)workloads::parse_manifests(text, "fuzz-workload.yaml"); });
  return expect_input_error_only([&] {
    const ConfigNode doc = load_yaml_string(text, "fuzz-pod-group.yaml");
    const auto group = workloads::read_workload_pod_group(doc, "fuzz-pod-group.yaml", "workload");
    (void)workloads::gang_of(group, 4);
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::k8s_workload(data, size);
}
#endif
