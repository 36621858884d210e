// Fuzz harness: Kubernetes Job and Pod manifests (one or several YAML documents).
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/manifest.hpp"

namespace tidesim::fuzz {

int manifest(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only(
      [&] { (void)workloads::parse_manifests(as_text(data, size), "fuzz-manifest.yaml"); });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::manifest(data, size);
}
#endif
