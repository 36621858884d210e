// Fuzz harness: a KubeSchedulerConfiguration, parsed and every profile built into a scheduler as
// `tidesim validate` does (plugin names, extension points, weights and args are checked there).
#include "tests/fuzz/harness.hpp"
#include "tidesim/policies/config.hpp"
#include "tidesim/policies/scheduler.hpp"

namespace tidesim::fuzz {

int scheduler_config(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const auto config =
        policies::load_scheduler_config_string(as_text(data, size), "fuzz-scheduler.yaml");
    for (const auto& profile : config.profiles) {
      const policies::Scheduler scheduler(config, profile, 1);
    }
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::scheduler_config(data, size);
}
#endif
