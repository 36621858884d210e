#pragma once
/// Gavel's max-min fairness by water filling (scheduler/policies/max_min_fairness_water_filling.py
/// @c4fa400, `WaterFillingAlgorithm`; docs/gavel.md, "Water filling"): max-min fairness repeated
/// until no job can gain, each round freezing the jobs that cannot rise above the level reached
/// (its bottlenecks), so the capacity that plain max-min fairness leaves to chance goes to the
/// jobs that can use it. With entities it is Gavel's hierarchical policy: each entity's weight
/// shared among its jobs by fairness or FIFO, round by round.
#include <vector>

#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

/// Entities (Gavel's `entity_to_job_mapping`, `entity_weights`, `priority_reweighting_policies`):
/// the entity of each job (a row of the problem), and per entity its weight and how the weight is
/// shared among its jobs that are not yet frozen.
struct WaterFillingEntities {
  enum class Rule {
    /// In proportion to the jobs' own priority weights; a frozen job gets 0.
    kFairness,
    /// All of it to the first unfrozen job by id; the others 0.
    kFifo,
  };
  std::vector<std::size_t> entity_of_job;
  std::vector<double> weight;
  std::vector<Rule> rule;
};

/// The allocation and how it was reached.
struct WaterFilling {
  Allocation x;
  /// The pairs' shares (max_min_fairness_water_filling_packed).
  std::vector<PairShare> pairs;
  /// Rounds of the loop (programs solved: one linear program and one bottleneck search each).
  int iterations = 0;
  /// Each job's level: its normalised throughput sum_t tput X / proportional throughput.
  std::vector<double> levels;
};

/// `max_min_fairness_water_filling_perf`. Each round: (1) the linear program of max-min fairness
/// over the jobs not frozen and of weight > 0, maximise c with (level_j(X) - reached_j) sf_j / w_j
/// >= c for those jobs and level_j(X) >= (frozen level or reached_j) for every job, under the base
/// constraints; reached_j += c w_j / sf_j for those jobs; (2) the bottleneck search, a mixed
/// integer program (Gavel's GLPK_MI, here CBC to optimality): z_j in {0, 1}, maximise sum z with
/// level_j(X) <= 1.0001 reached_j - 1e-5 + M z_j and level_j(X) >= 1.0001 reached_j - M (1 - z_j),
/// z_j = 0 for jobs frozen or of weight 0, every job at least its bound; the jobs of the loop with
/// z_j = 0 freeze at reached_j (all of them when the search has no answer). The loop ends when a
/// round freezes no job or every job is frozen; X is the last program's. M is the largest
/// tput sf / proportional throughput. The program is solved by p.lp_method (interior: ECOS's point
/// inside the optimal face, as Gavel's). `entities` (nullptr: each job's own weight) reweights
/// the jobs each round. AllocationError for a bad problem, bad entities, or a first program that
/// has no optimum.
WaterFilling max_min_fairness_water_filling_perf(const AllocationProblem& p,
                                                 const WaterFillingEntities* entities = nullptr);

/// `max_min_fairness_water_filling_packed` (MaxMinFairnessWaterFillingPolicyWithPacking): the
/// same over the packed layout (gavel_allocation.hpp), a job's level its throughput alone and in
/// its pairs over its proportional throughput (that of the job alone); M the largest over the
/// jobs' columns and pairs'.
WaterFilling max_min_fairness_water_filling_packed(const AllocationProblem& p,
                                                   const WaterFillingEntities* entities = nullptr);

/// `max_min_fairness_water_filling`: the same on every throughput 1 (heterogeneity-agnostic).
WaterFilling max_min_fairness_water_filling(const AllocationProblem& p,
                                            const WaterFillingEntities* entities = nullptr);

}  // namespace tidesim::gavel
