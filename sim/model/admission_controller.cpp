#include "tidesim/sim/model/admission_controller.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>

#include <fmt/core.h>

#include "tidesim/sim/engine/random.hpp"
#include "tidesim/workloads/uncontended_time.hpp"

namespace tidesim {
namespace {

// The preferred pod affinity of Tiresias' consolidated placement (on kJobLabel).
constexpr std::int32_t kConsolidateWeight = 100;  // the largest weight Kubernetes allows

// Releases the pods of `held` whose node `pod_nodes` names (or that it has no entry for) and
// keeps the rest held: a pod whose node a decision left empty waits (JobDecision::pod_nodes).
// Both are by the pod's place among its job's pods.
void release_placed(const RunContext& run, std::vector<int>& held,
                    const std::vector<std::string>& pod_nodes,
                    const std::function<void(int)>& release) {
  std::vector<int> all = std::move(held);
  held.clear();
  for (const int p : all) {
    const std::vector<int>& pods =
        run.jobs[static_cast<std::size_t>(run.pods[static_cast<std::size_t>(p)].job)].pods;
    const auto k = static_cast<std::size_t>(std::find(pods.begin(), pods.end(), p) - pods.begin());
    if (k < pod_nodes.size() && pod_nodes[k].empty()) {
      held.push_back(p);
    } else {
      release(p);
    }
  }
}

// What is wrong with `decision`'s start delays and speed changes (JobDecision::start_delay,
// speed_change); empty: nothing. `active` gives an active job's view, null for any other id.
std::string bad_delay_or_speed(const JobDecision& decision,
                               const std::function<const JobView*(int)>& active) {
  for (const auto& [j, delay] : decision.start_delay) {
    if (delay < Duration::zero()) {
      return fmt::format("gave job {} a negative start delay", j);
    }
  }
  for (const auto& [j, change] : decision.speed_change) {
    const JobView* v = active(j);
    if (v == nullptr) {
      return "changed the speed of job " + std::to_string(j) + ", which is not an active job";
    }
    if (!change.speed || change.steps < 1 || !(change.done >= 0.0) ||
        !(change.done <= static_cast<double>(change.steps))) {
      return fmt::format("changed the speed of job {} ('{}') {}", j, v->name,
                         change.speed
                             ? fmt::format("to {} of {} steps done", change.done, change.steps)
                             : std::string("without a speed"));
    }
  }
  return {};
}

}  // namespace

Admission::Admission(RunContext& run, JobController& controller, AdmissionConfig config,
                     std::uint64_t seed,
                     std::function<void(std::shared_ptr<const PodSpec>)> release)
    : run_(run),
      controller_(controller),
      config_(std::move(config)),
      policy_(make_job_policy([&] {
        config_.seed = seed;
        return config_;
      }())),
      release_(std::move(release)) {
  if (config_.quotas && dynamic_cast<OrderedJobPolicy*>(policy_.get()) == nullptr) {
    throw InputError(config_.where, "admission.queues",
                     "job-level policy '" + config_.policy +
                         "' does not order jobs (an OrderedJobPolicy), which queues need");
  }
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
    double s = workloads::uncontended_seconds(spec, run_.catalogue, run_.reference_gpu, node_gpus);
    if (config_.estimate_sigma > 0) {
      s *= std::exp(rng.normal(0.0, config_.estimate_sigma));  // one draw per job, in job order
    }
    estimate_[j] = s;
    entries_[j].job.id = static_cast<int>(j);
    entries_[j].job.name = spec.name;
    JobView& v = entries_[j].job;
    v.spec = &spec;
    v.gpus = static_cast<int>(workloads::job_gpus(spec));
    v.estimate_s = s;
    v.replicas = std::max(1, spec.replicas);
    v.gpus_per_replica = v.gpus / v.replicas;
    v.min_replicas = v.max_replicas = v.replicas;
    if (spec.elastic) {
      v.elastic = true;
      v.min_replicas = spec.elastic->min_replicas();
      v.max_replicas = spec.elastic->max_replicas();
      v.min_batch = spec.elastic->min_batch_size();
      v.max_batch = spec.elastic->max_batch_size();
      v.min_atomic_batch = spec.elastic->min_atomic_batch();
      v.max_atomic_batch = spec.elastic->max_atomic_batch();
    }
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
    topology_ = std::make_unique<TopologyAdmission>(run_, q);
    if (!topology_->active()) {
      topology_.reset();
    } else {
      topology_refused_.resize(run_.jobs.size());
      topology_reason_.resize(run_.jobs.size());
    }
    const auto gpu = std::find(q.resources.begin(), q.resources.end(), kGpuResource);
    gpu_resource_ = gpu == q.resources.end() ? -1 : static_cast<int>(gpu - q.resources.begin());
  }
}

