#include "tidesim/tools/lib/tas_admit_queue.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include "tidesim/sim/admission/kueue_checks.hpp"
#include "tidesim/sim/admission/kueue_partial.hpp"
#include "tidesim/sim/admission/kueue_quota_message.hpp"
#include "tidesim/sim/admission/quota.hpp"
#include "tidesim/sim/admission/tas_snapshot.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/scenario/quota_config.hpp"

namespace tidesim::app {
namespace {

struct Queue {
  QuotaConfig quotas;
  int index = -1;
  std::vector<tas::QueueCheck> checks;
};

// One try of the Workload at some pod counts.
struct Attempt {
  bool fits = false;
  std::vector<tas::PodSetResult> results;
  std::vector<PodSetQuota> quota;
};

struct Context {
  const KueueSnapshot& s;
  const KueueWorkload& w;
  const AdmitRequest& r;
  const Queue& q;
  std::vector<tas::ResourceMap> quota_per_pod;  // after the transformations
  std::vector<std::set<std::string>> pod_resources;
};

std::optional<Queue> queue_of(const KueueSnapshot& s, const KueueWorkload& w,
                              const AdmitRequest& r) {
  const auto lq = s.local_queues.find(w.namespace_name + "/" + w.queue_name);
  if (lq == s.local_queues.end()) {
    return std::nullopt;
  }
  const auto object = std::find_if(s.cluster_queue_objects.begin(), s.cluster_queue_objects.end(),
                                   [&](const SnapshotObject& o) { return o.name == lq->second; });
  if (object == s.cluster_queue_objects.end()) {
    return std::nullopt;
  }
  Queue q;
  q.quotas =
      parse_queues(load_yaml_string("from_snapshot: true\n", "admit"), r.snapshot, "snapshot", &s);
  for (std::size_t i = 0; i < q.quotas.cluster_queues.size(); ++i) {
    if (q.quotas.cluster_queues[i].name == lq->second) {
      q.index = static_cast<int>(i);
    }
  }
  const auto checks = s.cluster_queue_checks.find(lq->second);
  for (tas::QueueCheck c :
       checks == s.cluster_queue_checks.end() ? std::vector<tas::QueueCheck>{} : checks->second) {
    const auto ac = s.admission_checks.find(c.name);
    if (ac == s.admission_checks.end()) {
      throw InputError(location_of(object->node, object->file), object->path + ".spec",
                       "AdmissionCheck '" + c.name + "' is not in the snapshot");
    }
    c.controller = ac->second;
    q.checks.push_back(std::move(c));
  }
  return q;
}

const KueueFlavor& flavor_named(const KueueSnapshot& s, const std::string& name) {
  auto it = std::find_if(s.flavors.begin(), s.flavors.end(),
                         [&](const KueueFlavor& f) { return f.name == name; });
  if (it == s.flavors.end()) {
    throw InputError("ResourceFlavor '" + name + "' is not in the snapshot");
  }
  return *it;
}

// The flavour with a topology among those a PodSet holds for the resources its pods request
// (Kueue's onlyTASFlavor); "" when none.
std::string tas_flavor(const Context& c, std::size_t i, const PodSetQuota& pq) {
  for (const auto& [resource, flavor] : pq.flavors) {
    if (c.pod_resources[i].contains(resource) && flavor_named(c.s, flavor).topology_name) {
      return flavor;
    }
  }
  return "";
}

tas::TasSnapshot snapshot_for(const KueueSnapshot& s, const KueueFlavor& f) {
  auto topo = s.topologies.find(*f.topology_name);
  if (topo == s.topologies.end()) {
    throw InputError(f.where, "spec.topologyName",
                     "Topology '" + *f.topology_name + "' is not in the snapshot");
  }
  return tas::TasSnapshot(*f.topology_name, topo->second, s.nodes, s.pods, f.node_labels,
                          f.tolerations);
}

// Places the PodSets `to_place` (indices; with `counts`) on their flavours, each flavour's
// together after the assignments the Workload keeps (`kept`), into `a.results`; false when one
// does not fit.
bool place(const Context& c, const std::vector<std::int32_t>& counts,
           const std::vector<std::size_t>& to_place, Attempt& a) {
  std::vector<std::string> flavors;  // in order of first PodSet
  for (const std::size_t i : to_place) {
    const std::string f = tas_flavor(c, i, a.quota[i]);
    if (std::find(flavors.begin(), flavors.end(), f) == flavors.end()) {
      flavors.push_back(f);
    }
  }
  for (const std::string& name : flavors) {
    tas::TasSnapshot snap = snapshot_for(c.s, flavor_named(c.s, name));
    std::vector<tas::TasPodSet> sets;
    for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
      if (tas_flavor(c, i, a.quota[i]) != name) {
        continue;
      }
      if (std::find(to_place.begin(), to_place.end(), i) == to_place.end()) {
        if (a.results[i].assignment) {  // kept: Kueue's cache holds its usage
          snap.add_usage(*a.results[i].assignment, c.w.podsets[i].requests);
        }
        continue;
      }
      sets.push_back(c.w.podsets[i]);
      sets.back().count = counts[i];
      if (std::string why = tas::apply_updates(sets.back(), c.w.checks); !why.empty()) {
        a.results[i].reason =
            "invalid podSetUpdate for PodSet " + c.w.podsets[i].name + ", error: " + why;
        return false;
      }
    }
    for (const tas::PodSetResult& got : snap.find_assignments(sets, c.r.gates)) {
      for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
        if (c.w.podsets[i].name == got.name) {
          a.results[i] = got;
          a.quota[i].delayed = a.quota[i].delayed.empty() ? "" : "Ready";
        }
      }
      if (!got.admitted()) {
        return false;
      }
    }
  }
  return true;
}

