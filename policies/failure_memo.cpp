#include "tidesim/policies/failure_memo.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "tidesim/policies/queue.hpp"

namespace tidesim::policies {

PodSpec equivalence_key(const PodSpec& pod) {
  PodSpec key = pod;
  key.name.clear();
  key.namespace_name.clear();
  key.labels.clear();
  return key;
}

namespace {

void mix(std::size_t& seed, std::size_t h) {
  // boost::hash_combine's mixing step.
  seed ^= h + 0x9e3779b9 + (seed << 6) + (seed >> 2);
}

void mix_requirements(std::size_t& seed, const std::vector<SelectorRequirement>& reqs) {
  for (const SelectorRequirement& r : reqs) {
    mix(seed, std::hash<std::string>{}(r.key));
    for (const std::string& v : r.values) {
      mix(seed, std::hash<std::string>{}(v));
    }
  }
}

// A hash of the fields that most often tell classes apart (equal keys, equal buckets; equality
// decides): the requests, the node name, the node selector's size and the required node
// affinity, which tells apart the pods a placement pins to their own nodes (a `metadata.name`
// term each: without it every such pod would share one bucket with all the classes before it).
std::size_t bucket_of(const PodSpec& key) {
  const auto& r = key.requests;
  std::size_t bucket =
      std::hash<std::int64_t>{}(r.cpu_milli) ^ (std::hash<std::int64_t>{}(r.memory_bytes) << 1) ^
      (std::hash<std::int64_t>{}(r.gpus * 1001 + r.gpu_milli) << 2) ^
      (std::hash<std::string>{}(key.node_name) << 3) ^ (key.node_selector.size() << 4);
  for (const NodeSelectorTerm& term : key.node_affinity.required) {
    mix_requirements(bucket, term.match_expressions);
    mix_requirements(bucket, term.match_fields);
  }
  return bucket;
}

bool has_inter_pod_terms(const PodSpec& pod) {
  return !pod.pod_affinity.required.empty() || !pod.pod_affinity.preferred.empty() ||
         !pod.pod_anti_affinity.required.empty() || !pod.pod_anti_affinity.preferred.empty() ||
         !pod.topology_spread.empty();
}

}  // namespace

int EquivalenceClasses::of(const PodSpec& pod) {
  if (const auto it = of_.find(&pod); it != of_.end()) {
    return it->second;
  }
  PodSpec key = equivalence_key(pod);
  const std::size_t bucket = bucket_of(key);
  int id = -1;
  const auto [first, last] = by_bucket_.equal_range(bucket);
  for (auto it = first; it != last; ++it) {
    if (keys_[static_cast<std::size_t>(it->second)] == key) {
      id = it->second;
      break;
    }
  }
  if (id < 0) {
    id = static_cast<int>(keys_.size());
    keys_.push_back(std::move(key));
    by_bucket_.emplace(bucket, id);
  }
  of_.emplace(&pod, id);
  return id;
}

int EquivalenceClasses::kept(const PodSpec& pod) const {
  const auto it = of_.find(&pod);
  return it == of_.end() ? -1 : it->second;
}

FailureMemo::FailureMemo(Scheduler& scheduler, const ClusterView& cluster,
                         const ChangeJournal& journal)
    : scheduler_(scheduler),
      cluster_(cluster),
      journal_(journal),
      on_(!scheduler.reads_metrics()) {}

bool FailureMemo::eligible(const PodSpec& pod) const {
  return on_ && !has_inter_pod_terms(pod);
}

bool FailureMemo::trusted() const {
  return cluster_.nodes_with_required_anti_affinity().empty();
}

ScheduleResult FailureMemo::schedule(const PodSpec& pod, const MetricsSource* metrics,
                                     TimePoint now, std::optional<int> nominated) {
  const bool remembered = eligible(pod);
  const int cls = remembered ? classes_.of(pod) : -1;
  const auto c = static_cast<std::size_t>(cls);
  if (remembered && c < failures_.size() &&
      still_fails(pod, failures_[c].first, failures_[c].second)) {
    ++replays_;
    return failures_[c].second;
  }
  ScheduleResult r = scheduler_.schedule_one(pod, cluster_, metrics, now, nullptr, nominated);
  if (remembered && !r.node && !r.error && trusted()) {
    if (failures_.size() <= c) {
      failures_.resize(c + 1, {0, ScheduleResult{}});
    }
    failures_[c] = {journal_.now(), r};
  }
  return r;
}

std::vector<int> FailureMemo::gang_shape(const std::vector<PodPtr>& pods) {
  std::vector<int> shape;
  if (on_ && std::none_of(pods.begin(), pods.end(),
                          [](const PodPtr& p) { return has_inter_pod_terms(*p); })) {
    shape.reserve(pods.size());
    for (const auto& p : pods) {
      shape.push_back(classes_.of(*p));
    }
  }
  return shape;
}

const std::vector<ScheduleResult>* FailureMemo::gang_replay(const std::vector<int>& shape,
                                                            const PodSpec& first) {
  if (shape.empty()) {
    return nullptr;
  }
  const auto known = gang_failures_.find(shape);
  if (known == gang_failures_.end() || !gang_still_fails(first, known->second)) {
    return nullptr;
  }
  replays_ += known->second.second.size();
  return &known->second.second;
}

void FailureMemo::remember_gang(const std::vector<int>& shape,
                                std::vector<ScheduleResult> outcomes) {
  gang_failures_[shape] = {journal_.now(), std::move(outcomes)};
}

bool FailureMemo::gang_still_fails(const PodSpec& first,
                                   std::pair<std::uint64_t, std::vector<ScheduleResult>>& failure) {
  if (failure.first == journal_.now()) {
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

bool FailureMemo::still_fails(const PodSpec& pod, std::uint64_t& seen, const ScheduleResult& r) {
  if (seen == journal_.now()) {
    return true;
  }
  if (!changed_since(seen, r)) {
    return false;
  }
  for (const int node : changed_) {
    if (scheduler_.fits(pod, cluster_, node)) {
      return false;
    }
  }
  seen = journal_.now();
  return true;
}

std::size_t FailureMemo::room_since(const PodSpec& pod, std::uint64_t& seen,
                                    const ScheduleResult& r) {
  if (seen == journal_.now()) {
    return 0;
  }
  if (!changed_since(seen, r)) {
    return SchedulingQueue::kAll;
  }
  const std::int64_t gpus = pod.requests.gpus;
  std::size_t room = 0;
  for (const int node : changed_) {
    if (!scheduler_.fits(pod, cluster_, node)) {
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
    seen = journal_.now();
  }
  return room;
}

bool FailureMemo::changed_since(std::uint64_t seen, const ScheduleResult& r) {
  // Incremental: the failure was reached with every node evaluated (a Filter failure, not a
  // PreFilter one), and every change since is known by its node: the other nodes' verdicts are
  // as they were, so the pod still fails if each changed node still rejects it.
  const std::size_t n = cluster_.nodes.size();
  if (r.unresolvable || r.evaluated_nodes != static_cast<int>(n)) {
    return false;
  }
  // More changes than nodes: checking them costs what the filters cost, so run those.
  if (journal_.now() - seen > n) {
    return false;
  }
  return journal_.nodes_since(seen, n, changed_);
}

bool FailureMemo::may_help(const PodSpec& pod, bool classify) {
  if (!eligible(pod) || !trusted()) {
    return true;
  }
  int cls = classes_.kept(pod);
  if (cls < 0 && classify) {
    cls = classes_.of(pod);
  }
  const auto c = static_cast<std::size_t>(cls);
  if (cls < 0 || c >= failures_.size()) {
    return true;
  }
  auto& failure = failures_[c];
  if (failure.first == 0) {
    return true;
  }
  if (failure.first == journal_.now()) {
    return false;  // a pod of the class failed in this very state
  }
  // Pods of one class get one verdict in one cluster state: a class found helped at this count
  // is not checked again for its other pods.
  if (helped_.size() < failures_.size()) {
    helped_.resize(failures_.size(), 0);
  }
  std::uint64_t& helped = helped_[c];
  if (helped == journal_.now()) {
    return true;
  }
  if (still_fails(pod, failure.first, failure.second)) {
    return false;
  }
  helped = journal_.now();
  return true;
}

int FailureMemo::hint_class(const PodSpec& pod) const {
  return eligible(pod) ? classes_.kept(pod) : -1;
}

std::size_t FailureMemo::room(int cls, const PodSpec& first) {
  // An equivalence class: when the changed nodes may take some of its pods, at most as many as
  // they have room for move.
  const auto c = static_cast<std::size_t>(cls);
  if (!trusted() || c >= failures_.size() || failures_[c].first == 0) {
    return SchedulingQueue::kAll;
  }
  auto& failure = failures_[c];
  const std::size_t room = room_since(first, failure.first, failure.second);
  if (room > 0) {
    if (helped_.size() < failures_.size()) {
      helped_.resize(failures_.size(), 0);
    }
    helped_[c] = journal_.now();
  }
  return room;
}

}  // namespace tidesim::policies
