// Fuzz harness: a Slurm job log read as AcmeTrace's (trace_seren.csv, trace_kalos.csv) and as
// HeliosData's cluster_log.csv, then its stats and cluster summary (`tidesim trace stats`).
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/trace.hpp"
#include "tidesim/workloads/trace_summary.hpp"

namespace tidesim::fuzz {

int slurm_trace(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  for (const auto format : {workloads::TraceFormat::kAcme, workloads::TraceFormat::kHelios}) {
    expect_input_error_only([&] {
      const auto t = workloads::parse_trace(text, "fuzz-slurm.csv", format);
      (void)workloads::compute_stats(t);
      (void)workloads::cluster_summary(t);
    });
  }
  return 0;
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::slurm_trace(data, size);
}
#endif
