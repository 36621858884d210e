#pragma once
/// What Gavel's policies and rounds are given, built from tidesim's inputs (docs/gavel.md, "What
/// the integration needs"): the GPU types and servers of a cluster from its nodes' GPU models, and
/// an allocation problem from a throughput table.
#include <map>
#include <string>
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/api/cluster_view.hpp"
#include "tidesim/workloads/throughput_table.hpp"

namespace tidesim::gavel {

/// The GPUs of a cluster by type, as Rounds takes them.
struct GpuTypes {
  /// The throughput table's GPU types, in the order of the greedy walk.
  std::vector<std::string> types;
  /// Per type, its servers (nodes), each a list of GPU ids.
  std::vector<std::vector<std::vector<int>>> servers;
  /// GPUs per type.
  std::vector<int> gpus;
  /// The node of each GPU id.
  std::vector<std::string> node_of_gpu;
};

/// The nodes of `view` with GPUs (allocatable nvidia.com/gpu), grouped by their GPU model (the
/// label nvidia.com/gpu.product, which the cluster sets from a node group's `gpu`), each model
/// named by `names` as the throughput table names it (a model absent from `names` keeps its own
/// name). Types in `order` come first in that order (Gavel walks v100, p100, k80), the others
/// after by name. Each node is a server; its GPUs get consecutive ids in node order. A node's
/// GPUs are its cards (the label nvidia.com/gpu.count, when set, caps the allocatable count: a
/// time-sliced node advertises cards x replicas). AllocationError for a node with GPUs and no GPU
/// model, or a count label that is not a number.
GpuTypes gpu_types_of(const ClusterView& view, const std::map<std::string, std::string>& names,
                      const std::vector<std::string>& order = {"v100", "p100", "k80"});

/// One job for a problem read from a throughput table.
struct TableJob {
  int id = 0;
  workloads::JobTypeKey key;
  double priority_weight = 1.0;
  double time_since_start_s = 0.0;
  double steps_remaining = 0.0;
  double slo_s = 0.0;
};

/// The problem of `jobs` on `types` (GPUs counted per type, no prices): each job's throughput row
/// from `table` (ThroughputTable::isolated_row: InputError, naming `file` and the job, for a job
/// type the table lacks on a type or one of zero throughput everywhere), and `colocated` from the
/// table's pair entries. `table` must outlive the problem.
AllocationProblem problem_from_table(const workloads::ThroughputTable& table,
                                     const std::vector<TableJob>& jobs, const GpuTypes& types);

}  // namespace tidesim::gavel
