#include "tidesim/sim/model/job_controller.hpp"

#include <fmt/core.h>

#include <algorithm>

#include "tidesim/policies/framework.hpp"
#include "tidesim/sim/model/node_order.hpp"
#include "tidesim/workloads/gavel_jobs.hpp"
#include "tidesim/workloads/lifecycle.hpp"
#include "tidesim/workloads/llm_job.hpp"
#include "tidesim/workloads/uncontended_time.hpp"

namespace tidesim {

JobController::JobController(RunContext& run,
                             std::function<void(std::shared_ptr<const PodSpec>)> enqueue,
                             std::function<void(const std::set<int>&)> cluster_event,
                             std::function<void()> all_done)
    : run_(run),
      enqueue_(std::move(enqueue)),
      cluster_event_(std::move(cluster_event)),
      all_done_(std::move(all_done)),
      unfinished_(static_cast<int>(run.jobs.size())),
      restore_(run.jobs.size(), Duration::zero()) {
  if (const auto& w = run_.scenario.run.job_window) {
    const long last = std::min(w->second, static_cast<long>(run_.jobs.size()) - 1);
    window_left_ = std::max(0L, last - w->first + 1);
    in_window_.assign(run_.jobs.size(), false);
  }
  for (const NodeInfo& n : run_.cluster.view().nodes) {
    node_gpus_ = std::max(node_gpus_, static_cast<int>(n.node.allocatable.gpus));
  }
}

namespace {

// What the outputs say a job is.
JobFacts job_facts(const workloads::JobSpec& spec) {
  JobFacts f;
  f.job_class = spec.job_class;
  f.kind = spec.llm ? "llm" : spec.elastic ? "elastic" : spec.measured ? "measured" : "catalogue";
  f.model = spec.llm ? spec.llm->model.name : spec.model;
  f.batch_size = spec.llm ? static_cast<int>(spec.llm->execution.microbatch_size) : spec.batch_size;
  f.stated_seconds = spec.duration ? to_seconds(*spec.duration) : 0.0;
  f.steps = spec.steps;
  if (spec.measured) {
    f.deadline_s = workloads::gavel_slo_seconds(*spec.measured).value_or(0.0);
  }
  return f;
}

}  // namespace

void JobController::submit(int j) {
  if (const auto& w = run_.scenario.run.job_window) {
    const long n = submitted_++;
    in_window_[static_cast<std::size_t>(j)] = n >= w->first && n <= w->second;
  }
  run_.set_phase(j, JobPhase::kPending);
  JobEvent e = run_.event(JobEventKind::kSubmitted, j);
  // Alone, a job still waits its pods' start-up once (finish-time fairness' isolated time
  // includes it, as Shockwave's and Gavel's do).
  const double work = workloads::uncontended_seconds(
      *run_.jobs[static_cast<std::size_t>(j)].spec, run_.catalogue, run_.reference_gpu, node_gpus_);
  e.uncontended_seconds = work > 0.0 ? work + to_seconds(run_.scenario.run.pod_startup) : 0.0;
  const JobFacts facts = job_facts(*run_.jobs[static_cast<std::size_t>(j)].spec);
  e.facts = &facts;
  run_.signals.job.emit(e);
  create_pods(j);
}

void JobController::create_pods(int j) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  job.pods.clear();
  job.bound = 0;
  if (on_new_pods_) {
    on_new_pods_(j);
  }
  // The workers, then a leader's pod (JobSpec::leader) as the job's last pod.
  const int pods = job.spec->replicas + (job.spec->leader ? 1 : 0);
  for (int r = 0; r < pods; ++r) {
    job.pods.push_back(make_pod(j, r, job.spec->gang.has_value()));
  }
  for (const int p : job.pods) {
    enqueue_(run_.pods[static_cast<std::size_t>(p)].spec);
  }
}

