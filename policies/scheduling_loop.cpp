#include "tidesim/policies/scheduling_loop.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>
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
  return cluster_.nodes_with_required_anti_affinity().empty();
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

const ClusterView& SchedulingLoop::view_for(const PodSpec& pod) {
  bool any = false;
  for (auto it = nominated_.begin(); it != nominated_.end();) {
    if (!target_.pod_alive(*it->second.pod)) {
      it = nominated_.erase(it);  // a deleted preemptor keeps nothing
      continue;
    }
    any = any || (it->first != pod.name && it->second.pod->priority >= pod.priority);
    ++it;
  }
  if (!any) {
    return cluster_;
  }
  with_nominated_ = cluster_;
  for (const auto& [name, n] : nominated_) {
    if (name != pod.name && n.pod->priority >= pod.priority) {
      with_nominated_.nodes[static_cast<std::size_t>(n.node)].add_pod(n.pod, sim_.now());
    }
  }
  return with_nominated_;
}

ScheduleResult SchedulingLoop::schedule(const PodSpec& pod) {
  const ClusterView& view = view_for(pod);
  if (&view != &cluster_) {
    return scheduler_->schedule_one(pod, view, metrics_, sim_.now(), nullptr,
                                    nominated_node(pod.name));
  }
  const bool eligible = fast_fail_ && !has_inter_pod_terms(pod);
  const int cls = eligible ? equivalence_class(pod) : -1;
  if (eligible && static_cast<std::size_t>(cls) < failures_.size() &&
      still_fails(pod, failures_[static_cast<std::size_t>(cls)])) {
    ++fast_failed_;
    return failures_[static_cast<std::size_t>(cls)].second;
  }
  ScheduleResult r = scheduler_->schedule_one(pod, cluster_, metrics_, sim_.now(), nullptr,
                                              nominated_node(pod.name));
  if (eligible && !r.node && !r.error && no_required_anti_affinity()) {
    if (failures_.size() <= static_cast<std::size_t>(cls)) {
      failures_.resize(static_cast<std::size_t>(cls) + 1, {0, ScheduleResult{}});
    }
    failures_[static_cast<std::size_t>(cls)] = {changes_, r};
  }
  return r;
}

bool SchedulingLoop::still_fails(const PodSpec& pod,
                                 std::pair<std::uint64_t, ScheduleResult>& failure) {
  return still_fails(pod, failure.first, failure.second);
}

bool SchedulingLoop::gang_still_fails(
    const PodSpec& first, std::pair<std::uint64_t, std::vector<ScheduleResult>>& failure) {
  if (failure.first == changes_) {
    return true;
  }
  // A gang whose first pod fit no node fails at that pod again, with the same outcome, when the
  // pod does (the cycle reserved nothing, so the pod was tried against the cluster as it is).
  // When a pod was placed before the failing one, a changed node may change where it goes and
  // how many are placed before one fails: only an unchanged cluster replays that cycle.
  const auto& outcomes = failure.second;
  return outcomes.size() == 1 && !outcomes.front().node &&
         still_fails(first, failure.first, outcomes.front());
}

bool SchedulingLoop::still_fails(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r) {
  if (seen == changes_) {
    return true;
  }
  if (!changed_since(seen, r)) {
    return false;
  }
  for (const int node : changed_) {
    if (scheduler_->fits(pod, cluster_, node)) {
      return false;
    }
  }
  seen = changes_;
  return true;
}

std::size_t SchedulingLoop::room_since(const PodSpec& pod, std::uint64_t& seen,
                                       const ScheduleResult& r) {
  if (seen == changes_) {
    return 0;
  }
  if (!changed_since(seen, r)) {
    return SchedulingQueue::kAll;
  }
  const std::int64_t gpus = pod.requests.gpus;
  std::size_t room = 0;
  for (const int node : changed_) {
    if (!scheduler_->fits(pod, cluster_, node)) {
      continue;
    }
    if (gpus <= 0) {
      return SchedulingQueue::kAll;  // no whole GPUs asked: no bound from them
    }
    // NodeResourcesFit admits a pod while its GPUs fit the node's free ones, so at most
    // floor(free / gpus) such pods fit there (at least the one fits() found).
    const NodeInfo& n = cluster_.nodes[static_cast<std::size_t>(node)];
    const std::int64_t free = n.node.allocatable.gpus - n.requested.gpus;
    room += static_cast<std::size_t>(std::max<std::int64_t>(1, free / gpus));
  }
  if (room == 0) {
    seen = changes_;
  }
  return room;
}

