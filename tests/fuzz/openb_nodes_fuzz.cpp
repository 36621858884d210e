// Fuzz harness: an openb node list (openb_node_list_*.csv), read from a file as a scenario's
// `nodes_from` reads it.
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/trace.hpp"

namespace tidesim::fuzz {

int openb_nodes(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only(
      [&] { (void)workloads::read_openb_nodes(write_input("nodes.csv", data, size).string()); });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::openb_nodes(data, size);
}
#endif