// The quota walk for the PodSets at `counts`: each PodSet's flavours into `a.quota`, or the
// reason of the first that does not fit; true when all fit.
bool reserve(const Context& c, const std::vector<std::int32_t>& counts, Attempt& a) {
  const QuotaConfig& qc = c.q.quotas;
  std::vector<QuotaJob> jobs;
  for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
    const tas::TasPodSet& ps = c.w.podsets[i];
    QuotaJob j;
    j.id = static_cast<int>(i);
    j.queue = c.q.index;
    j.order = static_cast<std::int64_t>(i);
    for (const std::string& name : qc.resources) {
      const auto it = c.quota_per_pod[i].find(name);
      const std::int64_t per_pod = name == "pods"                   ? 1
                                   : it == c.quota_per_pod[i].end() ? 0
                                                                    : it->second;
      j.requests.push_back(per_pod * counts[i]);
    }
    j.topology = ps.topology ? &*ps.topology : nullptr;
    j.node_selector = ps.node_selector;
    j.pod_resources = &c.pod_resources[i];
    jobs.push_back(std::move(j));
  }
  const QuotaDecision d = select_with_quotas(jobs, qc, std::numeric_limits<std::int64_t>::max());
  std::map<int, std::int64_t> assumed;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto got = d.flavors.find(static_cast<int>(i));
    if (got == d.flavors.end()) {
      std::string why = tas::max_quota_refusal(qc, c.q.index, jobs[i].requests, assumed);
      a.results[i].reason = why.empty()
                                ? "insufficient unused quota in ClusterQueue " +
                                      qc.cluster_queues[static_cast<std::size_t>(c.q.index)].name
                                : why;
      return false;
    }
    for (std::size_t r = 0; r < got->second.size(); ++r) {
      if (const int f = got->second[r]; f >= 0) {
        a.quota[i].flavors[qc.resources[r]] = qc.flavors[static_cast<std::size_t>(f)].name;
        assumed[slot_of(qc, f, static_cast<int>(r))] += jobs[i].requests[r];
      }
    }
  }
  return true;
}

Attempt first_pass(const Context& c, const std::vector<std::int32_t>& counts) {
  Attempt a;
  a.results.resize(c.w.podsets.size());
  a.quota.resize(c.w.podsets.size());
  for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
    a.results[i].name = c.w.podsets[i].name;
    a.quota[i].count = counts[i];
  }
  if (!reserve(c, counts, a)) {
    return a;
  }
  std::vector<std::size_t> to_place;
  for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
    const std::string f = tas_flavor(c, i, a.quota[i]);
    if (!f.empty() && tas::delays_topology(c.q.checks, f)) {
      a.quota[i].delayed = "Pending";  // placed by the second pass, after provisioning
    } else if (!f.empty()) {
      to_place.push_back(i);
    }
  }
  a.fits = place(c, counts, to_place, a);
  return a;
}

