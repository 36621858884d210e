// The central path of a linear program by a primal-dual path-following method (lp_central.hpp).
#include "tidesim/sim/admission/lp_central.hpp"

#include "tidesim/sim/admission/lp_barrier.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <utility>

namespace tidesim::lp {

namespace {

using detail::Barrier;
using detail::Columns;
using detail::NewtonSystem;
using detail::slack;
using detail::step_slack;
using detail::Term;

// An iterate of the primal-dual method: the unknowns, each term's slack s (carried with the
// steps, s += alpha a . d, not summed again from z, whose rounding would lose a slack far
// smaller than the terms of its row) and its dual y. On the central path at mu, s y = mu and
// sum y a = cost: the minimiser of cost . z / mu - sum log s, with y = mu / s.
struct Point {
  Eigen::VectorXd z;
  std::vector<double> s;
  std::vector<double> y;
};

Point point_at(const Barrier& b, const Eigen::VectorXd& z, double mu) {
  Point p{.z = z, .s = std::vector<double>(b.terms.size()), .y = {}};
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    p.s[k] = slack(b.terms[k], z);
    p.y.push_back(mu / p.s[k]);
  }
  return p;
}

// How far x is from the central path's point at mu: the largest |s y / mu - 1| and the dual
// residual: the largest |cost - sum y a| of an unknown relative to max(1, |cost| + sum |y a|),
// the size of what it sums.
struct Distance {
  double centrality = 0.0;
  double dual = 0.0;
};

// Largest alpha <= 1 that keeps v + alpha dv > 0, 99% of the way to the nearest bound.
double step_length(const std::vector<double>& v, const std::vector<double>& dv, double alpha) {
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (dv[k] < 0.0) {
      alpha = std::min(alpha, 0.99 * v[k] / -dv[k]);
    }
  }
  return alpha;
}

// One Newton step on s y = mu, sum y a = cost from x (strictly inside): with ds = a . dz and dy
// = (mu - s y - y ds) / s, H dz = sum a (mu - s y) / s - (cost - sum y a), H = sum (y / s) a a^T.
// Its right side is the residuals, small near the path, so no term as large as cost / mu enters
// (the primal barrier's gradient, cost / mu - sum a / s, loses its digits to that difference).
// Returns the distance before the step; a negative centrality when x is not strictly inside or
// the step is not finite.
Distance newton_step(const Barrier& b, double mu, Point& x) {
  Eigen::VectorXd dual = b.cost;
  Eigen::VectorXd scale = b.cost.cwiseAbs();
  std::vector<double> w(b.terms.size());
  Distance before;
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    if (!(x.s[k] > 0.0) || !(x.y[k] > 0.0)) {
      return {.centrality = -1.0, .dual = 0.0};
    }
    w[k] = x.y[k] / x.s[k];
    before.centrality = std::max(before.centrality, std::abs(x.s[k] * x.y[k] / mu - 1.0));
    for (const auto& [u, coef] : b.terms[k].a) {
      dual[u] -= x.y[k] * coef;
      scale[u] += std::abs(x.y[k] * coef);
    }
  }
  for (Eigen::Index u = 0; u < dual.size(); ++u) {
    before.dual = std::max(before.dual, std::abs(dual[u]) / std::max(1.0, scale[u]));
  }
  Eigen::VectorXd rhs = -dual;
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    const double rc = (mu - x.s[k] * x.y[k]) / x.s[k];
    for (const auto& [u, coef] : b.terms[k].a) {
      rhs[u] += coef * rc;
    }
  }
  const Eigen::VectorXd d = NewtonSystem(b, w).solve(rhs);
  if (!d.allFinite()) {
    return {.centrality = -1.0, .dual = 0.0};
  }
  std::vector<double> ds(b.terms.size());
  std::vector<double> dy(b.terms.size());
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    ds[k] = step_slack(b.terms[k], d);
    dy[k] = (mu - x.s[k] * x.y[k] - x.y[k] * ds[k]) / x.s[k];
  }
  const double alpha = step_length(x.y, dy, step_length(x.s, ds, 1.0));
  x.z += alpha * d;
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    x.s[k] += alpha * ds[k];
    x.y[k] += alpha * dy[k];
  }
  return before;
}

using Stop = std::function<bool(const Eigen::VectorXd&)>;

