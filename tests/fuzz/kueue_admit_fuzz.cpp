// Fuzz harness: a file of Kubernetes and Kueue objects as `tidesim admit` reads it (Nodes, Pods,
// Topology, ResourceFlavor, ClusterQueue, LocalQueue, Workload), used as both the snapshot and
// the workload: the objects are read, and when the file holds one Workload and a flavor with a
// topology, the Workload is placed with Kueue's TAS (tools/lib/tas_admit.hpp).
#include "tests/fuzz/harness.hpp"
#include "tidesim/sim/scenario/kube_snapshot.hpp"
#include "tidesim/tools/lib/tas_admit.hpp"

namespace tidesim::fuzz {

int kueue_admit(const std::uint8_t* data, std::size_t size) {
  return expect_input_error_only([&] {
    const std::string path = write_input("objects.yaml", data, size).string();
    const KueueSnapshot objects = read_kueue_snapshot(path);
    if (objects.workloads.size() == 1) {
      (void)app::admit({.snapshot = path, .workload = path, .gates = {}, .flavor = ""});
    }
  });
}

}  // namespace tidesim::fuzz

#ifdef TIDESIM_LIBFUZZER
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tidesim::fuzz::kueue_admit(data, size);
}
#endif
