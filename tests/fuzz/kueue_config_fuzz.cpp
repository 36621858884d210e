// Fuzz harness: a Kueue Configuration file as `tidesim admit --kueue-config` reads it
// (sim/scenario/kueue_config.hpp); its resource transformations are then applied to a pod's
// requests (sim/admission/kueue_transform.hpp).
#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/admission/kueue_transform.hpp"
#include "tidesim/sim/scenario/kueue_config.hpp"

namespace tidesim::fuzz {

int kueue_config(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const std::string path = write_input("kueue-config.yaml", data, size).string();
    const KueueConfiguration c = read_kueue_configuration(path);
    (void)tas::transform_requests({{"cpu", 1500}, {"memory", 1LL << 40}, {"nvidia.com/gpu", 8}},
                                  c.transformations);
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::kueue_config(data, size);
}
#endif
