#include "tidesim/workloads/trace_slurm.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "tidesim/workloads/csv.hpp"
#include "tidesim/workloads/trace_parts.hpp"

namespace tidesim::workloads {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

// A Slurm job state as AcmeTrace's and HeliosData's READMEs list them: COMPLETED, CANCELLED
// (by the user; Slurm may write "CANCELLED by <uid>"), FAILED, TIMEOUT and NODE_FAIL, the last
// two "regarded as failed"; SUSPENDED (once in Helios' Uranus, which its authors ignore) says
// nothing of how the job ended.
TraceEndState state_of(const CsvTable& t, std::size_t r) {
  const std::string& s = t.text(r, "state");
  if (s == "COMPLETED") {
    return TraceEndState::kCompleted;
  }
  if (s == "CANCELLED" || s.starts_with("CANCELLED by ")) {
    return TraceEndState::kCancelled;
  }
  if (s == "FAILED" || s == "TIMEOUT" || s == "NODE_FAIL") {
    return TraceEndState::kFailed;
  }
  if (s == "SUSPENDED") {
    return TraceEndState::kUnknown;
  }
  throw t.error(r, "state",
                "'" + s +
                    "' is not a job state: COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL or "
                    "SUSPENDED");
}

// The time in `column` of row `r`, seconds since 1970 (UTC); nullopt for an empty cell when
// `may_be_empty`.
std::optional<std::int64_t> time_of(const CsvTable& t, std::size_t r, const std::string& column,
                                    bool may_be_empty) {
  const std::string& s = t.text(r, column);
  if (s.empty() && may_be_empty) {
    return std::nullopt;
  }
  std::string problem;
  const auto v = parse_timestamp(s, problem, true);
  if (!v) {
    throw t.error(r, column, problem);
  }
  return v;
}

struct Times {
  std::int64_t submit = 0;
  std::optional<std::int64_t> start;
  std::int64_t end = 0;
};

// Submit, start and end of row `r`, checked to be in order. Kalos' fail_time and stop_time are
// checked as times not before submit_time; the run ends at end_time (the READMEs' duration,
// end_time - start_time, which the published summary uses).
Times times_of(const CsvTable& t, std::size_t r) {
  Times x;
  x.submit = *time_of(t, r, "submit_time", false);
  x.start = time_of(t, r, "start_time", true);
  x.end = *time_of(t, r, "end_time", false);
  for (const char* c : {"fail_time", "stop_time"}) {
    if (t.has(c)) {
      const auto v = time_of(t, r, c, true);
      if (v && *v < x.submit) {
        throw t.error(r, c, std::string(c) + " is before submit_time");
      }
    }
  }
  if (x.start && *x.start < x.submit) {
    throw t.error(r, "start_time", "start_time is before submit_time");
  }
  if (x.end < x.start.value_or(x.submit)) {
    throw t.error(
        r, "end_time",
        std::string("the job's end is before its ") + (x.start ? "start" : "submit") + "_time");
  }
  return x;
}

// The optional numeric columns are checked, not used (duration, queue and gpu_time are
// computed from the times and counts, as the READMEs define them).
void check_numbers(const CsvTable& t, std::size_t r) {
  for (const char* c : {"duration", "queue", "gpu_time", "shared_mem_per_pod"}) {
    if (t.has(c) && !t.text(r, c).empty()) {
      t.number(r, c, 0.0, 1e15);
    }
  }
}

}  // namespace

std::vector<std::string> slurm_required() {
  return {"job_id", "gpu_num",     "cpu_num",    "node_num",
          "state",  "submit_time", "start_time", "end_time"};
}

std::vector<std::string> slurm_optional() {
  return {"user",     "vc",        "type",      "duration",       "queue",
          "gpu_time", "fail_time", "stop_time", "mem_per_pod_GB", "shared_mem_per_pod"};
}

Trace read_slurm_log(const CsvTable& t, TraceFormat format) {
  Trace trace = empty_trace(t, format);
  std::vector<Times> times(t.rows());
  std::int64_t first = 0;
  std::unordered_map<std::string, int> first_line;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    TraceRecord rec;
    rec.line = t.line(r);
    rec.cells = t.places(r);
    rec.name = t.text(r, "job_id");
    if (rec.name.empty()) {
      throw t.error(r, "job_id", "empty job id");
    }
    if (const auto [it, fresh] = first_line.emplace(rec.name, rec.line); !fresh) {
      throw t.error(r, "job_id",
                    "'" + rec.name + "' repeated (first on line " + std::to_string(it->second) +
                        "); job ids must be unique");
    }
    const auto gpus = static_cast<int>(t.integer(r, "gpu_num", 0, 1'000'000));
    const auto nodes = static_cast<int>(t.integer(r, "node_num", 0, 1'000'000));
    const double cpus = t.number(r, "cpu_num", 0.0, 1e9);
    rec.pods = pods_for(gpus, nodes, std::max(gpus, 1));
    rec.gpus_per_pod = gpus / rec.pods;
    rec.cpu_milli = std::llround(cpus * 1000.0 / rec.pods);
    if (t.has("mem_per_pod_GB") && !t.text(r, "mem_per_pod_GB").empty()) {
      rec.memory_bytes = std::llround(t.number(r, "mem_per_pod_GB", 0.0, 1e9) * kGiB);
    }
    rec.end_state = state_of(t, r);
    rec.phase = t.text(r, "state");
    rec.job_type = t.text(r, "type");
    rec.cluster = t.text(r, "vc");
    check_numbers(t, r);
    times[r] = times_of(t, r);
    rec.scheduled = times[r].start.has_value();
    first = r == 0 ? times[r].submit : std::min(first, times[r].submit);
    trace.records.push_back(std::move(rec));
  }
  std::int64_t end = first;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    auto& rec = trace.records[r];
    const Times& x = times[r];
    const std::int64_t start = x.start.value_or(x.end);
    rec.submit = std::chrono::seconds(x.submit - first);
    rec.queue = std::chrono::seconds(start - x.submit);
    rec.duration = std::chrono::seconds(x.end - start);
    end = std::max(end, x.end);
  }
  trace.end = std::chrono::seconds(end - first);
  return trace;
}

}  // namespace tidesim::workloads
