#include "tidesim/sim/experiments/run_estimate.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "tidesim/policies/queue.hpp"
#include "tidesim/sim/admission/pollux.hpp"
#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/reference_speed.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/pollux.hpp"
#include "tidesim/workloads/pollux_source.hpp"
#include "tidesim/workloads/step_time.hpp"
#include "tidesim/workloads/uncontended_time.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

using workloads::Distribution;

// The largest value a distribution of GPU counts can draw.
std::int64_t largest(const Distribution& d) {
  using Kind = Distribution::Kind;
  switch (d.kind) {
    case Kind::kFixed:
      return std::llround(d.value);
    case Kind::kChoice:
      return d.values.empty() ? 1
                              : std::llround(*std::max_element(d.values.begin(), d.values.end()));
    case Kind::kLognormal:
      return d.max > 0 ? std::llround(d.max) : workloads::kMaxJobGpus;
  }
  return workloads::kMaxJobGpus;
}

// The mean of what `d` draws: a lognormal's exp(mu + sigma^2 / 2) held to [min, max] (the
// clamped draws' mean is at most that), a choice's weighted mean.
double mean_of(const Distribution& d) {
  using Kind = Distribution::Kind;
  switch (d.kind) {
    case Kind::kFixed:
      return d.value;
    case Kind::kChoice: {
      double sum = 0;
      double weights = 0;
      for (std::size_t i = 0; i < d.values.size(); ++i) {
        const double w = i < d.weights.size() ? d.weights[i] : 1.0;
        sum += w * d.values[i];
        weights += w;
      }
      return weights > 0 ? sum / weights : 0;
    }
    case Kind::kLognormal: {
      const double m = std::max(d.lognormal.mean(), d.min);
      return d.max > 0 ? std::min(m, d.max) : m;
    }
  }
  return d.value;
}

// The longest of `n` draws of `d`, about: the largest value it can draw, or for a lognormal
// without a max its 1 - 1/(n + 1) quantile.
double longest_of(const Distribution& d, double n) {
  using Kind = Distribution::Kind;
  if (d.kind == Kind::kLognormal && d.max <= 0) {
    return std::max(d.lognormal.quantile(1.0 - 1.0 / (n + 1.0)), d.min);
  }
  if (d.kind == Kind::kChoice && !d.values.empty()) {
    return *std::max_element(d.values.begin(), d.values.end());
  }
  return d.kind == Kind::kLognormal ? d.max : d.value;
}

// GPUs one pod of `requests` keeps busy: whole GPUs, a share (gpu_milli), or one MIG instance
// counted as a seventh of its card.
double pod_gpus(const Resources& requests) {
  if (requests.gpus > 0) {
    return static_cast<double>(requests.gpus);
  }
  if (requests.gpu_milli > 0) {
    return static_cast<double>(requests.gpu_milli) / 1000.0;
  }
  return mig_request(requests) ? 1.0 / 7.0 : 0.0;
}

// The faults that hit one pod of `gpus` GPUs, per second: its cards' errors and its node's
// failures (Poisson rates 1 / mtbf).
double fault_rate(const FaultsConfig& faults, double gpus) {
  if (!faults.enabled) {
    return 0;
  }
  double rate = 0;
  if (faults.card_errors) {
    rate += std::max(1.0, std::ceil(gpus)) /
            std::max(1.0, to_seconds(TimePoint(faults.card_errors->mtbf)));
  }
  if (faults.node_failures) {
    rate += 1.0 / std::max(1.0, to_seconds(TimePoint(faults.node_failures->mtbf)));
  }
  return rate;
}

