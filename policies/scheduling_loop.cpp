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

int SchedulingLoop::equivalence_class(const PodSpec& pod) {
  if (const auto it = class_of_.find(&pod); it != class_of_.end()) {
    return it->second;
  }
  PodSpec key = equivalence_key(pod);
  // A bucket by the fields that most often tell classes apart; equal keys decide.
  const auto& r = key.requests;
  const std::size_t bucket =
      std::hash<std::int64_t>{}(r.cpu_milli) ^ (std::hash<std::int64_t>{}(r.memory_bytes) << 1) ^
      (std::hash<std::int64_t>{}(r.gpus * 1001 + r.gpu_milli) << 2) ^
      (std::hash<std::string>{}(key.node_name) << 3) ^ (key.node_selector.size() << 4);
  int id = -1;
  const auto [first, last] = class_by_bucket_.equal_range(bucket);
  for (auto it = first; it != last; ++it) {
    if (class_keys_[static_cast<std::size_t>(it->second)] == key) {
      id = it->second;
      break;
    }
  }
  if (id < 0) {
    id = static_cast<int>(class_keys_.size());
    class_keys_.push_back(std::move(key));
    class_by_bucket_.emplace(bucket, id);
  }
  class_of_.emplace(&pod, id);
  return id;
}

ScheduleResult SchedulingLoop::schedule(const PodSpec& pod) {
  const bool eligible = fast_fail_ && !has_inter_pod_terms(pod);
  const int cls = eligible ? equivalence_class(pod) : -1;
  if (eligible && static_cast<std::size_t>(cls) < failures_.size() &&
      failures_[static_cast<std::size_t>(cls)].first == state_) {
    ++fast_failed_;
    return failures_[static_cast<std::size_t>(cls)].second;
  }
  ScheduleResult r = scheduler_->schedule_one(pod, cluster_, metrics_, sim_.now());
  if (eligible && !r.node && !r.error && no_required_anti_affinity()) {
    if (failures_.size() <= static_cast<std::size_t>(cls)) {
      failures_.resize(static_cast<std::size_t>(cls) + 1, {0, ScheduleResult{}});
    }
    failures_[static_cast<std::size_t>(cls)] = {state_, r};
  }
  return r;
}

void SchedulingLoop::add(PodPtr pod) {
  queue_.add(std::move(pod), sim_.now());
  wake(sim_.now());
}

void SchedulingLoop::on_cluster_event() {
  ++state_;  // the cluster changed: every remembered failure is stale
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
    class_of_.erase(pod.get());
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
    class_of_.erase(pod.get());
    ++state_;  // the cluster changed: every remembered failure is stale
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
