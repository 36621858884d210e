#include "tidesim/sim/admission/quota.hpp"

#include "tidesim/sim/admission/tas_flavor_match.hpp"

#include <algorithm>
#include <deque>
#include <iterator>
#include <tuple>

namespace tidesim {

std::int64_t ResourceQuota::guaranteed() const {
  return lending_limit ? std::max<std::int64_t>(0, nominal - *lending_limit) : 0;
}

int slot_of(const QuotaConfig& quotas, int flavor, int resource) {
  if (quotas.slots.empty()) {
    return flavor == 0 ? resource : -1;
  }
  for (std::size_t s = 0; s < quotas.slots.size(); ++s) {
    if (quotas.slots[s].flavor == flavor && quotas.slots[s].resource == resource) {
      return static_cast<int>(s);
    }
  }
  return -1;
}

std::int64_t nominal_of(const QuotaConfig& quotas, int queue, int resource) {
  const ClusterQueueConfig& cq = quotas.cluster_queues[static_cast<std::size_t>(queue)];
  std::int64_t sum = 0;
  for (std::size_t s = 0; s < cq.quota.size(); ++s) {
    const int r = quotas.slots.empty() ? static_cast<int>(s) : quotas.slots[s].resource;
    if (r == resource && cq.quota[s].covered) {
      sum += cq.quota[s].nominal;
    }
  }
  return sum;
}

std::vector<std::int64_t> quota_requests(const QuotaConfig& quotas, const workloads::JobSpec& job) {
  // Summed over the job's PodSets, as Kueue sums a Workload's podSets: its workers and a
  // leader's one pod (which asks no GPUs).
  const Resources& r = job.pod_template.requests;
  const std::int64_t pods = job.replicas;
  const Resources none;
  const Resources& l = job.leader ? job.leader->requests : none;
  const std::int64_t leaders = job.leader ? 1 : 0;
  std::vector<std::int64_t> out;
  out.reserve(quotas.resources.size());
  for (const std::string& name : quotas.resources) {
    if (name == kGpuResource) {
      out.push_back(workloads::job_gpus(job));
    } else if (name == "cpu") {
      out.push_back(r.cpu_milli * pods + l.cpu_milli * leaders);
    } else if (name == "memory") {
      out.push_back(r.memory_bytes * pods + l.memory_bytes * leaders);
    } else if (name == "pods") {
      out.push_back(pods + leaders);
    } else {
      const auto it = r.extended.find(name);
      const auto lt = l.extended.find(name);
      out.push_back((it == r.extended.end() ? 0 : it->second * pods) +
                    (lt == l.extended.end() ? 0 : lt->second * leaders));
    }
  }
  return out;
}

namespace {

// The walk below indexes quotas, usage and requests by (flavour, resource) pair ("slot",
// QuotaConfig::slots); a job's requests are put in slots by its flavours (in_slots).
struct Walk {
  const QuotaConfig* q;
  std::int64_t free = 0;
  std::vector<int> cohort_of;                     // per ClusterQueue, -1 outside a cohort
  std::vector<std::vector<std::int64_t>> usage;   // [queue][slot]
  std::vector<std::vector<std::int64_t>> lent;    // [cohort][slot]: Q(c), what is lent
  std::vector<std::vector<std::int64_t>> in_use;  // [cohort][slot]: U(c)

  const ResourceQuota& quota(int queue, std::size_t r) const {
    return q->cluster_queues[static_cast<std::size_t>(queue)].quota[r];
  }
  std::int64_t use(int queue, std::size_t r) const {
    return usage[static_cast<std::size_t>(queue)][r];
  }

  // What queue `queue` may still take of slot r (Kueue's `available`).
  std::int64_t available(int queue, std::size_t r) const {
    const ResourceQuota& rq = quota(queue, r);
    const std::int64_t u = use(queue, r);
    const int c = cohort_of[static_cast<std::size_t>(queue)];
    if (c < 0) {
      return rq.nominal - u;
    }
    const std::int64_t g = rq.guaranteed();
    const auto ci = static_cast<std::size_t>(c);
    std::int64_t parent = lent[ci][r] - in_use[ci][r];
    if (rq.borrowing_limit) {
      parent = std::min(parent,
                        (rq.nominal - g) - std::max<std::int64_t>(0, u - g) + *rq.borrowing_limit);
    }
    return std::max<std::int64_t>(0, g - u) + parent;
  }

