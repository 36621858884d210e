// Fuzz harness: a scenario file, checked as `tidesim validate` checks it (load_scenario, then
// check_scenario: cluster, topologies, every policy, the jobs of the first seed).
#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim::fuzz {

int scenario(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const Scenario s = load_scenario(write_input("scenario.yaml", data, size).string());
    check_scenario(s, make_jobs(s, s.seeds.front()));
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::scenario(data, size);
}
#endif
