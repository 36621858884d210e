#include "policies/queue.hpp"

namespace tidesim::policies {

SchedulingQueue::SchedulingQueue(QueueOptions options) : options_(options) {}

std::string SchedulingQueue::key_of(const PodSpec& pod) {
  return pod.namespace_name + "/" + pod.name;
}

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
  active_.emplace(k, std::move(e));
}

void SchedulingQueue::push_backoff(Entry e) {
  const TimeKey k{backoff_end(e), e.seq};
  backoff_.emplace(k, std::move(e));
}

SchedulingQueue::Entry SchedulingQueue::make_entry(PodPtr pod, TimePoint now) {
  Entry e;
  e.attempts = attempts_[key_of(*pod)];
  e.pod = std::move(pod);
  e.timestamp = now;
  e.seq = next_seq_++;
  return e;
}

void SchedulingQueue::add(PodPtr pod, TimePoint now) {
  push_active(make_entry(std::move(pod), now));
}

void SchedulingQueue::flush(TimePoint now) {
  // flushBackoffQCompleted
  while (!backoff_.empty() && backoff_.begin()->first.first <= now) {
    Entry e = std::move(backoff_.begin()->second);
    backoff_.erase(backoff_.begin());
    push_active(std::move(e));
  }
  // flushUnschedulablePodsLeftover: pods unschedulable for longer than the timeout.
  while (!unschedulable_.empty() &&
         now - unschedulable_.begin()->first.first >= options_.unschedulable_timeout) {
    Entry e = std::move(unschedulable_.begin()->second);
    unschedulable_.erase(unschedulable_.begin());
    requeue(std::move(e), now);
  }
}

std::optional<PodPtr> SchedulingQueue::pop(TimePoint now) {
  flush(now);
  if (active_.empty()) {
    return std::nullopt;
  }
  Entry e = std::move(active_.begin()->second);
  active_.erase(active_.begin());
  ++cycle_;
  const std::string key = key_of(*e.pod);
  attempts_[key] = e.attempts + 1;
  popped_cycle_[key] = cycle_;
  return e.pod;
}

void SchedulingQueue::add_unschedulable(PodPtr pod, TimePoint now) {
  const std::string key = key_of(*pod);
  Entry e = make_entry(std::move(pod), now);
  const auto pc = popped_cycle_.find(key);
  const std::int64_t popped = pc == popped_cycle_.end() ? cycle_ : pc->second;
  if (move_request_cycle_ >= popped) {
    push_backoff(std::move(e));
  } else {
    unschedulable_.emplace(TimeKey{now, e.seq}, std::move(e));
  }
}

void SchedulingQueue::add_backoff(PodPtr pod, TimePoint now) {
  push_backoff(make_entry(std::move(pod), now));
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
  while (!unschedulable_.empty()) {
    Entry e = std::move(unschedulable_.begin()->second);
    unschedulable_.erase(unschedulable_.begin());
    requeue(std::move(e), now);
  }
}

void SchedulingQueue::done(const PodSpec& pod) {
  const std::string key = key_of(pod);
  attempts_.erase(key);
  popped_cycle_.erase(key);
}

bool SchedulingQueue::take(const PodSpec& pod) {
  const auto take_from = [&](auto& queue) {
    for (auto it = queue.begin(); it != queue.end(); ++it) {
      if (it->second.pod.get() == &pod) {
        const std::string key = key_of(pod);
        attempts_[key] = it->second.attempts + 1;
        popped_cycle_[key] = cycle_;
        queue.erase(it);
        return true;
      }
    }
    return false;
  };
  return take_from(active_) || take_from(backoff_) || take_from(unschedulable_);
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
