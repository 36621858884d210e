// Fuzz harness: a `kubectl get nodes,pods -o yaml` List (or single objects, or "---" documents)
// as `tidesim explain` reads it: every Node and Pod, then each node's metric annotations.
#include "tests/fuzz/harness.hpp"
#include "tidesim/policies/kube_objects.hpp"

namespace tidesim::fuzz {

int kube_objects(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const std::string path = write_input("objects.yaml", data, size).string();
    const policies::KubeObjects objects = policies::read_kube_objects(path);
    for (const auto& node : objects.nodes) {
      (void)policies::metrics_from_annotations(node, path);
    }
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::kube_objects(data, size);
}
#endif
