#pragma once
/// Alibaba's trace of AI jobs on spot GPU resources (alibaba/clusterdata
/// `cluster-trace-v2026-spot-gpu`, companion of the GFS paper, ASPLOS'26): `job_info_df.csv`
/// (one row per job: workers, GPU and CPU per worker, GPU model, HP or Spot, submit and duration)
/// and `node_info_df.csv` (one row per node: GPU model, GPUs, CPUs). docs/traces.md, "GFS".
#include <cstdint>
#include <string>
#include <vector>

#include "tidesim/workloads/trace_record.hpp"

namespace tidesim::workloads {

class CsvTable;

/// The columns of job_info_df.csv.
std::vector<std::string> gfs_job_columns();

/// Reads table `t` as job_info_df.csv.
Trace read_gfs_jobs(const CsvTable& t);

/// One node of node_info_df.csv.
struct GfsNode {
  std::string name;
  /// As the trace names it: A10, A100-SXM4-80GB, A800-SXM4-80GB, H800, GPU-series-1, GPU-series-2.
  std::string gpu_model;
  int gpus = 0;
  std::int64_t cpu_milli = 0;
  int line = 0;
};

/// Reads node_info_df.csv (columns node_name, gpu_model, gpu_capacity_num, cpu_num).
std::vector<GfsNode> read_gfs_nodes(const CsvTable& t);

}  // namespace tidesim::workloads
