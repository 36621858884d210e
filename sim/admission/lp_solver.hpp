#pragma once
/// A linear program and its solution by CLP (COIN-OR's simplex solver, the Debian package
/// coinor-libclp-dev), for the allocation policies of Gavel (gavel_*.hpp, docs/gavel.md), and a
/// mixed integer one by CBC (COIN-OR's branch and cut over CLP, coinor-libcbc-dev), for
/// Shockwave's plan (shockwave_plan.hpp). CLP and CBC are private dependencies of
/// tidesim::admission: nothing outside this file's source names them.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/lp_program.hpp"

namespace tidesim::lp {

enum class Status { optimal, infeasible, unbounded, failed };

struct Solution {
  Status status = Status::failed;
  std::vector<double> x;
  double objective = 0.0;
  /// Whether x is an interior point (Method::interior or central, accepted) rather than a vertex.
  bool interior = false;
};

/// How solve finds an optimum.
enum class Method {
  /// CLP's dual simplex: a vertex of the optimal face.
  simplex,
  /// CLP's barrier (primal-dual interior point, its native Cholesky factorisation), without
  /// crossover: a point inside the optimal face (where CLP stops, not always its analytic
  /// centre), as an interior-point solver such as ECOS (cvxpy's, in Gavel's policy.py) returns one.
  interior,
  /// The central path's point at the duality gap ECOS stops at (lp_central.hpp): inside the
  /// optimal face near its analytic centre, a column 0 on the whole face about gap / (m z).
  central,
  /// ECOS's algorithm (lp_ecos.hpp): where ECOS's iterates stop, as Gavel's cvxpy gets them.
  ecos,
};

/// Relative tolerance of an interior answer: each row met within kInteriorTolerance x max(1,
/// |bound|), the objective within kInteriorTolerance x max(1, |simplex optimum|).
inline constexpr double kInteriorTolerance = 1e-6;

/// Solves `p` (deterministic: one thread, no randomisation, messages off). std::invalid_argument
/// when a term names a column that does not exist or a coefficient or bound is NaN.
///
/// Method::interior first solves by the dual simplex, whose status (optimal, infeasible,
/// unbounded) it keeps, and when optimal solves again by the barrier without crossover; each
/// column is clamped into its bounds (the barrier stops about 1e-8 inside or outside them). The
/// barrier's point is returned when every row holds and its objective equals the simplex's to
/// kInteriorTolerance; otherwise (CLP's barrier can stop short on a badly scaled program) the
/// simplex's vertex is, and Solution::interior says which. Method::central likewise solves by
/// the dual simplex first and returns the central path's point (lp_central.hpp) when it finds
/// one whose objective equals the simplex's to kInteriorTolerance, else Method::interior's answer;
/// Method::ecos likewise with ECOS's answer (lp_ecos.hpp).
Solution solve(const Program& p, Method method = Method::simplex);

/// When branch and bound stops: a relative gap between the best solution and the bound (CBC's
/// allowable fraction gap, as Gurobi's MIPGap) and a number of nodes (a limit that, unlike a
/// time limit, gives the same answer on every machine).
struct MipLimits {
  double rel_gap = 1e-3;
  int max_nodes = 1000;
};

/// Solves `p` with its integer columns by CBC: one thread, its fixed seed, messages off, from
/// `start` when it is a feasible solution with whole values (empty: none).
/// `optimal` when a solution with whole values was found (proven within the gap or the best at
/// the node limit), `infeasible` when none exists, `failed` when the limits stopped it before
/// one was found. The same checks as solve.
Solution solve_mip(const Program& p, const MipLimits& limits,
                   const std::vector<double>& start = {});

/// The words for a status ("optimal", "infeasible", ...).
const char* to_string(Status s);
/// "simplex", "interior", "central" or "ecos".
const char* to_string(Method m);

}  // namespace tidesim::lp