// The time a job of run time `seconds` takes under faults at `rate` per second when each fault
// sends it back to its last checkpoint (every `every`; none: to its start): each stretch between
// checkpoints of length c takes (e^(rate c) - 1) / rate on average. At most `cap`.
double with_faults(double seconds, double rate, Duration every, double cap) {
  if (rate <= 0 || seconds <= 0) {
    return std::min(seconds, cap);
  }
  const double stretch =
      every > Duration::zero() ? std::min(seconds, to_seconds(TimePoint(every))) : seconds;
  const double exponent = rate * stretch;
  if (exponent > 50) {
    return cap;  // it hardly ever gets past a stretch
  }
  return std::min(cap, seconds / stretch * std::expm1(exponent) / rate);
}

// The workload as the estimate sees it: sums over its jobs (expected counts for a mix).
struct WorkloadSums {
  const FaultsConfig* faults = nullptr;
  double jobs = 0;
  double pods = 0;
  double gpu_seconds = 0;  // each job's GPUs x its run time (uncontended)
  double run_seconds = 0;  // each job's run time
  double checkpoints = 0;  // each job's run time / its checkpoint interval
  double longest = 0;      // the longest run time, seconds
  double first_submit = 0;
  double last_submit = 0;

  // Under the faults, if any: the time a job of `job_pods` pods of `gpus_per_pod` GPUs and run
  // time `seconds` takes (at most `cap`); a fault on any of its pods interrupts it.
  double stretched(double seconds, double job_pods, double gpus_per_pod, Duration every,
                   double cap) const {
    return faults != nullptr
               ? with_faults(seconds, job_pods * fault_rate(*faults, gpus_per_pod), every, cap)
               : std::min(seconds, cap);
  }

  // `n` jobs of `job_pods` pods of `gpus_per_pod` GPUs each, running `seconds` on average and
  // `longest` at most (both at most `cap`), with a checkpoint every `every`, submitted from
  // `first` to `last` seconds.
  void add(double n, double job_pods, double gpus_per_pod, double seconds, double longest_run,
           double cap, Duration every, double first, double last) {
    if (n <= 0) {
      return;
    }
    seconds = stretched(seconds, job_pods, gpus_per_pod, every, cap);
    longest = std::max(longest, stretched(longest_run, job_pods, gpus_per_pod, every, cap));
    first_submit = jobs > 0 ? std::min(first_submit, first) : first;
    last_submit = jobs > 0 ? std::max(last_submit, last) : last;
    jobs += n;
    pods += n * job_pods;
    gpu_seconds += n * job_pods * gpus_per_pod * seconds;
    run_seconds += n * seconds;
    if (every > Duration::zero()) {
      checkpoints += n * seconds / to_seconds(TimePoint(every));
    }
  }
};

// A job's run time at its uncontended speed on `gpu` (what make_jobs converts a duration with);
// a measured job's on its GPUs packed into nodes of `node_gpus`, as the job controller reckons
// it; the horizon when it cannot be known (no profile of its model there).
double run_seconds(const workloads::JobSpec& job, const workloads::Catalogue& catalogue,
                   const std::string& gpu, double horizon, int node_gpus) {
  if (job.duration) {
    return to_seconds(TimePoint(*job.duration));
  }
  const double steps = static_cast<double>(job.steps);
  if (job.measured) {
    return workloads::uncontended_seconds(job, catalogue, gpu, node_gpus);
  }
  try {
    const workloads::ModelProfile p = workloads::job_profile(job, catalogue, gpu);
    workloads::StepConditions c;
    const auto& r = job.pod_template.requests;
    c.compute_share =
        r.gpus == 0 && r.gpu_milli > 0 ? static_cast<double>(r.gpu_milli) / 1000.0 : 1.0;
    c.gpus = static_cast<int>(std::max<std::int64_t>(1, workloads::job_gpus(job)));
    return steps * workloads::job_step_time(job, p, c).seconds;
  } catch (const std::exception&) {
    return horizon;
  }
}