  bool fits(const QuotaJob& j) const {
    if (j.gpus > free) {
      return false;
    }
    if (j.queue < 0) {
      return true;
    }
    for (std::size_t r = 0; r < j.requests.size(); ++r) {
      if (j.requests[r] > 0 && quota(j.queue, r).covered && j.requests[r] > available(j.queue, r)) {
        return false;
      }
    }
    return true;
  }

  void add(const QuotaJob& j, int sign) {
    free -= sign * j.gpus;
    if (j.queue < 0) {
      return;
    }
    const int c = cohort_of[static_cast<std::size_t>(j.queue)];
    for (std::size_t r = 0; r < j.requests.size(); ++r) {
      std::int64_t& u = usage[static_cast<std::size_t>(j.queue)][r];
      const std::int64_t g = quota(j.queue, r).guaranteed();
      const std::int64_t before = std::max<std::int64_t>(0, u - g);
      u += sign * j.requests[r];
      if (c >= 0) {
        in_use[static_cast<std::size_t>(c)][r] += std::max<std::int64_t>(0, u - g) - before;
      }
    }
  }

  // Whether `queue` stays within its nominal quota of every covered resource `j` asks.
  bool within_nominal(const QuotaJob& j) const {
    for (std::size_t r = 0; r < j.requests.size(); ++r) {
      const ResourceQuota& rq = quota(j.queue, r);
      if (j.requests[r] > 0 && rq.covered && use(j.queue, r) + j.requests[r] > rq.nominal) {
        return false;
      }
    }
    return true;
  }

  // The resources `j` asks that its queue lacks (Kueue's resources needing preemption).
  std::vector<bool> lacking(const QuotaJob& j) const {
    std::vector<bool> need(j.requests.size(), false);
    for (std::size_t r = 0; r < j.requests.size(); ++r) {
      need[r] =
          j.requests[r] > 0 && quota(j.queue, r).covered && j.requests[r] > available(j.queue, r);
    }
    return need;
  }

  // Whether `queue` (in a cohort) uses more than its nominal quota of a resource in `need`.
  bool borrowing(int queue, const std::vector<bool>& need) const {
    if (cohort_of[static_cast<std::size_t>(queue)] < 0) {
      return false;
    }
    for (std::size_t r = 0; r < need.size(); ++r) {
      if (need[r] && quota(queue, r).covered && use(queue, r) > quota(queue, r).nominal) {
        return true;
      }
    }
    return false;
  }

  // Whether `queue` uses less than its nominal quota of every resource in `need`.
  bool under_nominal(int queue, const std::vector<bool>& need) const {
    for (std::size_t r = 0; r < need.size(); ++r) {
      if (need[r] && use(queue, r) >= quota(queue, r).nominal) {
        return false;
      }
    }
    return true;
  }

  bool fits(const QuotaJob& j, bool allow_borrowing) const {
    return fits(j) && (allow_borrowing || within_nominal(j));
  }
};

bool uses(const QuotaJob& v, const std::vector<bool>& need) {
  for (std::size_t r = 0; r < need.size(); ++r) {
    if (need[r] && v.requests[r] > 0) {
      return true;
    }
  }
  return false;
}

// The topology part of Kueue's fit test while it simulates preemption (workloadFits in
// pkg/scheduler/preemption/preemption.go with the workload's TAS requests): the job placed with
// the removed candidates given back. Without a check (quota only, or a job whose flavours have
// no topology) it always fits.
struct TasFit {
  const TopologyCheck* check = nullptr;
  const QuotaJob* job = nullptr;  // as given (requests by resource)
  const std::vector<int>* flavors = nullptr;

