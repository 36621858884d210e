// ECOS's algorithm on a linear program (lp_ecos.hpp).
#include "tidesim/sim/admission/lp_ecos.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "tidesim/sim/admission/lp_barrier.hpp"

namespace tidesim::lp {

namespace {

using detail::Barrier;
using detail::NewtonSystem;
using detail::Term;
using Vec = Eigen::VectorXd;

// ECOS's defaults (include/ecos.h).
constexpr int kMaxIterations = 100;
constexpr double kFeasTol = 1e-8;
constexpr double kAbsTol = 1e-8;
constexpr double kRelTol = 1e-8;
constexpr double kGamma = 0.99;  // the final step's scale, and bring2cone's floor
constexpr double kStepMin = 1e-6;
constexpr double kStepMax = 0.999;
constexpr double kSigmaMin = 1e-4;
constexpr double kSigmaMax = 1.0;
constexpr double kEps = 1e-13;
constexpr double kSafeguard = 500.0;
constexpr int kEquilibrationPasses = 3;
// Static regularisation (DELTASTAT, STATICREG on): ECOS factors and refines towards [delta I, G';
// G, -(W^2 + delta I)], not the bare system.
constexpr double kDelta = 7e-8;

// G x, G = -a (each term's slack a . x + offset is ECOS's s = h - G x).
Vec times_g(const Barrier& b, const Vec& x) {
  Vec out(static_cast<Eigen::Index>(b.terms.size()));
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    out[static_cast<Eigen::Index>(k)] = -detail::step_slack(b.terms[k], x);
  }
  return out;
}

// G' v.
Vec times_gt(const Barrier& b, const Vec& v) {
  Vec out = Vec::Zero(b.unknowns());
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    for (const auto& [u, coef] : b.terms[k].a) {
      out[u] -= coef * v[static_cast<Eigen::Index>(k)];
    }
  }
  return out;
}

// Ruiz equilibration (equil.c, use_ruiz_equilibration): rows and columns of G divided by the
// square roots of their largest |entries|, kEquilibrationPasses times; h (the offsets) by the
// rows' factors, the cost by the columns'. Returns the columns' factors.
Vec equilibrate(Barrier& b) {
  const auto n = static_cast<Eigen::Index>(b.unknowns());
  Vec columns = Vec::Ones(n);
  for (int pass = 0; pass < kEquilibrationPasses; ++pass) {
    Vec col_max = Vec::Zero(n);
    std::vector<double> row_max(b.terms.size(), 0.0);
    for (std::size_t k = 0; k < b.terms.size(); ++k) {
      for (const auto& [u, coef] : b.terms[k].a) {
        col_max[u] = std::max(col_max[u], std::abs(coef));
        row_max[k] = std::max(row_max[k], std::abs(coef));
      }
    }
    const auto root = [](double v) { return std::abs(v) < 1e-6 ? 1.0 : std::sqrt(v); };
    for (std::size_t k = 0; k < b.terms.size(); ++k) {
      const double r = root(row_max[k]);
      for (auto& [u, coef] : b.terms[k].a) {
        coef = coef / r / root(col_max[u]);
      }
      b.terms[k].offset /= r;
    }
    for (Eigen::Index u = 0; u < n; ++u) {
      columns[u] *= root(col_max[u]);
      b.cost[u] /= root(col_max[u]);
    }
  }
  return columns;
}

// [delta I, G'; G, -(W^2 + delta I)] [dx; dz] = [rx; rz] by its normal equations (delta I + G'
// D G) dx = rx + G' D rz, dz = D (G dx - rz), D = w = (W^2 + delta)^-1.
void kkt_solve(const Barrier& b, const NewtonSystem& system, const Vec& w, const Vec& rx,
               const Vec& rz, Vec& dx, Vec& dz) {
  dx = system.solve(rx + times_gt(b, w.cwiseProduct(rz)));
  dz = w.cwiseProduct(times_g(b, dx) - rz);
}

// bring2cone (cone.c) for the nonnegative orthant.
Vec bring_to_cone(const Vec& r) {
  double alpha = -kGamma;
  for (const double v : r) {
    if (v <= 0.0 && -v > alpha) {
      alpha = -v;
    }
  }
  return (r.array() + (alpha + 1.0)).matrix();
}

