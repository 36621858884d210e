// Fuzz harness: a job trace in any format (native, openb pod list, Philly; detected from the
// header as `tidesim trace stats` does), then its stats.
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/trace.hpp"

namespace tidesim::fuzz {

int trace(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const auto t = workloads::parse_trace(as_text(data, size), "fuzz-trace.csv",
                                          workloads::TraceFormat::kAuto);
    (void)workloads::compute_stats(t);
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::trace(data, size);
}
#endif
