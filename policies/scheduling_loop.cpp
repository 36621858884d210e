#include "tidesim/policies/scheduling_loop.hpp"

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
      clock_(sim, [this] { cycle(); }),
      memo_(*scheduler_, cluster, journal_),
      gangs_(sim, *scheduler_, cluster, target, queue_, journal_, [this] { on_cluster_event(); }),
      nominations_(sim, *scheduler_, cluster, target),
      hints_(memo_, gangs_, target, queue_) {
  scheduler_->set_record_reasons(false);  // nothing in a run prints them
  queue_.set_queueing_hints(&scheduler_->queueing_hints());
}

LoopCounters SchedulingLoop::counters() const {
  return LoopCounters{cycles_, memo_.replays(), gangs_.gated(), hints_.skips()};
}

void SchedulingLoop::add(PodPtr pod) {
  if (Gang* g = gangs_.of(*pod)) {
    g->members.push_back(pod);
  }
  queue_.add(std::move(pod), sim_.now());
  clock_.wake(sim_.now());
}

void SchedulingLoop::add_pod_group(const PodGroup& group) {
  gangs_.declare(group);
}

void SchedulingLoop::on_cluster_event() {
  journal_.record(-1);  // anywhere: every remembered failure is stale
  queue_.on_cluster_event(sim_.now());
  wake_when_ready();
}

void SchedulingLoop::on_cluster_event(const std::set<int>& nodes) {
  for (const int n : nodes) {
    journal_.record(n);
  }
  hints_.on_change(sim_.now(), nodes);
  wake_when_ready();
}

void SchedulingLoop::on_metrics_event() {
  queue_.on_metrics_event(sim_.now());
  wake_when_ready();
}

void SchedulingLoop::wake_when_ready() {
  if (const auto ready = queue_.next_ready_time(sim_.now())) {
    clock_.wake(*ready);
  }
}

void SchedulingLoop::emit(const SchedulingEvent& event) {
  if (signals_ != nullptr) {
    signals_->emit(event);
  }
}

void SchedulingLoop::cycle() {
  clock_.started();
  const auto popped = hints_.pop(sim_.now());
  if (!popped) {
    wake_when_ready();
    return;
  }
  const PodPtr pod = *popped;
  if (!target_.pod_alive(*pod)) {
    memo_.classes().forget(*pod);
    queue_.done(*pod);  // a pod of a killed attempt: deleted, not scheduled
    clock_.wake(sim_.now());
    return;
  }
  Gang* gang = gangs_.of(*pod);
  if (gang != nullptr && gang->spec.mode != PodGroup::Mode::kPermit) {
    gang_cycle(pod, *gang);
    wake_when_ready();
    return;
  }
  ++cycles_;
  const ScheduleResult r = schedule(*pod, gang);
  clock_.busy_until(sim_.now() + cycle_time_ + r.latency);
  SchedulingEvent ev{sim_.now(), pod->name, "", r.fallback_stage};
  // Assume and bind (a pod of a permit-mode gang: Reserve, then Permit).
  const bool placed = r.node && (gang != nullptr ? gangs_.permit(pod, *r.node, r.cards, *gang)
                                                 : target_.bind(*pod, *r.node, r.cards));
  if (placed) {
    memo_.classes().forget(*pod);
    nominations_.erase(pod->name);
    journal_.record(*r.node);  // the cluster changed on that node
    ev.node = cluster_.nodes[static_cast<std::size_t>(*r.node)].node.name;
    queue_.done(*pod);
  } else if (r.error) {
    queue_.add_backoff(pod, sim_.now());
  } else {
    unschedulable(pod, r, gang);
  }
  emit(ev);
  wake_when_ready();
}

ScheduleResult SchedulingLoop::schedule(const PodSpec& pod, Gang* gang) {
  const bool inspected = inspector_.want && inspector_.want(pod);
  if (inspected) {
    scheduler_->set_record_details(true);
    scheduler_->set_record_reasons(true);
  }
  ScheduleResult r;
  const ClusterView& view = nominations_.view_for(pod);
  const std::optional<int> nominated = nominations_.node_of(pod.name);
  if (gang != nullptr) {
    const PodGroupStatus status = gangs_.status(*gang);
    r = scheduler_->schedule_one(pod, view, metrics_, sim_.now(), &status, nominated);
  } else if (inspected || &view != &cluster_) {
    r = scheduler_->schedule_one(pod, view, metrics_, sim_.now(), nullptr, nominated);
  } else {
    r = memo_.schedule(pod, metrics_, sim_.now(), nominated);
  }
  if (inspected) {
    scheduler_->set_record_details(false);
    scheduler_->set_record_reasons(false);
    inspector_.got(pod, r);
  }
  return r;
}

void SchedulingLoop::unschedulable(const PodPtr& pod, const ScheduleResult& r, Gang* gang) {
  queue_.add_unschedulable(pod, sim_.now(), r.rejectors, hints_.group(*pod));
  if (gang != nullptr) {
    gangs_.post_filter(*pod, *gang);
  }
  if (!r.unresolvable) {
    nominations_.try_preemption(pod);
  }
}

struct SchedulingLoop::GangAttempt {
  Duration latency{};
  std::vector<PodPtr> reserved;
  std::vector<int> reserved_nodes;  // the node of each reserved pod, same order
  std::vector<SchedulingEvent> events;
  Rejectors rejectors = 0;  // the plugins that rejected the pod that did not fit
};

