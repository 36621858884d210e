#pragma once
/// Job traces: the native format, the Alibaba openb pod and node lists and the Philly trace as the
/// Pollux artifact prepared it (docs/traces.md). Every malformed row is an InputError naming the
/// file, line, column and field.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/trace_record.hpp"

namespace tidesim::workloads {

/// Reads `path` in `format` (kAuto: detect from the header).
Trace read_trace(const std::string& path, TraceFormat format = TraceFormat::kAuto);
/// Parses trace text (tests); `name` is the file name in errors.
Trace parse_trace(const std::string& text, const std::string& name,
                  TraceFormat format = TraceFormat::kAuto);

/// Writes `trace` in the native format (CSV, docs/traces.md).
void write_native(const Trace& trace, std::ostream& out);

/// One node of an openb node list.
struct OpenbNode {
  std::string name;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  int gpus = 0;
  /// GPU model as the trace names it (P100, T4, V100M16, V100M32, A10, G1-G3); empty: no GPU.
  std::string gpu_model;
  int line = 0;
  /// Where its `sn` and `model` cells begin (file, line, column).
  SourceLocation name_where;
  SourceLocation model_where;
};

/// Reads openb_node_list_*.csv (columns sn,cpu_milli,memory_mib,gpu,model).
std::vector<OpenbNode> read_openb_nodes(const std::string& path);

/// Summary numbers of a trace.
struct TraceStats {
  std::int64_t jobs = 0;
  /// Jobs by total_gpus(), ascending.
  std::map<int, std::int64_t> gpu_histogram;
  /// Jobs that share a GPU (gpu_milli > 0).
  std::int64_t fractional = 0;
  std::int64_t censored = 0;
  std::int64_t unscheduled = 0;
  /// Jobs with a duration, and duration percentiles in seconds (linear interpolation between
  /// closest ranks, R-7 / numpy's default: quantile_of_sorted() in sim/engine/statistics.hpp):
  /// keys 0 (min), 25, 50, 75, 90, 99, 100 (max).
  std::int64_t with_duration = 0;
  std::map<int, double> duration_percentiles;
  double duration_mean = 0;
  /// Submission span: first and last submit, seconds.
  double first_submit = 0;
  double last_submit = 0;
  /// Jobs by openb phase (empty for other formats).
  std::map<std::string, std::int64_t> phases;
};

/// Computes the stats of `trace`.
TraceStats compute_stats(const Trace& trace);

}  // namespace tidesim::workloads
