// The cost of a Score plugin written in Python against the same rule in C++ (docs/python.md,
// "What a Python plugin costs"): the seed benchmark (100 jobs on 8 x 4 A10, seed 1) under a profile
// whose only Score plugin is FewestPods, once as the C++ plugin of examples/out-of-tree-plugin
// and once as a Python class with the same integer rule, called through the module's adapter
// (tools/python/plugins.cpp) in an embedded interpreter. Both must place every pod alike: the
// benchmark refuses to time them otherwise. BM_NodeView times one read of each of a Node's views
// (docs/python.md, "GPU views of a node") on a node of 8 cards with 8 pods and telemetry.
#include <benchmark/benchmark.h>
#include <pybind11/embed.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fewest_pods.hpp"
#include "tidesim/policies/registry.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/model/gpu_labels.hpp"
#include "tidesim/tools/lib/policy_select.hpp"
#include "tidesim/tools/lib/result.hpp"
#include "tidesim/tools/python/plugin_views.hpp"
#include "tidesim/tools/python/plugins.hpp"

PYBIND11_EMBEDDED_MODULE(tidesim_bench, m) {
  tidesim::python::bind_plugins(m);
}

namespace tidesim::app {
namespace {

// FewestPods' rule (examples/out-of-tree-plugin/fewest_pods.cpp, maxPods 10) in Python.
constexpr const char* kPythonPlugin = R"(
import tidesim_bench

class FewestPodsPy:
    calls = 0

    def score(self, state, pod, node):
        FewestPodsPy.calls += 1
        pods = node.pod_count
        return 100 * (10 - min(pods, 10)) // 10
)";

// A profile whose only Score plugin is `plugin`. Both profiles have one scheduler name: it names
// the scheduler's tie-break stream (RandomStream(seed, "scheduler/" + name)).
std::string profile(const std::string& plugin) {
  return "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
         "profiles:\n  - schedulerName: fewest-pods"
         "\n    plugins:\n      score:\n        disabled: [{name: \"*\"}]\n"
         "        enabled: [{name: " +
         plugin + ", weight: 1}]\n";
}

// The interpreter, the two plugins and the scenario with both policies, set up once.
struct Setup {
  pybind11::scoped_interpreter interpreter;
  Scenario scenario;
  std::vector<PolicyConfig> policies;  // 0: C++, 1: Python
  Workload workload;

