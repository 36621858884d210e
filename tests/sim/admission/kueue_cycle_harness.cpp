#include "tests/sim/admission/kueue_cycle_harness.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <tuple>

namespace tidesim::tas {
namespace {

int index_of(const std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

int flavor_index(const CycleCase& c, const std::string& name) {
  for (std::size_t f = 0; f < c.flavors.size(); ++f) {
    if (c.flavors[f].name == name) {
      return static_cast<int>(f);
    }
  }
  return -1;
}

// Every resource some queue has a quota of, in name order.
std::vector<std::string> resources_of(const CycleCase& c) {
  std::set<std::string> names;
  for (const CycleQueue& q : c.queues) {
    for (const auto& [flavor, quota] : q.flavors) {
      for (const auto& [resource, amount] : quota) {
        names.insert(resource);
      }
    }
  }
  return {names.begin(), names.end()};
}

// The QuotaConfig: every (flavour, resource) pair a slot (flavour-major), one resource group
// per queue over the resources it covers.
QuotaConfig quota_config(const CycleCase& c) {
  QuotaConfig q;
  q.resources = resources_of(c);
  const std::size_t nr = q.resources.size();
  for (const CycleFlavor& f : c.flavors) {
    ResourceFlavor& rf = q.flavors.emplace_back();
    rf.name = f.name;
    rf.node_labels = f.node_labels;
    rf.topology_name = f.topology;
    rf.declared = true;
  }
  for (const auto& [name, levels] : c.topologies) {
    KueueTopology& t = q.topologies.emplace_back();
    t.name = name;
    t.levels = levels;
  }
  for (std::size_t f = 0; f < c.flavors.size(); ++f) {
    for (std::size_t r = 0; r < nr; ++r) {
      q.slots.push_back(FlavorResource{static_cast<int>(f), static_cast<int>(r)});
    }
  }
  for (const CycleQueue& cq : c.queues) {
    ClusterQueueConfig out;
    out.name = cq.name;
    out.cohort = cq.cohort;
    out.quota.resize(q.slots.size());
    out.within_cluster_queue = cq.within;
    out.reclaim_within_cohort = cq.reclaim;
    ResourceGroup g;
    std::set<int> covered;
    for (const auto& [flavor, quota] : cq.flavors) {
      const int f = flavor_index(c, flavor);
      g.flavors.push_back(f);
      for (const auto& [resource, amount] : quota) {
        const int r = index_of(q.resources, resource);
        covered.insert(r);
        ResourceQuota& rq =
            out.quota[static_cast<std::size_t>(f) * nr + static_cast<std::size_t>(r)];
        rq.covered = true;
        rq.nominal = amount;
      }
    }
    g.resources.assign(covered.begin(), covered.end());
    out.groups.push_back(std::move(g));
    q.cluster_queues.push_back(std::move(out));
  }
  return q;
}

QuotaJob quota_job(const CycleCase& c, const QuotaConfig& q, std::size_t w) {
  const CycleWorkload& wl = c.workloads[w];
  QuotaJob j;
  j.id = static_cast<int>(w);
  j.queue = wl.queue;
  j.order = static_cast<std::int64_t>(w);
  j.priority = wl.priority;
  j.topology = wl.podset.topology ? &*wl.podset.topology : nullptr;
  const int admitted = flavor_index(c, wl.admitted_flavor);
  j.admitted = j.kept = admitted >= 0;
  for (const std::string& resource : q.resources) {
    const auto it = wl.podset.requests.find(resource);
    const std::int64_t per_pod = it == wl.podset.requests.end() ? 0 : it->second;
    j.requests.push_back(per_pod * wl.podset.count);
    if (j.kept) {
      j.flavors.push_back(per_pod > 0 ? admitted : -1);
    }
  }
  return j;
}

// The run's TopologyCheck over one snapshot per flavour with a topology.
struct Placement {
  const CycleCase* c = nullptr;
  TasFeatureGates gates;
  std::map<int, std::unique_ptr<TasSnapshot>> snapshots;  // by flavour
  std::map<int, std::pair<int, PodSetResult>> last;       // job -> (flavour, result)
  struct Charged {
    int flavor = -1;
    TopologyAssignment assignment;
    ResourceMap per_pod;
  };
  std::map<int, Charged> charged;      // job -> its usage in the snapshots
  std::map<int, std::string> refusal;  // job -> its first placement's refusal

  // Adds (sign 1) or gives back (-1) a usage on each snapshot of the flavour's topology.
  void change(const Charged& u, int sign) {
    for (auto& [f, s] : snapshots) {
      if (c->flavors[static_cast<std::size_t>(f)].topology ==
          c->flavors[static_cast<std::size_t>(u.flavor)].topology) {
        if (sign > 0) {
          s->add_usage(u.assignment, u.per_pod);
        } else {
          s->remove_usage(u.assignment, u.per_pod);
        }
      }
    }
  }
  void charge(int job, int flavor, const TopologyAssignment& a, const ResourceMap& per_pod) {
    charged[job] = Charged{flavor, a, per_pod};
    change(charged[job], 1);
  }
  int snapshot_flavor(const std::vector<int>& flavors) const {
    for (const int f : flavors) {
      if (f >= 0 && snapshots.contains(f)) {
        return f;
      }
    }
    return -1;
  }
  PodSetResult place(int job, int f) {
    const TasPodSet& ps = c->workloads[static_cast<std::size_t>(job)].podset;
    return snapshots.at(f)->find_assignments({ps}, gates).front();
  }
  bool fits(const QuotaJob& job, const std::vector<int>& flavors) {
    const int f = snapshot_flavor(flavors);
    if (f < 0) {
      return true;  // a flavour without a topology: nothing to place
    }
    const PodSetResult r = place(job.id, f);
    last[job.id] = {f, r};
    if (!r.admitted()) {
      refusal.emplace(job.id, r.reason);
    }
    return r.admitted();
  }
  bool simulate(const QuotaJob& job, const std::vector<int>& flavors,
                const std::vector<int>& without, bool empty) {
    const int f = snapshot_flavor(flavors);
    if (f < 0) {
      return true;
    }
    std::vector<const Charged*> gone;
    for (const auto& [id, u] : charged) {
      if (empty || std::find(without.begin(), without.end(), id) != without.end()) {
        gone.push_back(&u);
        change(u, -1);
      }
    }
    const bool admitted = place(job.id, f).admitted();
    for (const Charged* u : gone) {
      change(*u, 1);
    }
    return admitted;
  }
  void preempt(int job) {
    const auto it = charged.find(job);
    if (it != charged.end()) {
      change(it->second, -1);
      charged.erase(it);
    }
  }
  void commit(int job) {
    const auto it = last.find(job);
    if (it != last.end() && it->second.second.assignment) {
      const TasPodSet& ps = c->workloads[static_cast<std::size_t>(job)].podset;
      charge(job, it->second.first, *it->second.second.assignment, ps.requests);
    }
  }
};

}  // namespace

std::vector<std::size_t> kueue_cycle_order(const CycleCase& c) {
  const QuotaConfig q = quota_config(c);
  std::vector<std::size_t> pending;
  std::vector<int> borrows(c.workloads.size(), 0);
  for (std::size_t w = 0; w < c.workloads.size(); ++w) {
    if (!c.workloads[w].admitted_flavor.empty()) {
      continue;
    }
    pending.push_back(w);
    const QuotaJob j = quota_job(c, q, w);
    const CycleQueue& cq = c.queues[static_cast<std::size_t>(j.queue)];
    const ResourceMap& nominal = cq.flavors.front().second;  // its first flavour
    for (std::size_t r = 0; r < q.resources.size(); ++r) {
      const auto it = nominal.find(q.resources[r]);
      borrows[w] = borrows[w] || (it != nominal.end() && j.requests[r] > it->second);
    }
  }
  std::stable_sort(pending.begin(), pending.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(borrows[a], -c.workloads[a].priority) <
           std::make_tuple(borrows[b], -c.workloads[b].priority);
  });
  return pending;
}

std::map<std::string, CycleOutcome> run_cycle(const CycleCase& c,
                                              const std::vector<std::size_t>& order) {
  const QuotaConfig q = quota_config(c);
  Placement p;
  p.c = &c;
  for (std::size_t f = 0; f < c.flavors.size(); ++f) {
    const CycleFlavor& fl = c.flavors[f];
    if (!fl.topology.empty()) {
      p.snapshots[static_cast<int>(f)] =
          std::make_unique<TasSnapshot>(fl.topology, c.topologies.at(fl.topology), c.nodes,
                                        std::vector<TasPod>{}, fl.node_labels);
    }
  }
  std::vector<QuotaJob> jobs;
  for (std::size_t w = 0; w < c.workloads.size(); ++w) {
    const CycleWorkload& wl = c.workloads[w];
    if (wl.admitted_assignment) {
      p.charge(static_cast<int>(w), flavor_index(c, wl.admitted_flavor), *wl.admitted_assignment,
               wl.podset.requests);
      jobs.push_back(quota_job(c, q, w));
    }
  }
  for (const std::size_t w : order) {
    jobs.push_back(quota_job(c, q, w));
  }
  TopologyCheck check;
  check.fits = [&p](const QuotaJob& j, const std::vector<int>& f) { return p.fits(j, f); };
  check.commit = [&p](int j) { p.commit(j); };
  check.simulate = [&p](const QuotaJob& j, const std::vector<int>& f, const std::vector<int>& w,
                        bool empty) { return p.simulate(j, f, w, empty); };
  check.preempt = [&p](int j) { p.preempt(j); };
  const QuotaDecision d = select_with_quotas(jobs, q, std::int64_t{1} << 40, check);
  std::map<std::string, CycleOutcome> out;
  for (const std::size_t w : order) {
    CycleOutcome o;
    const auto id = static_cast<int>(w);
    const auto chosen = d.flavors.find(id);
    o.admitted = chosen != d.flavors.end();
    for (const int f : o.admitted ? chosen->second : std::vector<int>{}) {
      o.flavor =
          o.flavor.empty() && f >= 0 ? c.flavors[static_cast<std::size_t>(f)].name : o.flavor;
    }
    if (const auto it = p.refusal.find(id); it != p.refusal.end()) {
      o.refusal = it->second;
    }
    if (const auto it = p.last.find(id); it != p.last.end()) {
      o.reason = it->second.second.reason;
      o.assignment = o.admitted ? it->second.second.assignment : std::nullopt;
    }
    out[c.workloads[w].name] = std::move(o);
  }
  for (const int v : d.reclaimed) {
    out[c.workloads[static_cast<std::size_t>(v)].name].preempted = true;
  }
  return out;
}

TopologyAssignment on_hosts(std::vector<std::pair<std::string, std::int32_t>> hosts) {
  TopologyAssignment a{.levels = {kHostnameLabel}, .domains = {}};
  for (auto& [host, count] : hosts) {
    a.domains.push_back(DomainAssignment{.values = {host}, .count = count});
  }
  return a;
}

}  // namespace tidesim::tas
