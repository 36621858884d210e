#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/policies/loaded_profile.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <fmt/core.h>

#include "tidesim/policies/scheduler.hpp"
#include "tidesim/policies/scheduling_loop.hpp"
#include "tidesim/sim/api/pod_traits.hpp"
#include "tidesim/sim/engine/checked.hpp"
#include "tidesim/sim/engine/fluid.hpp"
#include "tidesim/sim/engine/simulation.hpp"
#include "tidesim/sim/experiments/fit_warnings.hpp"
#include "tidesim/sim/experiments/replay.hpp"
#include "tidesim/sim/input/error.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/model/admission_controller.hpp"
#include "tidesim/sim/model/cluster.hpp"
#include "tidesim/sim/model/descheduler.hpp"
#include "tidesim/sim/model/execution.hpp"
#include "tidesim/sim/model/fault_injector.hpp"
#include "tidesim/sim/model/gang_failures.hpp"
#include "tidesim/sim/model/job_controller.hpp"
#include "tidesim/sim/model/load_forecast.hpp"
#include "tidesim/sim/model/observation.hpp"
#include "tidesim/sim/model/reference_speed.hpp"
#include "tidesim/sim/model/run_context.hpp"
#include "tidesim/sim/model/telemetry_pipeline.hpp"
#include "tidesim/topologies/mig.hpp"
#include "tidesim/topologies/presets.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/memory.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

