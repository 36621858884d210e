#include "policies/scheduling_loop.hpp"

#include <algorithm>
#include <utility>

namespace tidesim::policies {

SchedulingLoop::SchedulingLoop(Simulation& sim, std::unique_ptr<Scheduler> scheduler,
                               const ClusterView& cluster, BindTarget& target, Duration cycle_time,
                               const MetricsSource* metrics, Signal<SchedulingEvent>* signals)
    : sim_(sim),
      scheduler_(std::move(scheduler)),
      cluster_(cluster),
      target_(target),
      cycle_time_(cycle_time),
      metrics_(metrics),
      signals_(signals),
      queue_(scheduler_->queue_options()),
      fast_fail_(!scheduler_->reads_metrics()) {
  scheduler_->set_record_reasons(false);  // nothing in a run prints them
}

PodSpec equivalence_key(const PodSpec& pod) {
  PodSpec key = pod;
  key.name.clear();
  key.namespace_name.clear();
  key.labels.clear();
  return key;
}

namespace {

bool has_inter_pod_terms(const PodSpec& pod) {
  return !pod.pod_affinity.required.empty() || !pod.pod_affinity.preferred.empty() ||
         !pod.pod_anti_affinity.required.empty() || !pod.pod_anti_affinity.preferred.empty() ||
         !pod.topology_spread.empty();
}

}  // namespace

bool SchedulingLoop::no_required_anti_affinity() const {
  return std::all_of(cluster_.nodes.begin(), cluster_.nodes.end(),
                     [](const NodeInfo& n) { return n.pods_with_required_anti_affinity.empty(); });
}

ScheduleResult SchedulingLoop::schedule(const PodSpec& pod) {
  const bool eligible = fast_fail_ && !has_inter_pod_terms(pod);
  if (eligible && last_failure_ && equivalence_key(pod) == last_failure_->first) {
    ++fast_failed_;
    return last_failure_->second;
  }
  ScheduleResult r = scheduler_->schedule_one(pod, cluster_, metrics_, sim_.now());
  if (eligible && !r.node && !r.error && no_required_anti_affinity()) {
    last_failure_.emplace(equivalence_key(pod), r);
  }
  return r;
}

void SchedulingLoop::add(PodPtr pod) {
  queue_.add(std::move(pod), sim_.now());
  wake(sim_.now());
}

void SchedulingLoop::on_cluster_event() {
  last_failure_.reset();  // the cluster changed
  queue_.on_cluster_event(sim_.now());
  if (const auto ready = queue_.next_ready_time(sim_.now())) {
    wake(*ready);
  }
}

void SchedulingLoop::wake(TimePoint at) {
  at = std::max({at, sim_.now(), busy_until_});
  if (next_cycle_ && *next_cycle_ <= at) {
    return;  // a cycle comes soon enough
  }
  if (next_cycle_) {
    sim_.cancel(cycle_event_);
  }
  next_cycle_ = at;
  cycle_event_ = sim_.schedule_at(at, [this] { cycle(); });
}

void SchedulingLoop::cycle() {
  next_cycle_.reset();
  const auto popped = queue_.pop(sim_.now());
  if (!popped) {
    if (const auto next = queue_.next_ready_time(sim_.now())) {
      wake(*next);
    }
    return;
  }
  const PodPtr pod = *popped;
  if (!target_.pod_alive(*pod)) {
    queue_.done(*pod);  // a pod of a killed attempt: deleted, not scheduled
    wake(sim_.now());
    return;
  }
  ++cycles_;
  const ScheduleResult r = schedule(*pod);
  busy_until_ = sim_.now() + cycle_time_ + r.latency;
  SchedulingEvent ev{sim_.now(), pod->name, "", r.fallback_stage};
  const bool placed = r.node && target_.bind(*pod, *r.node);
  if (placed) {
    last_failure_.reset();  // the cluster changed
    ev.node = cluster_.nodes[static_cast<std::size_t>(*r.node)].node.name;
    queue_.done(*pod);
  } else if (r.error) {
    queue_.add_backoff(pod, sim_.now());
  } else {
    queue_.add_unschedulable(pod, sim_.now());
  }
  if (signals_ != nullptr) {
    signals_->emit(ev);
  }
  if (const auto next = queue_.next_ready_time(sim_.now())) {
    wake(*next);
  }
}

}  // namespace tidesim::policies
