#include "tidesim/workloads/trace_pai.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "tidesim/sim/input/text_file.hpp"
#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;
constexpr double kMaxTime = 1e12;

// A time cell (seconds, written "4550879.0"); nullopt when empty.
std::optional<double> time_cell(const CsvTable& t, std::size_t r, const std::string& column) {
  if (t.text(r, column).empty()) {
    return std::nullopt;
  }
  return t.number(r, column, 0.0, kMaxTime);
}

// The resources of one task: its instances and each one's request.
struct Task {
  int instances = 1;
  int gpus = 0;       // whole GPUs per instance
  int gpu_milli = 0;  // or a share of one GPU
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  std::string gpu_type;
  double gpu_amount() const { return instances * (gpus + gpu_milli / 1000.0); }
};

// plan_gpu is a percentage of one GPU: below 100 a share (50.0 -> 500 milli), a multiple of 100
// whole GPUs, anything else above 100 rounded up to whole GPUs (a pod asks whole GPUs or a share
// of one).
Task task_of(const CsvTable& t, std::size_t r) {
  Task k;
  const double inst = t.number(r, "inst_num", 1.0, 1e6);
  if (inst != std::floor(inst)) {
    throw t.error(r, "inst_num", "not a whole number of instances");
  }
  k.instances = static_cast<int>(inst);
  const double gpu = t.text(r, "plan_gpu").empty() ? 0.0 : t.number(r, "plan_gpu", 0.0, 1e5);
  if (gpu > 0 && gpu < 100) {
    k.gpu_milli = static_cast<int>(std::clamp<long long>(std::llround(gpu * 10.0), 1, 999));
  } else {
    k.gpus = static_cast<int>(std::ceil(gpu / 100.0 - 1e-9));
  }
  if (!t.text(r, "plan_cpu").empty()) {
    k.cpu_milli = std::llround(t.number(r, "plan_cpu", 0.0, 1e9) * 10.0);
  }
  if (!t.text(r, "plan_mem").empty()) {
    k.memory_bytes = std::llround(t.number(r, "plan_mem", 0.0, 1e7) * kGiB);
  }
  k.gpu_type = t.text(r, "gpu_type");
  return k;
}

struct JobParts {
  std::optional<Task> main;      // the task with the most GPUs (the first such)
  std::optional<double> launch;  // earliest task (or instance) start
  bool from_instances = false;
};

// Each job's main task and earliest task start, by job name; a task of no job is an error.
void join_tasks(const CsvTable& t, const std::unordered_map<std::string, std::size_t>& jobs,
                std::vector<JobParts>& parts) {
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto it = jobs.find(t.text(r, "job_name"));
    if (it == jobs.end()) {
      throw t.error(r, "job_name", "'" + t.text(r, "job_name") + "' is not in the job table");
    }
    JobParts& p = parts[it->second];
    const Task k = task_of(t, r);
    if (!p.main || k.gpu_amount() > p.main->gpu_amount()) {
      p.main = k;
    }
    time_cell(t, r, "end_time");
    if (const auto s = time_cell(t, r, "start_time"); s && *s > 0) {
      p.launch = p.launch ? std::min(*p.launch, *s) : *s;
    }
  }
}

// The earliest instance start of each job replaces its task start (the instance table says
// when the job's processes launched).
void join_instances(const CsvTable& t, const std::unordered_map<std::string, std::size_t>& jobs,
                    std::vector<JobParts>& parts) {
  for (std::size_t r = 0; r < t.rows(); ++r) {
    const auto it = jobs.find(t.text(r, "job_name"));
    if (it == jobs.end()) {
      throw t.error(r, "job_name", "'" + t.text(r, "job_name") + "' is not in the job table");
    }
    JobParts& p = parts[it->second];
    time_cell(t, r, "end_time");
    if (const auto s = time_cell(t, r, "start_time"); s && *s > 0) {
      p.launch = p.from_instances && p.launch ? std::min(*p.launch, *s) : *s;
      p.from_instances = true;
    }
  }
}

// Terminated (the only successful status, per the trace's README), Failed, Running (still
// running at the trace's end) or Waiting (never started).
TraceEndState status_of(const CsvTable& t, std::size_t r, TraceRecord& rec) {
  const std::string& s = t.text(r, "status");
  rec.phase = s;
  if (s == "Terminated") {
    return TraceEndState::kCompleted;
  }
  if (s == "Failed") {
    return TraceEndState::kFailed;
  }
  if (s == "Running" || s == "Waiting") {
    rec.censored = true;
    rec.scheduled = s == "Running";
    return TraceEndState::kUnknown;
  }
  throw t.error(r, "status", "'" + s + "' is not a status: Terminated, Failed, Running, Waiting");
}

