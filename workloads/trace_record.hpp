#pragma once
/// One job of a trace and a whole trace, as every trace reader gives them (trace.hpp,
/// trace_slurm.hpp, trace_pai.hpp, trace_gfs.hpp; docs/traces.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tidesim/sim/engine/time.hpp"
#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/workloads/end_state.hpp"

namespace tidesim::workloads {

class CsvTable;

/// Trace file formats. kAuto detects the format from the header row.
enum class TraceFormat { kAuto, kNative, kOpenb, kPhilly, kAcme, kHelios, kPai2020, kGfs };

/// "native", "openb", "philly", "acme", "helios", "pai2020", "gfs" or "auto"; InputError (field
/// `field`) otherwise.
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
  /// How the trace ended the job (Acme, Helios, PAI-2020 states; native `end_state`).
  TraceEndState end_state = TraceEndState::kUnknown;
  /// Observed queueing time, start - submit (openb scheduled - creation; Acme and Helios
  /// start_time - submit_time; PAI-2020 first instance start - job start_time). nullopt when the
  /// trace does not say.
  std::optional<Duration> queue;
  /// The job's kind as the trace names it (Acme `type`: Pretrain, SFT, MLLM, Eval, Debug,
  /// Other); empty when none.
  std::string job_type;
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
  /// GPUs the job holds, a GPU-sharing pod counting its share: pods x (gpus_per_pod +
  /// gpu_milli / 1000) (the GPU counts and GPU time of the cluster summary, trace_summary.hpp).
  double gpu_amount() const {
    return static_cast<double>(pods) *
           (static_cast<double>(gpus_per_pod) + static_cast<double>(gpu_milli) / 1000.0);
  }
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

/// An empty trace of `format` read from table `t` (its file and columns), with room for a record
/// per row.
Trace empty_trace(const CsvTable& t, TraceFormat format);

}  // namespace tidesim::workloads