int JobController::make_pod(int j, int r, bool group_label) {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  Pod p;
  const bool leader = job.spec->leader && r == job.spec->replicas;
  auto spec = std::make_shared<PodSpec>(leader ? *job.spec->leader : job.spec->pod_template);
  spec->name = leader ? fmt::format("{}-leader-{}", job.spec->name, job.attempt)
                      : fmt::format("{}-{}-{}", job.spec->name, r, job.attempt);
  if (group_label) {
    spec->labels[policies::kPodGroupLabel] = job.spec->name;
  }
  if (job_labels_) {
    const JobFacts facts = job_facts(*job.spec);
    spec->labels["tidesim.io/job"] = job.spec->name;
    spec->labels["tidesim.io/job-kind"] = facts.kind;
    spec->labels["tidesim.io/model"] = facts.model;
  }
  if (spec->requests.gpu_milli > 0 && spec->requests.gpu_milli < 1000) {
    spec->requests.extended[kGpuMilliResource] = spec->requests.gpu_milli;
  }
  p.spec = spec;
  p.job = j;
  const int index = static_cast<int>(run_.pods.size());
  run_.pod_by_spec[spec.get()] = index;
  run_.live_pods.insert(spec.get());
  run_.pods.push_back(std::move(p));
  return index;
}

void JobController::on_bound(int p) {
  const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
  const int j = pod.job;
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  ++job.bound;
  JobEvent e = run_.event(JobEventKind::kBound, j);
  e.pod = pod.spec->name;
  e.node = run_.cluster.node(pod.node).name;
  e.cards = pod.cards;
  run_.signals.job.emit(e);
  if (job.bound == static_cast<int>(job.pods.size())) {
    const int attempt = job.attempt;
    const Duration restore = restore_[static_cast<std::size_t>(j)];
    run_.sim.schedule_in(run_.scenario.run.pod_startup + restore, [this, j, attempt] {
      const Job& again = run_.jobs[static_cast<std::size_t>(j)];
      if (again.attempt == attempt && again.phase == JobPhase::kPending) {
        restore_[static_cast<std::size_t>(j)] = Duration::zero();
        execution_->start(j);
      }
    });
  }
}

void JobController::on_finished(int j) {
  // A replayed job its trace ends as failed or cancelled ends so once its traced run is done.
  const workloads::TraceEndState traced =
      run_.jobs[static_cast<std::size_t>(j)].spec->trace_end_state;
  const bool failed = workloads::ends_failed(traced);
  run_.set_phase(j, failed ? JobPhase::kFailed : JobPhase::kSucceeded);
  JobEvent e = run_.event(failed ? JobEventKind::kFailed : JobEventKind::kSucceeded, j);
  if (failed) {
    e.cause = workloads::to_string(traced);
  }
  run_.signals.job.emit(e);
  delete_pods(j, execution_->stop(j, false));
  if (on_ended_) {
    on_ended_(j);
  }
  terminal(j);
}

const char* to_string(InterruptCause cause) {
  switch (cause) {
    case InterruptCause::kPreemption:
      return "preemption";
    case InterruptCause::kNodeFailure:
      return "node-failure";
    case InterruptCause::kCardFailure:
      return "card-failure";
    case InterruptCause::kDrain:
      return "drain";
    case InterruptCause::kMigration:
      return "migration";
    case InterruptCause::kSuspension:
      return "suspension";
    case InterruptCause::kResize:
      return "resize";
  }
  return "unknown";
}

void JobController::on_oom(int j) {
  end_attempt(j, true);
}

void JobController::delay_next_start(int j, Duration delay) {
  Duration& restore = restore_[static_cast<std::size_t>(j)];
  restore = std::max(restore, delay);
}

void JobController::interrupt(int j, InterruptCause cause, Duration restore) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase == JobPhase::kWaiting || job.phase == JobPhase::kBackoff ||
      job.phase == JobPhase::kSucceeded || job.phase == JobPhase::kFailed) {
    return;
  }
  restore_[static_cast<std::size_t>(j)] = std::max(restore_[static_cast<std::size_t>(j)], restore);
  // What the attempt loses: the steps since the last checkpoint and the GPU time they took.
  const bool running = job.phase == JobPhase::kRunning;
  const TimePoint since = running ? std::max(job.started, job.checkpointed_at) : run_.sim.now();
  const double lost_gpu_seconds = to_seconds(run_.sim.now() - since) * total_gpus(job);
  bool first = true;
  for (const int p : job.pods) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (pod.node < 0) {
      continue;
    }
    JobEvent e = run_.event(JobEventKind::kEvicted, j);
    e.pod = pod.spec->name;
    e.node = run_.cluster.node(pod.node).name;
    e.cause = to_string(cause);
    if (first) {  // the job's loss, once
      e.lost_gpu_seconds = lost_gpu_seconds;
      first = false;
    }
    run_.signals.job.emit(e);
  }
  end_attempt(j, false);
}

