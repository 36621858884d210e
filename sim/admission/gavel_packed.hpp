#pragma once
/// Gavel's max_min_fairness_packed (policies/max_min_fairness.py,
/// MaxMinFairnessPolicyWithPacking.get_allocation; docs/gavel.md): max-min fairness over the jobs
/// alone and every pair of jobs of the same scale factor sharing GPUs (space sharing).
#include "tidesim/sim/admission/gavel_allocation.hpp"

namespace tidesim::gavel {

/// Variables X[c][t] for every combination c (each job alone, each pair of jobs of the same scale
/// factor with a co-located throughput > 0 for either job on some type: `colocated`). A job's
/// throughput is the sum over the combinations holding it of its throughput there x X; the program
/// maximises min over jobs of throughput x scale_factor / (weight x proportional throughput)
/// under X >= 0, sum over a job's combinations and types of X <= 1, and sum over combinations of
/// scale_factor x X[c][t] <= GPUs of t (a pair counts its GPUs once). Ties are broken as in
/// max_min_fairness_perf (gavel_lp_policies.hpp). Without `colocated` it is
/// max_min_fairness_perf.
PackedAllocation max_min_fairness_packed(const AllocationProblem& p);

}  // namespace tidesim::gavel
