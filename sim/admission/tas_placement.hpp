#pragma once
/// One run of Kueue's findTopologyAssignment for one PodSet (and its leader, when it has one)
/// over a TasSnapshot (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/
/// tas_flavor_snapshot.go). The functions keep Kueue's names in snake case so that each can be
/// read beside its upstream counterpart.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/tas_snapshot.hpp"

namespace tidesim::tas {

class Placement {
 public:
  /// `assumed`: usage already given to earlier PodSets of the same workload, by leaf id.
  Placement(TasSnapshot& snapshot, const std::map<std::string, ResourceMap>& assumed);

  /// Places `workers` (and `leader`, which has one pod); the assignments by PodSet name, or
  /// Kueue's reason.
  struct Outcome {
    std::map<std::string, TopologyAssignment> assignments;
    std::string reason;
  };
  Outcome run(const TasPodSet& workers, const TasPodSet* leader, bool implied_workers);

  // --- the parts of the algorithm, also used by balanced placement (tas_balanced.cpp) ---
  DomainState& st(int d) { return s_.domains_[static_cast<std::size_t>(d)].st; }
  const Domain& dom(int d) const { return s_.domains_[static_cast<std::size_t>(d)]; }
  Domain& domain(int d) { return s_.domains_[static_cast<std::size_t>(d)]; }
  std::vector<int> sorted_domains(std::vector<int> domains, bool unconstrained);
  std::vector<int> sorted_domains_with_leader(std::vector<int> domains, bool unconstrained);
  std::vector<int> lower_level_domains(const std::vector<int>& domains) const;
  int compare_level_values(int a, int b) const;
  void fill_in_counts_helper(int d, std::int32_t slice_size, int slice_level, int level,
                             const std::map<int, std::int32_t>& slice_size_at_level,
                             bool leader_required);
  int shallow_clone(int d);
  /// The domains of `level`, in the order of their ids.
  const std::vector<int>& level_domains(int level) const;
  PlacementParams& params() { return p_; }

  /// Node replacement: only leaves inside domain `id` may take pods (Kueue's
  /// requiredReplacementDomain; "" allows every leaf).
  void require_domain(std::string id) { replacement_domain_ = std::move(id); }
  /// requiredReplacementDomain: the domain the replacement pods of `podset` (its count the pods
  /// of the failed node) must stay in, given the rest of its assignment: the domain of an
  /// incomplete slice, else the required level's domain, else "".
  std::string required_replacement_domain(const TasPodSet& podset,
                                          const TopologyAssignment& rest) const;

 private:
  TasSnapshot& s_;
  const std::map<std::string, ResourceMap>& assumed_;
  PlacementParams p_;
  TasSnapshot::Requirements req_;
  std::string replacement_domain_;

  std::string prepare(const TasPodSet& workers, const TasPodSet* leader, bool implied);
  std::string build_slice_size_at_level(const TopologyRequest* request);
  std::optional<std::string> level_key(const TopologyRequest* request) const;
  void fill_in_counts(const TasPodSet& workers);
  bool node_feasible(const TasNode& node, const TasPodSet& ps, std::int64_t& affinity_score);
  void fill_leaf_counts(int leaf);

  bool use_least_free_capacity(bool unconstrained) const;
  int find_best_fit_domain_by(const std::vector<int>& domains, std::size_t from,
                              std::int32_t needed, bool slices, std::int32_t leader_count);
  std::vector<int> top_affinity_tier(const std::vector<int>& candidates, std::size_t from);
  std::string find_level_with_fit_domains(int level, int& fit_level, std::vector<int>& out);
  std::string spread_over_domains(std::vector<int> sorted, int level, int& fit_level,
                                  std::vector<int>& out);
  std::vector<int> prioritize_leader_domain(std::vector<int> domains, std::int32_t count,
                                            std::int32_t leader_count, std::int32_t slice_size,
                                            bool slices);
  std::vector<int> update_counts_to_minimum(std::vector<int> domains, std::int32_t count,
                                            std::int32_t leader_count, std::int32_t slice_size,
                                            bool unconstrained, bool slices);
  bool consume_with_leaders(int& d, const std::vector<int>& domains, std::size_t from,
                            std::int32_t& remaining, std::int32_t& remaining_leaders,
                            bool unconstrained, std::int32_t slice_size, bool slices);
  std::vector<int> descend(std::vector<int> fit, int fit_level, bool balanced);
  TopologyAssignment build_assignment(std::vector<int> domains);
  std::string not_fit_message(std::int32_t fit, std::int32_t total, int level) const;
  std::string multi_layer_not_fit_message(int level) const;
  std::int32_t count_slices_in_subtree(int d, int level, int target, std::int32_t size);
  std::string incomplete_slice_domain(const TopologyAssignment& rest, std::int32_t missing,
                                      std::int32_t size, const std::string& key) const;
};

/// Kueue's balanced placement for preferred topology requests, behind the TASBalancedPlacement
/// gate (kubernetes-sigs/kueue @ff69552, pkg/cache/scheduler/tas_balanced_placement.go; KEP-2724
/// "Balanced placement"). For a preferred level L it looks at each domain one level up, finds
/// the largest threshold T (the least number of slices any used domain would get) a greedy
/// assignment allows, drops the domains that cannot hold T, picks the fewest domains with the
/// least spare capacity (dynamic programming over the domains in label order) and gives each T
/// slices and the rest in sort order.
/// (Implemented in tas_balanced.cpp.)
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