// The GPU model whose uncontended speed converts traced run times to steps: the first node
// group that has one ("" when no node has GPUs).
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
        cluster_(scenario, fluid_, seed),
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
             {},
             default_reference_gpu(scenario)},
        controller_(
            ctx_,
            [this](std::shared_ptr<const PodSpec> pod) {
              if (admission_) {
                admission_->enqueue(std::move(pod));
              } else {
                loop_->add(std::move(pod));
              }
            },
            [this](const std::set<int>& nodes) { loop_->on_cluster_event(nodes); },
            [this] { sim_.stop(); }),
        execution_(ctx_, controller_),
        observer_(ctx_) {
    controller_.set_execution(execution_);
    auto scheduler = policies::make_scheduler(policy.loaded(), seed);
    if (scheduler->wants_workload()) {
      show_workload(*scheduler, workload);
    }
    // Telemetry only when read: a profile whose plugins never read node metrics sees none, so
    // nothing samples agents or scrapes for it, unless the scenario scores load predictors
    // (which read what Prometheus scraped).
    const PredictionConfig& prediction = scenario.prediction;
    if (scheduler->reads_metrics() || prediction.enabled ||
        (scenario.descheduler.enabled && scenario.descheduler.reads_metrics())) {
      std::vector<std::string> names;
      for (const auto& n : cluster_.nodes()) {
        names.push_back(n.name);
      }
      telemetry_ = std::make_unique<TelemetryPipeline>(
          sim_, scenario.telemetry, names,
          [this](int node, NodeMetrics& m, std::uint64_t& revision) {
            sim_.charge(1);  // one agent sample: an event of work (RunSummary::counted_events)
            return observer_.agent_sample(node, m, revision);
          });
    }
    if (prediction.enabled) {
      telemetry_->keep_history(
          static_cast<std::size_t>(prediction.window / scenario.telemetry.scrape_interval));
      forecaster_ = std::make_unique<LoadForecaster>(ctx_, prediction, *telemetry_);
      telemetry_->set_forecaster([this, &prediction](int node, TimePoint now) {
        return forecaster_->predict(node, prediction.model, now, now + prediction.horizon);
      });
    }
    loop_ = std::make_unique<policies::SchedulingLoop>(sim_, std::move(scheduler), cluster_.view(),
                                                       *this, scenario.run.cycle_time,
                                                       telemetry_.get(), &signals.scheduling);
    loop_->enable_preemption(scenario.run.preemption);
    loop_->set_gang_capacity_gate(scenario.run.gang_capacity_gate);
    loop_->set_queueing_hints(scenario.run.queueing_hints);
    if (telemetry_ && loop_->scheduler().reads_metrics()) {
      // Every scrape is a metrics event: new samples (or newer ones of the same readings, which
      // stop the load-aware plugins from estimating the pods bound before them) may admit a pod
      // a metrics-reading plugin rejected (docs/policies.md, "Metrics events").
      telemetry_->set_on_scrape([this] { loop_->on_metrics_event(); });
    }
    controller_.set_on_new_pods([this](int j) { declare_pod_group(j); });
    if (policy.admission) {
      admission_ = std::make_unique<Admission>(
          ctx_, controller_, *policy.admission, seed,
          [this](std::shared_ptr<const PodSpec> pod) { loop_->add(std::move(pod)); });
      controller_.set_on_ended([this](int j) { admission_->on_ended(j); });
    }
    if (scenario.faults.enabled) {
      // A node back is an event on that node alone (NodeUnschedulable's Node/UpdateNodeTaint
      // event): precise hints test it as a deletion there (docs/policies.md, "Queueing hints").
      faults_ = std::make_unique<FaultInjector>(
          ctx_, controller_, scenario.faults, seed,
          [this](int n) { loop_->on_cluster_event(std::set<int>{n}); });
    }
    gang_ = make_gang_failures(ctx_, controller_, execution_, faults_.get(), scenario.faults.gang,
                               seed);
    if (gang_ && admission_) {
      recovery_ = std::make_unique<LayerRecovery>(*admission_);
      gang_->set_recovery(recovery_.get());
    }
    if (scenario.descheduler.enabled) {
      descheduler_ =
          std::make_unique<Descheduler>(ctx_, controller_, scenario.descheduler, telemetry_.get());
    }
  }

  void set_interrupt(const std::atomic<bool>* flag) { sim_.set_interrupt(flag); }

  // Plugins that want the workload (FGD's typical pods) see every pod of every job; the copies
  // are made only for them. They see what each pod is, too: its job's name, kind and model as
  // labels.
  void show_workload(policies::Scheduler& scheduler, const Workload& workload) {
    std::vector<PodSpec> pods;
    for (const auto& j : workload.jobs) {
      for (int k = 0; k < std::max(1, j.replicas); ++k) {
        pods.push_back(j.pod_template);
      }
      if (j.leader) {
        pods.push_back(*j.leader);
      }
    }
    scheduler.observe_workload(pods);
    controller_.set_job_labels(true);
  }

  /// Explains the first cycle whose pod `want` accepts into `out`, and stops the run there.
  void explain(std::function<bool(const PodSpec&)> want, std::optional<ExplainedCycle>& out) {
    loop_->set_inspector(
        std::move(want), [this, &out](const PodSpec& pod, const policies::ScheduleResult& r) {
          out = ExplainedCycle{sim_.now(), pod, r, std::string(loop_->scheduler().name())};
          sim_.stop();
        });
  }
  TimePoint now() const { return sim_.now(); }
  const ClusterView& view() const { return cluster_.view(); }
  void set_event_meter(std::atomic<std::uint64_t>* meter) { sim_.set_event_meter(meter); }
  void set_event_limit(std::uint64_t limit) { sim_.set_event_limit(limit); }

  RunSummary execute() {
    for (std::size_t i = 0; i < ctx_.jobs.size(); ++i) {
      sim_.schedule_at(ctx_.jobs[i].spec->submit_time,
                       [this, i] { controller_.submit(static_cast<int>(i)); });
    }
    if (telemetry_) {
      telemetry_->start();
    }
    if (faults_) {
      faults_->start();
    }
    if (gang_) {
      gang_->start();
    }
    if (descheduler_) {
      descheduler_->start();
    }
    // The snapshot's running pods (cluster.snapshot) that end: their capacity is freed then, a
    // pod deletion the scheduler hears of as any other.
    for (const Cluster::HeldPod& held : cluster_.snapshot_pods()) {
      if (held.pod->runs_for) {
        sim_.schedule_at(TimePoint(*held.pod->runs_for), [this, held] {
          cluster_.unbind(held.node, held.process, held.pod->pod->name);
          loop_->on_cluster_event(std::set<int>{held.node});
        });
      }
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
    s.over_limit = sim_.over_limit();
    execution_.close_books();
    if (gang_) {
      gang_->close_all();
    }
    ctx_.signals.sample.emit(observer_.cluster_sample(static_cast<int>(loop_->pending())));
    s.events = sim_.dispatched();
    s.counted_events = sim_.counted();
    s.jobs = static_cast<int>(ctx_.jobs.size());
    for (const auto& j : ctx_.jobs) {
      s.succeeded += j.phase == JobPhase::kSucceeded;
      s.failed += j.phase == JobPhase::kFailed;
      s.never_started += !j.ever_started;
    }
    s.unfinished = s.jobs - s.succeeded - s.failed;
    if (admission_) {
      admission_->add_metrics(s.policy_metrics);
    }
    return s;
  }

  // ---- policies::BindTarget ----

  bool pod_alive(const PodSpec& pod) const override { return ctx_.live_pods.contains(&pod); }

  bool bind(const PodSpec& spec, int n, std::span<const int> cards) override {
    if (!reserve(spec, n, cards)) {
      return false;
    }
    allow(spec);
    return true;
  }

  bool reserve(const PodSpec& spec, int n, std::span<const int> chosen) override {
    if (faults_ && faults_->down(n)) {
      return false;  // failed or drained since the scheduler read the view
    }
    const int p = ctx_.pod_by_spec.at(&spec);
    Pod& pod = ctx_.pods[static_cast<std::size_t>(p)];
    const std::uint64_t process = ++next_process_;
    const auto cards = cluster_.bind(n, process, pod.spec, sim_.now(),
                                     std::vector<int>(chosen.begin(), chosen.end()));
    if (!cards) {
      return false;
    }
    pod.process = process;
    pod.cards = *cards;
    pod.node = n;
    ctx_.pod_by_process[process] = p;
    return true;
  }

  void allow(const PodSpec& spec) override { controller_.on_bound(ctx_.pod_by_spec.at(&spec)); }

  void unreserve(const PodSpec& spec) override {
    Pod& pod = ctx_.pods[static_cast<std::size_t>(ctx_.pod_by_spec.at(&spec))];
    if (pod.node < 0) {
      return;  // already released: its job was interrupted (a failure) while it waited
    }
    cluster_.unbind(pod.node, pod.process, pod.spec->name);
    ctx_.pod_by_process.erase(pod.process);
    pod.node = -1;
    pod.cards.clear();
  }

  // The victims are deleted now with their grace period: their containers stop when it ends,
  // and each victim's job is interrupted then (once, whichever of its pods is named).
  void preempt(const PodSpec& /*preemptor*/, int /*node*/,
               const std::vector<std::shared_ptr<const PodSpec>>& victims) override {
    for (const auto& v : victims) {
      const auto it = ctx_.pod_by_spec.find(v.get());
      if (it == ctx_.pod_by_spec.end()) {
        continue;
      }
      const int p = it->second;
      sim_.schedule_in(ctx_.scenario.run.termination_grace_period, [this, p] {
        const Pod& pod = ctx_.pods[static_cast<std::size_t>(p)];
        if (pod.alive) {
          controller_.interrupt(pod.job, InterruptCause::kPreemption);
        }
      });
    }
  }

 private:
  // Job j's PodGroup, declared to the loop before each attempt's pods are created.
  void declare_pod_group(int j) {
    const workloads::JobSpec& spec = *ctx_.jobs[static_cast<std::size_t>(j)].spec;
    if (!spec.gang) {
      return;
    }
    policies::PodGroup g;
    g.name = spec.name;
    g.mode = spec.gang->mode == workloads::GangMode::kPermit
                 ? policies::PodGroup::Mode::kPermit
                 : policies::PodGroup::Mode::kAllOrNothing;
    // Every pod by default: the workers and a leader (JobSpec::leader; all or none of both
    // PodSets).
    g.min_member =
        spec.gang->min_member > 0 ? spec.gang->min_member : spec.replicas + (spec.leader ? 1 : 0);
    if (const auto& p = spec.gang->partition_policy;
        spec.gang->min_member == 0 && p && p->min_partitions > 0) {
      // Volcano's job controller: minPartitions x partitionSize (getMinTaskMember).
      g.min_member = std::min(spec.replicas, p->min_partitions * p->partition_size);
    }
    g.schedule_timeout = spec.gang->schedule_timeout;
    g.topology_key = spec.gang->topology_key;
    if (spec.gang->min_resources) {
      g.min_gpus =
          saturating_mul(static_cast<std::int64_t>(g.min_member), spec.pod_template.requests.gpus);
    }
    loop_->add_pod_group(g);
  }

  void sample() {
    // A sample visits every node: one event of work per node (RunSummary::counted_events).
    sim_.charge(cluster_.nodes().size());
    ctx_.signals.sample.emit(observer_.cluster_sample(static_cast<int>(loop_->pending())));
    forecast();
    sim_.schedule_in(ctx_.scenario.run.sample_interval, [this] { sample(); });
  }

  // The scored predictors' forecasts for now + horizon, a sample instant (docs/prediction.md).
  void forecast() {
    const PredictionConfig& prediction = ctx_.scenario.prediction;
    if (!forecaster_ || prediction.evaluate.empty()) {
      return;
    }
    LoadForecastBatch batch;
    batch.made_at = sim_.now();
    batch.target = sim_.now() + prediction.horizon;
    const int nodes = static_cast<int>(cluster_.nodes().size());
    for (const ForecastModel model : prediction.evaluate) {
      batch.predictors.emplace_back(to_string(model));
      auto& row = batch.nodes.emplace_back();
      row.reserve(static_cast<std::size_t>(nodes));
      for (int n = 0; n < nodes; ++n) {
        row.push_back(forecaster_->predict(n, model, batch.made_at, batch.target));
      }
    }
    ctx_.signals.forecast.emit(batch);
  }

  Simulation sim_;
  FluidSolver fluid_;
  Cluster cluster_;
  RunContext ctx_;
  JobController controller_;
  Execution execution_;
  Observer observer_;
  std::unique_ptr<TelemetryPipeline> telemetry_;
  std::unique_ptr<LoadForecaster> forecaster_;
  std::unique_ptr<policies::SchedulingLoop> loop_;
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<GangFailures> gang_;
  std::unique_ptr<Admission> admission_;
  std::unique_ptr<LayerRecovery> recovery_;  // the gang failure path's questions to admission_
  std::unique_ptr<Descheduler> descheduler_;
  std::uint64_t next_process_ = 0;
};

}  // namespace

