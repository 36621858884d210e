#pragma once
/// The fit of Pollux's performance parameters to measured step times (Qiao et al., OSDI'21,
/// section 4, PolluxAgent; petuum/adaptdl branch osdi21-artifact, simulator/goodput.py
/// fit_perf_params and _obj_fn). Formulas, bounds and the optimizer: docs/goodput-model.md, "The
/// fit".
#include <array>
#include <vector>

#include "tidesim/workloads/goodput.hpp"

namespace tidesim::workloads {

/// One measured configuration: `replicas` GPUs on `nodes` nodes, each passing `atomic_bsz`
/// samples; `accum_step_time` the seconds of a pass that does not synchronise (step - sync),
/// `optim_step_time` the seconds of a step that does (the whole step).
struct PerfSample {
  int nodes = 1;
  int replicas = 1;
  double atomic_bsz = 0;
  double accum_step_time = 0;
  double optim_step_time = 0;
};

/// The seven parameters in PerfParams' order (alpha_c, beta_c, alpha_n, beta_n, alpha_r, beta_r,
/// gamma), the vector the fit works on.
using PerfVector = std::array<double, 7>;
PerfVector to_vector(const PerfParams& p);
PerfParams to_params(const PerfVector& v);

/// The fit's starting point and box. A parameter the samples cannot identify is fixed
/// (lower = upper = initial): alpha_c at half the mean accum time with one atomic batch size;
/// alpha_n, beta_n at 1e-8 with no multi-node sample; alpha_r, beta_r at 1e-8 with no
/// single-node multi-replica sample; beta_n, beta_r at 1e-8 with no sample of more than 2
/// replicas. Otherwise initial (0.1, 0.01) x 3 and gamma 1.001, lower 1e-8 (gamma 1), upper
/// infinity (gamma 10).
struct PerfFitBox {
  PerfVector initial{};
  PerfVector lower{};
  PerfVector upper{};
  bool fixed(int i) const { return lower[i] == upper[i]; }
};
PerfFitBox perf_fit_box(const std::vector<PerfSample>& samples);

/// The artifact's objective: RMS(log T_c - log accum) + RMS(log T_optim - log optim)
/// + 1e-3 (gamma - 1)^2 + 1e-2 ((beta_n / alpha_n)^2 + (beta_r / alpha_r)^2), over the samples'
/// predicted compute time T_c and optimizer-step time T_optim. With `gradient`, also its partial
/// derivatives in PerfVector order (an RMS term that is exactly 0 contributes 0, a subgradient).
double perf_fit_objective(const PerfVector& x, const std::vector<PerfSample>& samples,
                          PerfVector* gradient = nullptr);

/// The fitted parameters: perf_fit_objective minimised over perf_fit_box by NLopt's LD_LBFGS with
/// the analytic gradient, on the free parameters in logarithmic coordinates (gamma linear), the
/// best point evaluated kept; then, with no multi-node sample, alpha_n >= 1.1 alpha_r and
/// beta_n >= 1.1 beta_r (the artifact's prior). Deterministic. std::invalid_argument when
/// `samples` is empty, or a sample has nodes < 1, replicas < nodes, a non-positive atomic batch
/// or a non-positive or non-finite time.
PerfParams fit_perf_params(const std::vector<PerfSample>& samples);

}  // namespace tidesim::workloads