  bool fits(const std::vector<const QuotaJob*>& chosen,
            const std::vector<std::size_t>& removed) const {
    if (check == nullptr) {
      return true;
    }
    std::vector<int> ids;
    ids.reserve(removed.size());
    for (const std::size_t k : removed) {
      ids.push_back(chosen[k]->id);
    }
    return check->simulate(*job, *flavors, ids, false);
  }
};

// Kueue's minimalPreemptions: `candidates` (indices into `chosen`) removed in order until `j`
// fits (its quota and, with `tas`, its topology), then put back from the second last while it
// still fits. Empty when it cannot fit; else `w` is left with the targets removed.
std::vector<std::size_t> minimal_preemptions(Walk& w, const std::vector<const QuotaJob*>& chosen,
                                             const std::vector<std::size_t>& candidates,
                                             const QuotaJob& j, const std::vector<bool>& need,
                                             bool allow_borrowing, const TasFit& tas) {
  Walk trial = w;
  std::vector<std::size_t> targets;
  bool fit = false;
  for (const std::size_t k : candidates) {
    const QuotaJob& v = *chosen[k];
    if (v.queue != j.queue && !trial.borrowing(v.queue, need)) {
      continue;
    }
    trial.add(v, -1);
    targets.push_back(k);
    if (trial.fits(j, allow_borrowing) && tas.fits(chosen, targets)) {
      fit = true;
      break;
    }
  }
  if (!fit) {
    return {};
  }
  for (std::size_t i = targets.size() - 1; i-- > 0;) {
    trial.add(*chosen[targets[i]], +1);
    std::vector<std::size_t> rest = targets;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    if (trial.fits(j, allow_borrowing) && tas.fits(chosen, rest)) {
      targets[i] = targets.back();
      targets.pop_back();
    } else {
      trial.add(*chosen[targets[i]], -1);
    }
  }
  w = std::move(trial);
  return targets;
}

// The resources needing preemption: with `tas`, every resource `j` asks (Kueue's flavor
// assigner marks all of a TAS PodSet's flavours Preempt, updateModeForTASRequests); else those
// its queue lacks.
std::vector<bool> needing_preemption(const Walk& w, const QuotaJob& j, const TasFit& tas) {
  if (tas.check == nullptr) {
    return w.lacking(j);
  }
  std::vector<bool> need(j.requests.size(), false);
  for (std::size_t r = 0; r < j.requests.size(); ++r) {
    need[r] = j.requests[r] > 0;
  }
  return need;
}

// Kueue's getTargets for `j`, which does not fit: the jobs of `chosen` (indices) to suspend so
// that it does, with `w` updated; empty when none would make it fit.
std::vector<std::size_t> preemption_targets(Walk& w, const std::vector<const QuotaJob*>& chosen,
                                            const QuotaJob& j, const TasFit& tas = {}) {
  const QuotaConfig& quotas = *w.q;
  const ClusterQueueConfig& cq = quotas.cluster_queues[static_cast<std::size_t>(j.queue)];
  const std::vector<bool> need = needing_preemption(w, j, tas);
  if (std::find(need.begin(), need.end(), true) == need.end()) {
    return {};  // its quota fits; only the cluster's GPUs are short: no quota preemption
  }
  std::vector<std::size_t> candidates;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    const QuotaJob& v = *chosen[k];
    if (v.queue < 0 || !uses(v, need)) {
      continue;
    }
    if (v.queue == j.queue) {
      const bool lower = v.priority < j.priority;
      const bool newer_equal = v.priority == j.priority && v.order > j.order;
      if ((cq.within_cluster_queue == WithinClusterQueue::kLowerPriority && lower) ||
          (cq.within_cluster_queue == WithinClusterQueue::kLowerOrNewerEqualPriority &&
           (lower || newer_equal))) {
        candidates.push_back(k);
      }
    } else if (!cq.cohort.empty() &&
               quotas.cluster_queues[static_cast<std::size_t>(v.queue)].cohort == cq.cohort &&
               w.borrowing(v.queue, need) &&
               (cq.reclaim_within_cohort == ReclaimWithinCohort::kAny ||
                (cq.reclaim_within_cohort == ReclaimWithinCohort::kLowerPriority &&
                 v.priority < j.priority))) {
      candidates.push_back(k);
    }
  }
  if (candidates.empty()) {
    return {};
  }
  // Other queues' first, lower priority first, newest admitted (later in `chosen`) first.
  std::sort(candidates.begin(), candidates.end(), [&](std::size_t a, std::size_t b) {
    const QuotaJob& x = *chosen[a];
    const QuotaJob& y = *chosen[b];
    return std::make_tuple(x.queue == j.queue, x.priority, b) <
           std::make_tuple(y.queue == j.queue, y.priority, a);
  });
  std::vector<std::size_t> same;
  std::copy_if(candidates.begin(), candidates.end(), std::back_inserter(same),
               [&](std::size_t k) { return chosen[k]->queue == j.queue; });
  if (same.size() == candidates.size()) {
    return minimal_preemptions(w, chosen, candidates, j, need, true, tas);
  }
  if (w.under_nominal(j.queue, need)) {
    std::vector<std::size_t> t = minimal_preemptions(w, chosen, candidates, j, need, false, tas);
    if (!t.empty()) {
      return t;
    }
  }
  return minimal_preemptions(w, chosen, same, j, need, true, tas);
}

Walk start(const QuotaConfig& quotas, std::int64_t capacity) {
  const std::size_t n = quotas.slots.size();
  Walk w{&quotas, capacity, {}, {}, {}, {}};
  std::map<std::string, int> cohorts;
  for (const ClusterQueueConfig& c : quotas.cluster_queues) {
    w.usage.emplace_back(n, 0);
    if (c.cohort.empty()) {
      w.cohort_of.push_back(-1);
      continue;
    }
    const auto [it, added] = cohorts.emplace(c.cohort, static_cast<int>(w.lent.size()));
    if (added) {
      w.lent.emplace_back(n, 0);
      w.in_use.emplace_back(n, 0);
    }
    w.cohort_of.push_back(it->second);
    for (std::size_t r = 0; r < n && r < c.quota.size(); ++r) {
      w.lent[static_cast<std::size_t>(it->second)][r] +=
          c.quota[r].nominal - c.quota[r].guaranteed();
    }
  }
  return w;
}

// A configuration built without flavours (QuotaConfig::slots empty): one implicit flavour, slot
// r is resource r, each queue one group of the resources it covers.
QuotaConfig with_implicit_flavour(const QuotaConfig& quotas) {
  QuotaConfig q = quotas;
  q.flavors = {ResourceFlavor{}};
  for (std::size_t r = 0; r < q.resources.size(); ++r) {
    q.slots.push_back(FlavorResource{0, static_cast<int>(r)});
  }
  for (ClusterQueueConfig& c : q.cluster_queues) {
    if (!c.groups.empty()) {
      continue;
    }
    ResourceGroup g;
    g.flavors = {0};
    for (std::size_t r = 0; r < c.quota.size(); ++r) {
      if (c.quota[r].covered) {
        g.resources.push_back(static_cast<int>(r));
      }
    }
    c.groups.push_back(std::move(g));
  }
  return q;
}

// `j` with its requests put in slots by `flavors` (the flavour of each resource; empty: the
// implicit flavour 0). A resource without a flavour (not covered) is not counted.
QuotaJob in_slots(const QuotaConfig& q, const QuotaJob& j, const std::vector<int>& flavors) {
  QuotaJob s = j;
  s.requests.assign(q.slots.size(), 0);
  s.flavors = flavors;
  if (j.queue < 0) {
    return s;
  }
  for (std::size_t r = 0; r < j.requests.size(); ++r) {
    const int f = flavors.empty() ? 0 : flavors[r];
    const int slot = f < 0 || j.requests[r] <= 0 ? -1 : slot_of(q, f, static_cast<int>(r));
    if (slot >= 0) {
      s.requests[static_cast<std::size_t>(slot)] += j.requests[r];
    }
  }
  return s;
}

// A flavour's outcome for a job (Kueue's FlavorAssignmentMode; noPreemptionCandidates is NoFit
// here: either way the job is not admitted in this decision).
enum class Mode { kNoFit, kPreempt, kFit };
struct FlavourTry {
  Mode mode = Mode::kNoFit;
  bool borrow = false;
};

// Kueue's isPreferred with its default BorrowingOverPreemption: a better mode first, then not
// borrowing.
bool preferred(const FlavourTry& a, const FlavourTry& b) {
  if (a.mode == Mode::kNoFit) {
    return false;
  }
  if (b.mode == Mode::kNoFit) {
    return true;
  }
  if (a.mode != b.mode) {
    return a.mode > b.mode;
  }
  return !a.borrow && b.borrow;
}

// `part` (one group's requests in one flavour's slots): fits its quota (borrowing or not), fits
// only if some jobs of `chosen` are preempted, or not at all.
FlavourTry try_flavour(const Walk& w, const std::vector<const QuotaJob*>& chosen,
                       const QuotaJob& part) {
  FlavourTry t;
  bool fit = true;
  for (std::size_t s = 0; s < part.requests.size(); ++s) {
    if (part.requests[s] <= 0) {
      continue;
    }
    const ResourceQuota& rq = w.quota(part.queue, s);
    fit = fit && rq.covered && part.requests[s] <= w.available(part.queue, s);
    t.borrow = t.borrow || (w.cohort_of[static_cast<std::size_t>(part.queue)] >= 0 &&
                            w.use(part.queue, s) + part.requests[s] > rq.nominal);
  }
  if (fit) {
    t.mode = Mode::kFit;
    return t;
  }
  Walk trial = w;
  t.mode = preemption_targets(trial, chosen, part).empty() ? Mode::kNoFit : Mode::kPreempt;
  return t;
}

bool contradicts(const std::map<std::string, std::string>& selector,
                 const std::map<std::string, std::string>& labels) {
  for (const auto& [key, value] : labels) {
    const auto it = selector.find(key);
    if (it != selector.end() && it->second != value) {
      return true;
    }
  }
  return false;
}

// The levels of flavour `f`'s topology; nullptr when it has none.
const std::vector<std::string>* topology_levels(const QuotaConfig& q, int f) {
  const std::string& name = q.flavors[static_cast<std::size_t>(f)].topology_name;
  for (const KueueTopology& t : q.topologies) {
    if (!name.empty() && t.name == name) {
      return &t.levels;
    }
  }
  return nullptr;
}

// Kueue's checkPodSetAndFlavorMatchForTAS, asked only when some flavour has a topology (with
// none, TAS is off and the job's annotations are not read). The flavour is in `group`, which
// `j` asks a resource of; the PodSet overlaps its covered resources unless `j.pod_resources`
// names the pod's own resources and `group` covers none of them (a quota-only resource made
// by Kueue's resource transformations).
bool tas_refuses(const QuotaConfig& q, const ClusterQueueConfig& cq, const ResourceGroup& group,
                 int f, const QuotaJob& j) {
  const auto has_topology = [&](int g) { return topology_levels(q, g) != nullptr; };
  if (std::none_of(q.flavors.begin(), q.flavors.end(),
                   [](const ResourceFlavor& rf) { return !rf.topology_name.empty(); })) {
    return false;
  }
  bool tas_only = true;
  for (const ResourceGroup& g : cq.groups) {
    tas_only = tas_only && std::all_of(g.flavors.begin(), g.flavors.end(), has_topology);
  }
  const bool overlaps =
      !j.pod_resources || std::any_of(group.resources.begin(), group.resources.end(), [&](int r) {
        return j.pod_resources->contains(q.resources[static_cast<std::size_t>(r)]);
      });
  return !tas::flavor_mismatch(q.flavors[static_cast<std::size_t>(f)].name, topology_levels(q, f),
                               j.topology, tas_only, overlaps)
              .empty();
}

// Kueue's findFlavorForPodSets for each of `j`'s queue's resource groups: the flavour of each
// resource (-1 where none is asked); empty when a group it asks has no flavour that can hold it.
std::vector<int> assign_flavours(const Walk& w, const std::vector<const QuotaJob*>& chosen,
                                 const QuotaJob& j) {
  const QuotaConfig& q = *w.q;
  const ClusterQueueConfig& cq = q.cluster_queues[static_cast<std::size_t>(j.queue)];
  std::vector<int> out(q.resources.size(), -1);
  for (const ResourceGroup& g : cq.groups) {
    std::vector<int> asked;
    for (const int r : g.resources) {
      if (j.requests[static_cast<std::size_t>(r)] > 0) {
        asked.push_back(r);
      }
    }
    if (asked.empty()) {
      continue;
    }
    int best = -1;
    FlavourTry best_try;
    for (const int f : g.flavors) {
      if (tas_refuses(q, cq, g, f, j) ||
          contradicts(j.node_selector, q.flavors[static_cast<std::size_t>(f)].node_labels)) {
        continue;
      }
      if (g.flavors.size() == 1) {
        best = f;  // no choice: the walk below decides whether it fits
        break;
      }
      QuotaJob part = j;
      part.requests.assign(q.slots.size(), 0);
      for (const int r : asked) {
        part.requests[static_cast<std::size_t>(slot_of(q, f, r))] =
            j.requests[static_cast<std::size_t>(r)];
      }
      const FlavourTry t = try_flavour(w, chosen, part);
      if (t.mode == Mode::kNoFit) {
        continue;
      }
      // Kueue's shouldTryNextFlavor.
      const bool next =
          (t.mode == Mode::kPreempt && cq.when_can_preempt == WhenCanPreempt::kTryNextFlavor) ||
          (t.borrow && cq.when_can_borrow == WhenCanBorrow::kTryNextFlavor);
      if (!next) {
        best = f;
        break;
      }
      if (preferred(t, best_try)) {
        best = f;
        best_try = t;
      }
    }
    if (best < 0) {
      return {};
    }
    for (const int r : asked) {
      out[static_cast<std::size_t>(r)] = best;
    }
  }
  return out;
}

// Whether one of `flavors` has a topology.
bool has_topology(const QuotaConfig& q, const std::vector<int>& flavors) {
  return std::any_of(flavors.begin(), flavors.end(),
                     [&](int f) { return f >= 0 && topology_levels(q, f) != nullptr; });
}

// Kueue's preemption for `j` (`job` as given, on `flavors`), which does not fit its quota or
// its topology: a job with a topology that would not fit it even with no TAS workload is NoFit
// (Kueue's flavor assigner, WithSimulateEmpty); else the victims found (preemption_targets,
// with the topology in the fit test) leave `chosen`, `w` and the topology's snapshots, and the
// job is placed. Whether it fits now.
bool preempt_for(Walk& w, std::vector<const QuotaJob*>& chosen, const QuotaJob& j,
                 const QuotaJob& job, const std::vector<int>& flavors,
                 const TopologyCheck& topology) {
  TasFit tas;
  if (topology.simulate && has_topology(*w.q, flavors)) {
    if (!topology.simulate(job, flavors, {}, true)) {
      return false;
    }
    tas = TasFit{&topology, &job, &flavors};
  }
  std::vector<std::size_t> victims = preemption_targets(w, chosen, j, tas);
  if (victims.empty()) {
    return false;
  }
  std::sort(victims.rbegin(), victims.rend());  // descending: erase keeps the others' places
  for (const std::size_t k : victims) {
    if (topology.preempt) {
      topology.preempt(chosen[k]->id);
    }
    chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
  }
  return w.fits(j) && (!topology.fits || topology.fits(job, flavors));
}

}  // namespace