// ECOS's lineSearch for the nonnegative orthant, with tau and kappa.
double line_search(const Vec& lambda, const Vec& ds, const Vec& dz, double tau, double dtau,
                   double kap, double dkap) {
  double rho = ds[0] / lambda[0];
  double sigma = dz[0] / lambda[0];
  for (Eigen::Index i = 1; i < lambda.size(); ++i) {
    rho = std::min(rho, ds[i] / lambda[i]);
    sigma = std::min(sigma, dz[i] / lambda[i]);
  }
  double alpha = 0.0;
  if (-sigma > -rho) {
    alpha = sigma < 0.0 ? 1.0 / -sigma : 1.0 / kEps;
  } else {
    alpha = rho < 0.0 ? 1.0 / -rho : 1.0 / kEps;
  }
  const double tau_limit = -tau / dtau;
  const double kap_limit = -kap / dkap;
  if (tau_limit > 0.0 && tau_limit < alpha) {
    alpha = tau_limit;
  }
  if (kap_limit > 0.0 && kap_limit < alpha) {
    alpha = kap_limit;
  }
  return std::clamp(alpha, kStepMin, kStepMax);
}

// The homogeneous self-dual embedding's iterate.
struct Iterate {
  Vec x;
  Vec s;
  Vec z;
  double tau = 1.0;
  double kap = 1.0;
};

// Its residuals and ECOS's statistics (computeResiduals, updateStatistics).
struct Residuals {
  Vec rx;
  Vec rz;
  double rt = 0.0;
  double cx = 0.0;
  double hz = 0.0;
  double mu = 0.0;
  double gap = 0.0;
  double pres = 0.0;
  double dres = 0.0;
  double relgap = 0.0;
};

Residuals residuals(const Barrier& b, const Vec& h, const Iterate& it, double resx0, double resz0) {
  Residuals r;
  r.rx = -times_gt(b, it.z) - it.tau * b.cost;
  r.rz = it.s + times_g(b, it.x) - it.tau * h;
  r.cx = b.cost.dot(it.x);
  r.hz = h.dot(it.z);
  r.rt = it.kap + r.cx + r.hz;
  r.gap = it.s.dot(it.z);
  r.mu = (r.gap + it.kap * it.tau) / (static_cast<double>(h.size()) + 1.0);
  const double pcost = r.cx / it.tau;
  const double dcost = -r.hz / it.tau;
  r.relgap = pcost < 0.0 ? r.gap / -pcost : dcost > 0.0 ? r.gap / dcost : std::nan("");
  r.pres = r.rz.norm() / std::max(resz0 + it.x.norm() + it.s.norm(), 1.0) / it.tau;
  r.dres = r.rx.norm() / std::max(resx0 + it.z.norm(), 1.0) / it.tau;
  return r;
}

bool optimal(const Residuals& r) {
  return (-r.cx > 0.0 || -r.hz >= -kAbsTol) && r.pres < kFeasTol && r.dres < kFeasTol &&
         (r.gap < kAbsTol || r.relgap < kRelTol);
}

