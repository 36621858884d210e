#include "tidesim/workloads/trace_summary.hpp"

#include <algorithm>
#include <array>
#include <map>

namespace tidesim::workloads {
namespace {

// Mean, median and maximum of `v` (nullopt each when empty); the median as pandas takes it.
struct Moments {
  SummaryValue mean;
  SummaryValue median;
  SummaryValue max;
};

Moments moments(std::vector<double> v) {
  Moments m;
  if (v.empty()) {
    return m;
  }
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) {
    sum += x;
  }
  const std::size_t n = v.size();
  m.mean = sum / static_cast<double>(n);
  m.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
  m.max = v.back();
  return m;
}

// The jobs of one kind (GPU or CPU): run and queueing times, GPUs, end states, GPU time.
struct Group {
  std::int64_t jobs = 0;
  std::vector<double> run;
  std::vector<double> queue;
  std::vector<double> gpus;
  std::array<std::int64_t, 4> by_state{};  // indexed by TraceEndState
  std::array<double, 4> gpu_time{};
  double total_gpu_time = 0;
  bool any_state = false;

  void add(const TraceRecord& r) {
    ++jobs;
    const auto s = static_cast<std::size_t>(r.end_state);
    ++by_state[s];
    any_state = any_state || r.end_state != TraceEndState::kUnknown;
    const double g = r.gpu_amount();
    if (g > 0) {
      gpus.push_back(g);
    }
    if (r.duration) {
      const double d = to_seconds(*r.duration);
      run.push_back(d);
      gpu_time[s] += d * g;
      total_gpu_time += d * g;
    }
    if (r.queue) {
      queue.push_back(to_seconds(*r.queue));
    }
  }
  SummaryValue rate(TraceEndState s) const {
    if (!any_state || jobs == 0) {
      return std::nullopt;
    }
    return static_cast<double>(by_state[static_cast<std::size_t>(s)]) / static_cast<double>(jobs);
  }
  SummaryValue time_of(TraceEndState s) const {
    if (!any_state || jobs == 0) {
      return std::nullopt;
    }
    return gpu_time[static_cast<std::size_t>(s)];
  }
  SummaryValue time_rate(TraceEndState s) const {
    if (!any_state || jobs == 0 || total_gpu_time <= 0) {
      return std::nullopt;
    }
    return gpu_time[static_cast<std::size_t>(s)] / total_gpu_time;
  }
};

}  // namespace

const std::vector<std::string>& cluster_summary_columns() {
  static const std::vector<std::string> kColumns{"job_num",
                                                 "cpu_job_num",
                                                 "gpu_job_num",
                                                 "avg_run_time_gpu",
                                                 "avg_que_time_gpu",
                                                 "avg_gpu_num",
                                                 "med_run_time_gpu",
                                                 "med_que_time_gpu",
                                                 "med_gpu_num",
                                                 "max_run_time_gpu",
                                                 "max_gpu",
                                                 "complete_rate_gpu",
                                                 "cancel_rate_gpu",
                                                 "fail_rate_gpu",
                                                 "complete_gpu_time",
                                                 "cancel_gpu_time",
                                                 "fail_gpu_time",
                                                 "complete_rate_gpu_time",
                                                 "cancel_rate_gpu_time",
                                                 "fail_rate_gpu_time",
                                                 "avg_run_time_cpu",
                                                 "avg_que_time_cpu",
                                                 "med_run_time_cpu",
                                                 "med_que_time_cpu",
                                                 "complete_rate_cpu",
                                                 "cancel_rate_cpu",
                                                 "fail_rate_cpu"};
  return kColumns;
}

std::vector<SummaryValue> cluster_summary(const Trace& trace) {
  Group gpu, cpu;
  for (const auto& r : trace.records) {
    (r.gpu_amount() > 0 ? gpu : cpu).add(r);
  }
  const auto count = [](std::int64_t n) { return SummaryValue(static_cast<double>(n)); };
  const Moments grun = moments(gpu.run), gque = moments(gpu.queue), gnum = moments(gpu.gpus);
  const Moments crun = moments(cpu.run), cque = moments(cpu.queue);
  using S = TraceEndState;
  return {count(gpu.jobs + cpu.jobs),
          count(cpu.jobs),
          count(gpu.jobs),
          grun.mean,
          gque.mean,
          gnum.mean,
          grun.median,
          gque.median,
          gnum.median,
          grun.max,
          gnum.max,
          gpu.rate(S::kCompleted),
          gpu.rate(S::kCancelled),
          gpu.rate(S::kFailed),
          gpu.time_of(S::kCompleted),
          gpu.time_of(S::kCancelled),
          gpu.time_of(S::kFailed),
          gpu.time_rate(S::kCompleted),
          gpu.time_rate(S::kCancelled),
          gpu.time_rate(S::kFailed),
          crun.mean,
          cque.mean,
          crun.median,
          cque.median,
          cpu.rate(S::kCompleted),
          cpu.rate(S::kCancelled),
          cpu.rate(S::kFailed)};
}

}  // namespace tidesim::workloads
