#pragma once
/// Gavel's and Shockwave's job traces (docs/gavel.md, "Traces"): tab-separated, no header, one job
/// a line. Three layouts, told apart by their column count:
/// - Gavel's MSR per-virtual-cluster traces (`scheduler/traces/msr/seed=N/*.trace`, the layout of
///   `simulate_scheduler_with_trace.py` as of gavel cb906b1), 7 columns: job_type, command,
///   num_steps_arg, needs_data_dir, total_steps, arrival_time, scale_factor. Rows of scale factor 0
///   are skipped, as Gavel's loader skips them.
/// - Gavel's physical-cluster traces (`utils.py: parse_trace`), 10 columns: job_type, command,
///   working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor,
///   priority_weight, SLO, arrival_time.
/// - Shockwave's (`scheduler/utils.py: parse_trace` of uw-mad-dash/shockwave), 12 columns: the
///   10 with `mode` after scale_factor and `duration` before arrival_time.
#include <cstdint>
#include <string>
#include <vector>

#include "tidesim/workloads/throughput_table.hpp"

namespace tidesim::workloads {

enum class GavelTraceFormat { automatic, msr, physical, shockwave };

struct GavelTraceJob {
  /// The throughput table's job type, e.g. "ResNet-50 (batch size 64)".
  std::string job_type;
  /// Kept verbatim; not needed to simulate.
  std::string command;
  std::string working_directory;
  std::string num_steps_arg;
  bool needs_data_dir = false;
  /// Steps to run, in [1, kMaxJobSteps] (workloads/step_time.hpp).
  std::int64_t total_steps = 0;
  /// GPUs (>= 1).
  int scale_factor = 1;
  /// Seconds from the trace's start (>= 0).
  double arrival_time_s = 0.0;
  /// 1 in the MSR layout.
  double priority_weight = 1.0;
  /// Gavel's SLO: a multiple of the job's duration, its deadline arrival + SLO x duration
  /// (scheduler.py add_job; the generator draws 1.2, 2 or 10); -1 (as written in Gavel's
  /// traces) or any value <= 0: none.
  double slo = -1.0;
  /// Shockwave: the batch-size mode ("static", "accordion", "gns") and its duration (seconds);
  /// "static" and 0 otherwise.
  std::string mode = "static";
  double duration_s = 0.0;
  /// The line it was read from (1-based), for errors found later.
  int line = 0;

  JobTypeKey key() const { return {job_type, scale_factor}; }
};

/// Reads a trace from `text` (`name` is the file name in errors). InputError naming the file,
/// line, column and column name for a row with another column count than the layout's (the
/// first row's, with `automatic`), a number that does not parse or is out of range, an empty job
/// type, or a trace with no job.
std::vector<GavelTraceJob> parse_gavel_trace(const std::string& text, const std::string& name,
                                             GavelTraceFormat format = GavelTraceFormat::automatic);
std::vector<GavelTraceJob> read_gavel_trace(const std::string& path,
                                            GavelTraceFormat format = GavelTraceFormat::automatic);

/// Checks every job of `jobs` (read from `file`) against `table`: its (job type, scale factor)
/// has a throughput on each of `gpu_types`, not zero on all of them
/// (ThroughputTable::isolated_row).
void check_gavel_trace(const std::vector<GavelTraceJob>& jobs, const std::string& file,
                       const ThroughputTable& table, const std::vector<std::string>& gpu_types);

}  // namespace tidesim::workloads