// One predictor-corrector step (ECOS_solve's loop body for the nonnegative orthant).
void step(const Barrier& b, const Vec& h, const Residuals& r, Iterate& it) {
  const Vec v = it.s.cwiseQuotient(it.z);  // W^2
  const Vec w = (v.array() + kDelta).inverse().matrix();
  const Vec scale = v.cwiseSqrt();
  const Vec lambda = it.s.cwiseProduct(it.z).cwiseSqrt();
  const NewtonSystem system(b, std::vector<double>(w.data(), w.data() + w.size()), kDelta);
  Vec dx1;
  Vec dz1;
  Vec dx2;
  Vec dz2;
  kkt_solve(b, system, w, -b.cost, h, dx1, dz1);
  kkt_solve(b, system, w, r.rx, it.s - r.rz, dx2, dz2);
  const double denom = it.kap / it.tau - (b.cost.dot(dx1) + h.dot(dz1));
  const double dtau_aff = (r.rt - it.kap + b.cost.dot(dx2) + h.dot(dz2)) / denom;
  const Vec w_dz_aff = scale.cwiseProduct(dz2 + dtau_aff * dz1);
  const Vec ds_aff_by_w = -w_dz_aff - lambda;
  const double dkap_aff = -it.kap - it.kap / it.tau * dtau_aff;
  const double step_aff =
      line_search(lambda, ds_aff_by_w, w_dz_aff, it.tau, dtau_aff, it.kap, dkap_aff);
  const double sigma = std::clamp(std::pow(1.0 - step_aff, 3), kSigmaMin, kSigmaMax);
  const Vec ds =
      (lambda.cwiseProduct(lambda) + ds_aff_by_w.cwiseProduct(w_dz_aff)).array() - sigma * r.mu;
  const Vec lambda_ds = ds.cwiseQuotient(lambda);
  kkt_solve(b, system, w, (1.0 - sigma) * r.rx,
            -(1.0 - sigma) * r.rz + scale.cwiseProduct(lambda_ds), dx2, dz2);
  const double bkap = it.kap * it.tau + dkap_aff * dtau_aff - sigma * r.mu;
  const double dtau = ((1.0 - sigma) * r.rt - bkap / it.tau + b.cost.dot(dx2) + h.dot(dz2)) / denom;
  const Vec dx = dx2 + dtau * dx1;
  const Vec dz = dz2 + dtau * dz1;
  const Vec w_dz = scale.cwiseProduct(dz);
  const Vec ds_by_w = -(lambda_ds + w_dz);
  const double dkap = -(bkap + it.kap * dtau) / it.tau;
  const double alpha = line_search(lambda, ds_by_w, w_dz, it.tau, dtau, it.kap, dkap) * kGamma;
  it.x += alpha * dx;
  it.z += alpha * dz;
  it.s += alpha * scale.cwiseProduct(ds_by_w);
  it.kap += alpha * dkap;
  it.tau += alpha * dtau;
}

// ECOS's start (init): x = argmin |Gx - h|, s = h - Gx and z = the least |z| with G'z = -c,
// each brought into the cone.
Iterate start(const Barrier& b, const Vec& h) {
  const auto m = static_cast<Eigen::Index>(b.terms.size());
  const Vec w = Vec::Constant(m, 1.0 / (1.0 + kDelta));
  const NewtonSystem system(b, std::vector<double>(b.terms.size(), w[0]), kDelta);
  Iterate it;
  Vec dz;
  kkt_solve(b, system, w, Vec::Zero(b.unknowns()), h, it.x, dz);
  it.s = bring_to_cone(-dz);
  Vec dx;
  kkt_solve(b, system, w, -b.cost, Vec::Zero(m), dx, dz);
  it.z = bring_to_cone(dz);
  return it;
}

}  // namespace

std::optional<std::vector<double>> ecos_point(const Program& p) {
  detail::Columns cols = detail::columns_of(p);
  if (!detail::add_terms(p, cols) || cols.barrier.unknowns() == 0 || cols.barrier.terms.empty()) {
    return std::nullopt;
  }
  Barrier& b = cols.barrier;
  const Vec xequil = equilibrate(b);
  Vec h(static_cast<Eigen::Index>(b.terms.size()));
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    h[static_cast<Eigen::Index>(k)] = b.terms[k].offset;
  }
  const double resx0 = std::max(1.0, b.cost.norm());
  const double resz0 = std::max(1.0, h.norm());
  Iterate it = start(b, h);
  double pres_before = std::nan("");
  for (int iteration = 0; iteration <= kMaxIterations; ++iteration) {
    if (!it.x.allFinite() || !it.s.allFinite() || !it.z.allFinite()) {
      return std::nullopt;
    }
    const Residuals r = residuals(b, h, it, resx0, resz0);
    if (iteration > 0 && (r.pres > kSafeguard * pres_before || r.gap < 0.0)) {
      return std::nullopt;  // ECOS would fall back to its best iterate: a numerical failure
    }
    pres_before = r.pres;
    if (optimal(r)) {
      return detail::columns_from(p, cols, (it.x.array() / (xequil.array() * it.tau)).matrix());
    }
    if (iteration == kMaxIterations) {
      break;
    }
    step(b, h, r, it);
  }
  return std::nullopt;
}

}  // namespace tidesim::lp
