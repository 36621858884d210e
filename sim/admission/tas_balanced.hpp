#pragma once
/// Kueue's balanced placement for preferred topology requests, behind the TASBalancedPlacement
/// gate (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_balanced_placement.go; KEP-2724
/// "Balanced placement"). For a preferred level L it looks at each domain one level up, finds
/// the largest threshold T (the least number of slices any used domain would get) a greedy
/// assignment allows, drops the domains that cannot hold T, picks the fewest domains with the
/// least spare capacity (dynamic programming over the domains in label order) and gives each T
/// slices and the rest in sort order.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/tas_placement.hpp"

namespace tidesim::tas {

class BalancedPlacement {
 public:
  explicit BalancedPlacement(Placement& placement) : pl_(placement) {}

  /// findBestDomainsForBalancedPlacement: the candidate domains and the threshold (0: balanced
  /// placement is not possible).
  std::pair<std::vector<int>, std::int32_t> find_best_domains();
  /// applyBalancedPlacementAlgorithm: the domains with their counts set and the level they are
  /// at, or the reason it failed (the caller then falls back to BestFit).
  std::string apply(std::int32_t threshold, const std::vector<int>& candidates,
                    std::vector<int>& fit, int& fit_level);

 private:
  struct Greedy {
    bool fit = false;
    std::int32_t domains = 0;
    int last_with_leader = -1;
    int last = -1;
  };
  Placement& pl_;

  Greedy evaluate_greedy(const std::vector<int>& domains, std::int32_t slice_count,
                         std::int32_t leader_count);
  std::optional<std::vector<int>> select_optimal_set(const std::vector<int>& domains,
                                                     std::int32_t slice_count,
                                                     std::int32_t leader_count,
                                                     std::int32_t slice_size, bool by_entropy);
  std::string place_balanced(const std::vector<int>& domains, std::int32_t slice_count,
                             std::int32_t threshold, std::vector<int>& out);
  double entropy(const std::vector<int>& domains);
  bool capacity_entropy_less(int a, int b);
  std::vector<int> clone_domains(const std::vector<int>& domains);
  int clone_domain(int d, int parent);
  void clear_state(int d, bool leader_only);
  void prune_node(int d, std::int32_t threshold, bool leader_required);
  void prune(const std::vector<int>& domains, std::int32_t threshold);
};

}  // namespace tidesim::tas
