// Fuzz harness: `nvidia-smi topo -m` output, parsed into a matrix and built into a Topology as
// `tidesim topo FILE` does.
#include "tests/fuzz/harness.hpp"
#include "tidesim/topologies/nvidia_smi.hpp"

namespace tidesim::fuzz {

int topology(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only(
      [&] { (void)parse_nvidia_smi(as_text(data, size), "fuzz-topo.txt"); });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::topology(data, size);
}
#endif