QuotaDecision Admission::select_with_queues(OrderedJobPolicy& policy, const JobPolicyState& state) {
  // The policy's order, the jobs it keeps (admitted, non-preemptive policies) first.
  policy.prepare(state);
  const std::vector<std::size_t> order = policy.order(state);
  const bool keep = !policy.preemptive();
  std::vector<QuotaJob> jobs;
  for (const int pass : {0, 1}) {
    for (const std::size_t i : order) {
      const JobView& a = state.jobs[i];
      const bool kept = keep && a.admitted;
      if (kept != (pass == 0)) {
        continue;
      }
      const Entry& e = entries_[static_cast<std::size_t>(a.id)];
      jobs.push_back(QuotaJob{
          a.id, a.gpus, e.requests, e.queue, a.admitted, kept, e.admitted_at, a.order, e.priority,
          e.flavors, run_.jobs[static_cast<std::size_t>(a.id)].spec->pod_template.node_selector,
          topology_ ? topology_->request(a.id) : nullptr});
    }
  }
  if (!topology_) {
    return select_with_quotas(jobs, *config_.quotas, capacity_);
  }
  topology_->begin();
  TopologyCheck check;
  check.fits = [this](const QuotaJob& job, const std::vector<int>& flavors) {
    const bool fits = topology_->fits(job.id, flavors);
    if (!fits) {
      topology_event(job.id, false);
    }
    return fits;
  };
  check.commit = [this](int job) { topology_->commit(job); };
  check.simulate = [this](const QuotaJob& job, const std::vector<int>& flavors,
                          const std::vector<int>& without, bool empty) {
    return topology_->simulate(job.id, flavors, without, empty);
  };
  check.preempt = [this](int job) { topology_->preempt(job); };
  return select_with_quotas(jobs, *config_.quotas, capacity_, check);
}

void Admission::topology_event(int j, bool admitted) {
  const TopologyPlacement* last = topology_->last(j);
  if (last == nullptr) {
    return;
  }
  const auto k = static_cast<std::size_t>(j);
  TopologyEvent ev;
  ev.at = run_.sim.now();
  ev.job = run_.jobs[k].spec->name;
  ev.topology = last->topology;
  ev.admitted = admitted;
  if (!admitted) {
    if (!topology_refused_[k]) {
      topology_refused_[k] = ev.at;
    }
    if (topology_reason_[k] == last->reason) {
      return;  // still waiting for the same reason
    }
    topology_reason_[k] = ev.reason = last->reason;
    run_.signals.topology.emit(ev);
    return;
  }
  if (topology_refused_[k]) {
    ev.topology_wait_s = to_seconds(ev.at - *topology_refused_[k]);
  }
  topology_refused_[k].reset();
  topology_reason_[k].clear();
  // The gang's span: distinct domains per level over the nodes its pods may go to.
  for (const KueueTopology& t : config_.quotas->topologies) {
    if (t.name != last->topology) {
      continue;
    }
    for (const std::string& level : t.levels) {
      std::set<std::string> values;
      const std::vector<std::shared_ptr<const std::vector<std::string>>>& domains =
          topology_->pod_domains(j);
      for (const auto& nodes : domains) {
        for (const std::string& n : *nodes) {
          const auto& labels = run_.cluster.view()
                                   .nodes[static_cast<std::size_t>(run_.cluster.view().index_of(n))]
                                   .node.labels;
          values.insert(labels.at(level));
        }
      }
      ev.span.emplace_back(level, static_cast<int>(values.size()));
    }
  }
  run_.signals.topology.emit(ev);
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
  }
  e.held.push_back(p);
  if (e.job.admitted) {
    release_placed(run_, e.held, e.pod_nodes, [this](int p) { release(p); });
    if (e.held.empty()) {
      return;
    }
  }
  request_decision();
}

