#include "sim/run.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "policies/scheduler.hpp"
#include "policies/scheduling_loop.hpp"
#include "sim/api/pod_traits.hpp"
#include "sim/cluster.hpp"
#include "sim/engine/error.hpp"
#include "sim/engine/fluid.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/engine/yaml_fields.hpp"
#include "sim/execution.hpp"
#include "sim/job_controller.hpp"
#include "sim/observation.hpp"
#include "sim/run_context.hpp"
#include "sim/telemetry_pipeline.hpp"
#include "workloads/memory.hpp"
#include "workloads/workload_spec.hpp"

namespace tidesim {
namespace {

// The GPU model whose uncontended speed converts traced run times to steps: the first node
// group that has one ("" when no node has GPUs).
std::string reference_gpu(const Scenario& scenario) {
  for (const auto& g : scenario.cluster.groups) {
    if (!g.gpu_model.empty()) {
      return g.gpu_model;
    }
  }
  return "";
}

std::vector<Job> job_states(const Workload& workload) {
  std::vector<Job> jobs;
  jobs.reserve(workload.jobs.size());
  for (const auto& spec : workload.jobs) {
    Job j;
    j.spec = &spec;
    j.nvlink = needs_nvlink(spec.pod_template, NvlinkRule{});
    jobs.push_back(std::move(j));
  }
  return jobs;
}

class Run final : public policies::BindTarget {
 public:
  Run(const Scenario& scenario, const Workload& workload, const PolicyConfig& policy,
      std::uint64_t seed, RunSignals& signals)
      : sim_(seed),
        cluster_(scenario, fluid_),
        ctx_{scenario,
             workload.catalogue,
             signals,
             sim_,
             fluid_,
             cluster_,
             job_states(workload),
             {},
             {},
             {},
             reference_gpu(scenario)},
        controller_(
            ctx_, [this](std::shared_ptr<const PodSpec> pod) { loop_->add(std::move(pod)); },
            [this] { loop_->on_cluster_event(); }, [this] { sim_.stop(); }),
        execution_(ctx_, controller_),
        observer_(ctx_) {
    controller_.set_execution(execution_);
    auto scheduler = policies::make_scheduler(policy.scheduler, seed);
    {  // plugins that want the workload (FGD's typical pods) see every pod of every job
      std::vector<PodSpec> pods;
      for (const auto& j : workload.jobs) {
        for (int k = 0; k < std::max(1, j.replicas); ++k) {
          pods.push_back(j.pod_template);
        }
      }
      scheduler->observe_workload(pods);
    }
    // Telemetry only when read: a profile whose plugins never read node metrics sees none, so
    // nothing samples agents or scrapes for it.
    if (scheduler->reads_metrics()) {
      std::vector<std::string> names;
      for (const auto& n : cluster_.nodes()) {
        names.push_back(n.name);
      }
      telemetry_ = std::make_unique<TelemetryPipeline>(
          sim_, scenario.telemetry, names,
          [this](int node) { return observer_.agent_sample(node); });
    }
    loop_ = std::make_unique<policies::SchedulingLoop>(sim_, std::move(scheduler), cluster_.view(),
                                                       *this, scenario.run.cycle_time,
                                                       telemetry_.get(), &signals.scheduling);
  }

  void set_interrupt(const std::atomic<bool>* flag) { sim_.set_interrupt(flag); }
  void set_event_meter(std::atomic<std::uint64_t>* meter) { sim_.set_event_meter(meter); }

  RunSummary execute() {
    for (std::size_t i = 0; i < ctx_.jobs.size(); ++i) {
      sim_.schedule_at(ctx_.jobs[i].spec->submit_time,
                       [this, i] { controller_.submit(static_cast<int>(i)); });
    }
    if (telemetry_) {
      telemetry_->start();
    }
    sim_.schedule_in(Duration::zero(), [this] { sample(); });
    if (ctx_.jobs.empty()) {
      sim_.stop();
    }
    sim_.run(TimePoint(ctx_.scenario.run.until));
    if (telemetry_) {
      telemetry_->stop();
    }
    // Close the books: bring running jobs' progress and rates to the end time.
    RunSummary s;
    s.end = sim_.now();
    s.interrupted = sim_.interrupted();
    execution_.close_books();
    ctx_.signals.sample.emit(observer_.cluster_sample(static_cast<int>(loop_->pending())));
    s.events = sim_.dispatched();
    s.jobs = static_cast<int>(ctx_.jobs.size());
    for (const auto& j : ctx_.jobs) {
      s.succeeded += j.phase == JobPhase::kSucceeded;
      s.failed += j.phase == JobPhase::kFailed;
      s.never_started += !j.ever_started;
    }
    s.unfinished = s.jobs - s.succeeded - s.failed;
    return s;
  }

  // ---- policies::BindTarget ----

  bool pod_alive(const PodSpec& pod) const override {
    const auto it = ctx_.pod_by_spec.find(&pod);
    return it != ctx_.pod_by_spec.end() && ctx_.pods[static_cast<std::size_t>(it->second)].alive;
  }

