// The running pods of a scenario's `cluster.snapshot` (docs/scenarios.md): bound by the device
// plugin to the node the snapshot names before any job arrives, as the API server holds them.
#include <map>

#include <fmt/core.h>

#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/model/cluster.hpp"

namespace tidesim {
namespace {

// The first of CPU and memory that `info`'s pods ask for beyond its allocatable, or "".
std::string overcommitted(const NodeInfo& info) {
  const Resources& used = info.requested;
  const Resources& has = info.node.allocatable;
  if (used.cpu_milli > has.cpu_milli) {
    return fmt::format("cpu: {}m requested, {}m allocatable", used.cpu_milli, has.cpu_milli);
  }
  if (used.memory_bytes > has.memory_bytes) {
    return fmt::format("memory: {} bytes requested, {} allocatable", used.memory_bytes,
                       has.memory_bytes);
  }
  return "";
}

}  // namespace

void Cluster::bind_snapshot(const ClusterSnapshotConfig& snapshot) {
  std::map<std::string, int> index;
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    index.emplace(nodes_[n].name, static_cast<int>(n));
  }
  for (std::size_t i = 0; i < snapshot.pods.size(); ++i) {
    const RunningPod& p = snapshot.pods[i];
    const int n = index.at(p.node);  // the snapshot kept only pods on its nodes
    const std::uint64_t process = kSnapshotProcessBase + i;
    if (!bind(n, process, p.pod, TimePoint{})) {
      throw InputError(p.where, "spec.nodeName",
                       fmt::format("pod '{}' asks for {} nvidia.com/gpu on node '{}', whose cards "
                                   "cannot hold it beside the pods bound before it",
                                   p.pod->name, p.pod->requests.gpus, p.node));
    }
    const std::string over = overcommitted(view_.nodes[static_cast<std::size_t>(n)]);
    if (!over.empty()) {
      throw InputError(p.where, "spec.nodeName",
                       fmt::format("pod '{}' does not fit on node '{}' beside the pods bound "
                                   "before it ({})",
                                   p.pod->name, p.node, over));
    }
    snapshot_pods_.push_back(HeldPod{.node = n, .process = process, .pod = &p});
  }
}

}  // namespace tidesim