// The workload's sums, on the scenario's reference GPU ("" when no node has GPUs).
WorkloadSums sum_workload(const Scenario& scenario, int node_gpus) {
  const workloads::WorkloadSpec& spec = scenario.workload;
  const double horizon = to_seconds(TimePoint(scenario.run.until));
  const std::string gpu = default_reference_gpu(scenario);
  WorkloadSums w;
  w.faults = &scenario.faults;
  if (spec.pollux) {
    const workloads::Catalogue catalogue = workloads::catalogue_of(spec);
    // A generated workload: the first seed's draw stands for every seed's (the same size).
    RandomStream rng(scenario.seeds.empty() ? 1 : scenario.seeds.front(), "workload");
    for (const auto& job : workloads::pollux_jobs(*spec.pollux, rng)) {
      const double submit = to_seconds(job.submit_time);
      const double seconds = run_seconds(job, catalogue, gpu, horizon, node_gpus);
      w.add(1, std::max(1, job.replicas), pod_gpus(job.pod_template.requests), seconds, seconds,
            horizon, job.checkpoint_interval, submit, submit);
    }
  } else if (spec.gavel) {
    // A generated workload: the first seed's draw stands for every seed's (as above).
    for (const auto& job :
         workloads::gavel_jobs(*spec.gavel, scenario.seeds.empty() ? 1 : scenario.seeds.front())) {
      const double submit = to_seconds(job.submit_time);
      const double seconds = job.measured->step_seconds({}) * static_cast<double>(job.steps);
      w.add(1, std::max(1, job.replicas), 1, seconds, seconds, horizon, job.checkpoint_interval,
            submit, submit);
    }
  } else if (spec.trace) {
    const workloads::TraceSource& source = *spec.trace;
    const workloads::Trace trace = workloads::read_trace(source.file, source.format);
    std::vector<const workloads::TraceRecord*> kept;
    for (const auto& r : trace.records) {
      if (r.scheduled || source.include_unscheduled) {
        kept.push_back(&r);
      }
    }
    if (source.limit > 0 && static_cast<std::int64_t>(kept.size()) > source.limit) {
      // The rows replayed: the earliest (make_jobs).
      std::stable_sort(kept.begin(), kept.end(),
                       [](const auto* a, const auto* b) { return a->submit < b->submit; });
      kept.resize(static_cast<std::size_t>(source.limit));
    }
    const double default_seconds =
        source.default_duration ? to_seconds(TimePoint(*source.default_duration)) : horizon;
    for (const auto* r : kept) {
      const double submit = to_seconds(TimePoint(r->submit)) * source.time_scale;
      const double seconds = r->duration ? to_seconds(TimePoint(*r->duration)) : default_seconds;
      const double gpus = r->gpus_per_pod > 0 ? r->gpus_per_pod : r->gpu_milli / 1000.0;
      w.add(1, r->pods, gpus, seconds, seconds, horizon, source.checkpoint_interval, submit,
            submit);
    }
  } else if (spec.arrivals) {
    const workloads::ArrivalSpec& a = *spec.arrivals;
    const double first = to_seconds(TimePoint(a.start));
    // Poisson and diurnal arrivals come at the base rate on average.
    const double last = a.process == workloads::ArrivalSpec::Process::kBurst
                            ? first
                            : first + a.count * to_seconds(TimePoint(a.mean_interarrival));
    double weights = 0;
    for (const auto& m : spec.mix) {
      weights += m.weight;
    }
    const workloads::Catalogue catalogue = workloads::catalogue_of(spec);
    for (const auto& m : spec.mix) {
      const double n = weights > 0 ? a.count * m.weight / weights : 0;
      double job_pods = std::max(1, m.job.replicas);
      const double per_pod = std::max<std::int64_t>(1, m.job.pod_template.requests.gpus);
      if (m.gpus) {
        job_pods =
            std::ceil(std::min(mean_of(*m.gpus), static_cast<double>(largest(*m.gpus))) / per_pod);
      }
      double seconds = 0;
      double longest = 0;
      if (m.duration_seconds) {
        seconds = mean_of(*m.duration_seconds);
        longest = longest_of(*m.duration_seconds, n);
      } else {
        workloads::JobSpec job = m.job;
        job.replicas = static_cast<int>(std::min<double>(job_pods, workloads::kMaxJobGpus));
        seconds = run_seconds(job, catalogue, gpu, horizon, node_gpus);
        longest = seconds;
      }
      w.add(n, std::max(1.0, job_pods), pod_gpus(m.job.pod_template.requests), seconds, longest,
            horizon, m.job.checkpoint_interval, first, last);
    }
  }
  return w;
}

