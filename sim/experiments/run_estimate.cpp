#include "tidesim/sim/experiments/run_estimate.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

// The largest value a distribution of GPU counts can draw.
std::int64_t largest(const workloads::Distribution& d) {
  using Kind = workloads::Distribution::Kind;
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

// Periodic events of a job over the horizon: one per checkpoint interval.
std::int64_t per_job_checkpoints(Duration horizon, Duration every) {
  return every > Duration::zero() ? horizon / every : 0;
}

std::string with_commas(std::int64_t v) {
  std::string digits = std::to_string(v);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) {
    digits.insert(static_cast<std::size_t>(i), ",");
  }
  return digits;
}

std::string gib(std::int64_t bytes) {
  if (bytes < (1LL << 30)) {
    return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / static_cast<double>(1LL << 20));
  }
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(1LL << 30));
}

}  // namespace

RunEstimate estimate_run(const Scenario& scenario, const RunPlan& plan) {
  RunEstimate e;
  {
    FluidSolver fluid;
    const Cluster cluster(scenario, fluid);
    for (const auto& n : cluster.nodes()) {
      ++e.nodes;
      e.cards += n.gpus ? n.gpus->card_count() : 0;
    }
  }
  const Duration horizon = scenario.run.until;
  e.samples = horizon / scenario.run.sample_interval;
  const workloads::WorkloadSpec& spec = scenario.workload;
  if (spec.trace) {
    const workloads::Trace trace = workloads::read_trace(spec.trace->file, spec.trace->format);
    for (const auto& r : trace.records) {
      if (spec.trace->limit > 0 && e.jobs >= spec.trace->limit) {
        break;  // an upper bound: the rows kept are the earliest, not the first
      }
      if (r.scheduled || spec.trace->include_unscheduled) {
        ++e.jobs;
        e.pods = saturating_add(e.pods, r.pods);
      }
    }
    e.checkpoints =
        saturating_mul(e.jobs, per_job_checkpoints(horizon, spec.trace->checkpoint_interval));
  } else if (spec.arrivals) {
    // Every job at the largest size and the most frequent checkpoints of the mix.
    e.jobs = spec.arrivals->count;
    std::int64_t pods_per_job = 1;
    std::int64_t checkpoints_per_job = 0;
    for (const auto& m : spec.mix) {
      std::int64_t pods = m.job.replicas;
      if (m.gpus) {
        const std::int64_t per_pod = std::max<std::int64_t>(1, m.job.pod_template.requests.gpus);
        pods = (largest(*m.gpus) + per_pod - 1) / per_pod;
      }
      pods_per_job = std::max(pods_per_job, pods);
      checkpoints_per_job =
          std::max(checkpoints_per_job, per_job_checkpoints(horizon, m.job.checkpoint_interval));
    }
    e.pods = saturating_mul(e.jobs, pods_per_job);
    e.checkpoints = saturating_mul(e.jobs, checkpoints_per_job);
  }
  if (plan.telemetry) {
    e.telemetry =
        saturating_add(saturating_mul(e.nodes, horizon / scenario.telemetry.sample_interval),
                       horizon / scenario.telemetry.scrape_interval);
  }
  // Events of one run: a submission per job, kEventsPerPod per pod, each sample (which visits
  // every node: counted as one event per node), checkpoints and telemetry.
  e.events = saturating_add(e.jobs, saturating_mul(kEventsPerPod, e.pods));
  e.events = saturating_add(e.events, saturating_mul(e.samples, saturating_add(1, e.nodes)));
  e.events = saturating_add(e.events, e.checkpoints);
  e.events = saturating_add(e.events, e.telemetry);
  // Memory of the process: every seed's job list (built up front), every run's state and
  // records, and the series of the first seed of each policy when they are written.
  const std::int64_t runs = saturating_mul(plan.seeds, plan.policies);
  e.memory_bytes = saturating_mul(saturating_mul(plan.seeds, e.jobs), kJobListBytesPerJob);
  e.memory_bytes =
      saturating_add(e.memory_bytes, saturating_mul(saturating_mul(runs, e.jobs), kRunBytesPerJob));
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
        "{} events per run ({} jobs, {} pods, {} samples x {} nodes, {} checkpoints, {} "
        "telemetry events), over the budget of {} (--max-events)",
        with_commas(e.events), with_commas(e.jobs), with_commas(e.pods), with_commas(e.samples),
        with_commas(e.nodes), with_commas(e.checkpoints), with_commas(e.telemetry),
        with_commas(budget.events));
  }
  if (memory) {
    out += fmt::format("{}{} of memory, over the budget of {} (--max-memory)",
                       events ? "; and " : "", gib(e.memory_bytes), gib(budget.memory_bytes));
  }
  return out + "; --force runs it anyway";
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