bool SchedulingLoop::changed_since(std::uint64_t seen, const ScheduleResult& r) {
  // Incremental: the failure was reached with every node evaluated (a Filter failure, not a
  // PreFilter one), and every change since is known by its node: the other nodes' verdicts are
  // as they were, so the pod still fails if each changed node still rejects it.
  if (seen < journal_base_ || r.unresolvable ||
      r.evaluated_nodes != static_cast<int>(cluster_.nodes.size())) {
    return false;
  }
  // More changes than nodes: checking them costs what the filters cost, so run those.
  if (changes_ - seen > cluster_.nodes.size()) {
    return false;
  }
  // The nodes changed since, each once (marked with this call's stamp).
  changed_.clear();
  if (mark_.size() != cluster_.nodes.size()) {
    mark_.assign(cluster_.nodes.size(), 0);
  }
  ++stamp_;
  for (std::uint64_t c = seen; c < changes_; ++c) {
    const int node = journal_[static_cast<std::size_t>(c - journal_base_)];
    if (node < 0) {
      return false;
    }
    if (mark_[static_cast<std::size_t>(node)] != stamp_) {
      mark_[static_cast<std::size_t>(node)] = stamp_;
      changed_.push_back(node);
    }
  }
  return true;
}

void SchedulingLoop::changed(int node) {
  journal_.push_back(node);
  ++changes_;
  // Keep the journal short: a failure older than what is kept is simply evaluated again.
  if (journal_.size() > kJournalLength) {
    const std::size_t drop = journal_.size() / 2;
    journal_.erase(journal_.begin(), journal_.begin() + static_cast<std::ptrdiff_t>(drop));
    journal_base_ += drop;
  }
}

void SchedulingLoop::add(PodPtr pod) {
  if (Gang* g = gang_of(*pod)) {
    g->members.push_back(pod);
  }
  queue_.add(std::move(pod), sim_.now());
  wake(sim_.now());
}

void SchedulingLoop::add_pod_group(const PodGroup& group) {
  Gang& g = gangs_[group.name];
  if (g.timer) {
    sim_.cancel(*g.timer);
  }
  g = Gang{};
  g.spec = group;
}

std::optional<int> SchedulingLoop::nominated_node(const std::string& pod) const {
  const auto it = nominated_.find(pod);
  return it == nominated_.end() ? std::nullopt : std::optional<int>(it->second.node);
}