QuotaDecision select_with_quotas(const std::vector<QuotaJob>& jobs, const QuotaConfig& quotas,
                                 std::int64_t capacity, const TopologyCheck& topology) {
  std::optional<QuotaConfig> implicit;
  if (quotas.slots.empty()) {
    implicit = with_implicit_flavour(quotas);
  }
  const QuotaConfig& q = implicit ? *implicit : quotas;
  Walk w = start(q, capacity);
  QuotaDecision d;
  // The jobs with their requests in slots (a deque: `chosen` points into it).
  std::deque<QuotaJob> slotted;
  // Chosen jobs in the order they were admitted: kept ones by admission time, then this walk's.
  std::vector<const QuotaJob*> chosen;
  for (const QuotaJob& j : jobs) {
    if (j.kept) {
      slotted.push_back(in_slots(q, j, j.flavors));
      chosen.push_back(&slotted.back());
      w.add(slotted.back(), +1);
    }
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const QuotaJob* a, const QuotaJob* b) {
    return std::tie(a->admitted_at, a->order) < std::tie(b->admitted_at, b->order);
  });
  std::vector<bool> blocked(q.cluster_queues.size(), false);
  for (const QuotaJob& job : jobs) {
    if (job.kept || (job.queue >= 0 && blocked[static_cast<std::size_t>(job.queue)])) {
      continue;
    }
    // A job admitted now (preemptive policies) stays on its flavours; others get them afresh.
    const std::vector<int> flavors = job.queue < 0 ? std::vector<int>{}
                                     : job.admitted && !job.flavors.empty()
                                         ? job.flavors
                                         : assign_flavours(w, chosen, job);
    const bool assigned = job.queue < 0 || !flavors.empty();
    slotted.push_back(in_slots(q, job, flavors));
    const QuotaJob& j = slotted.back();
    // The topology is placed once the quota fits (Kueue's flavour assignment checks the quota,
    // then TAS); a job short of either may preempt.
    bool fits = assigned && w.fits(j) && (!topology.fits || topology.fits(job, flavors));
    if (assigned && !fits && j.queue >= 0) {
      fits = preempt_for(w, chosen, j, job, flavors, topology);
    }
    if (fits) {
      w.add(j, +1);
      chosen.push_back(&j);
      if (topology.commit) {
        topology.commit(j.id);
      }
      if (j.queue >= 0) {
        d.flavors[j.id] = flavors;
      }
    } else if (j.queue >= 0 && q.cluster_queues[static_cast<std::size_t>(j.queue)].strict_fifo) {
      blocked[static_cast<std::size_t>(j.queue)] = true;
    }
  }
  for (const QuotaJob* j : chosen) {
    d.chosen.push_back(j->id);
  }
  std::sort(d.chosen.begin(), d.chosen.end());
  for (const QuotaJob& j : jobs) {
    if (j.kept && !std::binary_search(d.chosen.begin(), d.chosen.end(), j.id)) {
      d.reclaimed.push_back(j.id);
    }
  }
  std::sort(d.reclaimed.begin(), d.reclaimed.end());
  return d;
}

}  // namespace tidesim
