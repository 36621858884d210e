#pragma once
/// Gavel's allocation policies as pure functions (docs/gavel.md): given the active jobs (their
/// throughput on each GPU type, scale factor, priority weight, time since arrival and steps left)
/// and the GPUs of each type, the allocation X, the share of time each job should spend on each
/// type (Narayanan et al., OSDI'20, section 3; stanford-futuredata/gavel scheduler/policies/).
/// Every policy's X satisfies Gavel's base constraints: X >= 0, sum over types of X[j] <= 1 per
/// job, and sum over jobs of X[j][t] x scale_factor[j] <= GPUs of type t.
///
/// This file: the problem, its checks, the base constraints of a linear program over X, the
/// `isolated` policy (the equal split) and the proportional throughputs that max-min fairness
/// normalises by.
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/sim/admission/lp_solver.hpp"

namespace tidesim::gavel {

/// One active job as a policy sees it.
struct AllocationJob {
  int id = 0;
  /// Steps per second alone on each GPU type (in the cluster's order) at its scale factor;
  /// 0 where it cannot run.
  std::vector<double> throughput;
  /// GPUs it runs on (Gavel's scale factor).
  int scale_factor = 1;
  /// Gavel's priority weight (1, or 5 for the generator's high-priority jobs).
  double priority_weight = 1.0;
  /// Seconds since it arrived (finish-time fairness, AlloX).
  double time_since_start_s = 0.0;
  /// Steps left (finish-time fairness, min total duration, SLOs).
  double steps_remaining = 0.0;
  /// Seconds to its deadline (max_sum_throughput with SLOs); <= 0: none.
  double slo_s = 0.0;
};

/// The GPUs: a name and a count per type, and a price per type (cost-aware variants; $/hour,
/// or any unit: only ratios matter).
struct AllocationCluster {
  std::vector<std::string> gpu_types;
  std::vector<int> gpus;
  std::vector<double> prices;
};

/// Steps per second of two co-located jobs on one GPU type: the first's and the second's.
struct Colocated {
  double first = 0.0;
  double second = 0.0;
};

struct AllocationProblem {
  std::vector<AllocationJob> jobs;
  AllocationCluster cluster;
  /// Throughputs of jobs a and b (rows of `jobs`) sharing GPUs of type t (the throughput table's
  /// pair entries, workloads/throughput_table.hpp), nullopt where not measured; read by the
  /// packing policies (gandiva). Unset: no pair was measured.
  std::function<std::optional<Colocated>(std::size_t a, std::size_t b, std::size_t t)> colocated;
  /// How the linear-programming policies solve: simplex (a vertex, with tidesim's tie-break
  /// stages) or interior (each program in one stage as Gavel writes it, solved by the barrier to
  /// a point inside its optimal face, as cvxpy's ECOS does; docs/gavel.md, "As an interior point").
  lp::Method lp_method = lp::Method::simplex;
  /// finish_time_fairness(_perf) solved as an interior point: the point then taken is the centre
  /// of the optimal face under the barrier of Gavel's conic program (gavel_conic_centre.hpp,
  /// `lp_method: centre`) rather than where CLP's barrier stops.
  bool conic_centre = false;
};

/// X: one row per job (in the problem's order), one column per GPU type.
using Allocation = std::vector<std::vector<double>>;

/// Two jobs (rows of the problem) sharing GPUs (space sharing), and their share of time on each
/// type.
struct PairShare {
  std::size_t a = 0;
  std::size_t b = 0;
  std::vector<double> share;
};

/// What a packing policy returns: X of the jobs alone and of the pairs.
struct PackedAllocation {
  Allocation single;
  std::vector<PairShare> pairs;
};

/// A problem a policy cannot allocate (bad input, a solver failure): never a silent allocation.
class AllocationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Checks the problem: at least one GPU type, as many counts (>= 0) and prices (empty, or > 0)
/// as types, each job with one finite throughput >= 0 per type and at least one > 0, scale factor
/// >= 1, weight > 0, times and steps finite and >= 0, ids unique. AllocationError naming the
/// policy and the job otherwise.
void check_problem(const AllocationProblem& p, const std::string& policy);

/// The index of GPU type `name`; AllocationError naming `policy` when the cluster has none.
std::size_t type_index(const AllocationCluster& c, const std::string& name,
                       const std::string& policy);

/// The problem with every job's throughput replaced: by 1 on every type (`unit`), or by its
/// throughput on type `reference` on every type: the heterogeneity-agnostic variants.
AllocationProblem with_unit_throughputs(AllocationProblem p);
AllocationProblem with_reference_throughputs(AllocationProblem p, std::size_t reference);

/// `isolated` (policies/isolated.py), after check_problem: X[j][t] = (GPUs of t / jobs) /
/// scale_factor[j], each row
/// then divided by max(1, its sum).
Allocation isolated(const AllocationProblem& p);

/// The throughput each job gets from X: sum over types of throughput x X.
std::vector<double> effective_throughputs(const AllocationProblem& p, const Allocation& x);

/// policies/proportional.py: each job's throughput under X[j][t] = GPUs of t / all GPUs (the
/// cluster split in proportion to the types' sizes, rows summing to 1; scale factors ignored).
std::vector<double> proportional_throughputs(const AllocationProblem& p);
/// proportional_throughputs, each above 0: AllocationError naming `policy` and the job for one
/// that can run only on GPU types the cluster has none of (max-min fairness divides by it).
std::vector<double> positive_proportional_throughputs(const AllocationProblem& p,
                                                      const std::string& policy);

/// Two jobs' columns X[pair][t] in a program (the packing variants): jobs a and b (rows of the
/// problem, a < b) sharing GPUs of each type, from column `first`, and each job's steps per second
/// there.
struct PairColumns {
  std::size_t a = 0;
  std::size_t b = 0;
  int first = 0;
  std::vector<double> throughput_a;
  std::vector<double> throughput_b;
};

/// The columns of a program over X: X[j][t] (in [0, 1], objective 0) for every job, and in the
/// packed layout X[pair][t] for the pairs after them. column(j, t) is X[j][t]'s index.
struct AllocationColumns {
  std::size_t types = 0;
  int first = 0;
  std::vector<PairColumns> pairs;
  /// Per job, the indices in `pairs` of the pairs holding it.
  std::vector<std::vector<std::size_t>> pairs_of_job;
  int column(std::size_t job, std::size_t type) const {
    return first + static_cast<int>(job * types + type);
  }
};

/// The pairs of PolicyWithPacking's layout: every two jobs of the same scale factor, with their
/// co-located throughputs from p.colocated (0 where it gives none: Gavel keeps such pairs too),
/// their columns not placed yet. None without p.colocated. A policy asks for them once a call and
/// passes them to each of its programs.
std::vector<PairColumns> packed_pairs(const AllocationProblem& p);

/// Adds the columns and Gavel's base constraints over them (policy.py, get_base_constraints):
/// per job, the sum of its columns and of its pairs' columns <= 1; per type, the sum of scale
/// factor x column <= GPUs of the type (a pair counts its GPUs once). `pairs` (packed_pairs(), the
/// packed layout) adds their columns after the jobs'; a column on a type without GPUs is fixed at
/// 0, every other is free in [0, 1] (a pair's too where its throughput is 0, as Gavel's). Without
/// pairs the program has X[j][t] alone.
AllocationColumns add_base_constraints(lp::Program& program, const AllocationProblem& p,
                                       std::vector<PairColumns> pairs = {});

/// One term of a job's throughput in a program: a column, its GPU type, and the job's steps per
/// second there.
struct ThroughputTerm {
  int column = 0;
  std::size_t type = 0;
  double throughput = 0.0;
};
/// Job j's throughput as terms: its own columns X[j][t], then its pairs'.
std::vector<ThroughputTerm> throughput_terms(const AllocationProblem& p,
                                             const AllocationColumns& cols, std::size_t j);

/// Scales X (and the pairs' shares) down where a solver's tolerance left a type over its GPUs
/// (that type's column, by GPUs / used) or a job over a share of 1 (its row, by 1 / share): a
/// correction of the solver's tolerance (about 1e-6 on badly scaled programs), so that every
/// answer meets the base constraints.
void fit_base_constraints(const AllocationProblem& p, Allocation& x,
                          std::vector<PairShare>* pairs = nullptr);

/// X read from a solution, each value clipped to [0, 1] as Gavel clips cvxpy's, then
/// fit_base_constraints.
Allocation read_allocation(const lp::Solution& s, const AllocationColumns& cols,
                           const AllocationProblem& p);
/// The same with the pairs' shares (pairs whose shares are all 0 left out).
PackedAllocation read_packed_allocation(const lp::Solution& s, const AllocationColumns& cols,
                                        const AllocationProblem& p);

/// Solves `program` by `method`; AllocationError naming `policy` and the status unless optimal.
lp::Solution solve_or_throw(const lp::Program& program, const std::string& policy,
                            lp::Method method = lp::Method::simplex);

}  // namespace tidesim::gavel
