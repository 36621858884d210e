// Phase 2 of Kueue's placement: ordering domains, choosing them at the requested level and
// handing counts down (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/
// tas_flavor_snapshot.go: sortedDomains, sortedDomainsWithLeader, findBestFitDomainBy,
// findLevelWithFitDomains, prioritizeLeaderDomain, updateCountsToMinimumGeneric,
// consumeWithLeadersGeneric). BestFit sorts by slices descending, LeastFreeCapacity (the
// unconstrained profile of TASProfileMixed) ascending; both then by pods ascending, then by
// label values.
#include <algorithm>
#include <climits>
#include <utility>

#include "tidesim/sim/admission/tas_placement.hpp"

namespace tidesim::tas {

namespace {
int cmp(std::int64_t a, std::int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Whether `a` comes before `b` in sortedDomainsWithLeader's order (`lfc`: LeastFreeCapacity;
// `affinity`: TASRespectNodeAffinityPreferred).
bool before_with_leader(const Placement& pl, int a, int b, bool lfc, bool affinity) {
  const DomainState& x = pl.dom(a).st;
  const DomainState& y = pl.dom(b).st;
  int c = 0;
  if (x.leader_count != y.leader_count) {
    c = cmp(y.leader_count, x.leader_count);
  } else if (affinity && x.affinity_score != y.affinity_score) {
    c = cmp(y.affinity_score, x.affinity_score);
  } else if (x.slice_count_with_leader != y.slice_count_with_leader) {
    c = lfc ? cmp(x.slice_count_with_leader, y.slice_count_with_leader)
            : cmp(y.slice_count_with_leader, x.slice_count_with_leader);
  } else if (x.pod_count_with_leader != y.pod_count_with_leader) {
    c = cmp(x.pod_count_with_leader, y.pod_count_with_leader);
  } else {
    c = pl.compare_level_values(a, b);
  }
  return c < 0;
}

// LeastFreeCapacity's pick at one level: the first domain of sortedDomainsWithLeader's order
// that holds `slice_count` slices (and the leaders), without sorting: the order is total
// (domains of one level differ in their values, so in their ranks), and the first of it among
// those that fit is their least. -1 when none fits.
int first_least_free_fit(const Placement& pl, const std::vector<int>& domains,
                         std::int32_t slice_count, std::int32_t leader_count, bool affinity) {
  int best = -1;
  for (const int d : domains) {
    const DomainState& s = pl.dom(d).st;
    const bool fits = leader_count > 0 ? s.leader_count >= leader_count &&
                                             s.slice_count_with_leader >= slice_count
                                       : s.slice_count >= slice_count;
    if (fits && (best < 0 || before_with_leader(pl, d, best, true, affinity))) {
      best = d;
    }
  }
  return best;
}
}  // namespace

bool Placement::use_least_free_capacity(bool unconstrained) const {
  return unconstrained && s_.gates_.profile_mixed;  // the matrix of KEP-2724
}

std::vector<int> Placement::sorted_domains(std::vector<int> domains, bool unconstrained) {
  const bool lfc = use_least_free_capacity(unconstrained);
  const bool affinity = s_.gates_.respect_node_affinity_preferred;
  std::sort(domains.begin(), domains.end(), [&](int a, int b) {
    const DomainState& x = st(a);
    const DomainState& y = st(b);
    int c = 0;
    if (affinity && x.affinity_score != y.affinity_score) {
      c = cmp(y.affinity_score, x.affinity_score);
    } else if (x.slice_count != y.slice_count) {
      c = lfc ? cmp(x.slice_count, y.slice_count) : cmp(y.slice_count, x.slice_count);
    } else if (x.pod_count != y.pod_count) {
      c = cmp(x.pod_count, y.pod_count);
    } else {
      c = compare_level_values(a, b);
    }
    return c < 0;
  });
  return domains;
}

std::vector<int> Placement::sorted_domains_with_leader(std::vector<int> domains,
                                                       bool unconstrained) {
  const bool lfc = use_least_free_capacity(unconstrained);
  const bool affinity = s_.gates_.respect_node_affinity_preferred;
  std::sort(domains.begin(), domains.end(),
            [&](int a, int b) { return before_with_leader(*this, a, b, lfc, affinity); });
  return domains;
}

// topAffinityTierDomains: with TASRespectNodeAffinityPreferred, best fit only looks among the
// domains with the highest affinity score.
std::vector<int> Placement::top_affinity_tier(const std::vector<int>& candidates,
                                              std::size_t from) {
  std::vector<int> out(candidates.begin() + static_cast<std::ptrdiff_t>(from), candidates.end());
  if (!s_.gates_.respect_node_affinity_preferred || out.empty()) {
    return out;
  }
  std::int64_t score = st(out.front()).affinity_score;
  auto it =
      std::find_if(out.begin(), out.end(), [&](int d) { return st(d).affinity_score != score; });
  out.erase(it, out.end());
  return out;
}

// findBestFitDomainBy: the first domain with the smallest count that still holds `needed`;
// the first candidate when none does.
int Placement::find_best_fit_domain_by(const std::vector<int>& domains, std::size_t from,
                                       std::int32_t needed, bool slices,
                                       std::int32_t leader_count) {
  std::vector<int> candidates = top_affinity_tier(domains, from);
  auto count_of = [&](int d) {
    const DomainState& s = st(d);
    if (slices) {
      return leader_count > 0 ? s.slice_count_with_leader : s.slice_count;
    }
    return leader_count > 0 ? s.pod_count_with_leader : s.pod_count;
  };
  int best = candidates.front();
  std::int32_t best_count = INT_MAX;
  bool found = false;
  for (int d : candidates) {
    if (st(d).leader_count < leader_count) {
      continue;
    }
    std::int32_t c = count_of(d);
    if (c >= needed && c < best_count) {
      best = d;
      best_count = c;
      found = true;
    }
  }
  return found ? best : candidates.front();
}

std::string Placement::find_level_with_fit_domains(int level, int& fit_level,
                                                   std::vector<int>& out) {
  const std::vector<int>& domains = level_domains(level);
  if (domains.empty()) {
    return "no topology domains at level: " + s_.levels_[static_cast<std::size_t>(level)];
  }
  const std::int32_t slice_count = p_.count / p_.slice_size;
  const bool best_fit = !use_least_free_capacity(p_.unconstrained);
  if (!best_fit) {
    // LeastFreeCapacity takes the first domain of the sorted order that fits: found by one pass
    // (an unconstrained request of one pod sorts no hosts); the order is needed only when none
    // fits.
    if (const int d = first_least_free_fit(*this, domains, slice_count, p_.leader_count,
                                           s_.gates_.respect_node_affinity_preferred);
        d >= 0) {
      fit_level = level;
      out = {d};
      return "";
    }
  }
  std::vector<int> sorted = sorted_domains_with_leader(domains, p_.unconstrained);
  int top = sorted.front();
  if (best_fit && st(top).slice_count_with_leader >= slice_count &&
      st(top).leader_count >= p_.leader_count) {
    top = find_best_fit_domain_by(sorted, 0, slice_count, true, p_.leader_count);  // the last
  }
  if (!best_fit && p_.required) {
    return not_fit_message(st(sorted.back()).pod_count, slice_count, level);  // none fits
  }
  if (st(top).slice_count_with_leader < slice_count || st(top).leader_count < p_.leader_count) {
    if (p_.required) {
      if (s_.gates_.respect_node_affinity_preferred) {
        for (std::size_t i = 1; i < sorted.size(); ++i) {
          if (st(sorted[i]).slice_count_with_leader >= slice_count &&
              st(sorted[i]).leader_count >= p_.leader_count) {
            fit_level = level;
            out = {find_best_fit_domain_by(sorted, i, slice_count, true, p_.leader_count)};
            return "";
          }
        }
      }
      return not_fit_message(st(top).slice_count, slice_count, level);
    }
    if (level > 0 && !p_.unconstrained) {
      return find_level_with_fit_domains(level - 1, fit_level, out);  // preferred: one level up
    }
    return spread_over_domains(std::move(sorted), level, fit_level, out);
  }
  fit_level = level;
  out = {top};
  return "";
}

// The top level (or an unconstrained request) when no single domain holds everything: leaders
// first, then workers greedily in sort order, best fit for the last domain.
std::string Placement::spread_over_domains(std::vector<int> sorted, int level, int& fit_level,
                                           std::vector<int>& out) {
  const std::int32_t slice_count = p_.count / p_.slice_size;
  const bool best_fit = !use_least_free_capacity(p_.unconstrained);
  std::vector<int> results;
  std::int32_t remaining = slice_count;
  std::int32_t remaining_leaders = p_.leader_count;
  sorted =
      prioritize_leader_domain(std::move(sorted), p_.count, p_.leader_count, p_.slice_size, true);
  std::size_t idx = 0;
  for (; remaining_leaders > 0 && idx < sorted.size() && st(sorted[idx]).leader_count > 0; ++idx) {
    int d = sorted[idx];
    if (best_fit && st(d).slice_count_with_leader >= remaining) {
      d = find_best_fit_domain_by(sorted, idx, remaining, true, remaining_leaders);
    }
    results.push_back(d);
    remaining_leaders -= st(d).leader_count;
    remaining -= st(d).slice_count_with_leader;
  }
  if (remaining_leaders > 0) {
    return not_fit_message(p_.leader_count - remaining_leaders, slice_count, level);
  }
  std::vector<int> rest(sorted.begin() + static_cast<std::ptrdiff_t>(idx), sorted.end());
  rest = sorted_domains(std::move(rest), p_.unconstrained);
  for (std::size_t i = 0; remaining > 0 && i < rest.size(); ++i) {
    int d = rest[i];
    if (best_fit && st(d).slice_count >= remaining) {
      d = find_best_fit_domain_by(rest, i, remaining, true, 0);
    }
    results.push_back(d);
    remaining -= st(d).slice_count;
  }
  if (remaining > 0) {
    return not_fit_message(slice_count - remaining, slice_count, level);
  }
  fit_level = level;
  out = std::move(results);
  return "";
}

// prioritizeLeaderDomain: move to the front the first leader-capable domain whose leader
// penalty still leaves room for every worker.
std::vector<int> Placement::prioritize_leader_domain(std::vector<int> domains, std::int32_t count,
                                                     std::int32_t leader_count,
                                                     std::int32_t slice_size, bool slices) {
  if (leader_count == 0 || domains.size() < 2) {
    return domains;
  }
  std::int32_t required = slices ? count / slice_size : count;
  std::int64_t available = 0;
  for (int d : domains) {
    available += slices ? st(d).slice_count : st(d).pod_count;
  }
  for (std::size_t i = 0; i < domains.size(); ++i) {
    const DomainState& s = st(domains[i]);
    if (s.leader_count < leader_count) {
      continue;
    }
    std::int32_t penalty =
        slices ? s.slice_count - s.slice_count_with_leader : s.pod_count - s.pod_count_with_leader;
    if (available - penalty < required) {
      continue;
    }
    std::rotate(domains.begin(), domains.begin() + static_cast<std::ptrdiff_t>(i),
                domains.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return domains;
  }
  return domains;
}

bool Placement::consume_with_leaders(int& d, const std::vector<int>& domains, std::size_t from,
                                     std::int32_t& remaining, std::int32_t& remaining_leaders,
                                     bool unconstrained, std::int32_t slice_size, bool slices) {
  auto with_leader = [&](int x) -> std::int32_t& {
    return slices ? st(x).slice_count_with_leader : st(x).pod_count_with_leader;
  };
  auto primary = [&](int x) -> std::int32_t& {
    return slices ? st(x).slice_count : st(x).pod_count;
  };
  if (!use_least_free_capacity(unconstrained) && with_leader(d) >= remaining &&
      st(d).leader_count >= remaining_leaders) {
    d = find_best_fit_domain_by(domains, from, remaining, slices, remaining_leaders);
  }
  DomainState& s = st(d);
  if (with_leader(d) >= remaining && s.leader_count >= remaining_leaders) {
    primary(d) = remaining;
    s.leader_count = remaining_leaders;
    s.pod_count = remaining * slice_size;
    return true;
  }
  if (with_leader(d) > remaining) {
    with_leader(d) = remaining;
  }
  if (s.leader_count > remaining_leaders) {
    s.leader_count = remaining_leaders;
  }
  primary(d) = with_leader(d);
  s.pod_count = with_leader(d) * slice_size;
  remaining_leaders -= s.leader_count;
  remaining -= with_leader(d);
  return false;
}

std::vector<int> Placement::update_counts_to_minimum(std::vector<int> domains, std::int32_t count,
                                                     std::int32_t leader_count,
                                                     std::int32_t slice_size, bool unconstrained,
                                                     bool slices) {
  domains = prioritize_leader_domain(std::move(domains), count, leader_count, slice_size, slices);
  const bool best_fit = !use_least_free_capacity(unconstrained);
  std::vector<int> result;
  std::int32_t remaining = slices ? count / slice_size : count;
  std::int32_t remaining_leaders = leader_count;
  for (std::size_t i = 0; i < domains.size(); ++i) {
    int d = domains[i];
    if (remaining_leaders > 0) {
      bool done = consume_with_leaders(d, domains, i, remaining, remaining_leaders, unconstrained,
                                       slices ? slice_size : 1, slices);
      result.push_back(d);
      if (done) {
        return result;
      }
      continue;
    }
    std::int32_t& units = slices ? st(d).slice_count : st(d).pod_count;
    if (best_fit && units >= remaining) {
      d = find_best_fit_domain_by(domains, i, remaining, slices, 0);  // the last domain
    }
    DomainState& s = st(d);
    s.leader_count = 0;
    std::int32_t have = slices ? s.slice_count : s.pod_count;
    if (have >= remaining) {
      s.pod_count = remaining * (slices ? slice_size : 1);
      if (slices) {
        s.slice_count = remaining;
      }
      result.push_back(d);
      return result;
    }
    if (slices) {
      s.pod_count = s.slice_count * slice_size;
    }
    remaining -= have;
    result.push_back(d);
  }
  return {};  // Kueue logs "code assumptions violated" and returns nil
}

}  // namespace tidesim::tas
