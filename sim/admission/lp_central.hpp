#pragma once
/// A point of a linear program's central path (lp_solver.hpp, Method::central; docs/gavel.md,
/// "On the central path: `lp_method: central`").
///
/// A path-following interior-point method (ECOS, cvxpy's default in Gavel's policy.py) keeps
/// every slack of the program strictly positive and follows the central path: for a parameter
/// t > 0, the minimiser of
///
///   f_t(x) = -t c.x - sum log(slack),   (c.x maximised; +t c.x where minimised)
///
/// the sum over every finite column bound and every finite side of every row. Its duality gap
/// is m / t (m the number of slacks). It stops at a small gap, so its answer is the central
/// path's point there: inside the optimal face near its analytic centre, and a column that is
/// 0 on the whole face is not 0 but about gap / (m z), z its reduced cost (so the jobs that get
/// no share keep an order: the nearer a job is to getting one, the larger its crumb).
/// central_point returns that point for a given gap (central_gap: near where ECOS stops).
///
/// Newton's system is solved by blocks, so that columns the program treats alike get the same
/// value bit for bit: `blocks[c]` is column c's block (>= 0) or -1 for a global column. A row's
/// columns other than the global ones must lie in one block, or the row is a wide row (such as
/// a GPU type's capacity row), of which there should be few. Each step factors the blocks, takes
/// the wide rows by the Woodbury identity and the global columns by their Schur complement.
/// Without blocks (empty, or none >= 0) every column is one block.
#include <optional>
#include <vector>

#include "tidesim/sim/admission/lp_program.hpp"

namespace tidesim::lp {

/// The duality gap central_point is asked for, relative to max(1, |optimum|): half of
/// lp_solver.hpp's kInteriorTolerance, so that the point's objective is the optimum's to that
/// tolerance. ECOS
/// stops at 1e-8 (its abstol and reltol); Newton's system in this form loses the digits that
/// would take there (its weights span 1e16 and more where a GPU type's capacity is met by shares
/// at 0 and 1). The order of the shares, which is what the rounds read, is the same at 1e-7.
inline constexpr double kCentralGap = 5e-7;

/// kCentralGap x max(1, |optimum|).
double central_gap(double optimum);

/// The central path's point of `p` at duality gap `gap` (mu = gap / m), by primal-dual Newton
/// steps on s y = mu, sum y a = c, mu divided by 10 from max(1, |c|) down to gap / m, from an
/// interior point found by a phase-one program (minimise s with every slack plus s positive, from
/// each column at its bounds' midpoint or one inside its finite bound, until s < 0). Every column
/// is then strictly inside its bounds and every row strictly satisfied. nullopt when the program
/// has no strictly feasible point, has a row with equal bounds (an equality), or Newton's method
/// does not converge (the caller keeps another answer). With c = 0 the point is the feasible
/// set's analytic centre. Deterministic; columns in blocks the program treats alike (the same
/// bounds, terms and coefficients) end with the same values bit for bit.
std::optional<std::vector<double>> central_point(const Program& p, double gap);

}  // namespace tidesim::lp
