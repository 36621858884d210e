#include "tidesim/policies/queue.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

namespace tidesim::policies {
namespace {

// The hints of a queue given none: no plugins.
const QueueingHintMap& no_plugins() {
  static const QueueingHintMap map;
  return map;
}

}  // namespace

SchedulingQueue::SchedulingQueue(QueueOptions options)
    : active_(options.order),
      backoff_(options.initial_backoff, options.max_backoff),
      unschedulable_(options.unschedulable_timeout),
      hints_(&no_plugins()) {}

void SchedulingQueue::push_active(QueuedPod e) {
  const PodSpec* pod = e.pod.get();
  where_[pod] = Location{Where::kActive, active_.push(std::move(e)), {}};
}

void SchedulingQueue::push_backoff(QueuedPod e) {
  const PodSpec* pod = e.pod.get();
  where_[pod] = Location{Where::kBackoff, {}, backoff_.push(std::move(e))};
}

void SchedulingQueue::push_unschedulable(QueuedPod e, TimePoint now) {
  const PodSpec* pod = e.pod.get();
  where_[pod] = Location{Where::kUnschedulable, {}, unschedulable_.push(std::move(e), now)};
}

QueuedPod SchedulingQueue::make_entry(PodPtr pod, TimePoint now, std::size_t hash) {
  QueuedPod e;
  const InFlightPods::Record* r = in_flight_.find(*pod, hash);
  e.attempts = r == nullptr ? 0 : r->attempts;
  e.key_hash = hash;
  active_.note_priority(pod->priority);
  e.pod = std::move(pod);
  e.timestamp = now;
  e.seq = next_seq_++;
  return e;
}

void SchedulingQueue::add(PodPtr pod, TimePoint now) {
  const std::size_t hash = InFlightPods::hash_of(*pod);
  push_active(make_entry(std::move(pod), now, hash));
}

void SchedulingQueue::flush_backoff(TimePoint now) {
  // flushBackoffQCompleted
  while (!backoff_.empty() && backoff_.first_end() <= now) {
    push_active(backoff_.pop_first());
  }
}

void SchedulingQueue::flush_unschedulable(TimePoint now) {
  // flushUnschedulablePodsLeftover: pods unschedulable for longer than the timeout.
  while (!unschedulable_.empty() && unschedulable_.first_timed_out(now)) {
    requeue(unschedulable_.erase(unschedulable_.begin()), now);
  }
}

bool SchedulingQueue::first_comes_up_next(TimePoint now) const {
  const QueuedPod& e = unschedulable_.first();
  if (backoff_.end_of(e) > now) {
    return false;  // requeue() would send it to back-off
  }
  if (active_.orders_by_priority()) {
    return false;  // a later timed-out pod of a higher priority would come first
  }
  return active_.empty() || active_.key(e) < active_.first_key();
}

PodPtr SchedulingQueue::pop_active() {
  QueuedPod e = active_.pop_first();
  where_.erase(e.pod.get());
  in_flight_.popped(*e.pod, e.key_hash, e.attempts);
  return std::move(e.pod);
}

std::optional<PodPtr> SchedulingQueue::pop(TimePoint now) {
  flush_backoff(now);
  flush_unschedulable(now);
  if (active_.empty()) {
    return std::nullopt;
  }
  return pop_active();
}

std::optional<PodPtr> SchedulingQueue::pop(TimePoint now, const UpHint& hint) {
  flush_backoff(now);
  // The timed-out pods that come up next, one by one: each is taken as pop() takes it, asked,
  // and put back (at the end of the set, so it is not timed out again now) or returned. Its
  // passage through the active queue, which pop() after the flushes would make, changes
  // nothing: it would leave it first.
  // (A pod put back now is not asked again now, whatever the timeout.)
  while (!unschedulable_.empty() && unschedulable_.first_entered() < now &&
         unschedulable_.first_timed_out(now) && first_comes_up_next(now)) {
    QueuedPod e = unschedulable_.erase(unschedulable_.begin());
    where_.erase(e.pod.get());
    in_flight_.popped(*e.pod, e.key_hash, e.attempts);
    const std::optional<int> group = hint(e.pod);
    if (!group) {
      flush_unschedulable(now);  // the others timed out now, as pop() moves them
      return std::move(e.pod);
    }
    put_back(std::move(e.pod), now, *group);
  }
  flush_unschedulable(now);
  // The rest as pop() takes them (a pod put back now is in the unschedulable set, not timed out).
  while (!active_.empty()) {
    PodPtr pod = pop_active();
    const std::optional<int> group = hint(pod);
    if (!group) {
      return pod;
    }
    put_back(std::move(pod), now, *group);
  }
  return std::nullopt;
}

void SchedulingQueue::add_unschedulable(PodPtr pod, TimePoint now, Rejectors rejectors, int group) {
  const std::size_t hash = InFlightPods::hash_of(*pod);
  // determineSchedulingHintForInFlightPod: the events received while the pod was in flight.
  const unsigned since = in_flight_.events_since_popped(*pod, hash);
  bool moved = false;
  for (unsigned rest = since; rest != 0 && !moved; rest &= rest - 1) {
    const auto event = static_cast<ClusterEvent>(rest & (~rest + 1));
    moved = hints_->worth_requeuing(*pod, rejectors, ClusterEventInfo{.event = event, .nodes = {}});
  }
  QueuedPod e = make_entry(std::move(pod), now, hash);
  e.rejectors = rejectors;
  e.group = group;
  if (moved) {
    push_backoff(std::move(e));
  } else {
    push_unschedulable(std::move(e), now);
  }
}

void SchedulingQueue::put_back(PodPtr pod, TimePoint now, int group) {
  std::size_t hash = 0;
  InFlightPods::Record& f = in_flight_.last(*pod, hash);
  f.attempts = std::max(0, f.attempts - 1);
  f.popped_cycle = -1;
  QueuedPod e;  // make_entry() without looking the record up again
  e.attempts = f.attempts;
  e.pod = std::move(pod);
  e.timestamp = now;
  e.seq = next_seq_++;
  e.group = group;
  e.key_hash = hash;
  push_unschedulable(std::move(e), now);
}

void SchedulingQueue::add_backoff(PodPtr pod, TimePoint now) {
  const std::size_t hash = InFlightPods::hash_of(*pod);
  push_backoff(make_entry(std::move(pod), now, hash));
}

void SchedulingQueue::requeue(QueuedPod e, TimePoint now) {
  if (backoff_.end_of(e) > now) {
    push_backoff(std::move(e));
  } else {
    push_active(std::move(e));
  }
}

bool SchedulingQueue::worth_requeuing(const QueuedPod& e, const ClusterEventInfo& event) const {
  return hints_->worth_requeuing(*e.pod, e.rejectors, event);
}

void SchedulingQueue::on_cluster_event(TimePoint now, const std::set<int>* nodes) {
  in_flight_.move_requested(kClusterChanged);
  move_unschedulable(now, ClusterEventInfo{.event = kClusterChanged, .nodes = nodes});
}

std::size_t SchedulingQueue::on_cluster_event(TimePoint now, const std::set<int>* nodes,
                                              const GroupHint& hint, const PodTest& counted) {
  in_flight_.move_requested(kClusterChanged);
  const ClusterEventInfo event{.event = kClusterChanged, .nodes = nodes};
  // The grouped pods: one answer per group. Moves do not depend on their order (a pod's place in
  // the active or back-off queue is its own key), so groups are taken in turn.
  std::size_t kept = 0;
  const auto& groups = unschedulable_.groups();
  for (auto g = groups.begin(); g != groups.end();) {
    const int group = g->first;
    const std::size_t size = g->second.size();
    std::size_t n = hint(group, *unschedulable_.at(*g->second.begin()).pod);
    std::size_t moved = 0;
    // Collected first: erasing a pod edits the group's set (and drops it when empty).
    std::vector<UnschedulablePods::Key> keys;
    for (auto k = g->second.begin(); k != g->second.end() && n > 0; ++k) {
      const QueuedPod& e = unschedulable_.at(*k);
      if (!worth_requeuing(e, event)) {
        continue;
      }
      keys.push_back(*k);
      if (n != kAll && backoff_.end_of(e) <= now && counted(*e.pod)) {
        --n;
      }
    }
    ++g;  // the next group's iterator stays valid
    for (const UnschedulablePods::Key& k : keys) {
      requeue(unschedulable_.erase(unschedulable_.find(k)), now);
      ++moved;
    }
    kept += size - moved;
  }
  // The others, as with a hint that is always true.
  for (auto it = unschedulable_.begin();
       unschedulable_.grouped() < unschedulable_.size() && it != unschedulable_.end();) {
    if (it->second.group >= 0 || !worth_requeuing(it->second, event)) {
      ++it;
      continue;
    }
    const auto next = std::next(it);
    requeue(unschedulable_.erase(it), now);
    it = next;
  }
  return kept;
}

void SchedulingQueue::on_metrics_event(TimePoint now) {
  in_flight_.move_requested(kMetricsChanged);
  move_unschedulable(now, ClusterEventInfo{.event = kMetricsChanged, .nodes = {}});
}

void SchedulingQueue::move_unschedulable(TimePoint now, const ClusterEventInfo& event) {
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if (!worth_requeuing(it->second, event)) {
      ++it;
      continue;
    }
    const auto next = std::next(it);
    requeue(unschedulable_.erase(it), now);
    it = next;
  }
}

