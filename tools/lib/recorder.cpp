#include <algorithm>
#include <cmath>

#include "tidesim/sim/metrics/node_stats.hpp"
#include "tidesim/tools/lib/result.hpp"

// The Recorder: one seed's SeedRun from a run's signals.

namespace tidesim::app {
namespace {

double round6(double x) {
  return std::round(x * 1e6) / 1e6;
}

}  // namespace

Recorder::Recorder(std::string policy, std::uint64_t seed, RecorderOptions options)
    : policy_(std::move(policy)),
      seed_(seed),
      options_(options),
      collectors_(std::move(options.collectors)) {}

void Recorder::attach(RunSignals& signals) {
  signals.job.connect([this](const JobEvent& e) { on_job(e); });
  signals.sample.connect([this](const ClusterSample& s) { on_sample(s); });
  signals.rate.connect([this](const JobRate& r) { on_rate(r); });
  signals.scheduling.connect([this](const SchedulingEvent& e) { on_scheduling(e); });
  signals.forecast.connect([this](const LoadForecastBatch& b) { collectors_.on_forecast(b); });
  signals.quota.connect([this](const QuotaEvent& e) { collectors_.on_quota(e); });
  signals.gang_life.connect([this](const GangLifeRecord& r) { collectors_.on_gang_life(r); });
  signals.topology.connect([this](const TopologyEvent& e) { collectors_.on_topology(e); });
}

void Recorder::on_job(const JobEvent& event) {
  collectors_.on_job(event);
  attempts_.on_job(event);
  auto [it, inserted] = jobs_.try_emplace(event.job);
  JobTrack& track = it->second;
  JobRecord& job = track.record;
  const double t = to_seconds(event.at);
  auto note = [&](const char* kind) {
    events_.push_back(EventRecord{.t_s = t,
                                  .kind = kind,
                                  .job = event.job,
                                  .pod = event.pod,
                                  .node = event.node,
                                  .fallback_stage = 0});
  };
  switch (event.kind) {
    case JobEventKind::kSubmitted:
      if (!track.submitted) {
        track.submitted = true;
        job.name = event.job;
        job.submit_s = t;
        job.gpus = job.gpus_last = event.gpus;
        job.nvlink_required = event.nvlink_required;
        if (event.uncontended_seconds > 0) {
          job.ideal_s = event.uncontended_seconds;
        }
        if (const JobFacts* f = event.facts) {
          job.job_class = f->job_class;
          job.kind = f->kind;
          job.model = f->model;
          job.batch_size = f->batch_size;
          if (f->stated_seconds > 0) {
            job.stated_s = f->stated_seconds;
          }
          job.steps = f->steps;
        }
        job_order_.push_back(event.job);
      }
      break;
    case JobEventKind::kBound:
      if (!job.first_bind_s) {
        job.first_bind_s = t;
      }
      if (!event.node.empty() &&
          std::find(job.nodes.begin(), job.nodes.end(), event.node) == job.nodes.end()) {
        job.nodes.push_back(event.node);
      }
      break;
    case JobEventKind::kStarted:
      if (!job.start_s) {
        job.start_s = t;
      }
      // Each attempt starts at its size: the most and the last of them (not the first size
      // asked, which an elastic job's policy changes).
      job.gpus = track.started ? std::max(job.gpus, event.gpus) : event.gpus;
      job.gpus_last = event.gpus;
      track.started = true;
      if (event.fabric_span) {
        job.fabric_span = event.fabric_span->domains;
      }
      break;
    case JobEventKind::kOomKilled:
      ++job.oom_kills;
      job.lost_gpu_s += event.lost_gpu_seconds;
      note("oom_killed");
      break;
    case JobEventKind::kEvicted:
      ++job.evictions;
      job.lost_gpu_s += event.lost_gpu_seconds;
      note("evicted");
      break;
    case JobEventKind::kRestarted:
      ++job.restarts;
      note("restarted");
      break;
    case JobEventKind::kSucceeded:
      job.finish_s = t;
      job.state = "succeeded";
      break;
    case JobEventKind::kFailed:
      job.finish_s = t;
      // "cancelled": a replayed job its trace ends as cancelled (JobSpec::trace_end_state).
      job.state = event.cause == "cancelled" ? "cancelled" : "failed";
      note("failed");
      break;
  }
}

void Recorder::on_sample(const ClusterSample& sample) {
  collectors_.on_sample(sample);
  if (!options_.record_series) {
    return;
  }
  if (options_.series_step > Duration::zero()) {
    if (sample.at < next_kept_) {
      return;
    }
    const Duration step = options_.series_step;
    next_kept_ = TimePoint((sample.at.time_since_epoch() / step + 1) * step);
  }
  const double t = to_seconds(sample.at);
  series_.t_s.push_back(t);
  series_.pending_pods.push_back(sample.pending_pods);
  series_.running_jobs.push_back(sample.running_jobs);
  const auto sd = metrics::gpu_utilization_stddev(sample);
  series_.gpu_util_stddev.push_back(sd ? std::optional<double>(round6(*sd)) : std::nullopt);
  const auto& lscs = collectors_.lscs().series();
  const auto l = lscs.empty() ? std::nullopt : lscs.back().second;
  series_.lscs.push_back(l ? std::optional<double>(round6(*l)) : std::nullopt);
  if (!options_.node_series) {
    return;
  }
  for (std::size_t k = 0; k < sample.nodes.size(); ++k) {
    const NodeState& node = sample.nodes[k];
    // Samples list the nodes in one order, so the node is nearly always at its
    // own position: one name comparison instead of a lookup by name per node
    // and sample.
    std::size_t index = k;
    if (k >= series_.nodes.size() || series_.nodes[k].node != node.name) {
      auto [it, inserted] = node_index_.try_emplace(node.name, series_.nodes.size());
      if (inserted) {
        NodeSeries fresh;
        fresh.node = node.name;
        series_.nodes.push_back(std::move(fresh));
      }
      index = it->second;
    }
    NodeSeries& n = series_.nodes[index];
    n.gpu_memory_capacity_bytes = node.gpu_memory_capacity;
    row_util_.clear();
    for (const double u : node.gpu_utilization) {
      row_util_.push_back(round6(u));
    }
    row_nvlink_.clear();
    for (const double u : node.nvlink_utilization) {
      row_nvlink_.push_back(round6(u));
    }
    const double competition = round6(node.nvlink_competition_index);
    const double await_ms = round6(node.storage_await_ms);
    // Change points: a node's row is kept only when it differs from its
    // previous one (the value holds until the node's next t_s; finish() closes
    // every series at the last sample).
    if (!n.t_s.empty() && n.gpu_utilization.back() == row_util_ &&
        n.gpu_memory_used_bytes.back() == node.gpu_memory_used &&
        n.nvlink_utilization.back() == row_nvlink_ &&
        n.nvlink_competition_index.back() == competition && n.storage_await_ms.back() == await_ms &&
        n.gpus_allocated.back() == node.gpus_allocated &&
        n.gpus_allocatable.back() == node.gpus_allocatable) {
      continue;
    }
    n.t_s.push_back(t);
    n.gpu_utilization.push_back(row_util_);
    n.gpu_memory_used_bytes.push_back(node.gpu_memory_used);
    n.nvlink_utilization.push_back(row_nvlink_);
    n.nvlink_competition_index.push_back(competition);
    n.storage_await_ms.push_back(await_ms);
    n.gpus_allocated.push_back(node.gpus_allocated);
    n.gpus_allocatable.push_back(node.gpus_allocatable);
  }
}

void Recorder::on_rate(const JobRate& rate) {
  collectors_.on_rate(rate);
}

void Recorder::on_scheduling(const SchedulingEvent& event) {
  collectors_.on_scheduling(event);
  if (event.fallback_stage > 0) {
    events_.push_back(EventRecord{.t_s = to_seconds(event.at),
                                  .kind = "fallback",
                                  .job = "",
                                  .pod = event.pod,
                                  .node = event.node,
                                  .fallback_stage = event.fallback_stage});
  }
}

SeedRun Recorder::finish(TimePoint end) const {
  SeedRun run;
  run.policy = policy_;
  run.seed = seed_;
  run.end_s = to_seconds(end);
  collectors_.finish(end, run.metrics);
  const auto nvlink = collectors_.nvlink_contention().job_totals(end);
  const auto speed = collectors_.placement_speed().job_figures(end);
  for (const auto& name : job_order_) {
    JobRecord job = jobs_.find(name)->second.record;
    if (job.state.empty()) {
      job.state = job.first_bind_s ? "unfinished" : "unscheduled";
    }
    if (const auto it = nvlink.find(name); it != nvlink.end()) {
      job.nvlink_counted_s = it->second.counted_s;
      job.nvlink_contended_s = it->second.contended_s;
    }
    if (const auto it = speed.find(name); it != speed.end()) {
      job.step_slowdown = it->second.step_slowdown;
      job.comm_share = it->second.comm_share;
      job.mfu = it->second.mfu;
      job.fabric_contended_s = it->second.contended_s;
    }
    run.jobs.push_back(std::move(job));
  }
  run.events = events_;
  run.attempts = attempts_.finish();
  if (options_.record_series) {
    run.series = series_;
    // Each node's series ends with a row at the last sample (its last change
    // holds until then).
    if (!run.series->t_s.empty()) {
      const double last = run.series->t_s.back();
      for (NodeSeries& n : run.series->nodes) {
        if (!n.t_s.empty() && n.t_s.back() < last) {
          n.t_s.push_back(last);
          n.gpu_utilization.push_back(n.gpu_utilization.back());
          n.gpu_memory_used_bytes.push_back(n.gpu_memory_used_bytes.back());
          n.nvlink_utilization.push_back(n.nvlink_utilization.back());
          n.nvlink_competition_index.push_back(n.nvlink_competition_index.back());
          n.storage_await_ms.push_back(n.storage_await_ms.back());
          n.gpus_allocated.push_back(n.gpus_allocated.back());
          n.gpus_allocatable.push_back(n.gpus_allocatable.back());
        }
      }
    }
  }
  return run;
}
}  // namespace tidesim::app
