// Fuzz harness: Gavel's inputs (docs/gavel.md): the text as a throughput table in the layout of
// Gavel's simulation_throughputs.json (workloads/throughput_table.hpp), and as a trace in each of
// Gavel's and Shockwave's layouts (workloads/gavel_trace.hpp).
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/gavel_trace.hpp"
#include "tidesim/workloads/throughput_table.hpp"

namespace tidesim::fuzz {

int gavel(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  expect_input_error_only([&] {
    const workloads::ThroughputTable t = workloads::parse_throughput_table(text, "fuzz.json");
    for (const std::string& gpu : t.gpu_types()) {
      for (const workloads::JobTypeKey& key : t.keys(gpu)) {
        (void)t.isolated_row(key, t.gpu_types(), {}, "key");
      }
    }
  });
  for (const auto format :
       {workloads::GavelTraceFormat::automatic, workloads::GavelTraceFormat::msr,
        workloads::GavelTraceFormat::physical, workloads::GavelTraceFormat::shockwave}) {
    expect_input_error_only(
        [&] { (void)workloads::parse_gavel_trace(text, "fuzz.trace", format); });
  }
  return 0;
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::gavel(data, size);
}
#endif
