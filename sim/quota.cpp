#include "sim/quota.hpp"

#include <algorithm>
#include <tuple>

namespace tidesim {

std::int64_t ResourceQuota::guaranteed() const {
  return lending_limit ? std::max<std::int64_t>(0, nominal - *lending_limit) : 0;
}

std::vector<std::int64_t> quota_requests(const QuotaConfig& quotas, const workloads::JobSpec& job) {
  const Resources& r = job.pod_template.requests;
  const std::int64_t pods = job.replicas;
  std::vector<std::int64_t> out;
  out.reserve(quotas.resources.size());
  for (const std::string& name : quotas.resources) {
    if (name == kGpuResource) {
      out.push_back(workloads::job_gpus(job));
    } else if (name == "cpu") {
      out.push_back(r.cpu_milli * pods);
    } else if (name == "memory") {
      out.push_back(r.memory_bytes * pods);
    } else if (name == "pods") {
      out.push_back(pods);
    } else {
      const auto it = r.extended.find(name);
      out.push_back(it == r.extended.end() ? 0 : it->second * pods);
    }
  }
  return out;
}

namespace {

struct Walk {
  const QuotaConfig* q;
  std::int64_t free = 0;
  std::vector<int> cohort_of;                     // per ClusterQueue, -1 outside a cohort
  std::vector<std::vector<std::int64_t>> usage;   // [queue][resource]
  std::vector<std::vector<std::int64_t>> lent;    // [cohort][resource]: Q(c), what is lent
  std::vector<std::vector<std::int64_t>> in_use;  // [cohort][resource]: U(c)

  const ResourceQuota& quota(int queue, std::size_t r) const {
    return q->cluster_queues[static_cast<std::size_t>(queue)].quota[r];
  }
  std::int64_t use(int queue, std::size_t r) const {
    return usage[static_cast<std::size_t>(queue)][r];
  }

  // What queue `queue` may still take of resource r (Kueue's `available`).
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

  // Whether `v`'s queue borrows (u > N) a resource that both `v` and `j` ask.
  bool borrows_for(const QuotaJob& v, const QuotaJob& j) const {
    for (std::size_t r = 0; r < j.requests.size(); ++r) {
      const ResourceQuota& rq = quota(v.queue, r);
      if (j.requests[r] > 0 && v.requests[r] > 0 && rq.covered && use(v.queue, r) > rq.nominal) {
        return true;
      }
    }
    return false;
  }
};

Walk start(const QuotaConfig& quotas, std::int64_t capacity) {
  const std::size_t n = quotas.resources.size();
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

}  // namespace

QuotaDecision select_with_quotas(const std::vector<QuotaJob>& jobs, const QuotaConfig& quotas,
                                 std::int64_t capacity) {
  Walk w = start(quotas, capacity);
  // Chosen jobs in the order they were admitted: kept ones by admission time, then this walk's.
  std::vector<const QuotaJob*> chosen;
  for (const QuotaJob& j : jobs) {
    if (j.kept) {
      chosen.push_back(&j);
      w.add(j, +1);
    }
  }
  std::stable_sort(chosen.begin(), chosen.end(), [](const QuotaJob* a, const QuotaJob* b) {
    return std::tie(a->admitted_at, a->order) < std::tie(b->admitted_at, b->order);
  });
  std::vector<bool> blocked(quotas.cluster_queues.size(), false);
  for (const QuotaJob& j : jobs) {
    if (j.kept || (j.queue >= 0 && blocked[static_cast<std::size_t>(j.queue)])) {
      continue;
    }
    if (!w.fits(j) && j.queue >= 0) {
      const ClusterQueueConfig& c = quotas.cluster_queues[static_cast<std::size_t>(j.queue)];
      if (c.reclaim_within_cohort && !c.cohort.empty() && w.within_nominal(j)) {
        // Victims: the newest chosen jobs of the cohort's other queues that borrow.
        Walk trial = w;
        std::vector<std::size_t> victims;
        for (std::size_t k = chosen.size(); k-- > 0 && !trial.fits(j);) {
          const QuotaJob& v = *chosen[k];
          if (v.queue < 0 || v.queue == j.queue ||
              quotas.cluster_queues[static_cast<std::size_t>(v.queue)].cohort != c.cohort ||
              !trial.borrows_for(v, j)) {
            continue;
          }
          trial.add(v, -1);
          victims.push_back(k);
        }
        if (trial.fits(j)) {
          w = std::move(trial);
          for (const std::size_t k : victims) {  // descending indices: erase keeps the others
            chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
          }
        }
      }
    }
    if (w.fits(j)) {
      w.add(j, +1);
      chosen.push_back(&j);
    } else if (j.queue >= 0 &&
               quotas.cluster_queues[static_cast<std::size_t>(j.queue)].strict_fifo) {
      blocked[static_cast<std::size_t>(j.queue)] = true;
    }
  }
  QuotaDecision d;
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
