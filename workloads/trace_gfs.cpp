#include "tidesim/workloads/trace_gfs.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "tidesim/workloads/csv.hpp"

namespace tidesim::workloads {
namespace {

// A name column's text: not empty and unique in the table.
std::string unique_name(const CsvTable& t, std::size_t r, const std::string& column,
                        std::unordered_map<std::string, int>& first_line) {
  std::string name = t.text(r, column);
  if (name.empty()) {
    throw t.error(r, column, "empty " + column);
  }
  if (const auto [it, fresh] = first_line.emplace(name, t.line(r)); !fresh) {
    throw t.error(r, column,
                  "'" + name + "' repeated (first on line " + std::to_string(it->second) +
                      "); names must be unique");
  }
  return name;
}

}  // namespace

std::vector<std::string> gfs_job_columns() {
  return {"job_name",   "organization", "gpu_model", "cpu_request", "gpu_request",
          "worker_num", "submit_time",  "duration",  "job_type"};
}

// gpu_request and cpu_request are per worker (the README's example: a Spot job of 16 workers
// of one A100 each); worker_num workers are the job's pods. A request below one GPU is a share
// of one (gpu_milli).
Trace read_gfs_jobs(const CsvTable& t) {
  Trace trace = empty_trace(t, TraceFormat::kGfs);
  std::unordered_map<std::string, int> first_line;
  Duration end{};
  for (std::size_t r = 0; r < t.rows(); ++r) {
    TraceRecord rec;
    rec.line = t.line(r);
    rec.cells = t.places(r);
    rec.name = unique_name(t, r, "job_name", first_line);
    rec.cluster = t.text(r, "organization");
    rec.gpu_spec = t.text(r, "gpu_model");
    rec.cpu_milli = std::llround(t.number(r, "cpu_request", 0.0, 1e6) * 1000.0);
    const double gpu = t.number(r, "gpu_request", 0.0, 1024.0);
    if (gpu > 0 && gpu < 1) {
      rec.gpu_milli = static_cast<int>(std::clamp<long long>(std::llround(gpu * 1000.0), 1, 999));
    } else if (gpu != std::floor(gpu)) {
      throw t.error(r, "gpu_request", "a request above one GPU must be whole GPUs");
    } else {
      rec.gpus_per_pod = static_cast<int>(gpu);
    }
    rec.pods = static_cast<int>(t.integer(r, "worker_num", 1, 1'000'000));
    rec.submit = from_seconds(t.number(r, "submit_time", 0.0, 1e12));
    rec.duration = from_seconds(t.number(r, "duration", 0.0, 1e12));
    rec.qos = t.text(r, "job_type");
    if (rec.qos != "HP" && rec.qos != "Spot") {
      throw t.error(r, "job_type", "'" + rec.qos + "' is not a job type: HP or Spot");
    }
    rec.job_type = rec.qos;
    end = std::max(end, rec.submit + *rec.duration);
    trace.records.push_back(std::move(rec));
  }
  trace.end = end;
  return trace;
}

std::vector<GfsNode> read_gfs_nodes(const CsvTable& t) {
  std::vector<GfsNode> out;
  out.reserve(t.rows());
  std::unordered_map<std::string, int> first_line;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    GfsNode n;
    n.line = t.line(r);
    n.name = unique_name(t, r, "node_name", first_line);
    n.gpu_model = t.text(r, "gpu_model");
    n.gpus = static_cast<int>(t.integer(r, "gpu_capacity_num", 0, 1024));
    if (n.gpus > 0 && n.gpu_model.empty()) {
      throw t.error(r, "gpu_model", "a node with GPUs needs a GPU model");
    }
    n.cpu_milli = t.integer(r, "cpu_num", 0, 1'000'000) * 1000;
    out.push_back(std::move(n));
  }
  return out;
}

}  // namespace tidesim::workloads