std::string with_commas(std::int64_t v) {
  std::string digits = std::to_string(v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

std::string gib(std::int64_t bytes) {
  if (bytes < (1LL << 20)) {
    return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  }
  if (bytes < (1LL << 30)) {
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / static_cast<double>(1LL << 20));
  }
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(1LL << 30));
}

// A double count as an int64, saturating.
std::int64_t count(double v) {
  if (!(v > 0)) {
    return 0;
  }
  return v >= 9e18 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(v);
}

// Events of the faults: section over `seconds`: a card error is one event, a node failure two
// (down and up), a scheduled fault one or two; each interrupts about one job, which restarts
// (an event) with new pods (kEventsPerPod each).
std::int64_t fault_events(const FaultsConfig& faults, const RunEstimate& e, double seconds,
                          double pods_per_job) {
  if (!faults.enabled) {
    return 0;
  }
  double events = 0;
  if (faults.card_errors) {
    // Draws are held to at least 1 s.
    const double mtbf = std::max(1.0, to_seconds(TimePoint(faults.card_errors->mtbf)));
    events += static_cast<double>(e.cards) * seconds / mtbf;
  }
  if (faults.node_failures) {
    const double cycle = std::max(1.0, to_seconds(TimePoint(faults.node_failures->mtbf)) +
                                           to_seconds(TimePoint(faults.node_failures->repair)));
    events += 2.0 * static_cast<double>(e.nodes) * seconds / cycle;
  }
  events += 2.0 * static_cast<double>(faults.scheduled.size());
  return count(events * (2.0 + kEventsPerPod * pods_per_job));
}

// The work of a policy's allocation searches over the run, in events: one search per interval
// while jobs are in the system, each over the jobs in it on average (their run times plus the
// backlog's waits, `waiting_pod_seconds`, over the span of the run) on every node.
std::int64_t search_events(const RunPlan& plan, const RunEstimate& e, const WorkloadSums& w,
                           double end, double waiting_pod_seconds) {
  if (plan.search_interval <= Duration::zero() || w.jobs <= 0) {
    return 0;
  }
  const double span = std::max(1.0, end - w.first_submit);
  const double pods_per_job = std::max(1.0, w.pods / w.jobs);
  const double in_system = (w.run_seconds + waiting_pod_seconds / pods_per_job) / span;
  const double jobs = std::clamp(in_system, 1.0, w.jobs);
  const double rounds = std::floor(span / to_seconds(TimePoint(plan.search_interval))) + 1;
  return count(rounds * pollux_search_events(plan.search, jobs, static_cast<double>(e.nodes)));
}

}  // namespace

void plan_search(RunPlan& plan, const PolicyConfig& policy) {
  const auto& a = policy.admission;
  if (!a || a->policy != "pollux" || a->interval <= Duration::zero()) {
    return;
  }
  const PolluxSearchConfig search = PolluxPolicy::search_config(*a);
  const auto rate = [](const PolluxSearchConfig& c, Duration every) {
    return static_cast<double>(c.population) * c.generations / to_seconds(TimePoint(every));
  };
  if (plan.search_interval <= Duration::zero() ||
      rate(search, a->interval) > rate(plan.search, plan.search_interval)) {
    plan.search = search;
    plan.search_interval = a->interval;
  }
}