void apply_task(TraceRecord& rec, const Task& k) {
  rec.pods = k.instances;
  rec.gpus_per_pod = k.gpus;
  rec.gpu_milli = k.gpu_milli;
  rec.cpu_milli = k.cpu_milli;
  rec.memory_bytes = k.memory_bytes;
  rec.gpu_spec = k.gpu_type;
}

}  // namespace

std::vector<std::string> pai_job_columns() {
  return {"job_name", "inst_id", "user", "status", "start_time", "end_time"};
}
std::vector<std::string> pai_task_columns() {
  return {"job_name", "task_name", "inst_num", "status",   "start_time",
          "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};
}
std::vector<std::string> pai_instance_columns() {
  return {"job_name", "task_name",  "inst_name", "worker_name", "inst_id",
          "status",   "start_time", "end_time",  "machine"};
}

bool is_pai_job_header(const std::vector<std::string>& first_row) {
  return first_row == pai_job_columns();
}

Trace parse_pai2020(const NamedText& jobs, const NamedText& tasks,
                    const std::optional<NamedText>& instances) {
  const CsvTable jt = CsvTable::with_columns(jobs.text, jobs.name, pai_job_columns());
  Trace trace = empty_trace(jt, TraceFormat::kPai2020);
  std::unordered_map<std::string, std::size_t> index;
  std::vector<double> submit(jt.rows());
  std::vector<std::optional<double>> end(jt.rows());
  for (std::size_t r = 0; r < jt.rows(); ++r) {
    TraceRecord rec;
    rec.line = jt.line(r);
    rec.cells = jt.places(r);
    rec.name = jt.text(r, "job_name");
    if (rec.name.empty()) {
      throw jt.error(r, "job_name", "empty job name");
    }
    if (const auto [it, fresh] = index.emplace(rec.name, r); !fresh) {
      throw jt.error(r, "job_name",
                     "'" + rec.name + "' repeated (first on line " +
                         std::to_string(jt.line(it->second)) + "); job names must be unique");
    }
    rec.end_state = status_of(jt, r, rec);
    submit[r] = jt.number(r, "start_time", 0.0, kMaxTime);
    end[r] = time_cell(jt, r, "end_time");
    if (end[r] && *end[r] > 0 && *end[r] < submit[r]) {
      throw jt.error(r, "end_time", "end_time is before start_time (the job's submission)");
    }
    trace.records.push_back(std::move(rec));
  }
  std::vector<JobParts> parts(jt.rows());
  join_tasks(CsvTable::with_columns(tasks.text, tasks.name, pai_task_columns()), index, parts);
  if (instances) {
    join_instances(CsvTable::with_columns(instances->text, instances->name, pai_instance_columns()),
                   index, parts);
  }
  const double first = submit.empty() ? 0.0 : *std::min_element(submit.begin(), submit.end());
  double last = first;
  for (std::size_t r = 0; r < jt.rows(); ++r) {
    last = std::max({last, submit[r], end[r].value_or(0.0)});
  }
  for (std::size_t r = 0; r < jt.rows(); ++r) {
    TraceRecord& rec = trace.records[r];
    if (!parts[r].main) {
      throw jt.error(r, "job_name", "job '" + rec.name + "' has no task in " + tasks.name);
    }
    apply_task(rec, *parts[r].main);
    // A job that launched before its recorded submission (clock skew) starts at submission.
    const double start =
        rec.scheduled ? std::max(submit[r], parts[r].launch.value_or(submit[r])) : submit[r];
    const double stop = rec.censored && rec.scheduled ? last
                        : rec.scheduled               ? std::max(start, end[r].value_or(start))
                                                      : start;
    rec.submit = from_seconds(submit[r] - first);
    rec.queue = from_seconds(start - submit[r]);
    rec.duration = from_seconds(stop - start);
  }
  trace.end = from_seconds(last - first);
  return trace;
}

Trace read_pai2020(const std::string& job_table) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(job_table).parent_path();
  const std::string task_path = (folder / "pai_task_table.csv").string();
  const std::string inst_path = (folder / "pai_instance_table.csv").string();
  std::error_code ec;
  if (!fs::is_regular_file(task_path, ec)) {
    throw InputError(SourceLocation{job_table, 0, 0}, "",
                     "a PAI-2020 job table is read with pai_task_table.csv beside it; " +
                         task_path + " not found");
  }
  std::optional<NamedText> inst;
  if (fs::is_regular_file(inst_path, ec)) {
    inst = NamedText{read_text_file(inst_path), inst_path};
  }
  return parse_pai2020(NamedText{read_text_file(job_table), job_table},
                       NamedText{read_text_file(task_path), task_path}, inst);
}

}  // namespace tidesim::workloads