void Admission::on_ended(int j) {
  account(run_.sim.now());
  Entry& e = entries_[static_cast<std::size_t>(j)];
  if (e.job.admitted) {
    quota_event(j, false);
  }
  if (topology_) {
    topology_->release(j);
    topology_refused_[static_cast<std::size_t>(j)].reset();
    topology_reason_[static_cast<std::size_t>(j)].clear();
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
      e.job.attained_gpu_s += dt * e.job.gpus;
      e.job.admitted_s += dt;
    } else {
      e.job.waiting_s += dt;
    }
  }
}

double Admission::step_seconds(int j, const std::vector<int>& placement) const {
  if (j < 0 || static_cast<std::size_t>(j) >= run_.jobs.size()) {
    throw std::out_of_range("no job " + std::to_string(j));
  }
  return workloads::uncontended_step_seconds(*run_.jobs[static_cast<std::size_t>(j)].spec,
                                             run_.catalogue, run_.reference_gpu, placement);
}

double Admission::done(int j) const {
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  double done = job.done;
  if (job.phase == JobPhase::kRunning) {
    done += job.rate * to_seconds(run_.sim.now() - job.last_update);
  }
  return std::min(done, static_cast<double>(job.spec->steps));
}

double Admission::progress(int j) const {
  const auto steps = static_cast<double>(run_.jobs[static_cast<std::size_t>(j)].spec->steps);
  return steps > 0 ? std::clamp(done(j) / steps, 0.0, 1.0) : 1.0;
}

double Admission::remaining_seconds(int j, const std::vector<int>& placement,
                                    int batch_size) const {
  if (j < 0 || static_cast<std::size_t>(j) >= run_.jobs.size()) {
    throw std::out_of_range("no job " + std::to_string(j));
  }
  const workloads::JobSpec& spec = *run_.jobs[static_cast<std::size_t>(j)].spec;
  const auto steps = static_cast<double>(spec.steps);
  double at = done(j);
  std::shared_ptr<const workloads::MeasuredSpeed> speed = spec.measured;
  if (spec.elastic) {
    int replicas = 0;
    for (const int g : placement) {
      replicas += g;
    }
    const int batch =
        batch_size > 0 ? batch_size : entries_[static_cast<std::size_t>(j)].job.batch_size;
    speed = spec.elastic->speed(replicas, batch);
  }
  if (!speed) {
    return (steps - at) * step_seconds(j, placement);
  }
  // Epoch by epoch (a speed that changes with progress).
  double seconds = 0;
  while (at < steps) {
    const std::optional<double> next = speed->next_change(at);
    const double to = next && *next > at ? std::min(*next, steps) : steps;
    seconds += (to - at) * speed->step_seconds_at(placement, at);
    at = to;
  }
  return seconds;
}