  Setup() {
    register_plugin("FewestPods", fewest::fewest_pods_entry());
    pybind11::exec(kPythonPlugin);
    // The Python plugin lives in a registry value (the default registry plus it).
    const python::PluginRegistry registry = python::make_registry(
        {python::PythonPlugin{"FewestPodsPy", "score", pybind11::globals()["FewestPodsPy"]}});
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / "tidesim-python-plugin-bench";
    std::filesystem::create_directories(dir);
    for (const char* plugin : {"FewestPods", "FewestPodsPy"}) {
      std::ofstream(dir / (std::string(plugin) + ".yaml")) << profile(plugin);
    }
    scenario =
        load_scenario(std::string(TIDESIM_BENCH_SOURCE_DIR) + "/scenarios/seed-benchmark.yaml",
                      nullptr, registry.registry);
    policies = select_policies(scenario, {"cxx=" + (dir / "FewestPods.yaml").string(),
                                          "python=" + (dir / "FewestPodsPy.yaml").string()});
    workload = make_jobs(scenario, 1);
  }
};

Setup& setup() {
  static Setup s;
  return s;
}

// One run, recorded as `tidesim run` records it (no series), under one label for both policies.
SeedRun run_once(const PolicyConfig& policy) {
  Setup& s = setup();
  RunSignals signals;
  Recorder recorder("p", 1, RecorderOptions{.record_series = false, .collectors = {}});
  recorder.attach(signals);
  const RunSummary summary = run_policy(s.scenario, s.workload, policy, 1, signals);
  return recorder.finish(summary.end);
}

void BM_SeedBenchmarkScorePlugin(benchmark::State& state) {
  Setup& s = setup();
  static const bool same = [&s] {
    pybind11::gil_scoped_release release;
    const SeedRun cxx = run_once(s.policies[0]);
    const SeedRun py = run_once(s.policies[1]);
    // Placements and times (metric values may hold NaN, which equals nothing).
    return cxx.attempts == py.attempts && cxx.jobs == py.jobs && cxx.end_s == py.end_s;
  }();
  if (!same) {
    state.SkipWithError("the C++ and Python FewestPods placed pods differently");
    return;
  }
  const PolicyConfig& policy = s.policies.at(static_cast<std::size_t>(state.range(0)));
  const auto calls = [] {
    pybind11::gil_scoped_acquire gil;
    return pybind11::globals()["FewestPodsPy"].attr("calls").cast<std::int64_t>();
  };
  std::int64_t before = 0;
  {
    pybind11::gil_scoped_release release;
    before = calls();
    for (auto _ : state) {
      benchmark::DoNotOptimize(run_once(policy));
    }
  }
  // Score calls of the Python plugin per run (the C++ one is called as often: same placements).
  if (state.range(0) == 1) {
    state.counters["score_calls"] = benchmark::Counter(static_cast<double>(calls() - before),
                                                       benchmark::Counter::kAvgIterations);
  }
  state.SetLabel(state.range(0) == 0 ? "FewestPods in C++" : "FewestPods in Python");
}
BENCHMARK(BM_SeedBenchmarkScorePlugin)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Telemetry of 8 cards sampled 7 s before the cycle.
class EightCards : public MetricsSource {
 public:
  MetricsAnswer query(const std::string&, TimePoint now) const override {
    NodeMetrics m;
    m.gpu_memory_utilization.assign(8, 0.5);
    m.gpu_utilization.assign(8, 0.9);
    m.sampled_at = now - std::chrono::seconds(7);
    return MetricsAnswer{m, Duration::zero()};
  }
};

// An HGX H100 node as the run labels it, 6 of its 8 cards held by 6 one-GPU pods of 6 jobs and 2
// by one 2-GPU pod.
NodeInfo eight_card_node() {
  NodeInfo n;
  n.node.name = "node-01";
  n.node.labels = {{"nvidia.com/gpu.product", "H100-SXM"},
                   {kGpuMemoryLabel, "81559"},
                   {kGpuCountLabel, "8"},
                   {kGpuSharingLabel, "exclusive"},
                   {kNvlinkGroupsLabel, "0.1.2.3.4.5.6.7"}};
  n.node.allocatable.gpus = 8;
  for (int p = 0; p < 7; ++p) {
    auto pod = std::make_shared<PodSpec>();
    pod->name = "job-" + std::to_string(p) + "-0-0";
    pod->requests.gpus = p == 6 ? 2 : 1;
    pod->labels = {{"tidesim.io/job", "job-" + std::to_string(p)},
                   {"tidesim.io/job-kind", "catalogue"},
                   {"tidesim.io/model", "resnet50"}};
    n.add_pod(pod);
  }
  n.gpu_milli_left.assign(8, 0);
  return n;
}

// One read of Node.<view> from Python (the baseline, `name`, is a plain attribute).
void BM_NodeView(benchmark::State& state) {
  static const char* const kViews[] = {"name",  "gpu_model", "nvlink_groups",
                                       "cards", "telemetry", "pods"};
  setup();
  pybind11::gil_scoped_acquire gil;
  ClusterView view;
  view.nodes.push_back(eight_card_node());
  const EightCards metrics;
  policies::CycleContext ctx{.cluster = view,
                             .metrics = &metrics,
                             .now = TimePoint(std::chrono::hours(1)),
                             .cycle = 1,
                             .latency = {},
                             .fallback_stage = 0,
                             .fallback_decided = false,
                             .node_selector_pin = {},
                             .alerts = {},
                             .shared = {},
                             .pod_group = nullptr,
                             .record_reasons = false};
  auto token = std::make_shared<python::CallToken>();
  const pybind11::object node = pybind11::cast(python::NodeRef{&view.nodes[0], 0, token, &ctx});
  const pybind11::str attr(kViews[state.range(0)]);
  for (auto _ : state) {
    const pybind11::object value = node.attr(attr);  // the getattr happens here
    benchmark::DoNotOptimize(value.ptr());
  }
  state.SetLabel(std::string("Node.") + kViews[state.range(0)]);
}
BENCHMARK(BM_NodeView)->DenseRange(0, 5)->Unit(benchmark::kNanosecond);

}  // namespace
}  // namespace tidesim::app
