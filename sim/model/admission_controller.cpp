#include "tidesim/sim/model/admission_controller.hpp"

#include <algorithm>
#include <cmath>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim {
namespace {

// The label and the preferred pod affinity of Tiresias' consolidated placement.
constexpr const char* kJobLabel = "tidesim.io/job";
constexpr std::int32_t kConsolidateWeight = 100;  // the largest weight Kubernetes allows

// A job's uncontended run time: its measured step time on the fewest nodes (nodes of
// `node_gpus` GPUs filled in turn), its traced run time, or the catalogue's step time on the
// reference GPU without contention. 0 when none applies (a CPU-only job without a run time).
double known_seconds(const RunContext& run, const workloads::JobSpec& spec, int node_gpus) {
  const auto steps = static_cast<double>(spec.steps);
  const int gpus = static_cast<int>(workloads::job_gpus(spec));
  if (spec.measured) {
    std::vector<int> placement;
    for (int left = std::max(1, gpus); left > 0; left -= node_gpus) {
      placement.push_back(std::min(left, std::max(1, node_gpus)));
    }
    return steps * spec.measured->step_seconds(placement);
  }
  if (spec.duration) {
    return to_seconds(*spec.duration);
  }
  if (run.reference_gpu.empty()) {
    return 0.0;
  }
  const auto profile =
      run.catalogue.profile(spec.model, spec.batch_size, spec.precision, run.reference_gpu);
  workloads::StepConditions c;
  c.gpus = std::max(1, gpus);
  return steps * workloads::step_time(profile, c).seconds;
}

}  // namespace

Admission::Admission(RunContext& run, JobController& controller, AdmissionConfig config,
                     std::uint64_t seed,
                     std::function<void(std::shared_ptr<const PodSpec>)> release)
    : run_(run), controller_(controller), config_(std::move(config)), release_(std::move(release)) {
  int node_gpus = 1;
  for (const NodeInfo& n : run_.cluster.view().nodes) {
    capacity_ += n.node.allocatable.gpus;
    node_gpus = std::max(node_gpus, static_cast<int>(n.node.allocatable.gpus));
  }
  entries_.resize(run_.jobs.size());
  estimate_.resize(run_.jobs.size());
  RandomStream rng(seed, "duration-estimate");
  for (std::size_t j = 0; j < run_.jobs.size(); ++j) {
    const workloads::JobSpec& spec = *run_.jobs[j].spec;
    double s = known_seconds(run_, spec, node_gpus);
    if (config_.estimate_sigma > 0) {
      s *= std::exp(rng.normal(0.0, config_.estimate_sigma));  // one draw per job, in job order
    }
    estimate_[j] = s;
    entries_[j].job.id = static_cast<int>(j);
    entries_[j].job.gpus = static_cast<int>(workloads::job_gpus(spec));
    entries_[j].job.estimate_s = s;
  }
  if (config_.quotas) {
    // Each job's LocalQueue (the kueue.x-k8s.io/queue-name label) -> its ClusterQueue.
    const QuotaConfig& q = *config_.quotas;
    queue_usage_.assign(q.cluster_queues.size(), 0);
    for (std::size_t j = 0; j < run_.jobs.size(); ++j) {
      const workloads::JobSpec& spec = *run_.jobs[j].spec;
      const auto label = spec.pod_template.labels.find(kQueueNameLabel);
      if (label == spec.pod_template.labels.end()) {
        continue;  // as Kueue's manageJobsWithoutQueueName: false, no quota applies
      }
      const auto it = q.local_queues.find(label->second);
      if (it == q.local_queues.end()) {
        throw InputError(q.where, q.path + ".local_queues",
                         "job '" + spec.name + "' names queue '" + label->second + "' (label " +
                             kQueueNameLabel + "), which no local queue declares");
      }
      entries_[j].queue = it->second;
      entries_[j].requests = quota_requests(q, spec);
      entries_[j].priority = spec.pod_template.priority;
    }
    // A declared flavour's node labels must select some node (else its pods could never run).
    for (const ResourceFlavor& f : q.flavors) {
      const auto selects = [&f](const NodeInfo& n) {
        return std::all_of(f.node_labels.begin(), f.node_labels.end(), [&n](const auto& kv) {
          const auto it = n.node.labels.find(kv.first);
          return it != n.node.labels.end() && it->second == kv.second;
        });
      };
      const auto& nodes = run_.cluster.view().nodes;
      if (f.declared && std::none_of(nodes.begin(), nodes.end(), selects)) {
        throw InputError(f.where, f.path + ".node_labels",
                         "flavour '" + f.name + "' selects no node of the cluster");
      }
    }
    const auto gpu = std::find(q.resources.begin(), q.resources.end(), kGpuResource);
    gpu_resource_ = gpu == q.resources.end() ? -1 : static_cast<int>(gpu - q.resources.begin());
  }
}

