// Fuzz harness: Alibaba's spot-GPU trace (cluster-trace-v2026-spot-gpu): the input read as
// job_info_df.csv (then its stats and cluster summary) and as node_info_df.csv.
#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/trace.hpp"
#include "tidesim/workloads/trace_gfs.hpp"
#include "tidesim/workloads/trace_summary.hpp"

namespace tidesim::fuzz {

int gfs_trace(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  expect_input_error_only([&] {
    const auto t = workloads::parse_trace(text, "job_info_df.csv", workloads::TraceFormat::kGfs);
    (void)workloads::compute_stats(t);
    (void)workloads::cluster_summary(t);
  });
  return expect_input_error_only([&] {
    (void)workloads::read_gfs_nodes(workloads::CsvTable::from_text(
        text, "node_info_df.csv", {"node_name", "gpu_model", "gpu_capacity_num", "cpu_num"}, {}));
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::gfs_trace(data, size);
}
#endif