void SchedulingQueue::done(const PodSpec& pod) {
  in_flight_.erase(pod);
}

bool SchedulingQueue::take(const PodSpec& pod) {
  const auto loc = where_.find(&pod);
  if (loc == where_.end()) {
    return false;
  }
  const Location l = loc->second;
  where_.erase(loc);
  QueuedPod e;
  switch (l.where) {
    case Where::kActive:
      e = active_.take(l.active);
      break;
    case Where::kBackoff:
      e = backoff_.take(l.time);
      break;
    case Where::kUnschedulable:
      e = unschedulable_.erase(unschedulable_.find(l.time));
      break;
  }
  in_flight_.taken(pod, e.key_hash, e.attempts);
  return true;
}

std::optional<TimePoint> SchedulingQueue::next_ready_time(TimePoint now) const {
  if (!active_.empty()) {
    return now;
  }
  std::optional<TimePoint> t;
  if (!backoff_.empty()) {
    t = std::max(now, backoff_.first_end());
  }
  if (!unschedulable_.empty()) {
    const TimePoint u = std::max(now, unschedulable_.first_timeout_end());
    t = t ? std::min(*t, u) : u;
  }
  return t;
}

std::size_t SchedulingQueue::size() const {
  return active_.size() + backoff_.size() + unschedulable_.size();
}

}  // namespace tidesim::policies