void SchedulingLoop::gang_cycle(const PodPtr& first, Gang& gang) {
  std::vector<PodPtr> pods{first};
  for (const auto& m : gang.members) {
    if (m != first && target_.pod_alive(*m) && queue_.take(*m)) {
      pods.push_back(m);
    }
  }
  if (gang.spec.mode == PodGroup::Mode::kPodGroupCycle) {
    pod_group_cycle(std::move(pods), gang);
    return;
  }
  // Fast fail (see the class comment): the gang's shape is its pods' classes in order.
  const std::vector<int> shape = memo_.gang_shape(pods);
  const std::vector<ScheduleResult>* replay = memo_.gang_replay(shape, *first);
  if (replay == nullptr && gangs_.gate_closed(pods)) {
    // The gate (set_gang_capacity_gate): only where a full cycle would run; a replay is cheaper.
    ++cycles_;
    for (const auto& p : pods) {
      queue_.add_unschedulable(p, sim_.now(), 0, hints_.group(*p));
    }
    clock_.busy_until(sim_.now() + cycle_time_);
    emit(SchedulingEvent{sim_.now(), first->name, "", 0});
    return;
  }
  GangAttempt a;
  if (replay != nullptr) {
    for (std::size_t i = 0; i < replay->size(); ++i) {
      ++cycles_;
      a.latency += (*replay)[i].latency;
      a.events.push_back(
          SchedulingEvent{sim_.now(), pods[i]->name, "", (*replay)[i].fallback_stage});
    }
  } else {
    try_gang(pods, shape, a);
  }
  if (a.reserved.size() == pods.size()) {
    for (const auto& p : pods) {
      target_.allow(*p);
      memo_.classes().forget(*p);
      queue_.done(*p);
    }
    gang.bound += static_cast<int>(pods.size());
    for (const int node : a.reserved_nodes) {  // the cluster changed on the gang's nodes
      journal_.record(node);
    }
  } else {
    // Every reservation is undone: the ClusterView is as before the cycle, so the failures
    // remembered for fast fail still hold.
    for (auto it = a.reserved.rbegin(); it != a.reserved.rend(); ++it) {
      target_.unreserve(**it);
    }
    for (auto& e : a.events) {
      e.node.clear();
    }
    for (const auto& p : pods) {
      queue_.add_unschedulable(p, sim_.now(), a.rejectors, hints_.group(*p));
    }
  }
  clock_.busy_until(sim_.now() + cycle_time_ * static_cast<std::int64_t>(a.events.size()) +
                    a.latency);
  for (const auto& e : a.events) {
    emit(e);
  }
}

void SchedulingLoop::pod_group_cycle(std::vector<PodPtr> pods, Gang& gang) {
  // podGroupInfoForPod's order: priority, then when the scheduler first saw the pod (membership).
  std::vector<PodPtr> order;
  for (const auto& m : gang.members) {
    if (std::find(pods.begin(), pods.end(), m) != pods.end()) {
      order.push_back(m);
    }
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const PodPtr& a, const PodPtr& b) { return a->priority > b->priority; });
  PodGroupCycle part(*scheduler_, cluster_, target_, metrics_);  // stateless between cycles
  const PodGroupCycleOutcome o = part.run(order, gangs_.status(gang), gang.bound_nodes, sim_.now());
  cycles_ += static_cast<std::uint64_t>(o.evaluations);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const PodPtr& p = order[i];
    SchedulingEvent ev{sim_.now(), p->name, "", o.stages[i]};
    if (const int node = o.nodes[i]; node >= 0) {  // applyPodGroupAlgorithmResult: bind
      target_.allow(*p);
      memo_.classes().forget(*p);
      nominations_.erase(p->name);
      journal_.record(node);
      queue_.done(*p);
      ++gang.bound;
      gang.bound_nodes.push_back(node);
      ev.node = cluster_.nodes[static_cast<std::size_t>(node)].node.name;
    } else {
      queue_.add_unschedulable(p, sim_.now(), o.rejectors, hints_.group(*p));
    }
    emit(ev);
  }
  std::sort(gang.bound_nodes.begin(), gang.bound_nodes.end());
  clock_.busy_until(sim_.now() + cycle_time_ * static_cast<std::int64_t>(o.evaluations) +
                    o.latency);
}

void SchedulingLoop::try_gang(const std::vector<PodPtr>& pods, const std::vector<int>& shape,
                              GangAttempt& a) {
  std::vector<ScheduleResult> outcomes;
  const auto selection = scheduler_->selection_state();
  for (const auto& p : pods) {
    ++cycles_;
    ScheduleResult r = scheduler_->schedule_one(*p, cluster_, metrics_, sim_.now());
    a.latency += r.latency;
    a.events.push_back(SchedulingEvent{sim_.now(), p->name, "", r.fallback_stage});
    const bool fits = r.node && target_.reserve(*p, *r.node, r.cards);
    a.rejectors = fits ? 0 : r.rejectors;
    outcomes.push_back(std::move(r));
    if (!fits) {
      break;
    }
    a.reserved.push_back(p);
    a.reserved_nodes.push_back(*outcomes.back().node);
    a.events.back().node =
        cluster_.nodes[static_cast<std::size_t>(a.reserved_nodes.back())].node.name;
  }
  // Remembered only when the cycle left the scheduler as it found it: pods placed before the
  // one that failed may have moved the round-robin start or drawn a tie-break, which a replay
  // would not do.
  if (!shape.empty() && a.reserved.size() < pods.size() && !outcomes.back().error &&
      scheduler_->selection_state() == selection && memo_.trusted()) {
    memo_.remember_gang(shape, std::move(outcomes));
  }
}

}  // namespace tidesim::policies
