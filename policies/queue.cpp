#include "tidesim/policies/queue.hpp"

#include <algorithm>
#include <iterator>
#include <vector>

namespace tidesim::policies {

SchedulingQueue::SchedulingQueue(QueueOptions options) : options_(options) {}

Duration SchedulingQueue::backoff_duration(int attempts) const {
  Duration d = options_.initial_backoff;
  for (int i = 1; i < attempts; ++i) {
    if (d > options_.max_backoff - d) {
      return options_.max_backoff;
    }
    d += d;
  }
  return d;
}

SchedulingQueue::ActiveKey SchedulingQueue::active_key(const Entry& e) const {
  // PrioritySort Less: higher priority first, then the earlier timestamp; seq breaks ties (FIFO).
  const std::int64_t prio =
      options_.order == QueueOrder::kPrioritySort ? -static_cast<std::int64_t>(e.pod->priority) : 0;
  return {prio, e.timestamp, e.seq};
}

TimePoint SchedulingQueue::backoff_end(const Entry& e) const {
  return e.timestamp + backoff_duration(e.attempts);
}

void SchedulingQueue::push_active(Entry e) {
  const ActiveKey k = active_key(e);
  where_[e.pod.get()] = Location{Where::kActive, k, {}};
  active_.emplace(k, std::move(e));
}

void SchedulingQueue::push_backoff(Entry e) {
  const TimeKey k{backoff_end(e), e.seq};
  where_[e.pod.get()] = Location{Where::kBackoff, {}, k};
  backoff_.emplace(k, std::move(e));
}

void SchedulingQueue::push_unschedulable(Entry e, TimePoint now) {
  // The key is the largest yet (times do not go back, seq grows): inserted at the end.
  const TimeKey k{now, e.seq};
  where_[e.pod.get()] = Location{Where::kUnschedulable, {}, k};
  if (e.group >= 0) {
    std::set<TimeKey>& group = groups_[e.group];
    group.emplace_hint(group.end(), k);
    ++grouped_;
  }
  unschedulable_.emplace_hint(unschedulable_.end(), k, std::move(e));
}

SchedulingQueue::Entry SchedulingQueue::erase_unschedulable(std::map<TimeKey, Entry>::iterator it) {
  Entry e = std::move(it->second);
  if (e.group >= 0) {
    const auto g = groups_.find(e.group);
    g->second.erase(it->first);
    if (g->second.empty()) {
      groups_.erase(g);
    }
    --grouped_;
    e.group = -1;
  }
  unschedulable_.erase(it);
  return e;
}

SchedulingQueue::Entry SchedulingQueue::make_entry(PodPtr pod, TimePoint now, std::size_t hash) {
  Entry e;
  const InFlightPods::Record* r = in_flight_.find(*pod, hash);
  e.attempts = r == nullptr ? 0 : r->attempts;
  e.key_hash = hash;
  if (!have_priority_) {
    have_priority_ = true;
    priority_ = pod->priority;
  } else if (pod->priority != priority_) {
    mixed_priorities_ = true;
  }
  e.pod = std::move(pod);
  e.timestamp = now;
  e.seq = next_seq_++;
  return e;
}

void SchedulingQueue::add(PodPtr pod, TimePoint now) {
  const std::size_t hash = InFlightPods::hash_of(*pod);
  push_active(make_entry(std::move(pod), now, hash));
}

void SchedulingQueue::flush(TimePoint now) {
  flush_backoff(now);
  flush_unschedulable(now);
}

void SchedulingQueue::flush_backoff(TimePoint now) {
  // flushBackoffQCompleted
  while (!backoff_.empty() && backoff_.begin()->first.first <= now) {
    Entry e = std::move(backoff_.begin()->second);
    backoff_.erase(backoff_.begin());
    push_active(std::move(e));
  }
}

bool SchedulingQueue::first_timed_out(TimePoint now) const {
  return now - unschedulable_.begin()->first.first >= options_.unschedulable_timeout;
}

void SchedulingQueue::flush_unschedulable(TimePoint now) {
  // flushUnschedulablePodsLeftover: pods unschedulable for longer than the timeout.
  while (!unschedulable_.empty() && first_timed_out(now)) {
    requeue(erase_unschedulable(unschedulable_.begin()), now);
  }
}

bool SchedulingQueue::first_comes_up_next(TimePoint now) const {
  const Entry& e = unschedulable_.begin()->second;
  if (backoff_end(e) > now) {
    return false;  // requeue() would send it to back-off
  }
  if (options_.order == QueueOrder::kPrioritySort && mixed_priorities_) {
    return false;  // a later timed-out pod of a higher priority would come first
  }
  return active_.empty() || active_key(e) < active_.begin()->first;
}

void SchedulingQueue::mark_popped(const Entry& e) {
  ++cycle_;
  in_flight_.popped(*e.pod, e.key_hash, e.attempts, cycle_);
}

PodPtr SchedulingQueue::pop_active() {
  Entry e = std::move(active_.begin()->second);
  active_.erase(active_.begin());
  forget_location(e);
  mark_popped(e);
  return std::move(e.pod);
}

std::optional<PodPtr> SchedulingQueue::pop(TimePoint now) {
  flush(now);
  if (active_.empty()) {
    return std::nullopt;
  }
  return pop_active();
}

std::optional<PodPtr> SchedulingQueue::pop(TimePoint now, const UpHint& hint) {
  flush_backoff(now);
  // The timed-out pods that come up next, one by one: each is taken as pop() takes it, asked,
  // and put back (at the end of the set, so it is not timed out again now) or returned. Its
  // passage through the active queue, which pop() after flush() would make, changes nothing: it
  // would leave it first.
  // (A pod put back now is not asked again now, whatever the timeout.)
  while (!unschedulable_.empty() && unschedulable_.begin()->first.first < now &&
         first_timed_out(now) && first_comes_up_next(now)) {
    Entry e = erase_unschedulable(unschedulable_.begin());
    forget_location(e);
    mark_popped(e);
    const std::optional<int> group = hint(e.pod);
    if (!group) {
      flush_unschedulable(now);  // the others timed out now, as flush() moves them
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

void SchedulingQueue::add_unschedulable(PodPtr pod, TimePoint now, bool by_metrics, int group) {
  const std::size_t hash = InFlightPods::hash_of(*pod);
  const InFlightPods::Record* r = in_flight_.find(*pod, hash);
  const std::int64_t popped = r == nullptr || r->popped_cycle < 0 ? cycle_ : r->popped_cycle;
  Entry e = make_entry(std::move(pod), now, hash);
  e.by_metrics = by_metrics;
  e.group = group;
  if (move_request_cycle_ >= popped || (by_metrics && metrics_request_cycle_ >= popped)) {
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
  Entry e;  // make_entry() without looking the record up again
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

void SchedulingQueue::requeue(Entry e, TimePoint now) {
  if (backoff_end(e) > now) {
    push_backoff(std::move(e));
  } else {
    push_active(std::move(e));
  }
}

void SchedulingQueue::on_cluster_event(TimePoint now) {
  move_request_cycle_ = cycle_;
  move_unschedulable(now, false, nullptr);
}

void SchedulingQueue::on_cluster_event(TimePoint now, const QueueingHint& may_help) {
  move_request_cycle_ = cycle_;
  move_unschedulable(now, false, &may_help);
}

std::size_t SchedulingQueue::on_cluster_event(TimePoint now, const GroupHint& hint,
                                              const QueueingHint& counted) {
  move_request_cycle_ = cycle_;
  // The grouped pods: one answer per group. Moves do not depend on their order (a pod's place in
  // the active or back-off queue is its own key), so groups are taken in turn.
  std::size_t kept = 0;
  for (auto g = groups_.begin(); g != groups_.end();) {
    const int group = g->first;
    const std::size_t size = g->second.size();
    std::size_t n = hint(group, *unschedulable_.at(*g->second.begin()).pod);
    std::size_t moved = 0;
    // Collected first: erase_unschedulable() edits the group's set (and drops it when empty).
    std::vector<TimeKey> keys;
    for (auto k = g->second.begin(); k != g->second.end() && n > 0; ++k) {
      const auto it = unschedulable_.find(*k);
      keys.push_back(*k);
      if (n != kAll && backoff_end(it->second) <= now && counted(*it->second.pod)) {
        --n;
      }
    }
    ++g;  // the next group's iterator stays valid
    for (const TimeKey& k : keys) {
      requeue(erase_unschedulable(unschedulable_.find(k)), now);
      ++moved;
    }
    kept += size - moved;
  }
  // The others, as with a hint that is always true.
  for (auto it = unschedulable_.begin();
       grouped_ < unschedulable_.size() && it != unschedulable_.end();) {
    if (it->second.group >= 0) {
      ++it;
      continue;
    }
    Entry e = std::move(it->second);
    it = unschedulable_.erase(it);
    requeue(std::move(e), now);
  }
  return kept;
}

void SchedulingQueue::on_metrics_event(TimePoint now) {
  metrics_request_cycle_ = cycle_;
  move_unschedulable(now, true, nullptr);
}

void SchedulingQueue::move_unschedulable(TimePoint now, bool only_by_metrics,
                                         const QueueingHint* may_help) {
  for (auto it = unschedulable_.begin(); it != unschedulable_.end();) {
    if ((only_by_metrics && !it->second.by_metrics) ||
        (may_help != nullptr && !(*may_help)(*it->second.pod))) {
      ++it;
      continue;
    }
    const auto next = std::next(it);
    requeue(erase_unschedulable(it), now);
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
  const auto take_from = [&](auto& queue, const auto& key) {
    const auto it = queue.find(key);
    InFlightPods::Record& f = in_flight_.get(pod, it->second.key_hash);
    f.attempts = it->second.attempts + 1;
    f.popped_cycle = cycle_;
    queue.erase(it);
    return true;
  };
  switch (l.where) {
    case Where::kActive:
      return take_from(active_, l.active);
    case Where::kBackoff:
      return take_from(backoff_, l.time);
    case Where::kUnschedulable: {
      const auto it = unschedulable_.find(l.time);
      InFlightPods::Record& f = in_flight_.get(pod, it->second.key_hash);
      f.attempts = it->second.attempts + 1;
      f.popped_cycle = cycle_;
      erase_unschedulable(it);
      return true;
    }
  }
  return false;
}

std::optional<TimePoint> SchedulingQueue::next_ready_time(TimePoint now) const {
  if (!active_.empty()) {
    return now;
  }
  std::optional<TimePoint> t;
  if (!backoff_.empty()) {
    t = std::max(now, backoff_.begin()->first.first);
  }
  if (!unschedulable_.empty()) {
    const TimePoint u =
        std::max(now, unschedulable_.begin()->first.first + options_.unschedulable_timeout);
    t = t ? std::min(*t, u) : u;
  }
  return t;
}

std::size_t SchedulingQueue::size() const {
  return active_.size() + backoff_.size() + unschedulable_.size();
}

}  // namespace tidesim::policies