Workload make_jobs(const Scenario& scenario, std::uint64_t seed) {
  const workloads::WorkloadSpec& spec = scenario.workload;
  RandomStream rng(seed, "workload");
  workloads::SpeedReference speed;
  speed.gpu = default_reference_gpu(scenario);
  ReferenceSpeed reference(scenario);
  speed.placement = [&reference](const workloads::JobSpec& job, const std::string& gpu) {
    return reference.conditions(job, gpu);
  };
  Workload w{workloads::catalogue_of(spec), workloads::generate_jobs(spec, rng, speed, seed)};
  // Each job's step on its reference placement, the step-slowdown metric's reference: kept by
  // the conversion of a run time; for a job given in steps, one computation per shape of job.
  std::map<std::tuple<std::string, std::string, int, std::string, int, std::int64_t, std::int64_t,
                      const void*>,
           double>
      steps;
  for (workloads::JobSpec& job : w.jobs) {
    if (job.reference_step_seconds > 0 || job.measured) {
      continue;
    }
    const std::string gpu = workloads::reference_gpu_of(job, speed.gpu);
    if (gpu.empty()) {
      continue;
    }
    const auto& r = job.pod_template.requests;
    const auto key = std::make_tuple(gpu, job.model, job.batch_size, job.precision, job.replicas,
                                     r.gpus, r.gpu_milli, static_cast<const void*>(job.llm.get()));
    auto it = steps.find(key);
    if (it == steps.end()) {
      double step = 0.0;
      try {
        step = workloads::reference_step_seconds(job, w.catalogue, speed);
      } catch (const InputError&) {
        // A job the run itself refuses (a batch its model does not take): no reference.
      }
      it = steps.emplace(key, step).first;
    }
    job.reference_step_seconds = it->second;
  }
  return w;
}

