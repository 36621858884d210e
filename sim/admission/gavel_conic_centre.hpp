#pragma once
/// The centre of finish-time fairness's optimal face as Gavel's conic program has it
/// (docs/gavel.md, "As an interior point", `lp_method: centre`).
///
/// Gavel's finish_time_fairness(_perf) minimises `s >= rho_j` over the jobs, each `rho_j = (t_j +
/// R_j u_j) / iso_j` with `u_j >= 1 / z_j` (`inv_pos`, a second-order cone for ECOS), `z_j` the
/// job's throughput under X, subject to `X >= 0`, each job's row sum <= 1 and each type's
/// `sum_j sf_j X[j][t] <= GPUs`. On the optimal face (s at the least rho) an interior-point
/// method ends near the point that minimises the barrier of every constraint that is not tight
/// there. With each `u_j` at its own centre between `1 / z_j` and the row's bound, a job's two
/// barriers come to `-2 log(z_j - c_j) + log z_j`, `c_j = R_j / (rho iso_j - t_j)`; with the
/// others that is
///
///   phi(X) = -sum log X[j][t] - sum_j log(1 - sum_t X[j][t])
///            - sum_t log(GPUs_t - sum_j sf_j X[j][t]) - sum_j (2 log(z_j - c_j) - log z_j),
///
/// which is convex (2 / (z - c)^2 > 1 / z^2). Gavel's program has no `X <= 1` (the row sums
/// imply it), so neither has phi.
#include <optional>
#include <vector>

namespace tidesim::gavel {

/// The face: per job its throughput on each type (types with GPUs only), scale factor and the
/// bound c_j of its row (< 0: the job has no row, no steps left); per type its GPUs.
struct FtfFace {
  std::vector<std::vector<double>> throughput;
  std::vector<int> scale_factor;
  std::vector<double> bound;
  std::vector<double> gpus;
};

/// phi's minimiser by damped Newton steps from `x` ([job][type]), which must be strictly
/// inside the face; nullopt when it is not (the caller keeps its point). Each step solves the
/// Newton system by the jobs' blocks and the types' rank-`types` coupling (Woodbury), and stays
/// inside by halving.
std::optional<std::vector<std::vector<double>>> conic_centre(
    const FtfFace& face, const std::vector<std::vector<double>>& x);

/// phi at x, +infinity outside the face.
double conic_barrier(const FtfFace& face, const std::vector<std::vector<double>>& x);

}  // namespace tidesim::gavel
