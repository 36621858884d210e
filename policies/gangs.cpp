#include "tidesim/policies/gangs.hpp"

#include <limits>
#include <utility>

namespace tidesim::policies {

Gangs::Gangs(Simulation& sim, Scheduler& scheduler, const ClusterView& cluster, BindTarget& target,
             SchedulingQueue& queue, ChangeJournal& journal, std::function<void()> freed)
    : sim_(sim),
      scheduler_(scheduler),
      cluster_(cluster),
      target_(target),
      queue_(queue),
      journal_(journal),
      freed_(std::move(freed)) {}

void Gangs::declare(const PodGroup& group) {
  Gang& g = gangs_[group.name];
  if (g.timer) {
    sim_.cancel(*g.timer);
  }
  g = Gang{};
  g.spec = group;
  if (group.mode == PodGroup::Mode::kPermit && scheduler_.plugins().pod_group_cycle()) {
    g.spec.mode = PodGroup::Mode::kPodGroupCycle;
  }
}

Gang* Gangs::of(const PodSpec& pod) {
  if (gangs_.empty()) {
    return nullptr;
  }
  const auto label = pod.labels.find(kPodGroupLabel);
  if (label == pod.labels.end()) {
    return nullptr;
  }
  const auto it = gangs_.find(label->second);
  return it == gangs_.end() ? nullptr : &it->second;
}

PodGroupStatus Gangs::status(const Gang& gang) const {
  PodGroupStatus s;
  s.name = gang.spec.name;
  s.min_member = gang.spec.min_member;
  s.schedule_timeout = gang.spec.schedule_timeout;
  s.min_gpus = gang.spec.min_gpus;
  s.topology_key = gang.spec.topology_key;
  s.assigned = gang.bound;
  for (const auto& m : gang.members) {
    s.members += target_.pod_alive(*m);
  }
  for (const auto& w : gang.waiting) {
    if (target_.pod_alive(*w)) {
      ++s.assigned;
      s.assigned_gpus += w->requests.gpus;
    }
  }
  if (!gang.members.empty()) {
    s.assigned_gpus += gang.bound * gang.members.front()->requests.gpus;
  }
  return s;
}

bool Gangs::permit(const PodPtr& pod, int node, std::span<const int> cards, Gang& gang) {
  if (!target_.reserve(*pod, node, cards)) {
    return false;
  }
  journal_.record(node);
  const PodGroupStatus status = this->status(gang);
  Duration timeout{};
  const Status s = scheduler_.permit(*pod, node, cluster_, &status, sim_.now(), timeout);
  if (s.code == Code::kWait) {
    gang.waiting.push_back(pod);
    if (!gang.timer) {
      // WaitOnPermit: the first waiting pod's timeout rejects the whole group.
      const std::string name = gang.spec.name;
      gang.timer = sim_.schedule_in(timeout, [this, name] {
        Gang& g = gangs_.at(name);
        g.timer.reset();
        reject_waiting(g);
      });
    }
    return true;
  }
  if (!s.ok()) {
    target_.unreserve(*pod);
    return false;
  }
  // The group is complete: this pod and every waiting sibling bind now.
  target_.allow(*pod);
  ++gang.bound;
  for (const auto& w : gang.waiting) {
    if (target_.pod_alive(*w)) {
      target_.allow(*w);
      ++gang.bound;
    }
  }
  gang.waiting.clear();
  if (gang.timer) {
    sim_.cancel(*gang.timer);
    gang.timer.reset();
  }
  return true;
}

void Gangs::post_filter(const PodSpec& pod, Gang& gang) {
  if (gang.waiting.empty()) {
    return;  // nothing to reject
  }
  const PodGroupStatus status = this->status(gang);
  if (scheduler_.group_post_filter(pod, cluster_, status, sim_.now()).reject_waiting) {
    reject_waiting(gang);
  }
}

void Gangs::reject_waiting(Gang& gang) {
  if (gang.timer) {
    sim_.cancel(*gang.timer);
    gang.timer.reset();
  }
  std::vector<PodPtr> waiting = std::move(gang.waiting);
  gang.waiting.clear();
  bool freed = false;
  for (const auto& w : waiting) {
    if (target_.pod_alive(*w)) {
      target_.unreserve(*w);
      queue_.add_backoff(w, sim_.now());
      freed = true;
    }
  }
  if (freed) {
    freed_();  // their cards are free again
  }
}

bool Gangs::gate_closed(const std::vector<PodPtr>& pods) {
  if (!gate_) {
    return false;
  }
  std::int64_t per_pod = pods.front()->requests.gpus;
  std::int64_t total = 0;
  for (const auto& p : pods) {
    total += p->requests.gpus;
    per_pod = p->requests.gpus == per_pod ? per_pod : -1;
  }
  if (could_hold(static_cast<std::int64_t>(pods.size()), per_pod, total)) {
    return false;
  }
  ++gated_;
  return true;
}

bool Gangs::could_hold(std::int64_t count, std::int64_t per_pod, std::int64_t total) {
  return free_.gangs_held(cluster_, journal_, count, per_pod, total) >= 1;
}

int Gangs::shape_group(Gang& g) {
  if (g.spec.mode != PodGroup::Mode::kAllOrNothing) {
    return 0;  // Coscheduling's state, not only the view, decides: always moved
  }
  if (g.shape_group >= 0 && g.shape_members == g.members.size()) {
    return g.shape_group;  // members only grow, and a pod's requests do not change
  }
  // The gang's shape, as declared: its pods and the GPUs they ask.
  std::array<std::int64_t, 3> shape{0, 0, 0};  // pods, GPUs per pod (-1: mixed), GPUs
  for (const auto& m : g.members) {
    shape[1] = shape[0] == 0 || m->requests.gpus == shape[1] ? m->requests.gpus : -1;
    shape[2] += m->requests.gpus;
    ++shape[0];
  }
  const auto [it, added] = shape_ids_.emplace(shape, static_cast<int>(shapes_.size()));
  if (added) {
    shapes_.push_back(shape);
  }
  g.shape_group = 2 * it->second + 2;
  g.shape_members = g.members.size();
  return g.shape_group;
}

std::size_t Gangs::shape_room(int group) {
  const auto& shape = shapes_[static_cast<std::size_t>(group / 2 - 1)];
  const std::int64_t held = free_.gangs_held(cluster_, journal_, shape[0], shape[1], shape[2]);
  if (held <= 0) {
    return 0;
  }
  return held >= std::numeric_limits<std::int64_t>::max() / shape[0]
             ? SchedulingQueue::kAll
             : static_cast<std::size_t>(held * shape[0]);
}

bool Gangs::may_help(Gang& gang, std::uint64_t call) {
  if (gang.spec.mode != PodGroup::Mode::kAllOrNothing) {
    return true;  // Coscheduling's state, not only the view, decides
  }
  if (gang.verdict_call == call) {
    return gang.verdict;
  }
  // could_hold() of the living members, counted without listing them.
  std::int64_t count = 0;
  std::int64_t per_pod = 0;
  std::int64_t total = 0;
  for (const auto& m : gang.members) {
    if (target_.pod_alive(*m)) {
      per_pod = count == 0 || m->requests.gpus == per_pod ? m->requests.gpus : -1;
      total += m->requests.gpus;
      ++count;
    }
  }
  gang.verdict_call = call;
  gang.verdict = count == 0 || could_hold(count, per_pod, total);
  return gang.verdict;
}

}  // namespace tidesim::policies