JobDecision Admission::checked(JobDecision decision, const JobPolicyState& state) const {
  const auto fail = [this](const std::string& what) {
    throw std::runtime_error(fmt::format("job-level policy '{}' at t = {:.3f} s: {}",
                                         config_.policy, to_seconds(run_.sim.now()), what));
  };
  std::sort(decision.run.begin(), decision.run.end());
  decision.run.erase(std::unique(decision.run.begin(), decision.run.end()), decision.run.end());
  const auto chosen = [&decision](int j) {
    return std::binary_search(decision.run.begin(), decision.run.end(), j);
  };
  for (const auto& [j, replicas] : decision.replicas) {
    if (!chosen(j)) {
      fail("sized job " + std::to_string(j) + ", which it did not choose");
    }
    const JobView& v = entries_[static_cast<std::size_t>(j)].job;
    if (replicas < v.min_replicas || replicas > v.max_replicas) {
      fail(fmt::format("gave job {} ('{}') {} replicas, outside its {}..{}", j, v.name, replicas,
                       v.min_replicas, v.max_replicas));
    }
  }
  for (const auto& [j, batch] : decision.batch_size) {
    if (!chosen(j)) {
      fail("gave a batch size to job " + std::to_string(j) + ", which it did not choose");
    }
    const JobView& v = entries_[static_cast<std::size_t>(j)].job;
    if (batch != 0 && (!v.elastic || ((batch < v.min_batch || batch > v.max_batch) &&
                                      batch != workloads::kAdaptiveBatch))) {
      fail(v.elastic
               ? fmt::format("gave job {} ('{}') a batch of {}, outside its {}..{}", j, v.name,
                             batch, v.min_batch, v.max_batch)
               : fmt::format("gave job {} ('{}') a batch size, but it is not elastic", j, v.name));
    }
  }
  const auto active = [this](int j) -> const JobView* {
    const auto i = static_cast<std::size_t>(j);
    return j >= 0 && i < entries_.size() && entries_[i].active ? &entries_[i].job : nullptr;
  };
  if (const std::string bad = bad_delay_or_speed(decision, active); !bad.empty()) {
    fail(bad);
  }
  std::int64_t gpus = 0;
  for (const int j : decision.run) {
    if (active(j) == nullptr) {
      fail("chose job " + std::to_string(j) + ", which is not an active job");
    }
    const JobView& v = *active(j);
    const auto r = decision.replicas.find(j);
    gpus += static_cast<std::int64_t>(r == decision.replicas.end() ? v.replicas : r->second) *
            v.gpus_per_replica;
  }
  if (gpus > state.capacity_gpus) {
    fail("chose jobs of " + std::to_string(gpus) + " GPUs on a cluster of " +
         std::to_string(state.capacity_gpus));
  }
  for (const auto& [j, nodes] : decision.pod_nodes) {
    if (!chosen(j)) {
      fail("named pod nodes for job " + std::to_string(j) + ", which it did not choose");
    }
    const JobView& v = entries_[static_cast<std::size_t>(j)].job;
    const auto r = decision.replicas.find(j);
    const int replicas = r == decision.replicas.end() ? v.replicas : r->second;
    if (static_cast<int>(nodes.size()) != replicas) {
      fail(fmt::format("named {} pod nodes for job {} ('{}'), which has {} pods", nodes.size(), j,
                       v.name, replicas));
    }
    for (const std::string& n : nodes) {
      if (!n.empty() && run_.cluster.view().index_of(n) < 0) {
        fail("named node '" + n + "' for job " + std::to_string(j) + ", which the cluster has not");
      }
    }
  }
  for (const int j : decision.move) {
    if (!chosen(j) || !entries_[static_cast<std::size_t>(j)].job.elastic ||
        !decision.pod_nodes.contains(j)) {
      fail("moves job " + std::to_string(j) +
           ", which it did not choose, is not elastic, or has no pod nodes");
    }
  }
  for (const auto& [j, nodes] : decision.nodes) {
    if (!chosen(j)) {
      fail("named nodes for job " + std::to_string(j) + ", which it did not choose");
    }
    if (nodes.empty()) {
      // Not "any node" (that is no entry): a job given no node could run nowhere.
      fail(
          fmt::format("named no nodes for job {} ('{}'): name at least one, or none for any "
                      "node (leave the job out of nodes)",
                      j, entries_[static_cast<std::size_t>(j)].job.name));
    }
    for (const std::string& n : nodes) {
      if (run_.cluster.view().index_of(n) < 0) {
        fail("named node '" + n + "' for job " + std::to_string(j) + ", which the cluster has not");
      }
    }
  }
  return decision;
}