void JobController::replace_pods(int j, const std::vector<PodReplacement>& pods,
                                 InterruptCause cause, Duration restore) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  if (job.phase != JobPhase::kRunning || pods.empty()) {
    return;
  }
  const double lost_gpu_seconds =
      to_seconds(run_.sim.now() - std::max(job.started, job.checkpointed_at)) * total_gpus(job);
  for (std::size_t i = 0; i < pods.size(); ++i) {
    const Pod& pod =
        run_.pods[static_cast<std::size_t>(job.pods[static_cast<std::size_t>(pods[i].k)])];
    JobEvent e = run_.event(JobEventKind::kEvicted, j);
    e.pod = pod.spec->name;
    e.node = run_.cluster.node(pod.node).name;
    e.cause = to_string(cause);
    e.lost_gpu_seconds = i == 0 ? lost_gpu_seconds : 0.0;  // the job's loss, once
    run_.signals.job.emit(e);
  }
  std::vector<int> touched = execution_->stop(j, true);
  std::set<int> freed;
  for (const PodReplacement& r : pods) {
    Pod& pod = run_.pods[static_cast<std::size_t>(job.pods[static_cast<std::size_t>(r.k)])];
    freed.insert(pod.node);
    pod.alive = false;
    run_.live_pods.erase(pod.spec.get());
    run_.cluster.unbind(pod.node, pod.process, pod.spec->name);
    run_.pod_by_process.erase(pod.process);
    pod.node = -1;
  }
  touched.insert(touched.end(), freed.begin(), freed.end());
  sort_distinct_nodes(touched, static_cast<int>(run_.cluster.nodes().size()));
  execution_->refresh(touched);
  ++job.attempt;
  run_.set_phase(j, JobPhase::kPending);
  run_.signals.job.emit(run_.event(JobEventKind::kRestarted, j));
  restore_[static_cast<std::size_t>(j)] = restore;
  std::vector<std::shared_ptr<const PodSpec>> queued;
  for (const PodReplacement& r : pods) {
    const int fresh = make_pod(j, r.k, false);
    std::shared_ptr<PodSpec>& spec = run_.pods[static_cast<std::size_t>(fresh)].spec;
    if (!r.node.empty()) {
      // A required node affinity on the node's name, ANDed with the template's own terms (as
      // the admission layer's placement hint).
      std::vector<NodeSelectorTerm>& terms = spec->node_affinity.required;
      if (terms.empty()) {
        terms.emplace_back();
      }
      for (NodeSelectorTerm& t : terms) {
        t.match_fields.push_back(SelectorRequirement{"metadata.name", "In", {r.node}});
      }
    }
    job.pods[static_cast<std::size_t>(r.k)] = fresh;
    queued.push_back(spec);
  }
  job.bound = static_cast<int>(job.pods.size() - pods.size());
  cluster_event_(freed);
  for (const auto& spec : queued) {
    enqueue_(spec);
  }
}

void JobController::restart_in_place(int j, Duration delay) {
  if (run_.jobs[static_cast<std::size_t>(j)].phase != JobPhase::kRunning) {
    return;
  }
  execution_->refresh(execution_->stop(j, true));
  restart_after(j, JobPhase::kCrashLoop, delay, [this, j] { execution_->start(j); });
}

void JobController::suspend(int j) {
  if (run_.jobs[static_cast<std::size_t>(j)].spec->elastic) {
    execution_->checkpoint_now(j);
  }
  interrupt(j, InterruptCause::kSuspension);
}

