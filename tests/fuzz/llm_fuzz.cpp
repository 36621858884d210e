// Fuzz harness: the LLM inputs (llm/job.hpp) as `tidesim llm` reads them: the text as tidesim's
// job file, loaded, validated and priced by step(); and the same text as each of Calculon's three
// files.
#include "tests/fuzz/harness.hpp"
#include "tidesim/llm/job.hpp"
#include "tidesim/llm/step.hpp"

namespace tidesim::fuzz {

int llm(const std::uint8_t* data, std::size_t size) {
  const std::string text = as_text(data, size);
  expect_input_error_only([&] {
    const llm::Job job = llm::load_job_text(text, "fuzz-llm.yaml", "fuzz-llm-folder");
    (void)llm::step(job.model, job.execution, job.system);
  });
  const std::string path = write_input("fuzz-llm.json", data, size).string();
  expect_input_error_only([&] { (void)llm::read_calculon_model(path); });
  expect_input_error_only([&] { (void)llm::read_calculon_execution(path); });
  expect_input_error_only([&] { (void)llm::read_calculon_system(path); });
  return 0;
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::llm(data, size);
}
#endif