RunEstimate estimate_run(const Scenario& scenario, const RunPlan& plan) {
  RunEstimate e;
  int node_gpus = 1;
  {
    FluidSolver fluid;
    const Cluster cluster(scenario, fluid);
    for (const auto& n : cluster.nodes()) {
      ++e.nodes;
      e.cards += n.gpus ? n.gpus->card_count() : 0;
      node_gpus = std::max(node_gpus, n.gpus ? n.gpus->card_count() : 0);
    }
  }
  const Duration horizon = scenario.run.until;
  const double until = to_seconds(TimePoint(horizon));
  const WorkloadSums w = sum_workload(scenario, node_gpus);
  e.jobs = count(std::ceil(w.jobs));
  e.pods = count(std::ceil(w.pods));
  // The run ends when its last job ends (or at run.until): after the last arrival, or after the
  // cluster has done the whole work from the first arrival on, whichever is later, plus the
  // longest run time (the last job to start may be the longest).
  const double cards = static_cast<double>(e.cards);
  const double drain = w.gpu_seconds <= 0 ? 0 : cards > 0 ? w.gpu_seconds / cards : until;
  const double end = std::min(until, std::max(w.last_submit, w.first_submit + drain) + w.longest);
  e.end = std::min(horizon, from_seconds(std::ceil(end)));  // whole seconds, to print
  e.samples = saturating_add(e.end / scenario.run.sample_interval, 1);
  e.checkpoints = count(w.checkpoints);
  const bool telemetry = plan.telemetry || scenario.prediction.enabled ||
                         (scenario.descheduler.enabled && scenario.descheduler.reads_metrics());
  if (telemetry) {
    // A round of agent samples visits every node (one event each, as the run counts them).
    e.telemetry = saturating_add(
        saturating_mul(saturating_add(e.nodes, 1),
                       saturating_add(e.end / scenario.telemetry.sample_interval, 1)),
        saturating_add(e.end / scenario.telemetry.scrape_interval, 1));
  }
  const double pods_per_job = w.jobs > 0 ? w.pods / w.jobs : 0;
  e.faults = fault_events(scenario.faults, e, end, pods_per_job);
  // Scheduling retries. The pods that cannot start when they arrive wait: all but what the
  // cluster runs over the arrivals (cards x (arrival span + the mean run time) GPU-seconds, of
  // the whole work). While they wait, every cluster event (a pod's end, a fault) sends each of
  // them through a cycle again, and so does the unschedulable timeout; but the loop runs at most
  // one cycle per cycle_time, over the time the backlog lasts (the drain time). Jobs held by an
  // admission controller wait outside the loop.
  const double mean_run = w.jobs > 0 ? w.run_seconds / w.jobs : 0;
  const double served =
      w.gpu_seconds > 0 ? cards * (w.last_submit - w.first_submit + mean_run) / w.gpu_seconds : 1;
  const double waiting = w.pods * std::max(0.0, 1.0 - served);
  const double backlog = std::min(end - w.first_submit, drain);
  e.searches = search_events(plan, e, w, end, waiting * kBacklogShare * backlog);
  if (waiting > 0 && !plan.admission) {
    const double timeout = to_seconds(TimePoint(policies::QueueOptions{}.unschedulable_timeout));
    const double cluster_events = w.pods + static_cast<double>(e.faults);
    double retries = kBacklogShare * waiting * (cluster_events + backlog / timeout);
    if (scenario.run.cycle_time > Duration::zero()) {
      retries = std::min(retries, backlog / to_seconds(TimePoint(scenario.run.cycle_time)));
    }
    e.retries = count(retries);
  }
  // Events of one run: a submission per job, kEventsPerPod per pod, each sample (which visits
  // every node: counted as one event per node), checkpoints, telemetry, retries and faults.
  e.events = saturating_add(e.jobs, saturating_mul(kEventsPerPod, e.pods));
  e.events = saturating_add(e.events, saturating_mul(e.samples, saturating_add(1, e.nodes)));
  e.events = saturating_add(e.events, e.checkpoints);
  e.events = saturating_add(e.events, e.telemetry);
  e.events = saturating_add(e.events, e.retries);
  e.events = saturating_add(e.events, e.faults);
  e.events = saturating_add(e.events, e.searches);
  // Memory of the process: every seed's job list (built up front), every run's state and
  // records, and the series of the first seed of each policy when they are written.
  const std::int64_t runs = saturating_mul(plan.seeds, plan.policies);
  e.memory_bytes = saturating_mul(saturating_mul(plan.seeds, e.jobs), kJobListBytesPerJob);
  e.memory_bytes =
      saturating_add(e.memory_bytes, saturating_mul(saturating_mul(runs, e.jobs), kRunBytesPerJob));
  // What faults add: each run keeps the records of every fault and of the restart it causes.
  e.memory_bytes = saturating_add(
      e.memory_bytes, saturating_mul(saturating_mul(runs, e.faults), kRunBytesPerFaultEvent));
  if (plan.series) {
    const std::int64_t per_sample = saturating_add(saturating_mul(e.nodes, kSeriesBytesPerNode),
                                                   saturating_mul(e.cards, kSeriesBytesPerCard));
    e.memory_bytes = saturating_add(
        e.memory_bytes, saturating_mul(saturating_mul(plan.policies, e.samples), per_sample));
  }
  return e;
}

