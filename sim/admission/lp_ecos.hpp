#pragma once
/// ECOS's interior-point algorithm on a linear program (lp_solver.hpp, Method::ecos;
/// docs/gavel.md, "As ECOS solves it: `lp_method: ecos`").
///
/// Gavel's policies solve their programs with cvxpy and ECOS (Domahidi, Chu and Boyd, "ECOS: An
/// SOCP solver for embedded systems", ECC 2013; embotech/ecos 2.0.x), whose answer is not a point
/// of the optimal face but where its iterates stop: a few Mehrotra predictor-corrector steps on
/// the homogeneous self-dual embedding, stopped at its tolerances. The jobs the optimum leaves out
/// keep crumbs in the order of those iterates, and a program with no objective (Gavel's
/// min_total_duration) ends near ECOS's starting point rather than at any centre. ECOS is not
/// packaged for C++ in Debian, so tidesim follows its algorithm for the linear case, with its
/// defaults:
///
/// - the program as ECOS's `min c'x, Gx + s = h, s >= 0`: every finite column bound and row
///   side a row of G (its slack a . x + offset is s, so G = -a, h = offset);
/// - Ruiz equilibration, 3 passes: each row and column divided by the square root of its
///   largest |entry| (1 where that is below 1e-6), c by the columns' factors, h by the rows';
/// - the start: x = argmin |Gx - h| and s = h - Gx moved into the cone (s + 1 + max(-s) where
///   some s <= 0, else s + 0.01); z = the least |z| with G'z = -c, moved likewise; tau = kappa =
///   1;
/// - each iteration: the residuals rx = -G'z - c tau, rz = s + Gx - h tau, rt = kappa + c'x +
///   h'z; stop when optimal within feastol = abstol = reltol = 1e-8 (ECOS's
///   checkExitConditions); Nesterov-Todd scaling W = sqrt(s / z); the affine direction, its step
///   (the largest to the cone's boundary and tau's and kappa's, within [1e-6, 0.999]); sigma =
///   (1 - step)^3 within [1e-4, 1]; the combined direction with Mehrotra's correction, its step
///   x 0.99; at most 100 iterations;
/// - each linear system [0 G'; G -W^2] [dx; dz] = [rx; rz] by its normal equations G' W^-2 G dx
///   = rx + G' W^-2 rz (lp_barrier.hpp's blocks: columns the program treats alike end alike bit
///   for bit), where ECOS factors the whole system with a static regularisation and refines it
///   (the same direction, to its accuracy).
#include <optional>
#include <vector>

#include "tidesim/sim/admission/lp_program.hpp"

namespace tidesim::lp {

/// ECOS's answer to `p` (its columns in the original scale, the fixed ones at their bound), or
/// nullopt when its iterations do not reach the optimum within its tolerances (a numerical
/// failure, an infeasible or unbounded program, 100 iterations), or `p` has an equality row.
std::optional<std::vector<double>> ecos_point(const Program& p);

}  // namespace tidesim::lp
