#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/core.h>

#include "tidesim/sim/input/units.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/manifest.hpp"
#include "tidesim/workloads/step_time.hpp"
#include "tidesim/workloads/workload_spec.hpp"

// The jobs of a workload: a trace's records as jobs, or synthetic arrivals over the job mix.

namespace tidesim::workloads {
namespace {

// A gang's minMember beyond the job's pods would never be met (Coscheduling would keep every pod
// pending): refused.
void check_gang(const JobSpec& job, const SourceLocation& where) {
  if (job.gang && job.gang->min_member > job.replicas) {
    throw InputError(where, "gang.min_member",
                     fmt::format("job '{}': min_member {} is more than its {} pods", job.name,
                                 job.gang->min_member, job.replicas));
  }
}

std::vector<Duration> arrival_times(const ArrivalSpec& a, RandomStream& rng) {
  std::vector<Duration> out;
  out.reserve(static_cast<std::size_t>(a.count));
  const double base_rate = 1.0 / to_seconds(a.mean_interarrival);
  double t = to_seconds(a.start);
  while (static_cast<int>(out.size()) < a.count) {
    switch (a.process) {
      case ArrivalSpec::Process::kBurst:
        out.push_back(a.start);
        continue;
      case ArrivalSpec::Process::kPoisson:
        t += rng.exponential(base_rate);
        break;
      case ArrivalSpec::Process::kDiurnal: {
        // Lewis-Shedler thinning at the peak rate base x (1 + amplitude).
        const double peak = base_rate * (1.0 + a.amplitude);
        for (;;) {
          t += rng.exponential(peak);
          const double phase =
              2.0 * std::numbers::pi * (t - to_seconds(a.peak_at)) / to_seconds(a.period);
          const double rate = base_rate * (1.0 + a.amplitude * std::cos(phase));
          if (rng.uniform01() * peak < rate) {
            break;
          }
        }
        break;
      }
    }
    out.push_back(from_seconds(t));
  }
  return out;
}

// The hardware catalogue's name of GPU model `name` (an alias such as openb's V100M16 included),
// "" when the catalogue has no such model.
std::string catalogue_gpu(const std::string& name) {
  try {
    return std::string(tidesim::gpu_model(name).name);
  } catch (const InputError&) {
    return "";
  }
}

// Converts `job`'s run time `d` to steps at its step alone on its reference placement
// (`speed`), and keeps that step (JobSpec::reference_step_seconds).
void convert(JobSpec& job, Duration d, const Catalogue& catalogue, const SpeedReference& speed) {
  job.reference_step_seconds = reference_step_seconds(job, catalogue, speed);
  job.steps = steps_for_duration(d, job.reference_step_seconds);
}

}  // namespace

double reference_step_seconds(const JobSpec& job, const Catalogue& catalogue,
                              const SpeedReference& speed) {
  const std::string gpu = reference_gpu_of(job, speed.gpu);
  const ModelProfile p = job_profile(job, catalogue, gpu);
  StepConditions c;
  if (speed.placement) {
    c = speed.placement(job, gpu);
  } else {
    c.allreduce_bandwidth = speed.allreduce_bandwidth;
  }
  const auto& r = job.pod_template.requests;
  c.compute_share =
      r.gpus == 0 && r.gpu_milli > 0 ? static_cast<double>(r.gpu_milli) / 1000.0 : 1.0;
  c.input_bandwidth = speed.input_bandwidth;
  c.gpus = static_cast<int>(std::max<std::int64_t>(1, job_gpus(job)));
  return job_step_time(job, p, c).seconds;
}

std::vector<JobSpec> jobs_from_trace(const Trace& trace, const TraceSource& source,
                                     const Catalogue& catalogue, const SpeedReference& speed) {
  std::vector<const TraceRecord*> order;
  order.reserve(trace.records.size());
  for (const auto& r : trace.records) {
    if (r.scheduled || source.include_unscheduled) {
      order.push_back(&r);
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const TraceRecord* a, const TraceRecord* b) {
    return a->submit < b->submit;
  });
  if (source.limit > 0 && static_cast<std::int64_t>(order.size()) > source.limit) {
    order.resize(static_cast<std::size_t>(source.limit));
  }
  std::vector<JobSpec> jobs;
  jobs.reserve(order.size());
  for (const TraceRecord* r : order) {
    // Errors found here are placed at the cell that gives the value (the row's first cell when
    // no column does, e.g. the scenario's default duration).
    const auto where = [&](const std::string& field) {
      return trace.where(*r, trace.column_of(field));
    };
    JobSpec job;
    job.name = r->name;
    job.job_class = "trace";
    // A trace time (up to 1e12 s) x time_scale (up to 1e9) can pass the int64 range, where
    // llround's result is unspecified: refused past kMaxInputDuration, as durations are.
    const double submit_us = static_cast<double>(r->submit.count()) * source.time_scale;
    if (!(submit_us <= static_cast<double>(kMaxInputDuration.count()))) {
      throw InputError(where("submit"), "submit",
                       fmt::format("submit time x time_scale = {:g} s is beyond {} (1000 years)",
                                   submit_us * 1e-6, format_duration(kMaxInputDuration)));
    }
    job.submit_time = TimePoint(Duration(static_cast<std::int64_t>(std::llround(submit_us))));
    job.replicas = r->pods;
    job.pod_template = source.pod;
    job.pod_template.name = r->name;
    drop_containers(job.pod_template);
    job.pod_template.requests.cpu_milli = r->cpu_milli;
    job.pod_template.requests.memory_bytes = r->memory_bytes;
    job.pod_template.requests.gpus = r->gpus_per_pod;
    job.pod_template.requests.gpu_milli = r->gpu_milli;
    if (!r->gpu_spec.empty()) {
      SelectorRequirement req{"tidesim.io/gpu-model", "In", {}};
      std::size_t pos = 0;
      while (pos <= r->gpu_spec.size()) {
        const std::size_t bar = std::min(r->gpu_spec.find('|', pos), r->gpu_spec.size());
        req.values.push_back(r->gpu_spec.substr(pos, bar - pos));
        pos = bar + 1;
      }
      job.pod_template.node_affinity.required.push_back(NodeSelectorTerm{{req}, {}});
      // The pod ran on one of the models it names: its run time is the first one's.
      job.reference_gpu = catalogue_gpu(req.values.front());
    }
    if (!r->qos.empty()) {
      job.pod_template.annotations["tidesim.io/qos"] = r->qos;
    }
    if (source.queue_from_cluster && !r->cluster.empty()) {
      job.pod_template.labels[kQueueNameLabel] = r->cluster;
    }
    job.model = r->model.empty() ? source.model : r->model;
    job.batch_size = r->batch_size > 0 ? r->batch_size : source.batch_size;
    job.precision = r->precision.empty() ? source.precision : r->precision;
    job.reference_gpu = job.reference_gpu.empty() ? source.reference_gpu : job.reference_gpu;
    job.checkpoint_interval = source.checkpoint_interval;
    job.backoff_limit = source.backoff_limit;
    job.restart_policy = source.restart_policy;
    job.gang = source.gang;
    check_gang(job, source.where);
    job.censored = r->censored;
    job.trace_end_state = r->end_state;
    try {
      if (r->steps > 0) {
        job.steps = r->steps;
      } else {
        const auto d = r->duration ? r->duration : source.default_duration;
        if (!d) {
          throw InputError(where("duration"), "duration",
                           "the trace gives no run time; set workload.trace.default_duration");
        }
        if (*d > kMaxInputDuration) {
          throw InputError(where("duration"), "duration",
                           "a run time of " + format_duration(*d) + " is beyond " +
                               format_duration(kMaxInputDuration) + " (1000 years)");
        }
        job.duration = std::max(*d, Duration(1));
        convert(job, *job.duration, catalogue, speed);
      }
    } catch (const InputError& e) {
      if (e.where().line > 0) {
        throw;
      }
      throw InputError(where(e.field()), e.field(), e.message());
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<JobSpec> generate_jobs(const WorkloadSpec& spec, RandomStream& rng,
                                   const SpeedReference& speed, std::uint64_t run_seed) {
  const Catalogue catalogue = catalogue_of(spec);
  if (spec.pollux) {
    return pollux_jobs(*spec.pollux, rng);
  }
  if (spec.gavel) {
    return gavel_jobs(*spec.gavel, run_seed);
  }
  if (spec.trace) {
    const Trace trace = read_trace(spec.trace->file, spec.trace->format);
    return jobs_from_trace(trace, *spec.trace, catalogue, speed);
  }
  if (!spec.arrivals || spec.mix.empty()) {
    throw InputError(SourceLocation{spec.file, 0, 0}, "workload", "no arrivals or job mix");
  }
  const auto times = arrival_times(*spec.arrivals, rng);
  std::vector<double> weights;
  for (const auto& e : spec.mix) {
    weights.push_back(e.weight);
  }
  std::vector<JobSpec> jobs;
  jobs.reserve(times.size());
  for (std::size_t i = 0; i < times.size(); ++i) {
    const MixEntry& e = spec.mix[rng.weighted_choice(weights)];
    JobSpec job = e.job;
    job.name = e.name + "-" + std::to_string(i);
    job.job_class = e.name;
    job.pod_template.name = job.name;
    job.submit_time = TimePoint(times[i]);
    try {
      if (e.gpus) {
        const auto g = static_cast<std::int64_t>(std::llround(e.gpus->sample(rng)));
        const std::int64_t per_pod = job.pod_template.requests.gpus;
        job.replicas = static_cast<int>((g + per_pod - 1) / per_pod);
      }
      if (e.duration_seconds) {
        // A lognormal with a large mu or sigma and no max can draw any length of time.
        const double seconds = e.duration_seconds->sample(rng);
        if (!(seconds <= to_seconds(kMaxInputDuration))) {
          throw InputError(e.where, "duration",
                           fmt::format("drew a run time of {:g} s, beyond {} (1000 years); lower "
                                       "mu or sigma, or set max",
                                       seconds, format_duration(kMaxInputDuration)));
        }
        job.duration = from_seconds(seconds);
        convert(job, *job.duration, catalogue, speed);
      }
      check_gang(job, e.where);
    } catch (const InputError& err) {
      throw InputError(e.where, "workload.jobs." + e.name, err.message());
    }
    jobs.push_back(std::move(job));
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const JobSpec& a, const JobSpec& b) {
    return a.submit_time < b.submit_time;
  });
  return jobs;
}

}  // namespace tidesim::workloads
