#pragma once
/// One-line descriptions of a scenario's cluster and workload, for a result's metadata and the
/// report's header (docs/outputs.md, "HTML report").
#include <string>

#include "tidesim/sim/scenario/scenario.hpp"

namespace tidesim::app {

/// "8 nodes: 8 x A10 (4 GPUs each)"; a cluster read from a node list names it:
/// "1523 nodes from openb_node_list_gpu_node.csv". Groups of one GPU model are summed.
std::string describe_cluster(const ClusterConfig& cluster);

/// "4 job kinds (resnet-a, ...), 100 jobs, at once"; "trace pollux_philly.csv";
/// "Pollux workload workload-6.csv".
std::string describe_workload(const workloads::WorkloadSpec& workload);

}  // namespace tidesim::app