void Admission::refresh_view(int j) {
  Entry& e = entries_[static_cast<std::size_t>(j)];
  const Job& job = run_.jobs[static_cast<std::size_t>(j)];
  e.job.progress = progress(j);
  e.job.remaining_s = estimate_[static_cast<std::size_t>(j)] * (1.0 - e.job.progress);
  e.job.restarts = job.attempt;
  e.job.pods = static_cast<int>(job.pods.size());
  e.job.pods_bound = job.bound;
  e.job.nodes.clear();
  e.job.placement.clear();
  e.job.report.reset();
  e.job.held.clear();
  for (const int p : e.held) {
    const auto at = std::find(job.pods.begin(), job.pods.end(), p);
    if (at != job.pods.end()) {
      e.job.held.push_back(static_cast<int>(at - job.pods.begin()));
    }
  }
  for (const int p : job.pods) {
    const Pod& pod = run_.pods[static_cast<std::size_t>(p)];
    if (pod.node < 0) {
      continue;
    }
    const std::string& node = run_.cluster.node(pod.node).name;
    const auto at = std::find(e.job.nodes.begin(), e.job.nodes.end(), node);
    if (at == e.job.nodes.end()) {
      e.job.nodes.push_back(node);
      e.job.placement.push_back(static_cast<int>(pod.cards.size()));
    } else {
      e.job.placement[static_cast<std::size_t>(at - e.job.nodes.begin())] +=
          static_cast<int>(pod.cards.size());
    }
  }
  if (job.phase == JobPhase::kRunning && job.spec->measured) {
    e.job.report = job.spec->measured->report(e.job.placement, done(j));
  }
  e.job.steps = job.spec->steps;
  const double total = static_cast<double>(job.spec->steps);
  e.job.steps_left = std::max(0.0, total - done(j));
  if (job.spec->measured) {
    e.job.steps_left = job.spec->measured->steps_left_at(done(j), total);
    e.job.throughputs = job.spec->measured->throughputs_at(done(j));
    e.job.epochs = job.spec->measured->epoch_profile();
  }
}

JobPolicyState Admission::policy_state(TimePoint now) {
  JobPolicyState state;
  state.now = now;
  state.capacity_gpus = capacity_;
  state.cluster = &run_.cluster.view();
  for (std::size_t j = 0; j < entries_.size(); ++j) {
    Entry& e = entries_[j];
    if (!e.active) {
      continue;
    }
    refresh_view(static_cast<int>(j));
    if (e.job.admitted) {
      state.admitted_gpus += e.job.gpus;
    }
    state.jobs.push_back(e.job);
  }
  state.step_seconds = [this](int id, const std::vector<int>& placement) {
    return step_seconds(id, placement);
  };
  state.remaining_seconds = [this](int id, const std::vector<int>& placement, int batch) {
    return remaining_seconds(id, placement, batch);
  };
  return state;
}

void Admission::resize_chosen(const JobDecision& decision) {
  // Their new pods are created after this instant's decision, admitted or held as the job is.
  for (const int j : decision.run) {
    Entry& e = entries_[static_cast<std::size_t>(j)];
    const auto r = decision.replicas.find(j);
    const auto b = decision.batch_size.find(j);
    const int replicas = r == decision.replicas.end() ? e.job.replicas : r->second;
    const int batch = b == decision.batch_size.end() ? e.job.batch_size : b->second;
    const bool move = e.job.admitted && std::find(decision.move.begin(), decision.move.end(), j) !=
                                            decision.move.end();
    if (replicas == e.job.replicas && batch == e.job.batch_size && !move) {
      continue;
    }
    controller_.resize(j, replicas, batch);
    e.job.replicas = replicas;
    e.job.batch_size = batch;
    e.job.gpus = replicas * e.job.gpus_per_replica;
    e.held.clear();  // the old attempt's pods, deleted
    if (e.job.admitted) {
      hint(e, decision, j);
    }
  }
}

void Admission::suspend_unchosen(const std::vector<JobView>& jobs, const std::vector<int>& chosen) {
  for (const JobView& a : jobs) {
    Entry& e = entries_[static_cast<std::size_t>(a.id)];
    if (e.job.admitted && !std::binary_search(chosen.begin(), chosen.end(), a.id)) {
      quota_event(a.id, false);
      e.job.admitted = false;
      if (topology_) {
        topology_->release(a.id);
      }
      controller_.suspend(a.id);
    }
  }
}

