// Fuzz harness: Alibaba PAI-2020's job, task and instance tables, given as one input whose parts
// are separated by the byte 0x1E (record separator): jobs, tasks, and optionally instances;
// joined by parse_pai2020, then the stats and cluster summary.
#include <optional>

#include "tests/fuzz/harness.hpp"
#include "tidesim/workloads/trace.hpp"
#include "tidesim/workloads/trace_pai.hpp"
#include "tidesim/workloads/trace_summary.hpp"

namespace tidesim::fuzz {

int pai_trace(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  const std::size_t a = text.find('\x1e');
  const std::size_t b = a == std::string::npos ? a : text.find('\x1e', a + 1);
  workloads::NamedText jobs{text.substr(0, a), "pai_job_table.csv"};
  workloads::NamedText tasks{a == std::string::npos ? "" : text.substr(a + 1, b - a - 1),
                             "pai_task_table.csv"};
  std::optional<workloads::NamedText> inst;
  if (b != std::string::npos) {
    inst = workloads::NamedText{text.substr(b + 1), "pai_instance_table.csv"};
  }
  return expect_input_error_only([&] {
    const auto t = workloads::parse_pai2020(jobs, tasks, inst);
    (void)workloads::compute_stats(t);
    (void)workloads::cluster_summary(t);
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::pai_trace(data, size);
}
#endif