namespace {

// A scheduled card error names a card the node has.
void check_fault_cards(const Scenario& scenario, const Cluster& cluster) {
  for (std::size_t i = 0; i < scenario.faults.scheduled.size(); ++i) {
    const ScheduledFault& f = scenario.faults.scheduled[i];
    const ClusterNode& node = cluster.node(f.node);
    const int cards = node.gpus ? node.gpus->card_count() : 0;
    if (f.kind == ScheduledFault::Kind::kCardError && f.card >= cards) {
      throw InputError(f.where, fmt::format("faults.scheduled[{}].card", i),
                       fmt::format("node '{}' has {} card(s), numbered from 0", node.name, cards));
    }
  }
}

// A policy that reads forecasts needs the prediction: section.
void check_forecast_policies(const Scenario& scenario) {
  for (const auto& p : scenario.policies) {
    if (p.loaded().reads_forecasts && !scenario.prediction.enabled) {
      // Without forecasts a predictLoad plugin would judge the last sample: a silent default.
      throw InputError(
          SourceLocation{scenario.path, 0, 0}, "policies",
          "policy '" + p.name +
              "' judges predicted load (predictLoad: true), which needs the scenario's "
              "prediction: section (docs/prediction.md)");
    }
  }
}

// MIG: the device plugin gives a pod one GPU instance (docs/model-hardware.md, "MIG"). A pod
// asking for more would pass the scheduler's count and then fail at bind on every retry, so it
// is refused here: more than one nvidia.com/mig-<profile>, or more than one nvidia.com/gpu in a
// cluster with a `strategy: single` group (whose instances are nvidia.com/gpu).
void check_mig_requests(const Scenario& scenario, const Workload& w, const SourceLocation& where) {
  const auto single = std::find_if(scenario.cluster.groups.begin(), scenario.cluster.groups.end(),
                                   [](const NodeGroup& g) { return g.mig_single; });
  for (const auto& job : w.jobs) {
    const Resources& req = job.pod_template.requests;
    if (const auto profile = mig_request(req)) {
      const std::int64_t n = req.extended.at(std::string(kMigResourcePrefix) + *profile);
      if (n > 1) {
        throw InputError(where, "workload",
                         fmt::format("job '{}' asks for {} {}{} per pod; a pod takes at most one "
                                     "MIG instance (docs/model-hardware.md, \"MIG\")",
                                     job.name, n, kMigResourcePrefix, *profile));
      }
    }
    if (single != scenario.cluster.groups.end() && req.gpus > 1) {
      throw InputError(where, "workload",
                       fmt::format("job '{}' asks for {} nvidia.com/gpu per pod, but group '{}' "
                                   "advertises MIG instances as nvidia.com/gpu (strategy: single) "
                                   "and a pod takes at most one instance",
                                   job.name, req.gpus, single->name));
    }
  }
}

// The GPU models of the cluster (the reference GPU that converts run times is one of them), each
// with the largest card it has here.
std::map<std::string, std::int64_t> card_memory_of(const Cluster& cluster) {
  std::map<std::string, std::int64_t> card_memory;
  for (const auto& n : cluster.nodes()) {
    if (!n.group->gpu_model.empty()) {
      auto& m = card_memory[n.group->gpu_model];
      m = std::max(m, n.card_memory);
    }
  }
  return card_memory;
}

// A warning when `job` holds (or peaks at) more memory than any card of `card_memory` it may run
// on: its attempts would be OOM-killed; nothing when it fits.
std::optional<std::string> memory_warning(const workloads::JobSpec& job,
                                          const workloads::Catalogue& catalogue,
                                          const std::map<std::string, std::int64_t>& card_memory,
                                          const SourceLocation& where) {
  // Over the cards of every GPU model it may run on: its least steady and peak memory.
  bool steady_fits = card_memory.empty();
  bool peak_fits = card_memory.empty();
  std::int64_t least_steady = 0;
  std::int64_t least_peak = 0;
  for (const auto& [gpu, memory] : card_memory) {
    try {
      const auto profile = workloads::job_profile(job, catalogue, gpu);
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
  const std::string what =
      fmt::format("job '{}' ({} {} batch {})", job.name, job.model, job.precision, job.batch_size);
  if (wants_gpu && !steady_fits) {
    return fmt::format(
        "{}: a worker holds {:.1f} GiB after its ramp-up, more than any card it can run on; "
        "every attempt will be OOM-killed",
        what, static_cast<double>(least_steady) / kGiB);
  }
  if (wants_gpu && !peak_fits) {
    return fmt::format(
        "{}: a worker peaks at {:.1f} GiB during evaluation, more than any card it can run "
        "on; an attempt that reaches its first peak will be OOM-killed",
        what, static_cast<double>(least_peak) / kGiB);
  }
  return std::nullopt;
}

// A warning when jobs are submitted after run.until: the run ends before they arrive, so they are
// in no result (neither run nor censored), like arrivals after the end of an observation window.
std::optional<std::string> after_horizon_warning(const Scenario& scenario, const Workload& w) {
  const TimePoint until(scenario.run.until);
  std::size_t late = 0;
  const workloads::JobSpec* first = nullptr;
  for (const auto& job : w.jobs) {
    if (job.submit_time > until) {
      ++late;
      if (first == nullptr || job.submit_time < first->submit_time) {
        first = &job;
      }
    }
  }
  if (first == nullptr) {
    return std::nullopt;
  }
  return fmt::format(
      "{} of {} jobs are submitted after run.until ({}), the first '{}' at {}; the run ends "
      "before they arrive, so no result counts them (raise run.until to include them)",
      late, w.jobs.size(), format_duration(scenario.run.until), first->name,
      format_duration(first->submit_time.time_since_epoch()));
}

}  // namespace

std::vector<std::string> check_scenario(const Scenario& scenario, const Workload& w) {
  FluidSolver fluid;
  const Cluster cluster(scenario, fluid);
  check_fault_cards(scenario, cluster);
  check_forecast_policies(scenario);
  const std::map<std::string, std::int64_t> card_memory = card_memory_of(cluster);
  const SourceLocation& where = scenario.workload.where;
  check_mig_requests(scenario, w, where);
  std::vector<std::string> warnings = scenario.cluster.warnings;
  std::set<std::pair<std::string, std::string>> presets;  // (preset, GPU) pairs already judged
  for (const auto& g : scenario.cluster.groups) {
    if (!presets.emplace(g.topology, g.gpu_model).second) {
      continue;
    }
    if (auto warning = preset_gpu_warning(g.name, g.topology, g.gpu_model)) {
      warnings.push_back(std::move(*warning));
    }
  }
  for (auto& warning : fit_warnings(w.jobs, cluster.view())) {
    warnings.push_back(std::move(warning));
  }
  std::set<std::tuple<std::string, int, std::string>> checked;
  for (const auto& job : w.jobs) {
    if (!checked.emplace(job.model, job.batch_size, job.precision).second) {
      continue;
    }
    if (auto warning = memory_warning(job, w.catalogue, card_memory, where)) {
      warnings.push_back(std::move(*warning));
    }
  }
  if (auto warning = after_horizon_warning(scenario, w)) {
    warnings.push_back(std::move(*warning));
  }
  return warnings;
}

RunSummary run_policy(const Scenario& scenario, const Workload& workload,
                      const PolicyConfig& policy, std::uint64_t seed, RunSignals& signals,
                      const std::atomic<bool>* interrupt, std::atomic<std::uint64_t>* events,
                      std::uint64_t max_events) {
  Run run(scenario, workload, policy, seed, signals);
  run.set_interrupt(interrupt);
  run.set_event_meter(events);
  run.set_event_limit(max_events);
  return run.execute();
}

std::optional<ExplainedCycle> explain_cycle(const Scenario& scenario, const Workload& workload,
                                            const PolicyConfig& policy, std::uint64_t seed,
                                            TimePoint at, const std::string& pod) {
  std::optional<ExplainedCycle> out;
  if (pod.empty()) {
    RunSignals signals;
    Run run(scenario, workload, policy, seed, signals);
    run.explain([&run, at](const PodSpec&) { return run.now() >= at; }, out);
    run.execute();
    return out;
  }
  // The pod's cycles up to `at` (one SchedulingEvent each), in a run stopped just after `at`...
  std::uint64_t cycles = 0;
  {
    Scenario until = scenario;
    until.run.until = std::min(until.run.until, at.time_since_epoch() + Duration(1));
    RunSignals signals;
    signals.scheduling.connect([&](const SchedulingEvent& e) {
      if (e.pod == pod && e.at <= at) {
        ++cycles;
      }
    });
    Run run(until, workload, policy, seed, signals);
    run.execute();
  }
  if (cycles == 0) {
    return std::nullopt;
  }
  // ... then the last of them, in the same run again.
  RunSignals signals;
  std::uint64_t seen = 0;
  signals.scheduling.connect([&](const SchedulingEvent& e) {
    if (e.pod == pod) {
      ++seen;
    }
  });
  Run run(scenario, workload, policy, seed, signals);
  run.explain([&](const PodSpec& p) { return p.name == pod && seen + 1 == cycles; }, out);
  run.execute();
  return out;
}

void replay_observed(const Scenario& scenario, const Workload& workload, const PolicyConfig& policy,
                     std::uint64_t seed, TimePoint until,
                     const std::function<void(RunSignals&, const ClusterView&)>& attach) {
  Scenario stopped = scenario;
  stopped.run.until = std::min(stopped.run.until, until.time_since_epoch() + Duration(1));
  RunSignals signals;
  Run run(stopped, workload, policy, seed, signals);
  attach(signals, run.view());
  run.execute();
}

}  // namespace tidesim
