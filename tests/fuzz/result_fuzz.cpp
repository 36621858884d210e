// Fuzz harness: a result file (result.json) as `tidesim report` and `tidesim check` load it.
#include "tests/fuzz/harness.hpp"
#include "tidesim/tools/lib/result.hpp"

namespace tidesim::fuzz {

int result(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only(
      [&] { (void)app::load_result(write_input("result.json", data, size).string()); });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::result(data, size);
}
#endif
