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
#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"

namespace tidesim::workloads {

/// Trace file formats. kAuto detects the format from the header row.
enum class TraceFormat { kAuto, kNative, kOpenb, kPhilly };

/// "native", "openb", "philly" or "auto"; InputError (field `field`) otherwise.
TraceFormat parse_trace_format(const std::string& text, const std::string& field = "format");
/// The name of a format.
const char* to_string(TraceFormat format);

/// One job of a trace, in the units of the native format.
struct TraceRecord {
  std::string name;
  /// Submission (openb creation_time, Philly timestamp) since the trace's start.
  Duration submit{};
  /// Observed run time: openb deletion - scheduled (deletion - creation for a pod never
  /// scheduled), Philly duration. nullopt when the trace has no times (openb multigpu50).
  std::optional<Duration> duration;
  /// Pods of the job (openb: 1; Philly: ceil(gpus / 8), see docs/traces.md).
  int pods = 1;
  /// Whole GPUs per pod.
  int gpus_per_pod = 0;
  /// For a GPU-sharing pod (openb num_gpu 1, gpu_milli < 1000): the share of one GPU in
  /// thousandths (1-999); then gpus_per_pod is 0. 0 otherwise.
  int gpu_milli = 0;
  /// CPU and host memory requested per pod (0 = not given by the trace).
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  /// Acceptable GPU models separated by '|' (openb gpu_spec); empty = any.
  std::string gpu_spec;
  /// openb qos and pod_phase; Philly cluster id.
  std::string qos;
  std::string phase;
  std::string cluster;
  /// False for an openb pod that was never scheduled (empty scheduled_time).
  bool scheduled = true;
  /// True when the job was still running at the end of the trace (its duration is a lower
  /// bound): openb pods in phase Running whose deletion_time is the trace's last instant.
  bool censored = false;
  /// Optional job description (native format only); empty / 0 = not given.
  std::string model;
  int batch_size = 0;
  std::string precision;
  std::int64_t steps = 0;
  /// 1-based line in the source file.
  int line = 0;
  /// Where each cell of the row begins, in the order of Trace::columns (for errors found after
  /// reading: Trace::where).
  std::vector<CellPlace> cells;

  /// GPUs the job asks for as the trace counts them: pods x gpus_per_pod, a GPU-sharing pod
  /// counting as 1 (openb's num_gpu).
  int total_gpus() const { return pods * (gpu_milli > 0 ? 1 : gpus_per_pod); }
};

/// A whole trace.
struct Trace {
  std::string file;
  TraceFormat format = TraceFormat::kNative;
  std::vector<TraceRecord> records;
  /// Last instant the trace covers (openb: the largest deletion_time; Philly: the latest
  /// submit + duration).
  Duration end{};
  /// The header's column names, in file order.
  std::vector<std::string> columns;

  /// Where `record`'s cell of `column` begins (file, line, column); the row's first cell when
  /// the trace has no such column.
  SourceLocation where(const TraceRecord& record, const std::string& column) const;
  /// The trace's column that gives a job's `field` ("submit", "duration"; any other field is a
  /// column of the same name): submit_s, creation_time or timestamp for "submit", and so on.
  std::string column_of(const std::string& field) const;
};

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