std::string budget_problem(const RunEstimate& e, const RunBudget& budget) {
  const bool events = e.events > budget.events;
  const bool memory = e.memory_bytes > budget.memory_bytes;
  if (!events && !memory) {
    return "";
  }
  std::string out = "the run is estimated at ";
  if (events && e.fill) {
    out += fmt::format(
        "{} node evaluations per run ({} pods arriving x {} nodes: each arrival filters every "
        "node), over the budget of {} events (--max-events)",
        with_commas(e.events), with_commas(e.pods), with_commas(e.nodes),
        with_commas(budget.events));
  } else if (events) {
    out += fmt::format(
        "{} events per run ({} jobs, {} pods, {} samples x {} nodes to {}, {} checkpoints, {} "
        "telemetry events, {} scheduling retries, {} fault events{}), over the budget of {} "
        "(--max-events)",
        with_commas(e.events), with_commas(e.jobs), with_commas(e.pods), with_commas(e.samples),
        with_commas(e.nodes), format_duration(e.end), with_commas(e.checkpoints),
        with_commas(e.telemetry), with_commas(e.retries), with_commas(e.faults),
        e.searches > 0 ? ", " + with_commas(e.searches) + " in allocation searches" : "",
        with_commas(budget.events));
  }
  if (memory) {
    out += fmt::format("{}{} of memory, over the budget of {} (--max-memory)",
                       events ? "; and " : "", gib(e.memory_bytes), gib(budget.memory_bytes));
  }
  return out + "; --force runs it anyway";
}

std::string event_limit_problem(const RunBudget& budget, const std::string& run,
                                std::uint64_t counted, Duration at, const RunEstimate& estimate) {
  return fmt::format(
      "--max-events {} reached: {} passed {} events at simulated time {} (estimated {} events); "
      "raise --max-events to let it finish",
      with_commas(budget.events), run,
      with_commas(static_cast<std::int64_t>(std::min<std::uint64_t>(
          counted, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))),
      format_duration(std::chrono::floor<std::chrono::seconds>(at)), with_commas(estimate.events));
}

void enforce_budget(const RunEstimate& estimate, const RunBudget& budget, bool force,
                    const std::string& path, std::ostream& warnings) {
  const std::string problem = budget_problem(estimate, budget);
  if (problem.empty()) {
    return;
  }
  if (!force) {
    throw InputError(SourceLocation{path, 0, 0}, "", problem);
  }
  warnings << "tidesim: warning: " << path << ": " << problem << "\n";
}

}  // namespace tidesim
