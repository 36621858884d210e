#include "tidesim/policies/active_queue.hpp"

#include <utility>

namespace tidesim::policies {

ActiveQueue::Key ActiveQueue::key(const QueuedPod& e) const {
  const std::int64_t prio =
      order_ == QueueOrder::kPrioritySort ? -static_cast<std::int64_t>(e.pod->priority) : 0;
  return {prio, e.timestamp, e.seq};
}

ActiveQueue::Key ActiveQueue::push(QueuedPod e) {
  const Key k = key(e);
  pods_.emplace(k, std::move(e));
  return k;
}

QueuedPod ActiveQueue::pop_first() {
  QueuedPod e = std::move(pods_.begin()->second);
  pods_.erase(pods_.begin());
  return e;
}

QueuedPod ActiveQueue::take(const Key& k) {
  const auto it = pods_.find(k);
  QueuedPod e = std::move(it->second);
  pods_.erase(it);
  return e;
}

void ActiveQueue::note_priority(std::int32_t priority) {
  if (!have_priority_) {
    have_priority_ = true;
    priority_ = priority;
  } else if (priority != priority_) {
    mixed_ = true;
  }
}

}  // namespace tidesim::policies