// Newton steps at mu until x is within `centrality` of the path and its dual residual within
// kDual; false when a step fails or kMaxSteps do not get there (rounding can keep the last
// digits from settling: a distance that has stopped halving over kStall steps is accepted when
// within kFloor).
bool centre(const Barrier& b, double mu, double centrality, Point& x) {
  constexpr int kMaxSteps = 200;
  constexpr int kStall = 8;
  constexpr double kDual = 1e-11;
  constexpr double kFloor = 1e-4;
  double best = std::numeric_limits<double>::infinity();
  int since_best = 0;
  for (int step = 0; step < kMaxSteps; ++step) {
    const Distance before = newton_step(b, mu, x);
    if (before.centrality < 0.0) {
      return false;
    }
    if (before.centrality <= centrality && before.dual <= kDual) {
      return true;
    }
    const double distance = std::max(before.centrality, before.dual);
    if (distance < best / 2.0) {
      best = distance;
      since_best = 0;
    } else if (++since_best >= kStall && best <= kFloor) {
      return true;
    }
  }
  return false;
}

// Path following: centring at mu, mu / 10, ... down to `last` (with cost = 0 the analytic
// centre once, at mu = 1). `done`, asked after each centring, stops it early (phase one, whose
// point is then centred at its mu, well inside). False when a centring fails.
bool follow(const Barrier& b, double last, Eigen::VectorXd& z, const Stop& done = {}) {
  constexpr double kStageCentrality = 0.1;
  constexpr double kFinalCentrality = 1e-9;
  double mu = b.cost.isZero() ? 1.0 : std::max(last, std::max(1.0, b.cost.cwiseAbs().maxCoeff()));
  if (b.cost.isZero()) {
    last = mu;
  }
  Point x = point_at(b, z, mu);
  bool ok = true;
  for (;;) {
    const bool final = mu <= last;
    ok = centre(b, final ? last : mu, final ? kFinalCentrality : kStageCentrality, x);
    if (!ok || final || (done && done(x.z))) {
      break;
    }
    mu = std::max(last, mu / 10.0);
  }
  z = x.z;
  return ok;
}

// Each column at its bounds' midpoint, or one inside its finite bound.
Eigen::VectorXd start_of(const Program& p, const Columns& cols) {
  Eigen::VectorXd z(cols.barrier.unknowns());
  for (std::size_t c = 0; c < p.columns(); ++c) {
    const int u = cols.unknown[c];
    if (u < 0) {
      continue;
    }
    const double lo = p.lower[c];
    const double hi = p.upper[c];
    z[u] = lo != -kInfinity && hi != kInfinity ? (lo + hi) / 2.0
           : lo != -kInfinity                  ? lo + 1.0
           : hi != kInfinity                   ? hi - 1.0
                                               : 0.0;
  }
  return z;
}

// Phase one: minimise s over every slack plus s from z, stopping as soon as s < 0 (z is then
// strictly inside).
bool phase_one(const Barrier& b, Eigen::VectorXd& z) {
  double worst = -std::numeric_limits<double>::infinity();  // the largest shortfall
  for (const Term& term : b.terms) {
    worst = std::max(worst, -slack(term, z));
  }
  if (worst < 0.0) {  // every slack already positive
    return true;
  }
  Barrier one = b;
  const int s = one.unknowns();
  one.globals += 1;
  for (Term& term : one.terms) {
    term.a.emplace_back(s, 1.0);
  }
  one.cost = Eigen::VectorXd::Zero(one.unknowns());
  one.cost[s] = 1.0;
  Eigen::VectorXd y(one.unknowns());
  y.head(b.unknowns()) = z;
  y[s] = worst + 1.0;
  const auto inside = [s](const Eigen::VectorXd& v) { return v[s] < 0.0; };
  const double m = static_cast<double>(one.terms.size());
  if (!follow(one, 1e-12 / m, y, inside) || !inside(y)) {
    return false;
  }
  z = y.head(b.unknowns());
  return true;
}

}  // namespace

double central_gap(double optimum) {
  return kCentralGap * std::max(1.0, std::abs(optimum));
}

std::optional<std::vector<double>> central_point(const Program& p, double gap) {
  Columns cols = detail::columns_of(p);
  if (!detail::add_terms(p, cols) || cols.barrier.unknowns() == 0) {
    return std::nullopt;
  }
  const Barrier& b = cols.barrier;
  Eigen::VectorXd z = start_of(p, cols);
  if (!phase_one(b, z)) {
    return std::nullopt;
  }
  const double m = static_cast<double>(b.terms.size());
  if (!follow(b, gap / m, z)) {
    return std::nullopt;
  }
  return detail::columns_from(p, cols, z);
}

}  // namespace tidesim::lp
