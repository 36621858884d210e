#include "tidesim/workloads/trace.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>
#include <unordered_map>

#include "tidesim/sim/engine/statistics.hpp"
#include "tidesim/sim/input/csv.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/step_time.hpp"
#include "tidesim/workloads/trace_gfs.hpp"
#include "tidesim/workloads/trace_pai.hpp"
#include "tidesim/workloads/trace_parts.hpp"
#include "tidesim/workloads/trace_slurm.hpp"

namespace tidesim::workloads {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kMaxInt = 2'147'483'647;

std::vector<std::string> openb_required() {
  return {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"};
}
std::vector<std::string> openb_optional() {
  return {"gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
}
std::vector<std::string> philly_required() {
  return {"timestamp", "duration", "num_gpus"};
}
std::vector<std::string> philly_optional() {
  return {"gpu_time", "cluster"};
}
std::vector<std::string> native_required() {
  return {"name", "submit_s", "duration_s", "pods", "gpus_per_pod", "gpu_milli"};
}
std::vector<std::string> native_optional() {
  return {"cpu_milli", "memory_mib", "gpu_spec",  "qos",     "phase",
          "cluster",   "scheduled",  "censored",  "model",   "batch_size",
          "precision", "steps",      "end_state", "queue_s", "job_type"};
}

TraceFormat detect(const std::string& text, const std::string& name) {
  std::vector<std::string> cols;
  CsvReader(text, name).next(cols);  // the header row, as CsvTable reads it
  const auto has = [&](const char* c) {
    return std::find(cols.begin(), cols.end(), c) != cols.end();
  };
  if (has("submit_s")) {
    return TraceFormat::kNative;
  }
  if (has("num_gpu") && has("gpu_milli")) {
    return TraceFormat::kOpenb;
  }
  if (has("num_gpus") && has("timestamp")) {
    return TraceFormat::kPhilly;
  }
  if (has("job_id") && has("node_num") && has("state")) {
    return has("type") ? TraceFormat::kAcme : TraceFormat::kHelios;
  }
  if (has("worker_num") && has("gpu_request")) {
    return TraceFormat::kGfs;
  }
  if (is_pai_job_header(cols) ||
      (cols.size() == pai_job_columns().size() && (name.ends_with("pai_job_table.csv")))) {
    return TraceFormat::kPai2020;
  }
  throw InputError(SourceLocation{name, 1, 1}, "",
                   "cannot tell the trace format from the header; give --from "
                   "(native needs submit_s, openb num_gpu and gpu_milli, philly timestamp and "
                   "num_gpus, acme and helios job_id, node_num and state (acme also type), gfs "
                   "worker_num and gpu_request; pai2020 is pai_job_table.csv)");
}

bool parse_bool(const CsvTable& t, std::size_t row, const std::string& column, bool fallback) {
  const std::string& s = t.text(row, column);
  if (s.empty()) {
    return fallback;
  }
  if (s == "true" || s == "1") {
    return true;
  }
  if (s == "false" || s == "0") {
    return false;
  }
  throw t.error(row, column, "'" + s + "' is not true or false");
}

Duration seconds_of(const CsvTable& t, std::size_t row, const std::string& column) {
  return from_seconds(t.number(row, column, 0.0, 1e12));
}

// A record of row `r` with its line and its `name` column: not empty ("empty <what> name") and
// unique. Job names identify jobs (results, attempts, --pod); rows with the same name used to be
// merged into one job. A repeated name is refused with both lines.
TraceRecord named_record(const CsvTable& t, std::size_t r, const char* what,
                         std::unordered_map<std::string, int>& first_line) {
  TraceRecord rec;
  rec.line = t.line(r);
  rec.cells = t.places(r);
  rec.name = t.text(r, "name");
  if (rec.name.empty()) {
    throw t.error(r, "name", std::string("empty ") + what + " name");
  }
  const auto [it, inserted] = first_line.emplace(rec.name, rec.line);
  if (!inserted) {
    throw t.error(r, "name",
                  "'" + rec.name + "' repeated (first on line " + std::to_string(it->second) +
                      "); job names must be unique");
  }
  return rec;
}

Trace read_openb(const CsvTable& t) {
  Trace trace = empty_trace(t, TraceFormat::kOpenb);
  const bool timed = t.has("creation_time") && t.has("deletion_time");
  std::int64_t end = 0;
  std::vector<std::int64_t> deletions(t.rows(), 0);
  std::unordered_map<std::string, int> first_line;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    TraceRecord rec = named_record(t, r, "pod", first_line);
    rec.cpu_milli = t.integer(r, "cpu_milli", 0, kMaxInt * 1000LL);
    rec.memory_bytes = t.integer(r, "memory_mib", 0, kMaxInt * 1024LL) * kMiB;
    const auto num_gpu = static_cast<int>(t.integer(r, "num_gpu", 0, 1024));
    const auto milli = static_cast<int>(t.integer(r, "gpu_milli", 0, 1000));
    if (num_gpu == 1 && milli > 0 && milli < 1000) {
      rec.gpu_milli = milli;
      rec.gpus_per_pod = 0;
    } else {
      if (num_gpu > 1 && milli != 1000 && milli != 0) {
        throw t.error(
            r, "gpu_milli",
            "a pod with " + std::to_string(num_gpu) + " GPUs must ask whole GPUs (gpu_milli 1000)");
      }
      if (num_gpu == 0 && milli != 0) {
        throw t.error(r, "gpu_milli", "a pod without GPUs must have gpu_milli 0");
      }
      rec.gpus_per_pod = num_gpu;
    }
    rec.gpu_spec = t.text(r, "gpu_spec");
    rec.qos = t.text(r, "qos");
    rec.phase = t.text(r, "pod_phase");
    if (timed) {
      const std::int64_t created = t.integer(r, "creation_time", 0, 1'000'000'000'000);
      const std::int64_t deleted = t.integer(r, "deletion_time", 0, 1'000'000'000'000);
      if (deleted < created) {
        throw t.error(r, "deletion_time", "deletion_time is before creation_time");
      }
      std::int64_t start = created;
      if (t.has("scheduled_time") && !t.text(r, "scheduled_time").empty()) {
        start = t.integer(r, "scheduled_time", 0, 1'000'000'000'000);
        if (start < created || start > deleted) {
          throw t.error(r, "scheduled_time", "scheduled_time is outside [creation, deletion]");
        }
      } else if (t.has("scheduled_time")) {
        rec.scheduled = false;
      }
      rec.submit = std::chrono::seconds(created);
      rec.duration = std::chrono::seconds(deleted - start);
      if (rec.scheduled && t.has("scheduled_time")) {
        rec.queue = std::chrono::seconds(start - created);
      }
      deletions[r] = deleted;
      end = std::max(end, deleted);
    }
    trace.records.push_back(std::move(rec));
  }
  trace.end = std::chrono::seconds(end);
  if (timed) {
    for (std::size_t r = 0; r < t.rows(); ++r) {
      auto& rec = trace.records[r];
      rec.censored = rec.phase == "Running" && deletions[r] == end;
    }
  }
  return trace;
}

Trace read_philly(const CsvTable& t) {
  Trace trace = empty_trace(t, TraceFormat::kPhilly);
  std::vector<std::int64_t> stamps(t.rows());
  std::int64_t first = 0;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    std::string problem;
    const auto ts = parse_timestamp(t.text(r, "timestamp"), problem);
    if (!ts) {
      throw t.error(r, "timestamp", problem);
    }
    stamps[r] = *ts;
    first = r == 0 ? *ts : std::min(first, *ts);
  }
  Duration end{};
  for (std::size_t r = 0; r < t.rows(); ++r) {
    TraceRecord rec;
    rec.line = t.line(r);
    rec.cells = t.places(r);
    rec.name = "philly-" + std::to_string(r);
    rec.submit = std::chrono::seconds(stamps[r] - first);
    rec.duration = seconds_of(t, r, "duration");
    const auto gpus = static_cast<int>(t.integer(r, "num_gpus", 1, 100'000));
    rec.pods = pods_for(gpus, 1, kPhillyGpusPerMachine);
    rec.gpus_per_pod = gpus / rec.pods;
    rec.cluster = t.text(r, "cluster");
    if (t.has("gpu_time") && !t.text(r, "gpu_time").empty()) {
      t.number(r, "gpu_time", 0.0, 1e15);  // validated, not used
    }
    end = std::max(end, rec.submit + *rec.duration);
    trace.records.push_back(std::move(rec));
  }
  trace.end = end;
  return trace;
}

// The native format's end_state, queue_s and job_type.
void read_native_outcome(const CsvTable& t, std::size_t r, TraceRecord& rec) {
  const auto state = parse_end_state(t.text(r, "end_state"));
  if (!state) {
    throw t.error(r, "end_state",
                  "'" + t.text(r, "end_state") +
                      "' is not one of: completed, cancelled, failed "
                      "(or empty: not said)");
  }
  rec.end_state = *state;
  if (!t.text(r, "queue_s").empty()) {
    rec.queue = seconds_of(t, r, "queue_s");
  }
  rec.job_type = t.text(r, "job_type");
}

Trace read_native(const CsvTable& t) {
  Trace trace = empty_trace(t, TraceFormat::kNative);
  Duration end{};
  std::unordered_map<std::string, int> first_line;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    TraceRecord rec = named_record(t, r, "job", first_line);
    rec.submit = seconds_of(t, r, "submit_s");
    if (!t.text(r, "duration_s").empty()) {
      rec.duration = seconds_of(t, r, "duration_s");
    }
    rec.pods = static_cast<int>(t.integer(r, "pods", 1, 100'000));
    rec.gpus_per_pod = static_cast<int>(t.integer(r, "gpus_per_pod", 0, 1024));
    rec.gpu_milli = static_cast<int>(t.integer(r, "gpu_milli", 0, 999));
    if (rec.gpu_milli > 0 && rec.gpus_per_pod != 0) {
      throw t.error(r, "gpu_milli", "a GPU-sharing pod (gpu_milli > 0) has gpus_per_pod 0");
    }
    if (!t.text(r, "cpu_milli").empty()) {
      rec.cpu_milli = t.integer(r, "cpu_milli", 0, 1LL << 40);
    }
    if (!t.text(r, "memory_mib").empty()) {
      rec.memory_bytes = t.integer(r, "memory_mib", 0, 1LL << 40) * kMiB;
    }
    rec.gpu_spec = t.text(r, "gpu_spec");
    rec.qos = t.text(r, "qos");
    rec.phase = t.text(r, "phase");
    rec.cluster = t.text(r, "cluster");
    rec.scheduled = parse_bool(t, r, "scheduled", true);
    rec.censored = parse_bool(t, r, "censored", false);
    rec.model = t.text(r, "model");
    if (!t.text(r, "batch_size").empty()) {
      rec.batch_size = static_cast<int>(t.integer(r, "batch_size", 1, 1'000'000));
    }
    rec.precision = t.text(r, "precision");
    if (!rec.precision.empty() && rec.precision != "amp" && rec.precision != "fp32") {
      throw t.error(r, "precision", "'" + rec.precision + "' is not one of: amp, fp32");
    }
    if (!t.text(r, "steps").empty()) {
      rec.steps = t.integer(r, "steps", 1, kMaxJobSteps);
    }
    read_native_outcome(t, r, rec);
    end = std::max(end, rec.submit + rec.duration.value_or(Duration::zero()));
    trace.records.push_back(std::move(rec));
  }
  trace.end = end;
  return trace;
}

std::string seconds_text(Duration d) {
  const auto us = d.count();
  std::string s = std::to_string(us / 1'000'000);
  if (const auto frac = us % 1'000'000; frac != 0) {
    std::string f = std::to_string(frac);
    f = std::string(6 - f.size(), '0') + f;
    while (f.back() == '0') {
      f.pop_back();
    }
    s += "." + f;
  }
  return s;
}

}  // namespace

Trace parse_trace(const std::string& text, const std::string& name, TraceFormat format) {
  if (format == TraceFormat::kAuto) {
    format = detect(text, name);
  }
  switch (format) {
    case TraceFormat::kOpenb:
      return read_openb(CsvTable::from_text(text, name, openb_required(), openb_optional()));
    case TraceFormat::kAcme:
    case TraceFormat::kHelios:
      return read_slurm_log(CsvTable::from_text(text, name, slurm_required(), slurm_optional()),
                            format);
    case TraceFormat::kGfs:
      return read_gfs_jobs(CsvTable::from_text(text, name, gfs_job_columns(), {}));
    case TraceFormat::kPai2020:
      throw InputError(SourceLocation{name, 1, 1}, "",
                       "a PAI-2020 job table is read from its file, with pai_task_table.csv "
                       "beside it");
    case TraceFormat::kPhilly:
      return read_philly(CsvTable::from_text(text, name, philly_required(), philly_optional()));
    default:
      return read_native(CsvTable::from_text(text, name, native_required(), native_optional()));
  }
}

Trace read_trace(const std::string& path, TraceFormat format) {
  std::string text = read_text_file(path);
  if (format == TraceFormat::kAuto) {
    format = detect(text, path);
  }
  if (format == TraceFormat::kPai2020) {
    text.clear();
    return read_pai2020(path);
  }
  return parse_trace(text, path, format);
}

void write_native(const Trace& trace, std::ostream& out) {
  out << "name,submit_s,duration_s,pods,gpus_per_pod,gpu_milli,cpu_milli,memory_mib,gpu_spec,"
         "qos,phase,cluster,scheduled,censored,model,batch_size,precision,steps,end_state,queue_s,"
         "job_type\n";
  for (const auto& r : trace.records) {
    out << csv_field(r.name) << ',' << seconds_text(r.submit) << ','
        << (r.duration ? seconds_text(*r.duration) : "") << ',' << r.pods << ',' << r.gpus_per_pod
        << ',' << r.gpu_milli << ',' << r.cpu_milli << ',' << r.memory_bytes / kMiB << ','
        << csv_field(r.gpu_spec) << ',' << csv_field(r.qos) << ',' << csv_field(r.phase) << ','
        << csv_field(r.cluster) << ',' << (r.scheduled ? "true" : "false") << ','
        << (r.censored ? "true" : "false") << ',' << csv_field(r.model) << ','
        << (r.batch_size > 0 ? std::to_string(r.batch_size) : "") << ',' << csv_field(r.precision)
        << ',' << (r.steps > 0 ? std::to_string(r.steps) : "") << ',' << to_string(r.end_state)
        << ',' << (r.queue ? seconds_text(*r.queue) : "") << ',' << csv_field(r.job_type) << '\n';
  }
}

std::vector<OpenbNode> read_openb_nodes(const std::string& path) {
  const CsvTable t(path, {"sn", "cpu_milli", "memory_mib", "gpu", "model"}, {});
  std::vector<OpenbNode> out;
  out.reserve(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r) {
    OpenbNode n;
    n.line = t.line(r);
    n.name_where = t.where(r, "sn");
    n.model_where = t.where(r, "model");
    n.name = t.text(r, "sn");
    if (n.name.empty()) {
      throw t.error(r, "sn", "empty node name");
    }
    n.cpu_milli = t.integer(r, "cpu_milli", 0, 1LL << 40);
    n.memory_bytes = t.integer(r, "memory_mib", 0, 1LL << 40) * kMiB;
    n.gpus = static_cast<int>(t.integer(r, "gpu", 0, 1024));
    n.gpu_model = t.text(r, "model");
    if (n.gpus > 0 && n.gpu_model.empty()) {
      throw t.error(r, "model", "a node with GPUs needs a GPU model");
    }
    out.push_back(std::move(n));
  }
  return out;
}

TraceStats compute_stats(const Trace& trace) {
  TraceStats s;
  s.jobs = static_cast<std::int64_t>(trace.records.size());
  std::vector<double> durations;
  durations.reserve(trace.records.size());
  bool first = true;
  for (const auto& r : trace.records) {
    ++s.gpu_histogram[r.total_gpus()];
    s.fractional += r.gpu_milli > 0 ? 1 : 0;
    s.censored += r.censored ? 1 : 0;
    s.unscheduled += r.scheduled ? 0 : 1;
    if (!r.phase.empty()) {
      ++s.phases[r.phase];
    }
    if (r.duration) {
      durations.push_back(to_seconds(*r.duration));
    }
    const double submit = to_seconds(r.submit);
    s.first_submit = first ? submit : std::min(s.first_submit, submit);
    s.last_submit = first ? submit : std::max(s.last_submit, submit);
    first = false;
  }
  std::sort(durations.begin(), durations.end());
  s.with_duration = static_cast<std::int64_t>(durations.size());
  if (!durations.empty()) {
    for (int q : {0, 25, 50, 75, 90, 99, 100}) {
      s.duration_percentiles[q] = *quantile_of_sorted(durations, q / 100.0);
    }
    double sum = 0;
    for (double d : durations) {
      sum += d;
    }
    s.duration_mean = sum / static_cast<double>(durations.size());
  }
  return s;
}

}  // namespace tidesim::workloads
