#include "tests/tools/sample_result.hpp"

#include <unistd.h>

#include <filesystem>

#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/tools/lib/table.hpp"

namespace tidesim::test {
namespace {

TimePoint at_s(double s) {
  return TimePoint{from_seconds(s)};
}

NodeState node(const std::string& name, double u0, double u1, std::int64_t mem0, std::int64_t mem1,
               int allocated) {
  NodeState n;
  n.name = name;
  n.gpu_utilization = {u0, u1};
  n.gpu_memory_used = {mem0, mem1};
  n.gpu_memory_capacity = 24LL << 30;
  n.nvlink_utilization = {u0 * 0.5, u1 * 0.5};
  n.nvlink_competition_index = allocated / 4.0;
  n.storage_await_ms = 2.5 + allocated;
  n.gpus_allocated = allocated;
  n.gpus_allocatable = 2;
  return n;
}

}  // namespace

app::SeedRun sample_run(const std::string& policy, std::uint64_t seed, bool series) {
  const bool skewed = policy == "default-k8s";
  RunSignals signals;
  app::RecorderOptions options;
  options.record_series = series;
  app::Recorder recorder(policy, seed, options);
  recorder.attach(signals);
  const double shift = 10.0 * static_cast<double>(seed);
  const double wait = (skewed ? 100.0 : 50.0) + shift;
  for (int j = 0; j < 4; ++j) {
    JobEvent e;
    e.at = at_s(0);
    e.kind = JobEventKind::kSubmitted;
    e.job = "job-" + std::to_string(j);
    e.gpus = 1;
    e.nvlink_required = j < 2;
    signals.job.emit(e);
  }
  for (int j = 0; j < 4; ++j) {
    JobEvent e;
    e.at = at_s(wait + j);
    e.kind = JobEventKind::kBound;
    e.job = "job-" + std::to_string(j);
    e.pod = e.job + "-0";
    e.node = skewed ? (j < 3 ? "n1" : "n2") : (j % 2 == 0 ? "n1" : "n2");
    e.gpus = 1;
    signals.job.emit(e);
    e.kind = JobEventKind::kStarted;
    signals.job.emit(e);
    JobRate r;
    r.at = e.at;
    r.job = e.job;
    r.running = true;
    r.nvlink_required = j < 2;
    r.ideal_collective_bandwidth = 100e9;
    r.collective_bandwidth = skewed ? 40e9 : 95e9;
    r.gpu_utilization = 0.9;
    signals.rate.emit(r);
  }
  for (int k = 0; k <= 60; ++k) {
    ClusterSample s;
    s.at = at_s(10.0 * k);
    const bool busy = s.at >= at_s(wait);
    const double hi = busy ? (skewed ? 0.95 : 0.6) : 0.0;
    const double lo = busy ? (skewed ? 0.2 : 0.55) : 0.0;
    s.nodes = {node("n1", hi, hi, busy ? (skewed ? 20LL << 30 : 12LL << 30) : 0,
                    busy ? (skewed ? 22LL << 30 : 12LL << 30) : 0, busy ? 2 : 0),
               node("n2", lo, 0.0, busy ? (skewed ? 2LL << 30 : 11LL << 30) : 0, 0, busy ? 1 : 0)};
    s.pending_pods = busy ? 0 : 4;
    s.running_jobs = busy ? 4 : 0;
    signals.sample.emit(s);
    if (skewed && k == 30) {
      JobEvent oom;
      oom.at = at_s(305);
      oom.kind = JobEventKind::kOomKilled;
      oom.job = "job-1";
      oom.pod = "job-1-0";
      oom.node = "n1";
      signals.job.emit(oom);
      oom.at = at_s(315);
      oom.kind = JobEventKind::kRestarted;
      signals.job.emit(oom);
    }
  }
  SchedulingEvent cycle;
  cycle.at = at_s(wait);
  cycle.pod = "job-0-0";
  cycle.node = "n1";
  cycle.fallback_stage = skewed ? 0 : 1;
  signals.scheduling.emit(cycle);
  for (int j = 0; j < 4; ++j) {
    JobEvent e;
    e.at = at_s(500 + 10 * j + shift);
    e.kind = j == 3 && skewed ? JobEventKind::kFailed : JobEventKind::kSucceeded;
    e.job = "job-" + std::to_string(j);
    signals.job.emit(e);
    JobRate r;
    r.at = e.at;
    r.job = e.job;
    r.running = false;
    signals.rate.emit(r);
  }
  return recorder.finish(at_s(600));
}

app::RunResult sample_result() {
  app::RunResult result;
  result.metadata =
      app::make_metadata("sample", "tests/tools/sample.yaml", scenario_hash("name: sample\n"),
                         {1, 2, 3}, {"default-k8s", "load-aware"});
  result.reference = app::seed_reference();
  for (const char* policy : {"default-k8s", "load-aware"}) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      result.runs.push_back(sample_run(policy, seed, seed == 1));
    }
  }
  return result;
}

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tidesim-tools-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace tidesim::test
