#pragma once
/// Gavel's stateless optimisation policies (docs/gavel.md, "Policies"), each a linear program over
/// X solved by CLP: max-min fairness (LAS), max-sum-throughput (by cost, with SLOs) and min total
/// duration (makespan), heterogeneity-agnostic, aware (`_perf`) and with space sharing
/// (`_packed`: the same program over the jobs alone and the pairs of PolicyWithPacking,
/// add_base_constraints' packed layout, a job's throughput the sum over its columns and its
/// pairs'). AllocationError for a bad problem or a solver failure.
#include <string>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

/// max_min_fairness_perf (policies/max_min_fairness.py, MaxMinFairnessPolicyWithPerf): maximise
/// min over jobs of sum_t throughput[j][t] x scale_factor[j] x X[j][t] / (weight[j] x
/// proportional_throughput[j]). The optimum fixes only the smallest share; among the X that reach
/// it, the one of largest sum of the same normalised shares is returned (a second program: a
/// deterministic, Pareto-efficient choice where cvxpy's ECOS returns an interior point).
Allocation max_min_fairness_perf(const AllocationProblem& p);
/// max_min_fairness: the same with every throughput 1.
Allocation max_min_fairness(const AllocationProblem& p);
/// max_min_fairness_packed (MaxMinFairnessPolicyWithPacking): max_min_fairness_perf's programs
/// over the packed layout. Without p.colocated it is max_min_fairness_perf.
PackedAllocation max_min_fairness_packed(const AllocationProblem& p);

/// What max_sum_throughput returns: X, and whether the SLO constraints were dropped because no
/// X met them all (Gavel's fallback, ThroughputNormalizedByCostSumWithPerfSLOs).
struct SumThroughputResult {
  Allocation x;
  /// The pairs' shares (max_sum_throughput_packed).
  std::vector<PairShare> pairs;
  bool slos_dropped = false;
};
/// max_sum_throughput_perf (policies/max_sum_throughput.py): maximise sum over jobs and types of
/// throughput[j][t] x X[j][t] / price[t] (`by_cost`; price 1 otherwise), with, when `slos`, for
/// every job with slo_s > 0: sum_t throughput x X >= steps_remaining / slo_s.
SumThroughputResult max_sum_throughput_perf(const AllocationProblem& p, bool by_cost = false,
                                            bool slos = false);
/// The same over the packed layout: Gavel's max_sum_throughput_normalized_by_cost_packed_SLOs
/// (ThroughputNormalizedByCostSumWithPackingSLOs) with `by_cost` and `slos`. A pair's column
/// counts in the objective once for each job's throughput there.
SumThroughputResult max_sum_throughput_packed(const AllocationProblem& p, bool by_cost = false,
                                              bool slos = false);

/// min_total_duration_perf (policies/min_total_duration.py): the X that lets every job finish its
/// steps_remaining within T for the T Gavel's search settles on. Gavel bisects T from [100 s,
/// 10^6 s] (moving to the next decade while nothing is feasible) until the bounds are within a
/// factor 1.05, solving a feasibility program at each T; here the least T*, at which
/// sum_t throughput x X >= steps_remaining / T* can be met, is one program (maximise 1/T), and the
/// search runs on "T >= T*" so that it stops at Gavel's T. Among the feasible X at that T, the one
/// of largest sum of throughput x X x T / steps_remaining is returned.
Allocation min_total_duration_perf(const AllocationProblem& p);
/// min_total_duration_packed (MinTotalDurationPolicyWithPacking): the same search and programs
/// over the packed layout.
PackedAllocation min_total_duration_packed(const AllocationProblem& p);
/// min_total_duration: the same with every job's throughput on type `reference` ("v100" in
/// Gavel) on every type.
Allocation min_total_duration(const AllocationProblem& p, const std::string& reference = "v100");
/// The least makespan T* (seconds) of the problem, and the T Gavel's search stops at for it.
double least_total_duration(const AllocationProblem& p);
double gavel_search_duration(double least);

}  // namespace tidesim::gavel
