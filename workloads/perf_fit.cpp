#include "tidesim/workloads/perf_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include <nlopt.hpp>

namespace tidesim::workloads {
namespace {

enum Index { kAlphaC, kBetaC, kAlphaN, kBetaN, kAlphaR, kBetaR, kGamma };
constexpr double kLower = 1e-8;
constexpr double kInf = std::numeric_limits<double>::infinity();
/// NLopt's stopping rules: a step that changes the objective or every coordinate by less than
/// these relative amounts, or this many evaluations.
constexpr double kFtolRel = 1e-14;
constexpr double kXtolRel = 1e-12;
constexpr int kMaxEvaluations = 10000;

void check(const std::vector<PerfSample>& samples) {
  if (samples.empty()) {
    throw std::invalid_argument("fit_perf_params: no samples");
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const PerfSample& s = samples[i];
    const auto positive = [](double v) { return std::isfinite(v) && v > 0; };
    if (s.nodes < 1 || s.replicas < s.nodes || !positive(s.atomic_bsz) ||
        !positive(s.accum_step_time) || !positive(s.optim_step_time)) {
      throw std::invalid_argument(
          "fit_perf_params: sample " + std::to_string(i) + " (nodes " + std::to_string(s.nodes) +
          ", replicas " + std::to_string(s.replicas) + ", atomic_bsz " +
          std::to_string(s.atomic_bsz) + ", accum " + std::to_string(s.accum_step_time) +
          " s, optim " + std::to_string(s.optim_step_time) +
          " s) needs 1 <= nodes <= replicas and positive, finite batch and times");
    }
  }
}

/// The fit over the free parameters only (NLopt sees no fixed dimension), in the coordinates
/// z = log(x) for the six alphas and betas and z = gamma for gamma: the times span orders of
/// magnitude (a beta_c of 1e-6 s beside an alpha_n of 1 s), and in the logarithms the same step
/// moves each by the same factor.
struct Problem {
  const std::vector<PerfSample>* samples = nullptr;
  PerfFitBox box;
  std::vector<int> free;
  /// The best point evaluated (full vector) and its objective.
  PerfVector best{};
  double best_value = kInf;

  static double to_z(int i, double x) { return i == kGamma ? x : std::log(x); }