void Admission::admit_chosen(const JobDecision& decision, const QuotaDecision& quota,
                             TimePoint now) {
  for (const int j : decision.run) {
    Entry& e = entries_[static_cast<std::size_t>(j)];
    if (e.job.admitted) {
      if (!e.held.empty() && decision.pod_nodes.contains(j)) {
        hint(e, decision, j);
        release_placed(run_, e.held, e.pod_nodes,
                       [this](int p) { release(p); });  // its pods this decision placed
      }
      continue;
    }
    e.job.admitted = true;
    e.admitted_at = now;
    if (const auto f = quota.flavors.find(j); f != quota.flavors.end()) {
      e.flavors = f->second;  // assigned afresh at each admission
    }
    hint(e, decision, j);
    quota_event(j, true);
    if (topology_ && !topology_->pod_domains(j).empty()) {
      topology_event(j, true);
    }
    e.ever_admitted = true;
    if (const auto d = decision.start_delay.find(j); d != decision.start_delay.end()) {
      controller_.delay_next_start(j, d->second);
    }
    release_placed(run_, e.held, e.pod_nodes, [this](int p) { release(p); });
  }
}

void Admission::decide() {
  const TimePoint now = run_.sim.now();
  account(now);
  const JobPolicyState state = policy_state(now);
  QuotaDecision quota;
  JobDecision decision;
  if (config_.quotas) {
    quota = select_with_queues(static_cast<OrderedJobPolicy&>(*policy_), state);
    decision.run = quota.chosen;
  } else {
    decision = checked(policy_->decide(state), state);
    run_.sim.charge(policy_->take_work());
  }
  // Change the speeds asked for; resize the chosen elastic jobs whose size changes; suspend
  // first (their GPUs are freed), then admit.
  for (const auto& [j, change] : decision.speed_change) {
    controller_.change_speed(j, change);
  }
  resize_chosen(decision);
  suspend_unchosen(state.jobs, decision.run);
  admit_chosen(decision, quota, now);
  if (const std::optional<Duration> interval = policy_->interval();
      interval && !ticking_ && !state.jobs.empty()) {
    ticking_ = true;
    run_.sim.schedule_in(*interval, [this] {
      ticking_ = false;
      decide();
    });
  }
}

void Admission::hint(Entry& e, const JobDecision& decision, int j) {
  const auto nodes = decision.nodes.find(j);
  e.nodes = nodes == decision.nodes.end() ? std::vector<std::string>{} : nodes->second;
  const auto pods = decision.pod_nodes.find(j);
  e.pod_nodes = pods == decision.pod_nodes.end() ? std::vector<std::string>{} : pods->second;
}

void Admission::release(int p) {
  Pod& pod = run_.pods[static_cast<std::size_t>(p)];
  if (!pod.alive) {
    return;
  }
  const Entry& entry = entries_[static_cast<std::size_t>(pod.job)];
  std::vector<std::string> one;
  if (!entry.pod_nodes.empty()) {
    // Its own node: the pod's place among its job's pods.
    const std::vector<int>& pods = run_.jobs[static_cast<std::size_t>(pod.job)].pods;
    const auto k = static_cast<std::size_t>(std::find(pods.begin(), pods.end(), p) - pods.begin());
    if (k < entry.pod_nodes.size()) {
      one.push_back(entry.pod_nodes[k]);
    }
  }
  if (topology_) {
    // Kueue's TopologyUngater: the pod goes to its assigned domain (its place among the job's
    // pods picks its entry of the topologyAssignment).
    const auto& domains = topology_->pod_domains(pod.job);
    const std::vector<int>& pods = run_.jobs[static_cast<std::size_t>(pod.job)].pods;
    const auto k = static_cast<std::size_t>(std::find(pods.begin(), pods.end(), p) - pods.begin());
    if (k < domains.size()) {
      one = *domains[k];
    }
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
  if (const std::vector<std::string>& nodes = one.empty() ? entry.nodes : one; !nodes.empty()) {
    // The policy's placement hint: a required node affinity on the node's name, ANDed with the
    // pod's own required terms (they are ORed among themselves).
    const SelectorRequirement on_nodes{"metadata.name", "In", nodes};
    std::vector<NodeSelectorTerm>& terms = pod.spec->node_affinity.required;
    if (terms.empty()) {
      terms.emplace_back();
    }
    for (NodeSelectorTerm& t : terms) {
      t.match_fields.push_back(on_nodes);
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
