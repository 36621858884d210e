#pragma once
/// The jobs whose pods can never bind because no node is large enough, and pod memory requests
/// too small to be meant: `validate` warns about them before any run (check_scenario;
/// docs/outputs.md, "Warnings").
#include <string>
#include <vector>

#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/workloads/job.hpp"

namespace tidesim {

/// One warning per distinct pod request among `jobs` that asks more whole GPUs, CPU or memory than
/// any node of `view` can allocate (each resource on its own node is not enough: one node must hold
/// all three). Requests a sharing or MIG node serves (GPU shares, extended resources) and
/// placement rules (selectors, taints) are not judged here. Empty when every pod fits some node.
/// Also a request of less than 1 MiB of memory (a bare number is bytes), once per request.
std::vector<std::string> fit_warnings(const std::vector<workloads::JobSpec>& jobs,
                                      const ClusterView& view);

}  // namespace tidesim
