// Trace parsing speed: the full openb pod list (8,152 pods) and the Philly trace (82,247 jobs)
// from ../shared/data (TIDESIM_SHARED_DATA env var overrides); skipped when absent.
// Design target (issue 4): each under 0.3 s.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tidesim/workloads/trace.hpp"

namespace tidesim::workloads {
namespace {

std::string data_file(const char* name) {
  const char* env = std::getenv("TIDESIM_SHARED_DATA");
  const std::string root = env != nullptr ? env : TIDESIM_BENCH_SHARED_DATA_DIR;
  return root + "/traces/" + name;
}

void parse(benchmark::State& state, const char* name) {
  const std::string path = data_file(name);
  if (!std::filesystem::exists(path)) {
    state.SkipWithError(("shared data absent: " + path).c_str());
    return;
  }
  std::size_t jobs = 0;
  for (auto _ : state) {
    const Trace t = read_trace(path);
    jobs = t.records.size();
    benchmark::DoNotOptimize(t.records.data());
  }
  state.counters["jobs"] = static_cast<double>(jobs);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(jobs));
}

void BM_ParseOpenbPods(benchmark::State& state) {
  parse(state, "openb_pod_list_default.csv");
}
BENCHMARK(BM_ParseOpenbPods)->Unit(benchmark::kMillisecond);

void BM_ParsePhilly(benchmark::State& state) {
  parse(state, "pollux_philly.csv");
}
BENCHMARK(BM_ParsePhilly)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace tidesim::workloads
