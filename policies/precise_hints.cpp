#include "tidesim/policies/precise_hints.hpp"

namespace tidesim::policies {

PreciseHints::PreciseHints(FailureMemo& memo, Gangs& gangs, BindTarget& target,
                           SchedulingQueue& queue)
    : memo_(memo), gangs_(gangs), target_(target), queue_(queue) {}

int PreciseHints::group(const PodSpec& pod) {
  return on_ ? group(pod, gangs_.of(pod)) : -1;
}

int PreciseHints::group(const PodSpec& pod, Gang* gang) {
  if (!on_) {
    return -1;
  }
  if (gang != nullptr) {
    return gangs_.shape_group(*gang);
  }
  const int cls = memo_.hint_class(pod);
  return cls < 0 ? 0 : 2 * cls + 1;
}

std::size_t PreciseHints::room(int group, const PodSpec& first) {
  if (group == 0) {
    return SchedulingQueue::kAll;
  }
  if (group % 2 == 0) {
    return gangs_.shape_room(group);
  }
  return memo_.room(group / 2, first);
}

bool PreciseHints::may_help(const PodSpec& pod, bool classify, Gang* gang) {
  return gang != nullptr ? gangs_.may_help(*gang, pop_calls_) : memo_.may_help(pod, classify);
}

std::optional<PodPtr> PreciseHints::pop(TimePoint now) {
  ++pop_calls_;  // a new call: the gangs' verdicts of the previous one are stale
  if (!on_) {
    return queue_.pop(now);
  }
  // The hint group of a pod put back untried; nullopt: try it (a deleted pod is dropped by the
  // cycle).
  return queue_.pop(now, [this](const PodPtr& pod) -> std::optional<int> {
    if (!target_.pod_alive(*pod)) {
      return std::nullopt;
    }
    Gang* gang = gangs_.of(*pod);
    if (may_help(*pod, true, gang)) {
      return std::nullopt;
    }
    ++skips_;
    return group(*pod, gang);
  });
}

void PreciseHints::on_change(TimePoint now, const std::set<int>& nodes) {
  if (!on_) {
    queue_.on_cluster_event(now, &nodes);
    return;
  }
  // One verdict per hint group (an equivalence class, a gang shape): its pods get the same answer.
  skips_ += queue_.on_cluster_event(
      now, &nodes, [this](int group, const PodSpec& first) { return room(group, first); },
      [this](const PodSpec& pod) { return target_.pod_alive(pod); });
}

}  // namespace tidesim::policies
