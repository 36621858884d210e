#include "tidesim/policies/backoff_queue.hpp"

namespace tidesim::policies {

Duration BackoffQueue::duration(int attempts) const {
  Duration d = initial_;
  for (int i = 1; i < attempts; ++i) {
    if (d > max_ - d) {
      return max_;
    }
    d += d;
  }
  return d;
}

BackoffQueue::Key BackoffQueue::push(QueuedPod e) {
  const Key k{end_of(e), e.seq};
  pods_.emplace(k, std::move(e));
  return k;
}

QueuedPod BackoffQueue::pop_first() {
  QueuedPod e = std::move(pods_.begin()->second);
  pods_.erase(pods_.begin());
  return e;
}

QueuedPod BackoffQueue::take(const Key& k) {
  const auto it = pods_.find(k);
  QueuedPod e = std::move(it->second);
  pods_.erase(it);
  return e;
}

}  // namespace tidesim::policies