void JobController::resize(int j, int replicas, int batch_size) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  const workloads::JobSpec& spec = *job.spec;
  if (!spec.elastic || job.phase == JobPhase::kWaiting || job.phase == JobPhase::kSucceeded ||
      job.phase == JobPhase::kFailed) {
    throw std::logic_error("job '" + spec.name + "' cannot be resized now");
  }
  execution_->checkpoint_now(j);
  interrupt(j, InterruptCause::kResize);
  auto resized = std::make_shared<workloads::JobSpec>(spec);
  resized->replicas = replicas;
  resized->measured = spec.elastic->speed(replicas, batch_size);
  job.resized = std::move(resized);
  job.spec = job.resized.get();  // the next attempt's pods (created after this instant)
}

void JobController::change_speed(int j, const SpeedChange& change) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  execution_->progress(j);  // brought to now at the old speed
  auto changed = std::make_shared<workloads::JobSpec>(*job.spec);
  changed->measured = change.speed;
  changed->steps = change.steps;
  if (change.elastic) {
    changed->elastic = change.elastic;
  }
  job.resized = std::move(changed);
  job.spec = job.resized.get();
  execution_->set_work(j, change.done);
}

void JobController::end_attempt(int j, bool counted) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  const Duration ran = run_.sim.now() - job.started;
  std::vector<int> touched = execution_->stop(j, true);
  if (counted) {
    ++job.failures;
  }
  if (counted && workloads::backoff_exhausted(job.failures, job.spec->backoff_limit)) {
    fail(j);
    delete_pods(j, std::move(touched));
    if (on_ended_) {
      on_ended_(j);
    }
    terminal(j);
    return;
  }
  if (counted && job.spec->restart_policy == workloads::RestartPolicy::kOnFailure) {
    // The kubelet restarts the containers in place; their cards stay allocated.
    execution_->refresh(touched);
    job.crash_restarts = ran >= workloads::kCrashLoopResetAfter ? 1 : job.crash_restarts + 1;
    restart_after(j, JobPhase::kCrashLoop, workloads::crash_loop_delay(job.crash_restarts),
                  [this, j] { execution_->start(j); });
    return;
  }
  // Never (or an interruption): the pods are deleted now; the controller replaces them after
  // its back-off, at once for an interruption.
  delete_pods(j, std::move(touched));
  restart_after(j, JobPhase::kBackoff,
                counted ? workloads::backoff_delay(job.failures) : Duration::zero(),
                [this, j] { create_pods(j); });
}

void JobController::restart_after(int j, JobPhase waiting, Duration delay,
                                  std::function<void()> restart) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  run_.set_phase(j, waiting);
  const int attempt = job.attempt;
  run_.sim.schedule_in(delay, [this, j, attempt, waiting, restart = std::move(restart)] {
    Job& again = run_.jobs[static_cast<std::size_t>(j)];
    if (again.attempt != attempt || again.phase != waiting) {
      return;
    }
    ++again.attempt;
    run_.set_phase(j, JobPhase::kPending);
    run_.signals.job.emit(run_.event(JobEventKind::kRestarted, j));
    restart();
  });
}

void JobController::fail(int j) {
  run_.set_phase(j, JobPhase::kFailed);
  run_.signals.job.emit(run_.event(JobEventKind::kFailed, j));
}

void JobController::delete_pods(int j, std::vector<int> touched) {
  Job& job = run_.jobs[static_cast<std::size_t>(j)];
  std::set<int> unbound;  // the nodes whose view changed
  for (const int p : job.pods) {
    Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    pod.alive = false;
    run_.live_pods.erase(pod.spec.get());
    if (pod.node < 0) {
      continue;
    }
    run_.cluster.unbind(pod.node, pod.process, pod.spec->name);
    run_.pod_by_process.erase(pod.process);
    touched.push_back(pod.node);
    unbound.insert(pod.node);
    pod.node = -1;
  }
  sort_distinct_nodes(touched, static_cast<int>(run_.cluster.nodes().size()));
  execution_->refresh(touched);
  cluster_event_(unbound);
}

void JobController::terminal(int j) {
  const bool window_done =
      !in_window_.empty() && in_window_[static_cast<std::size_t>(j)] && --window_left_ == 0;
  if (--unfinished_ == 0 || window_done) {
    all_done_();
  }
}

}  // namespace tidesim