QuotaDecision Admission::select_with_queues(const std::vector<PolicyJob>& active) const {
  // The policy's order, the jobs it keeps (admitted, non-preemptive policies) first.
  const std::vector<std::size_t> order = policy_order(active, config_);
  const bool keep = !preemptive(config_.policy);
  std::vector<QuotaJob> jobs;
  for (const int pass : {0, 1}) {
    for (const std::size_t i : order) {
      const PolicyJob& a = active[i];
      const bool kept = keep && a.admitted;
      if (kept != (pass == 0)) {
        continue;
      }
      const Entry& e = entries_[static_cast<std::size_t>(a.id)];
      jobs.push_back(QuotaJob{
          a.id, a.gpus, e.requests, e.queue, a.admitted, kept, e.admitted_at, a.order, e.priority,
          e.flavors, run_.jobs[static_cast<std::size_t>(a.id)].spec->pod_template.node_selector});
    }
  }
  return select_with_quotas(jobs, *config_.quotas, capacity_);
}

void Admission::quota_event(int j, bool admitted) {
  Entry& e = entries_[static_cast<std::size_t>(j)];
  if (e.queue < 0) {
    return;
  }
  const ClusterQueueConfig& cq = config_.quotas->cluster_queues[static_cast<std::size_t>(e.queue)];
  std::int64_t& usage = queue_usage_[static_cast<std::size_t>(e.queue)];
  usage += admitted ? e.job.gpus : -e.job.gpus;
  QuotaEvent ev;
  ev.at = run_.sim.now();
  ev.queue = cq.name;
  ev.job = run_.jobs[static_cast<std::size_t>(j)].spec->name;
  ev.admitted = admitted;
  ev.usage_gpus = usage;
  ev.nominal_gpus = gpu_resource_ < 0 ? 0 : nominal_of(*config_.quotas, e.queue, gpu_resource_);
  if (admitted && !e.ever_admitted) {
    ev.wait_s = to_seconds(ev.at - e.job.submitted);
  }
  run_.signals.quota.emit(ev);
}

void Admission::enqueue(std::shared_ptr<const PodSpec> pod) {
  const int p = run_.pod_by_spec.at(pod.get());
  const int j = run_.pods[static_cast<std::size_t>(p)].job;
  Entry& e = entries_[static_cast<std::size_t>(j)];
  if (!e.active) {  // the job's first pods: it joins the policy's queue
    e.active = true;
    e.accounted = run_.sim.now();
    e.job.submitted = run_.sim.now();
    e.job.order = next_order_++;
    e.job.queue = 0;
    e.job.queue_seq = next_seq_++;
  }
  if (e.job.admitted) {
    release(p);
    return;
  }
  e.held.push_back(p);
  request_decision();
}

void Admission::on_ended(int j) {
  account(run_.sim.now());
  Entry& e = entries_[static_cast<std::size_t>(j)];
  if (e.job.admitted) {
    quota_event(j, false);
  }
  e.active = false;
  e.job.admitted = false;
  e.held.clear();
  request_decision();
}

void Admission::request_decision() {
  // One decision per instant, after every pod of the instant has arrived.
  if (decision_pending_) {
    return;
  }
  decision_pending_ = true;
  run_.sim.schedule_in(Duration::zero(), [this] {
    decision_pending_ = false;
    decide();
  });
}