// Kueue's second pass of a Workload holding quota: the PodSets whose placement is delayed are
// placed on the flavours they hold once every check is Ready.
Attempt second_pass(const Context& c, const std::vector<KueuePodSetAdmission>& held) {
  Attempt a;
  std::vector<std::int32_t> counts;
  std::vector<std::size_t> to_place;
  bool ready = true;
  for (const tas::CheckState& st : c.w.checks) {
    ready = ready && st.state == "Ready";
  }
  for (std::size_t i = 0; i < c.w.podsets.size(); ++i) {
    const tas::TasPodSet& ps = c.w.podsets[i];
    auto h = std::find_if(held.begin(), held.end(),
                          [&](const KueuePodSetAdmission& x) { return x.name == ps.name; });
    if (h == held.end()) {
      throw InputError(c.w.where, "status.admission.podSetAssignments",
                       "no assignment for PodSet '" + ps.name + "'");
    }
    counts.push_back(h->count.value_or(ps.count));
    a.quota.push_back(
        PodSetQuota{.count = counts.back(), .flavors = h->flavors, .delayed = h->delayed});
    a.results.push_back(
        tas::PodSetResult{.name = ps.name, .assignment = h->assignment, .reason = ""});
    if (!h->assignment && h->delayed == "Pending" && ready &&
        !tas_flavor(c, i, a.quota[i]).empty()) {
      to_place.push_back(i);
    }
  }
  a.fits = place(c, counts, to_place, a);
  return a;
}

}  // namespace

std::optional<AdmitOutcome> admit_in_queue(
    const KueueSnapshot& s, const KueueWorkload& w, const AdmitRequest& r,
    const std::vector<tas::ResourceTransformation>& transformations) {
  const std::optional<Queue> q = queue_of(s, w, r);
  if (!q) {
    return std::nullopt;
  }
  Context c{.s = s, .w = w, .r = r, .q = *q, .quota_per_pod = {}, .pod_resources = {}};
  std::vector<std::int32_t> counts;
  for (const tas::TasPodSet& ps : w.podsets) {
    c.quota_per_pod.push_back(tas::transform_requests(ps.requests, transformations));
    std::set<std::string> own;
    for (const auto& [name, amount] : ps.requests) {
      own.insert(name);
    }
    c.pod_resources.push_back(std::move(own));
    counts.push_back(ps.count);
  }
  Attempt a;
  if (w.admission) {
    a = second_pass(c, *w.admission);
  } else {
    a = first_pass(c, counts);
    if (!a.fits && tas::can_be_partially_admitted(counts, w.min_counts)) {
      if (auto reduced = tas::reduce_counts(counts, w.min_counts,
                                            [&](const auto& n) { return first_pass(c, n).fits; })) {
        a = first_pass(c, *reduced);
      }
    }
  }
  AdmitOutcome out{.workload = w.namespace_name + "/" + w.name,
                   .flavor = "",
                   .topology = "",
                   .podsets = {},
                   .quota = a.quota,
                   .quota_reserved = a.fits || w.admission.has_value(),
                   .waiting_for = {}};
  std::set<std::string> flavors;
  std::string failed;  // the first PodSet refused: the others without a result were not tried
  for (const tas::PodSetResult& res : a.results) {
    failed = failed.empty() && !res.reason.empty() ? res.name : failed;
  }
  for (std::size_t i = 0; i < a.results.size(); ++i) {
    tas::PodSetResult res = a.results[i];
    if (!failed.empty() && res.reason.empty() && !res.assignment && a.quota[i].delayed.empty()) {
      res.reason = "not tried: PodSet " + failed + " does not fit";
    }
    const std::string f = tas_flavor(c, i, a.quota[i]);
    if (out.flavor.empty() && !f.empty()) {
      out.flavor = f;
      out.topology = *flavor_named(s, f).topology_name;
    }
    for (const auto& [resource, name] : a.quota[i].flavors) {
      flavors.insert(name);
    }
    out.podsets.push_back(std::move(res));
  }
  if (out.quota_reserved) {
    out.waiting_for = tas::waiting_for(tas::checks_for(q->checks, flavors), w.checks);
  }
  return out;
}

}  // namespace tidesim::app