SchedulingLoop::Gang* SchedulingLoop::gang_of(const PodSpec& pod) {
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

PodGroupStatus SchedulingLoop::group_status(const Gang& gang) const {
  PodGroupStatus s;
  s.name = gang.spec.name;
  s.min_member = gang.spec.min_member;
  s.schedule_timeout = gang.spec.schedule_timeout;
  s.min_gpus = gang.spec.min_gpus;
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

bool SchedulingLoop::permit(const PodPtr& pod, int node, Gang& gang) {
  if (!target_.reserve(*pod, node)) {
    return false;
  }
  changed(node);
  const PodGroupStatus status = group_status(gang);
  Duration timeout{};
  const Status s = scheduler_->permit(*pod, node, cluster_, &status, sim_.now(), timeout);
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

void SchedulingLoop::reject_waiting(Gang& gang) {
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
    on_cluster_event();  // their cards are free again
  }
}

void SchedulingLoop::gang_cycle(const PodPtr& first, Gang& gang) {
  std::vector<PodPtr> pods{first};
  for (const auto& m : gang.members) {
    if (m != first && target_.pod_alive(*m) && queue_.take(*m)) {
      pods.push_back(m);
    }
  }
  Duration latency{};
  std::vector<PodPtr> reserved;
  std::vector<int> reserved_nodes;  // the node of each reserved pod, same order
  std::vector<SchedulingEvent> events;
  bool by_metrics = false;  // a plugin that reads metrics rejected the pod that did not fit
  // Fast fail (see the class comment): the gang's shape is its pods' classes in order.
  std::vector<int> shape;
  if (fast_fail_ && std::none_of(pods.begin(), pods.end(),
                                 [](const PodPtr& p) { return has_inter_pod_terms(*p); })) {
    shape.reserve(pods.size());
    for (const auto& p : pods) {
      shape.push_back(equivalence_class(*p));
    }
  }
  const auto known = shape.empty() ? gang_failures_.end() : gang_failures_.find(shape);
  const bool replay = known != gang_failures_.end() && gang_still_fails(*first, known->second);
  if (!replay && gang_gate_ && !could_hold(pods)) {
    // The gate (set_gang_capacity_gate): only where a full cycle would run; a replay is cheaper.
    ++cycles_;
    ++gated_;
    for (const auto& p : pods) {
      queue_.add_unschedulable(p, sim_.now(), false, hint_group(*p));
    }
    busy_until_ = sim_.now() + cycle_time_;
    if (signals_ != nullptr) {
      signals_->emit(SchedulingEvent{sim_.now(), first->name, "", 0});
    }
    return;
  }
  if (replay) {
    const auto& outcomes = known->second.second;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      ++cycles_;
      ++fast_failed_;
      latency += outcomes[i].latency;
      events.push_back(SchedulingEvent{sim_.now(), pods[i]->name, "", outcomes[i].fallback_stage});
    }
  } else {
    std::vector<ScheduleResult> outcomes;
    const auto selection = scheduler_->selection_state();
    for (const auto& p : pods) {
      ++cycles_;
      ScheduleResult r = scheduler_->schedule_one(*p, cluster_, metrics_, sim_.now());
      latency += r.latency;
      events.push_back(SchedulingEvent{sim_.now(), p->name, "", r.fallback_stage});
      const bool fits = r.node && target_.reserve(*p, *r.node);
      by_metrics = !fits && r.rejected_by_metrics;
      outcomes.push_back(std::move(r));
      if (!fits) {
        break;
      }
      reserved.push_back(p);
      reserved_nodes.push_back(*outcomes.back().node);
      events.back().node =
          cluster_.nodes[static_cast<std::size_t>(reserved_nodes.back())].node.name;
    }
    // Remembered only when the cycle left the scheduler as it found it: pods placed before the
    // one that failed may have moved the round-robin start or drawn a tie-break, which a replay
    // would not do.
    if (!shape.empty() && reserved.size() < pods.size() && !outcomes.back().error &&
        scheduler_->selection_state() == selection && no_required_anti_affinity()) {
      gang_failures_[shape] = {changes_, std::move(outcomes)};
    }
  }
  const bool all = reserved.size() == pods.size();
  if (all) {
    for (const auto& p : pods) {
      target_.allow(*p);
      class_of_.erase(p.get());
      queue_.done(*p);
    }
    gang.bound += static_cast<int>(pods.size());
    for (const int node : reserved_nodes) {  // the cluster changed on the gang's nodes
      changed(node);
    }
  } else {
    // Every reservation is undone: the ClusterView is as before the cycle, so the failures
    // remembered for fast fail still hold.
    for (auto it = reserved.rbegin(); it != reserved.rend(); ++it) {
      target_.unreserve(**it);
    }
    for (auto& e : events) {
      e.node.clear();
    }
    for (const auto& p : pods) {
      queue_.add_unschedulable(p, sim_.now(), by_metrics, hint_group(*p));
    }
  }
  busy_until_ = sim_.now() + cycle_time_ * static_cast<std::int64_t>(events.size()) + latency;
  if (signals_ != nullptr) {
    for (const auto& e : events) {
      signals_->emit(e);
    }
  }
}

bool SchedulingLoop::could_hold(const std::vector<PodPtr>& pods) {
  std::int64_t per_pod = pods.front()->requests.gpus;
  std::int64_t total = 0;
  for (const auto& p : pods) {
    total += p->requests.gpus;
    per_pod = p->requests.gpus == per_pod ? per_pod : -1;
  }
  return could_hold(static_cast<std::int64_t>(pods.size()), per_pod, total);
}

bool SchedulingLoop::could_hold(std::int64_t count, std::int64_t per_pod, std::int64_t total) {
  return gangs_held(count, per_pod, total) >= 1;
}

std::int64_t SchedulingLoop::gangs_held(std::int64_t count, std::int64_t per_pod,
                                        std::int64_t total) {
  if (total <= 0 || count <= 0) {
    return std::numeric_limits<std::int64_t>::max();  // no GPUs asked: nothing to gate on
  }
  count_free_gpus();
  std::int64_t free = 0;
  std::int64_t slots = 0;
  for (std::size_t f = 1; f < free_.nodes.size(); ++f) {
    const auto gpus = static_cast<std::int64_t>(f);
    free += free_.nodes[f] * gpus;
    slots += per_pod > 0 ? free_.nodes[f] * (gpus / per_pod) : 0;
  }
  return per_pod > 0 ? slots / count : free / total;
}

void SchedulingLoop::count_free_gpus() {
  const auto free_of = [this](std::size_t node) {
    const NodeInfo& n = cluster_.nodes[node];
    return std::max<std::int64_t>(0, n.node.allocatable.gpus - n.requested.gpus);
  };
  const auto count = [this](std::int64_t f, std::int64_t delta) {
    const auto i = static_cast<std::size_t>(f);
    if (free_.nodes.size() <= i) {
      free_.nodes.resize(i + 1, 0);
    }
    free_.nodes[i] += delta;
  };
  bool all = free_.synced == 0 || free_.synced < journal_base_ ||
             free_.by_node.size() != cluster_.nodes.size();
  for (std::uint64_t c = free_.synced; !all && c < changes_; ++c) {
    const int node = journal_[static_cast<std::size_t>(c - journal_base_)];
    if (node < 0) {
      all = true;
      break;
    }
    const auto i = static_cast<std::size_t>(node);
    count(free_.by_node[i], -1);
    free_.by_node[i] = free_of(i);
    count(free_.by_node[i], 1);
  }
  if (all) {
    free_.by_node.assign(cluster_.nodes.size(), 0);
    free_.nodes.clear();
    for (std::size_t i = 0; i < cluster_.nodes.size(); ++i) {
      free_.by_node[i] = free_of(i);
      count(free_.by_node[i], 1);
    }
  }
  free_.synced = changes_;
}

bool SchedulingLoop::gang_may_help(const Gang& gang) {
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
  return count == 0 || could_hold(count, per_pod, total);
}

int SchedulingLoop::hint_group(const PodSpec& pod) {
  return hints_ == QueueingHints::kPrecise ? hint_group(pod, gang_of(pod)) : -1;
}

int SchedulingLoop::hint_group(const PodSpec& pod, Gang* g) {
  if (hints_ != QueueingHints::kPrecise) {
    return -1;
  }
  if (g != nullptr) {
    if (g->spec.mode != PodGroup::Mode::kAllOrNothing) {
      return 0;
    }
    if (g->shape_group >= 0 && g->shape_members == g->members.size()) {
      return g->shape_group;  // members only grow, and a pod's requests do not change
    }
    // The gang's shape, as declared: its pods and the GPUs they ask.
    std::array<std::int64_t, 3> shape{0, 0, 0};  // pods, GPUs per pod (-1: mixed), GPUs
    for (const auto& m : g->members) {
      shape[1] = shape[0] == 0 || m->requests.gpus == shape[1] ? m->requests.gpus : -1;
      shape[2] += m->requests.gpus;
      ++shape[0];
    }
    const auto [it, added] = shape_ids_.emplace(shape, static_cast<int>(shapes_.size()));
    if (added) {
      shapes_.push_back(shape);
    }
    g->shape_group = 2 * it->second + 2;
    g->shape_members = g->members.size();
    return g->shape_group;
  }
  if (!fast_fail_ || has_inter_pod_terms(pod)) {
    return 0;
  }
  const auto it = class_of_.find(&pod);
  return it == class_of_.end() ? 0 : 2 * it->second + 1;
}

std::size_t SchedulingLoop::group_hint(int group, const PodSpec& first) {
  if (group == 0) {
    return SchedulingQueue::kAll;
  }
  if (group % 2 == 0) {
    // All-or-nothing gangs of one shape: as many as the free GPUs could hold, by their pods.
    const auto& shape = shapes_[static_cast<std::size_t>(group / 2 - 1)];
    const std::int64_t held = gangs_held(shape[0], shape[1], shape[2]);
    if (held <= 0) {
      return 0;
    }
    return held >= std::numeric_limits<std::int64_t>::max() / shape[0]
               ? SchedulingQueue::kAll
               : static_cast<std::size_t>(held * shape[0]);
  }
  // An equivalence class: may_help() for its pods, and when the changed nodes may take some of
  // them, at most as many as they have room for move (room_since()).
  if (!no_required_anti_affinity()) {
    return SchedulingQueue::kAll;
  }
  const auto cls = static_cast<std::size_t>(group / 2);
  if (cls >= failures_.size() || failures_[cls].first == 0) {
    return SchedulingQueue::kAll;
  }
  auto& failure = failures_[cls];
  const std::size_t room = room_since(first, failure.first, failure.second);
  if (room > 0) {
    if (helped_.size() < failures_.size()) {
      helped_.resize(failures_.size(), 0);
    }
    helped_[cls] = changes_;
  }
  return room;
}

bool SchedulingLoop::may_help(const PodSpec& pod, bool classify, Gang* g) {
  if (g != nullptr) {
    if (g->spec.mode != PodGroup::Mode::kAllOrNothing) {
      return true;  // Coscheduling's state, not only the view, decides
    }
    if (g->verdict_call != pop_calls_) {
      g->verdict_call = pop_calls_;
      g->verdict = gang_may_help(*g);
    }
    return g->verdict;
  }
  if (!fast_fail_ || has_inter_pod_terms(pod) || !no_required_anti_affinity()) {
    return true;
  }
  int cls = -1;
  if (const auto it = class_of_.find(&pod); it != class_of_.end()) {
    cls = it->second;
  } else if (classify) {
    cls = equivalence_class(pod);
  }
  if (cls < 0 || static_cast<std::size_t>(cls) >= failures_.size()) {
    return true;
  }
  auto& failure = failures_[static_cast<std::size_t>(cls)];
  if (failure.first == 0) {
    return true;
  }
  if (failure.first == changes_) {
    return false;  // a pod of the class failed in this very state
  }
  // Pods of one class get one verdict in one cluster state: a class found helped at this count
  // is not checked again for its other pods.
  if (helped_.size() < failures_.size()) {
    helped_.resize(failures_.size(), 0);
  }
  std::uint64_t& helped = helped_[static_cast<std::size_t>(cls)];
  if (helped == changes_) {
    return true;
  }
  if (still_fails(pod, failure)) {
    return false;
  }
  helped = changes_;
  return true;
}

void SchedulingLoop::try_preemption(const PodPtr& pod) {
  // PodEligibleToPreemptOthers: not while the victims of its last nomination are terminating.
  if (const auto it = nominated_.find(pod->name); it != nominated_.end()) {
    for (const auto& v : it->second.victims) {
      if (target_.pod_alive(*v)) {
        return;
      }
    }
  }
  PostFilterResult r = scheduler_->post_filter(*pod, cluster_, sim_.now());
  if (!r.nominated_node) {
    return;
  }
  Nomination& n = nominated_[pod->name];
  n.pod = pod;
  n.node = *r.nominated_node;
  n.victims = std::move(r.victims);
  target_.preempt(*pod, n.node, n.victims);
}

void SchedulingLoop::on_cluster_event() {
  changed(-1);  // anywhere: every remembered failure is stale
  queue_.on_cluster_event(sim_.now());
  wake_when_ready();
}

void SchedulingLoop::on_cluster_event(const std::set<int>& nodes) {
  for (const int n : nodes) {
    changed(n);
  }
  if (hints_ == QueueingHints::kPrecise) {
    // One verdict per hint group (an equivalence class, a gang): its pods get the same answer.
    hinted_skips_ += queue_.on_cluster_event(
        sim_.now(), [this](int group, const PodSpec& first) { return group_hint(group, first); },
        [this](const PodSpec& pod) { return target_.pod_alive(pod); });
  } else {
    queue_.on_cluster_event(sim_.now());
  }
  wake_when_ready();
}

void SchedulingLoop::on_metrics_event() {
  queue_.on_metrics_event(sim_.now());
  wake_when_ready();
}

void SchedulingLoop::wake_when_ready() {
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

std::optional<PodPtr> SchedulingLoop::pop() {
  ++pop_calls_;  // a new call: the gangs' verdicts of the previous one are stale
  if (hints_ != QueueingHints::kPrecise) {
    return queue_.pop(sim_.now());
  }
  // Precise hints, once more when the pod comes up: a pod moved back by a change that a pod
  // before it has used up, or retried at its timeout with nothing changed, is not tried. The
  // hint group of a pod put back untried; nullopt: try it (a deleted pod goes to cycle()).
  return queue_.pop(sim_.now(), [this](const PodPtr& pod) -> std::optional<int> {
    if (!target_.pod_alive(*pod)) {
      return std::nullopt;
    }
    Gang* gang = gang_of(*pod);
    if (may_help(*pod, true, gang)) {
      return std::nullopt;
    }
    ++hinted_skips_;
    return hint_group(*pod, gang);
  });
}

void SchedulingLoop::cycle() {
  next_cycle_.reset();
  const auto popped = pop();
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
  Gang* gang = gang_of(*pod);
  if (gang != nullptr && gang->spec.mode == PodGroup::Mode::kAllOrNothing) {
    gang_cycle(pod, *gang);
    if (const auto next = queue_.next_ready_time(sim_.now())) {
      wake(*next);
    }
    return;
  }
  ++cycles_;
  ScheduleResult r;
  const bool inspected = want_ && want_(*pod);
  if (inspected) {
    scheduler_->set_record_details(true);
    scheduler_->set_record_reasons(true);
  }
  if (gang != nullptr) {
    const PodGroupStatus status = group_status(*gang);
    r = scheduler_->schedule_one(*pod, view_for(*pod), metrics_, sim_.now(), &status,
                                 nominated_node(pod->name));
  } else if (inspected) {
    r = scheduler_->schedule_one(*pod, view_for(*pod), metrics_, sim_.now(), nullptr,
                                 nominated_node(pod->name));
  } else {
    r = schedule(*pod);
  }
  if (inspected) {
    scheduler_->set_record_details(false);
    scheduler_->set_record_reasons(false);
    got_(*pod, r);
  }
  busy_until_ = sim_.now() + cycle_time_ + r.latency;
  SchedulingEvent ev{sim_.now(), pod->name, "", r.fallback_stage};
  const bool placed =
      r.node && (gang != nullptr ? permit(pod, *r.node, *gang) : target_.bind(*pod, *r.node));
  if (placed) {
    class_of_.erase(pod.get());
    nominated_.erase(pod->name);
    changed(*r.node);  // the cluster changed on that node
    ev.node = cluster_.nodes[static_cast<std::size_t>(*r.node)].node.name;
    queue_.done(*pod);
  } else if (r.error) {
    queue_.add_backoff(pod, sim_.now());
  } else {
    queue_.add_unschedulable(pod, sim_.now(), r.rejected_by_metrics, hint_group(*pod));
    if (gang != nullptr && !gang->waiting.empty()) {
      // Coscheduling's PostFilter: a member that fits nowhere rejects its waiting siblings,
      // unless at most 10 % of minMember are still missing.
      const PodGroupStatus status = group_status(*gang);
      const int missing = status.min_member - status.assigned;
      if (missing > 0 && 10 * missing > status.min_member) {
        reject_waiting(*gang);
      }
    }
    if (preemption_ && !r.unresolvable) {
      try_preemption(pod);
    }
  }
  if (signals_ != nullptr) {
    signals_->emit(ev);
  }
  if (const auto next = queue_.next_ready_time(sim_.now())) {
    wake(*next);
  }
}

bool BindTarget::reserve(const PodSpec& /*pod*/, int /*node*/) {
  throw std::logic_error("this BindTarget does not support gangs (reserve)");
}

void BindTarget::allow(const PodSpec& /*pod*/) {
  throw std::logic_error("this BindTarget does not support gangs (allow)");
}

void BindTarget::unreserve(const PodSpec& /*pod*/) {
  throw std::logic_error("this BindTarget does not support gangs (unreserve)");
}

void BindTarget::preempt(const PodSpec& /*preemptor*/, int /*node*/,
                         const std::vector<std::shared_ptr<const PodSpec>>& /*victims*/) {}

}  // namespace tidesim::policies
