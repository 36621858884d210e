#include "sim/quota.hpp"

#include <algorithm>
#include <tuple>

namespace tidesim {
namespace {

struct Walk {
  const QuotaConfig* q;
  std::int64_t free = 0;
  std::vector<std::int64_t> usage;  // per ClusterQueue, GPUs admitted
  std::map<std::string, std::int64_t> cohort_usage;
  std::map<std::string, std::int64_t> cohort_nominal;

  const ClusterQueueConfig& cq(int i) const {
    return q->cluster_queues[static_cast<std::size_t>(i)];
  }
  std::int64_t& use(int i) { return usage[static_cast<std::size_t>(i)]; }

  bool fits(int queue, int g) const {
    if (g > free) {
      return false;
    }
    if (queue < 0) {
      return true;
    }
    const ClusterQueueConfig& c = cq(queue);
    const std::int64_t after = usage[static_cast<std::size_t>(queue)] + g;
    if (after <= c.nominal_gpus && c.cohort.empty()) {
      return true;
    }
    if (c.cohort.empty()) {
      return false;
    }
    if (c.borrowing_limit_gpus && after - c.nominal_gpus > *c.borrowing_limit_gpus) {
      return false;
    }
    return cohort_usage.at(c.cohort) + g <= cohort_nominal.at(c.cohort);
  }
  void add(int queue, int g, int sign) {
    free -= sign * g;
    if (queue >= 0) {
      use(queue) += sign * g;
      if (!cq(queue).cohort.empty()) {
        cohort_usage[cq(queue).cohort] += sign * g;
      }
    }
  }
};

}  // namespace

QuotaDecision select_with_quotas(const std::vector<QuotaJob>& jobs, const QuotaConfig& quotas,
                                 std::int64_t capacity) {
  Walk w{&quotas, capacity, std::vector<std::int64_t>(quotas.cluster_queues.size(), 0), {}, {}};
  for (const ClusterQueueConfig& c : quotas.cluster_queues) {
    if (!c.cohort.empty()) {
      w.cohort_nominal[c.cohort] += c.nominal_gpus;
      w.cohort_usage[c.cohort] += 0;
    }
  }
  // Chosen jobs in the order they were admitted: kept ones by admission time, then this walk's.
  std::vector<const QuotaJob*> chosen;
  for (const QuotaJob& j : jobs) {
    if (j.kept) {
      chosen.push_back(&j);
      w.add(j.queue, j.gpus, +1);
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
    if (!w.fits(j.queue, j.gpus) && j.queue >= 0) {
      const ClusterQueueConfig& c = w.cq(j.queue);
      if (c.reclaim_within_cohort && !c.cohort.empty() &&
          w.usage[static_cast<std::size_t>(j.queue)] + j.gpus <= c.nominal_gpus) {
        // Victims: the newest chosen jobs of the cohort's other queues that borrow.
        Walk trial = w;
        std::vector<std::size_t> victims;
        for (std::size_t k = chosen.size(); k-- > 0 && !trial.fits(j.queue, j.gpus);) {
          const QuotaJob& v = *chosen[k];
          if (v.queue < 0 || v.queue == j.queue || w.cq(v.queue).cohort != c.cohort ||
              trial.use(v.queue) <= w.cq(v.queue).nominal_gpus) {
            continue;
          }
          trial.add(v.queue, v.gpus, -1);
          victims.push_back(k);
        }
        if (trial.fits(j.queue, j.gpus)) {
          w = std::move(trial);
          for (const std::size_t k : victims) {  // descending indices: erase keeps the others
            chosen.erase(chosen.begin() + static_cast<std::ptrdiff_t>(k));
          }
        }
      }
    }
    if (w.fits(j.queue, j.gpus)) {
      w.add(j.queue, j.gpus, +1);
      chosen.push_back(&j);
    } else if (j.queue >= 0 && w.cq(j.queue).strict_fifo) {
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