  bool bind(const PodSpec& spec, int n) override {
    const int p = ctx_.pod_by_spec.at(&spec);
    Pod& pod = ctx_.pods[static_cast<std::size_t>(p)];
    const std::uint64_t process = ++next_process_;
    const policies::CardHint* hint = loop_->scheduler().card_hint(spec.name, n);
    const auto cards =
        cluster_.bind(n, process, pod.spec, sim_.now(), hint ? hint->cards : std::vector<int>{});
    if (!cards) {
      return false;
    }
    pod.process = process;
    pod.cards = *cards;
    pod.node = n;
    ctx_.pod_by_process[process] = p;
    controller_.on_bound(p);
    return true;
  }

 private:
  void sample() {
    ctx_.signals.sample.emit(observer_.cluster_sample(static_cast<int>(loop_->pending())));
    sim_.schedule_in(ctx_.scenario.run.sample_interval, [this] { sample(); });
  }

  Simulation sim_;
  FluidSolver fluid_;
  Cluster cluster_;
  RunContext ctx_;
  JobController controller_;
  Execution execution_;
  Observer observer_;
  std::unique_ptr<TelemetryPipeline> telemetry_;
  std::unique_ptr<policies::SchedulingLoop> loop_;
  std::uint64_t next_process_ = 0;
};

}  // namespace

Workload make_jobs(const Scenario& scenario, std::uint64_t seed) {
  const workloads::WorkloadSpec spec =
      workloads::parse_workload(scenario.workload, scenario.path, scenario.folder);
  RandomStream rng(seed, "workload");
  workloads::SpeedReference speed;
  speed.gpu = reference_gpu(scenario);
  Workload w{workloads::catalogue_of(spec), workloads::generate_jobs(spec, rng, speed)};
  return w;
}

std::vector<std::string> check_scenario(const Scenario& scenario, const Workload& w) {
  FluidSolver fluid;
  const Cluster cluster(scenario, fluid);
  for (const auto& p : scenario.policies) {
    (void)policies::make_scheduler(p.scheduler, 1);
  }
  // The GPU models of the cluster (the reference GPU that converts run times is one of them),
  // each with the largest card it has here.
  std::map<std::string, std::int64_t> card_memory;
  for (const auto& n : cluster.nodes()) {
    if (!n.group->gpu_model.empty()) {
      auto& m = card_memory[n.group->gpu_model];
      m = std::max(m, n.card_memory);
    }
  }
  std::vector<std::string> warnings;
  std::set<std::tuple<std::string, int, std::string>> checked;
  const SourceLocation where = location_of(scenario.workload, scenario.path);
  for (const auto& job : w.jobs) {
    if (!checked.emplace(job.model, job.batch_size, job.precision).second) {
      continue;
    }
    // Over the cards of every GPU model it may run on: its least steady and peak memory.
    bool steady_fits = card_memory.empty();
    bool peak_fits = card_memory.empty();
    std::int64_t least_steady = 0;
    std::int64_t least_peak = 0;
    for (const auto& [gpu, memory] : card_memory) {
      try {
        const auto profile = w.catalogue.profile(job.model, job.batch_size, job.precision, gpu);
        const std::int64_t steady = profile.steady_bytes();
        const std::int64_t peak = workloads::peak_memory(profile);
        steady_fits = steady_fits || steady <= memory;
        peak_fits = peak_fits || peak <= memory;
        least_steady = least_steady == 0 ? steady : std::min(least_steady, steady);
        least_peak = least_peak == 0 ? peak : std::min(least_peak, peak);
      } catch (const InputError& e) {
        throw InputError(where, "workload",
                         fmt::format("job '{}' on {}: {}", job.name, gpu, e.message()));
      }
    }
    const bool wants_gpu =
        job.pod_template.requests.gpus > 0 || job.pod_template.requests.gpu_milli > 0;
    constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
    const std::string what = fmt::format("job '{}' ({} {} batch {})", job.name, job.model,
                                         job.precision, job.batch_size);
    if (wants_gpu && !steady_fits) {
      warnings.push_back(fmt::format(
          "{}: a worker holds {:.1f} GiB after its ramp-up, more than any card it can run on; "
          "every attempt will be OOM-killed",
          what, static_cast<double>(least_steady) / kGiB));
    } else if (wants_gpu && !peak_fits) {
      warnings.push_back(fmt::format(
          "{}: a worker peaks at {:.1f} GiB during evaluation, more than any card it can run "
          "on; an attempt that reaches its first peak will be OOM-killed",
          what, static_cast<double>(least_peak) / kGiB));
    }
  }
  return warnings;
}

RunSummary run_policy(const Scenario& scenario, const Workload& workload,
                      const PolicyConfig& policy, std::uint64_t seed, RunSignals& signals,
                      const std::atomic<bool>* interrupt, std::atomic<std::uint64_t>* events) {
  Run run(scenario, workload, policy, seed, signals);
  run.set_interrupt(interrupt);
  run.set_event_meter(events);
  return run.execute();
}

}  // namespace tidesim
