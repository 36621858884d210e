// Kueue's balanced placement (kubernetes-sigs/kueue @ff69552,
// pkg/cache/scheduler/tas_balanced_placement.go); declared in tas_placement.hpp.
#include "tidesim/sim/admission/tas_placement.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>

namespace tidesim::tas {

namespace {
bool values_less(const Placement& pl, int a, int b) {
  return pl.dom(a).rank < pl.dom(b).rank;  // the order of their level values
}
}  // namespace

// evaluateGreedyAssignment: leaders first, then slices, in BestFit order.
BalancedPlacement::Greedy BalancedPlacement::evaluate_greedy(const std::vector<int>& domains,
                                                             std::int32_t slice_count,
                                                             std::int32_t leader_count) {
  Greedy g;
  std::int32_t remaining = slice_count;
  std::int32_t remaining_leaders = leader_count;
  std::vector<int> without_leader;
  if (leader_count > 0) {
    std::vector<int> with_leader = pl_.sorted_domains_with_leader(domains, false);
    std::size_t idx = 0;
    for (; remaining_leaders > 0 && idx < with_leader.size() &&
           pl_.st(with_leader[idx]).leader_count > 0;
         ++idx) {
      ++g.domains;
      g.last_with_leader = with_leader[idx];
      remaining_leaders -= pl_.st(with_leader[idx]).leader_count;
      remaining -= pl_.st(with_leader[idx]).slice_count_with_leader;
    }
    without_leader = pl_.sorted_domains(
        std::vector<int>(with_leader.begin() + static_cast<std::ptrdiff_t>(idx), with_leader.end()),
        false);
  } else {
    without_leader = pl_.sorted_domains(domains, false);
  }
  if (remaining_leaders > 0) {
    return Greedy{};
  }
  for (std::size_t idx = 0;
       remaining > 0 && idx < without_leader.size() && pl_.st(without_leader[idx]).slice_count > 0;
       ++idx) {
    ++g.domains;
    g.last = without_leader[idx];
    remaining -= pl_.st(without_leader[idx]).slice_count;
  }
  if (remaining > 0) {
    return Greedy{};
  }
  g.fit = true;
  return g;
}

// selectOptimalDomainSetToFit: among the sets of as many domains as the greedy assignment uses,
// the first (in domain order) that places every leader and leaves the fewest pods over.
std::optional<std::vector<int>> BalancedPlacement::select_optimal_set(
    const std::vector<int>& domains, std::int32_t slice_count, std::int32_t leader_count,
    std::int32_t slice_size, bool by_entropy) {
  Greedy g = evaluate_greedy(domains, slice_count, leader_count);
  if (!g.fit) {
    return std::nullopt;
  }
  std::vector<int> ordered = domains;
  std::sort(ordered.begin(), ordered.end(), [&](int a, int b) {
    return by_entropy ? capacity_entropy_less(a, b) : values_less(pl_, a, b);
  });
  using Table = std::map<std::int64_t, std::map<std::int64_t, std::vector<int>>>;
  std::vector<Table> placements(static_cast<std::size_t>(g.domains) + 1);
  placements[0][leader_count][std::int64_t{slice_count} * slice_size] = {};
  for (int d : ordered) {
    const DomainState s = pl_.st(d);
    for (std::size_t i = placements.size() - 1; i > 0; --i) {
      for (const auto& [leaders_before, by_pods] : placements[i - 1]) {
        for (const auto& [pods_before, before] : by_pods) {
          if (leaders_before <= 0 && pods_before <= 0) {
            continue;
          }
          std::vector<int> next = before;
          next.push_back(d);
          if (leaders_before > 0 && s.leader_count > 0) {
            placements[i][leaders_before - s.leader_count].try_emplace(
                pods_before - s.pod_count_with_leader, next);
          }
          if (s.slice_count > 0) {
            placements[i][leaders_before].try_emplace(pods_before - s.pod_count, next);
          }
        }
      }
    }
  }
  std::optional<std::vector<int>> best;
  std::int64_t best_left = INT64_MIN;
  for (const auto& [left, placement] : placements.back()[0]) {
    if (left > best_left && left <= 0) {
      best_left = left;
      best = placement;
    }
  }
  return best;
}

std::string BalancedPlacement::place_balanced(const std::vector<int>& domains,
                                              std::int32_t slice_count, std::int32_t threshold,
                                              std::vector<int>& out) {
  const PlacementParams& p = pl_.params();
  auto chosen = select_optimal_set(domains, slice_count, p.leader_count, p.slice_size, false);
  if (!chosen) {
    return "TAS Balanced Placement: Cannot find optimal domain set to fit the request";
  }
  const auto n = static_cast<std::int32_t>(chosen->size());
  if (slice_count < n * threshold) {
    return "TAS Balanced Placement: Not enough slices to meet the threshold";
  }
  std::vector<int> result = pl_.sorted_domains_with_leader(*chosen, false);
  std::int32_t extra = slice_count - n * threshold;
  std::int32_t leaders_left = p.leader_count;
  for (int d : result) {
    DomainState& s = pl_.st(d);
    std::int32_t take = 0;
    if (leaders_left > 0) {
      take = std::min(s.slice_count_with_leader - threshold, extra);
      s.leader_count = 1;
      --leaders_left;
    } else {
      s.leader_count = 0;
      take = extra > 0 ? std::min(s.slice_count - threshold, extra) : 0;
    }
    s.pod_count = (threshold + take) * p.slice_size;
    s.slice_count = threshold + take;
    s.slice_count_with_leader = s.slice_count;
    s.pod_count_with_leader = s.pod_count - s.leader_count;
    extra -= take;
  }
  if (extra > 0 || leaders_left > 0) {
    return "TAS Balanced Placement: Not all slices or leaders could be placed";
  }
  out = std::move(result);
  return "";
}

double BalancedPlacement::entropy(const std::vector<int>& domains) {
  std::int64_t total = 0;
  for (int d : domains) {
    total += pl_.st(d).pod_count;
  }
  if (domains.empty() || total == 0) {
    return 0.0;
  }
  double h = 0.0;
  for (int d : domains) {
    if (std::int32_t pods = pl_.st(d).pod_count; pods > 0) {
      double p = static_cast<double>(pods) / static_cast<double>(total);
      h += -p * std::log2(p);
    }
  }
  return h;
}

// compareDomainCapacityAndEntropy: leaders, then slices with a leader, descending; then the
// higher entropy of the children (more even capacity) first; then label values.
bool BalancedPlacement::capacity_entropy_less(int a, int b) {
  if (pl_.st(a).leader_count != pl_.st(b).leader_count) {
    return pl_.st(a).leader_count > pl_.st(b).leader_count;
  }
  if (pl_.st(a).slice_count_with_leader != pl_.st(b).slice_count_with_leader) {
    return pl_.st(a).slice_count_with_leader > pl_.st(b).slice_count_with_leader;
  }
  double ea = entropy(pl_.dom(a).children);
  double eb = entropy(pl_.dom(b).children);
  if (ea != eb) {
    return ea > eb;
  }
  return values_less(pl_, a, b);
}

std::vector<int> BalancedPlacement::clone_domains(const std::vector<int>& domains) {
  std::vector<int> out;
  for (int d : domains) {
    out.push_back(clone_domain(d, -1));
  }
  return out;
}

int BalancedPlacement::clone_domain(int d, int parent) {
  int copy = pl_.shallow_clone(d);
  std::vector<int> children = pl_.dom(d).children;
  std::vector<int> copies;
  for (int child : children) {
    copies.push_back(clone_domain(child, copy));
  }
  Domain& c = pl_.domain(copy);
  c.parent = parent;
  c.children = std::move(copies);
  return copy;
}

// clearState (every count, keeping the affinity score) or clearLeaderCapacity, down the subtree.
void BalancedPlacement::clear_state(int d, bool leader_only) {
  DomainState& s = pl_.st(d);
  if (leader_only) {
    s.pod_count_with_leader = 0;
    s.slice_count_with_leader = 0;
    s.leader_count = 0;
  } else {
    s = DomainState{.affinity_score = s.affinity_score};
  }
  for (int child : pl_.dom(d).children) {
    clear_state(child, leader_only);
  }
}

void BalancedPlacement::prune_node(int d, std::int32_t threshold, bool leader_required) {
  const DomainState& s = pl_.st(d);
  if (s.slice_count < threshold) {
    clear_state(d, false);
    return;
  }
  if (leader_required && s.leader_count > 0 && s.slice_count_with_leader < threshold) {
    clear_state(d, true);  // still usable for workers, not as the leader's host
  }
}

void BalancedPlacement::prune(const std::vector<int>& domains, std::int32_t threshold) {
  const PlacementParams& p = pl_.params();
  const bool leader = p.leader_count > 0;
  for (int d : domains) {
    for (int c : pl_.dom(d).children) {
      prune_node(c, threshold, leader);
    }
  }
  for (int d : domains) {
    pl_.fill_in_counts_helper(d, p.slice_size, p.slice_level, p.requested_level, {}, leader);
    prune_node(d, threshold, leader);
  }
}

std::pair<std::vector<int>, std::int32_t> BalancedPlacement::find_best_domains() {
  const PlacementParams& p = pl_.params();
  const std::int32_t slice_count = p.count / p.slice_size;
  std::vector<std::vector<int>> groups;
  if (p.requested_level == 0) {
    groups.push_back(pl_.level_domains(0));
  } else {
    std::vector<int> higher = pl_.level_domains(p.requested_level - 1);
    std::sort(higher.begin(), higher.end(), [&](int a, int b) { return values_less(pl_, a, b); });
    for (int h : higher) {
      groups.push_back(pl_.dom(h).children);
    }
  }
  std::int32_t best = 0;
  std::int32_t best_count = 0;
  std::vector<int> chosen;
  for (const std::vector<int>& group : groups) {
    std::vector<int> candidates = clone_domains(group);
    std::vector<int> lower =
        p.requested_level < p.slice_level ? pl_.lower_level_domains(candidates) : candidates;
    Greedy g = evaluate_greedy(lower, slice_count, p.leader_count);
    if (!g.fit || g.domains == 0) {
      continue;
    }
    std::int32_t threshold = slice_count / g.domains;
    if (g.last_with_leader >= 0) {
      threshold = std::min(threshold, pl_.st(g.last_with_leader).slice_count_with_leader);
    }
    if (g.last >= 0) {
      threshold = std::min(threshold, pl_.st(g.last).slice_count);
    }
    std::int32_t with_reservation = threshold;
    if (p.leader_count > 0 && g.last >= 0) {
      with_reservation = std::min(threshold, pl_.st(g.last).slice_count_with_leader);
    }
    if (threshold < best) {
      continue;
    }
    prune(candidates, threshold);
    Greedy after = evaluate_greedy(candidates, slice_count, p.leader_count);
    if (!after.fit && with_reservation < threshold) {
      if (with_reservation <= 0 || with_reservation < best) {
        continue;
      }
      threshold = with_reservation;  // retry, keeping room for the leader
      candidates = clone_domains(group);
      prune(candidates, threshold);
      after = evaluate_greedy(candidates, slice_count, p.leader_count);
    }
    if (!after.fit) {
      continue;
    }
    if (threshold > best || (threshold == best && after.domains < best_count)) {
      best = threshold;
      best_count = after.domains;
      chosen = candidates;
    }
  }
  return {chosen, best};
}

std::string BalancedPlacement::apply(std::int32_t threshold, const std::vector<int>& candidates,
                                     std::vector<int>& fit, int& fit_level) {
  const PlacementParams& p = pl_.params();
  const std::int32_t slice_count = p.count / p.slice_size;
  std::vector<int> current = candidates;
  fit_level = p.requested_level;
  if (p.requested_level < p.slice_level) {
    auto chosen = select_optimal_set(candidates, slice_count, p.leader_count, p.slice_size, true);
    if (!chosen) {
      return "TAS Balanced Placement: Cannot find optimal domain set to fit the request";
    }
    current = pl_.lower_level_domains(*chosen);
    fit_level = p.requested_level + 1;
  }
  return place_balanced(current, slice_count, threshold, fit);
}

}  // namespace tidesim::tas