void Admission::account(TimePoint now) {
  for (Entry& e : entries_) {
    if (!e.active) {
      continue;
    }
    const double dt = to_seconds(now - e.accounted);
    e.accounted = now;
    if (e.job.admitted) {
      e.job.service_gpu_s += dt * e.job.gpus;
      e.job.executed_s += dt;
    } else if (e.job.executed_s > 0) {
      e.job.starving_s += dt;
    }
  }
}

double Admission::remaining_s(int j) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  const auto steps = static_cast<double>(job.spec->steps);
  double done = job.done;
  if (job.phase == JobPhase::kRunning) {
    done += job.rate * to_seconds(run_.sim.now() - job.last_update);
  }
  const double left = steps > 0 ? std::clamp(1.0 - done / steps, 0.0, 1.0) : 0.0;
  return estimate_[static_cast<std::size_t>(j)] * left;
}

void Admission::decide() {
  const TimePoint now = run_.sim.now();
  account(now);
  std::vector<PolicyJob> active;
  for (std::size_t j = 0; j < entries_.size(); ++j) {
    if (entries_[j].active) {
      entries_[j].job.remaining_s = remaining_s(static_cast<int>(j));
      active.push_back(entries_[j].job);
    }
  }
  if (config_.policy == JobPolicyKind::kTiresias) {
    tiresias_update(active, config_, next_seq_);
    for (const PolicyJob& a : active) {
      entries_[static_cast<std::size_t>(a.id)].job = a;
    }
  }
  QuotaDecision quota;
  if (config_.quotas) {
    quota = select_with_queues(active);
  }
  const std::vector<int> chosen =
      config_.quotas ? quota.chosen : select_jobs(active, config_, capacity_);
  // Suspend first (their GPUs are freed), then admit.
  for (const PolicyJob& a : active) {
    Entry& e = entries_[static_cast<std::size_t>(a.id)];
    if (e.job.admitted && !std::binary_search(chosen.begin(), chosen.end(), a.id)) {
      quota_event(a.id, false);
      e.job.admitted = false;
      controller_.interrupt(a.id, InterruptCause::kSuspension);
    }
  }
  for (const int j : chosen) {
    Entry& e = entries_[static_cast<std::size_t>(j)];
    if (e.job.admitted) {
      continue;
    }
    e.job.admitted = true;
    e.admitted_at = now;
    if (const auto f = quota.flavors.find(j); f != quota.flavors.end()) {
      e.flavors = f->second;  // assigned afresh at each admission
    }
    quota_event(j, true);
    e.ever_admitted = true;
    const std::vector<int> held = std::move(e.held);
    e.held.clear();
    for (const int p : held) {
      release(p);
    }
  }
  const bool periodic =
      config_.policy == JobPolicyKind::kSrtf || config_.policy == JobPolicyKind::kTiresias;
  if (periodic && !ticking_ && !active.empty()) {
    ticking_ = true;
    run_.sim.schedule_in(config_.interval, [this] {
      ticking_ = false;
      decide();
    });
  }
}

void Admission::release(int p) {
  Pod& pod = run_.pods[static_cast<std::size_t>(p)];
  if (!pod.alive) {
    return;
  }
  // Kueue injects the admitted flavours' node labels into the pod template as a nodeSelector.
  for (const int f : entries_[static_cast<std::size_t>(pod.job)].flavors) {
    if (f >= 0) {
      for (const auto& [key, value] :
           config_.quotas->flavors[static_cast<std::size_t>(f)].node_labels) {
        pod.spec->node_selector[key] = value;
      }
    }
  }
  if (config_.consolidate) {
    // Tiresias' consolidated placement: the pod prefers the nodes that hold its siblings.
    const std::string& job = run_.jobs[static_cast<std::size_t>(pod.job)].spec->name;
    pod.spec->labels[kJobLabel] = job;
    WeightedPodAffinityTerm t;
    t.weight = kConsolidateWeight;
    t.term.topology_key = "kubernetes.io/hostname";
    t.term.label_selector.match_labels[kJobLabel] = job;
    pod.spec->pod_affinity.preferred.push_back(std::move(t));
  }
  release_(pod.spec);
}

}  // namespace tidesim