  PerfVector full(const std::vector<double>& z) const {
    PerfVector x = box.initial;
    for (std::size_t k = 0; k < free.size(); ++k) {
      const int i = free[k];
      // NLopt keeps its iterates inside the bounds; clamping guards the last bits of rounding.
      x[i] = std::clamp(i == kGamma ? z[k] : std::exp(z[k]), box.lower[i], box.upper[i]);
    }
    return x;
  }
};

double nlopt_objective(const std::vector<double>& z, std::vector<double>& grad, void* data) {
  auto& problem = *static_cast<Problem*>(data);
  const PerfVector x = problem.full(z);
  PerfVector g{};
  const double value = perf_fit_objective(x, *problem.samples, grad.empty() ? nullptr : &g);
  for (std::size_t k = 0; k < grad.size(); ++k) {
    const int i = problem.free[k];
    grad[k] = i == kGamma ? g[i] : g[i] * x[i];  // dF/dlog(x) = x dF/dx
  }
  if (value < problem.best_value) {
    problem.best_value = value;
    problem.best = x;
  }
  return value;
}

/// Minimises from the box's initial point with NLopt's L-BFGS; the problem keeps the best point
/// evaluated. At an exact fit the RMS terms have a kink at the optimum (as |x| at 0), where the
/// line search may end in NLOPT_FAILURE or on round-off: the best point reached is the result.
void minimise(Problem& problem) {
  const auto n = static_cast<unsigned>(problem.free.size());
  std::vector<double> lower(n);
  std::vector<double> upper(n);
  std::vector<double> z(n);
  for (unsigned k = 0; k < n; ++k) {
    const int i = problem.free[k];
    lower[k] = Problem::to_z(i, problem.box.lower[i]);
    upper[k] = Problem::to_z(i, problem.box.upper[i]);  // log(inf) = inf
    z[k] = Problem::to_z(i, problem.box.initial[i]);
  }
  nlopt::opt opt(nlopt::LD_LBFGS, n);
  opt.set_lower_bounds(lower);
  opt.set_upper_bounds(upper);
  opt.set_min_objective(nlopt_objective, &problem);
  opt.set_ftol_rel(kFtolRel);
  opt.set_xtol_rel(kXtolRel);
  opt.set_maxeval(kMaxEvaluations);
  double value = 0;
  try {
    opt.optimize(z, value);
  } catch (const std::runtime_error&) {
    // NLOPT_FAILURE or nlopt::roundoff_limited (both std::runtime_error): the best point is kept.
  }
}

}  // namespace

PerfVector to_vector(const PerfParams& p) {
  return {p.alpha_c, p.beta_c, p.alpha_n, p.beta_n, p.alpha_r, p.beta_r, p.gamma};
}

PerfParams to_params(const PerfVector& v) {
  return {.alpha_c = v[kAlphaC],
          .beta_c = v[kBetaC],
          .alpha_n = v[kAlphaN],
          .beta_n = v[kBetaN],
          .alpha_r = v[kAlphaR],
          .beta_r = v[kBetaR],
          .gamma = v[kGamma]};
}

PerfFitBox perf_fit_box(const std::vector<PerfSample>& samples) {
  PerfFitBox box;
  box.initial = {1e-1, 1e-2, 1e-1, 1e-2, 1e-1, 1e-2, 1.0 + 1e-3};
  box.lower = {kLower, kLower, kLower, kLower, kLower, kLower, 1.0};
  box.upper = {kInf, kInf, kInf, kInf, kInf, kInf, 10.0};
  const auto fix = [&box](int i, double value) {
    box.initial[i] = box.lower[i] = box.upper[i] = value;
  };
  std::set<double> batches;
  double accum_sum = 0;
  bool multi_node = false;
  bool single_node_multi_replica = false;
  bool over_two_replicas = false;
  for (const PerfSample& s : samples) {
    batches.insert(s.atomic_bsz);
    accum_sum += s.accum_step_time;
    multi_node = multi_node || s.nodes > 1;
    single_node_multi_replica = single_node_multi_replica || (s.nodes == 1 && s.replicas > 1);
    over_two_replicas = over_two_replicas || s.replicas > 2;
  }
  if (batches.size() == 1) {
    // One atomic batch cannot separate the constant from the per-sample compute time: half each,
    // which is optimistic about larger batches.
    fix(kAlphaC, accum_sum / static_cast<double>(samples.size()) / 2);
  }
  if (!multi_node) {
    fix(kAlphaN, kLower);
    fix(kBetaN, kLower);
  }
  if (!single_node_multi_replica) {
    fix(kAlphaR, kLower);
    fix(kBetaR, kLower);
  }
  if (!over_two_replicas) {
    fix(kBetaN, kLower);
    fix(kBetaR, kLower);
  }
  return box;
}

double perf_fit_objective(const PerfVector& x, const std::vector<PerfSample>& samples,
                          PerfVector* gradient) {
  const PerfParams p = to_params(x);
  const double n = static_cast<double>(samples.size());
  double sum1 = 0;
  double sum2 = 0;
  // Sums of residual x d(prediction)/dx, for the gradients of the two RMS terms.
  PerfVector d1{};
  PerfVector d2{};
  for (const PerfSample& s : samples) {
    const double accum = predict_accum_time(p, s.atomic_bsz);
    const double network = predict_network_time(p, s.nodes, s.replicas);
    const double log_optim = predict_log_optim_time(p, accum, network);
    const double e1 = std::log(accum) - std::log(s.accum_step_time);
    const double e2 = log_optim - std::log(s.optim_step_time);
    sum1 += e1 * e1;
    sum2 += e2 * e2;
    if (gradient == nullptr) {
      continue;
    }
    // d log T_c = dT_c / T_c with dT_c/dalpha_c = 1, dT_c/dbeta_c = atomic_bsz.
    d1[kAlphaC] += e1 / accum;
    d1[kBetaC] += e1 * s.atomic_bsz / accum;
    // L = log(T_c^g + T_n^g) / g: dL/dT_c = w_c / T_c, dL/dT_n = w_n / T_n and
    // dL/dg = (w_c log T_c + w_n log T_n - L) / g, with w_c = T_c^g / (T_c^g + T_n^g), w_n = 1 -
    // w_c.
    const double m = std::max(accum, network);
    const double uc = std::pow(accum / m, p.gamma);
    const double un = std::pow(network / m, p.gamma);
    const double wc = uc / (uc + un);
    const double wn = un / (uc + un);
    const double dl_dc = wc / accum;
    const double dl_dn = wn / network;
    d2[kAlphaC] += e2 * dl_dc;
    d2[kBetaC] += e2 * dl_dc * s.atomic_bsz;
    const double retro = std::max(s.replicas - 2.0, 1e-8);
    if (s.nodes > 1) {
      d2[kAlphaN] += e2 * dl_dn;
      d2[kBetaN] += e2 * dl_dn * retro;
    } else if (s.replicas > 1) {
      d2[kAlphaR] += e2 * dl_dn;
      d2[kBetaR] += e2 * dl_dn * retro;
    }
    d2[kGamma] += e2 * (wc * std::log(accum) + wn * std::log(network) - log_optim) / p.gamma;
  }
  const double err1 = std::sqrt(sum1 / n);
  const double err2 = std::sqrt(sum2 / n);
  const double rn = p.beta_n / p.alpha_n;
  const double rr = p.beta_r / p.alpha_r;
  const double value =
      err1 + err2 + 1e-3 * (p.gamma - 1) * (p.gamma - 1) + 1e-2 * (rn * rn + rr * rr);
  if (gradient != nullptr) {
    PerfVector& g = *gradient;
    // d sqrt(S / n) = dS / (2 n sqrt(S / n)) and dS = 2 sum e de: sum(e de) / (n err).
    for (int i = 0; i < 7; ++i) {
      g[i] = (err1 > 0 ? d1[i] / (n * err1) : 0.0) + (err2 > 0 ? d2[i] / (n * err2) : 0.0);
    }
    g[kGamma] += 2e-3 * (p.gamma - 1);
    g[kBetaN] += 2e-2 * rn / p.alpha_n;
    g[kAlphaN] -= 2e-2 * rn * rn / p.alpha_n;
    g[kBetaR] += 2e-2 * rr / p.alpha_r;
    g[kAlphaR] -= 2e-2 * rr * rr / p.alpha_r;
  }
  return value;
}

PerfParams fit_perf_params(const std::vector<PerfSample>& samples) {
  check(samples);
  Problem problem;
  problem.samples = &samples;
  problem.box = perf_fit_box(samples);
  for (int i = 0; i < 7; ++i) {
    if (!problem.box.fixed(i)) {
      problem.free.push_back(i);
    }
  }
  problem.best = problem.box.initial;
  problem.best_value = perf_fit_objective(problem.box.initial, samples);
  if (!problem.free.empty()) {
    minimise(problem);
  }
  PerfParams fitted = to_params(problem.best);
  bool multi_node = false;
  for (const PerfSample& s : samples) {
    multi_node = multi_node || s.nodes > 1;
  }
  if (!multi_node) {
    // The prior: a network across nodes is no faster than one within a node.
    fitted.alpha_n = std::max(fitted.alpha_n, fitted.alpha_r * 1.1);
    fitted.beta_n = std::max(fitted.beta_n, fitted.beta_r * 1.1);
  }
  return fitted;
}

}  // namespace tidesim::workloads
