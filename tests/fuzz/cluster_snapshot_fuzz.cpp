// Fuzz harness: a file of Kubernetes objects as a scenario's `cluster.snapshot` (docs/scenarios.md)
// reads it: the input is the snapshot of a fixed scenario (every GPU node an H100-SXM unless its
// product label is a catalogue model) checked as `tidesim validate` checks it, so its Nodes become
// the cluster and its running Pods are bound to them (sim/scenario/cluster_snapshot.hpp,
// sim/model/cluster_snapshot_pods.cpp); then the same scenario with policies whose queues and
// HyperNodes are the snapshot's (`queues: {from_snapshot: true}`, `hypernodes: {from_snapshot:
// true}`, sim/scenario/quota_config.cpp).
#include <cstring>
#include <string>

#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim::fuzz {

int cluster_snapshot(const std::uint8_t* data, std::size_t size) {
  static constexpr const char* kScenario =
      "name: snapshot\n"
      "cluster:\n"
      "  snapshot: {file: snapshot.yaml, gpu: H100-SXM, runs_for: 1h}\n"
      "workload:\n"
      "  arrivals: {process: burst, count: 1}\n"
      "  jobs:\n"
      "    - {name: job, pod: {gpus: 1}, model: resnet50, batch_size: 64, duration: 100s}\n"
      "policies: [default-k8s]\n";
  static constexpr const char* kFromSnapshot =
      "policies:\n"
      "  - {name: q, scheduler: default-k8s, admission: {policy: fifo, queues: {from_snapshot: "
      "true}}}\n"
      "  - {name: v, scheduler: default-k8s, admission: {policy: volcano, hypernodes: "
      "{from_snapshot: true}}}\n";
  (void)write_input("snapshot.yaml", data, size);
  const auto load = [](const std::string& text) {
    const auto path = write_input("scenario.yaml",
                                  reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
    const Scenario s = load_scenario(path.string());
    check_scenario(s, make_jobs(s, s.seeds.front()));
  };
  expect_input_error_only([&] { load(kScenario); });
  std::string objects = kScenario;
  objects.replace(objects.find("policies:"), std::string::npos, kFromSnapshot);
  return expect_input_error_only([&] { load(objects); });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::cluster_snapshot(data, size);
}
#endif
