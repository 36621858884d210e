#include "tidesim/sim/admission/lp_solver.hpp"

#include "tidesim/sim/admission/lp_central.hpp"
#include "tidesim/sim/admission/lp_ecos.hpp"

#include <CbcModel.hpp>
#include <CbcStrategy.hpp>
#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinPackedMatrix.hpp>
#include <OsiClpSolverInterface.hpp>
#include <algorithm>
#include <cmath>
#include <optional>

namespace tidesim::lp {

namespace {

// CLP's infinity (COIN_DBL_MAX) for an infinite bound.
double clp_bound(double v) {
  if (v == kInfinity) {
    return COIN_DBL_MAX;
  }
  if (v == -kInfinity) {
    return -COIN_DBL_MAX;
  }
  return v;
}

void check(const Program& p) {
  const std::size_t n = p.columns();
  if (p.lower.size() != n || p.upper.size() != n) {
    throw std::invalid_argument("lp: bounds of " + std::to_string(n) + " columns expected");
  }
  for (std::size_t c = 0; c < n; ++c) {
    if (std::isnan(p.objective[c]) || std::isnan(p.lower[c]) || std::isnan(p.upper[c])) {
      throw std::invalid_argument("lp: column " + std::to_string(c) + " has a NaN");
    }
  }
  for (std::size_t r = 0; r < p.rows.size(); ++r) {
    const Row& row = p.rows[r];
    if (std::isnan(row.lower) || std::isnan(row.upper)) {
      throw std::invalid_argument("lp: row " + std::to_string(r) + " has a NaN bound");
    }
    for (const auto& [col, coef] : row.terms) {
      if (col < 0 || static_cast<std::size_t>(col) >= n || !std::isfinite(coef)) {
        throw std::invalid_argument("lp: row " + std::to_string(r) + " has a bad term");
      }
    }
  }
}

// The program in COIN-OR's column-ordered form.
struct Coin {
  CoinPackedMatrix matrix;
  std::vector<double> lo;
  std::vector<double> hi;
  std::vector<double> row_lower;
  std::vector<double> row_upper;
};

Coin to_coin(const Program& p) {
  check(p);
  std::vector<int> rows;
  std::vector<int> cols;
  std::vector<double> values;
  Coin c;
  for (std::size_t r = 0; r < p.rows.size(); ++r) {
    for (const auto& [col, coef] : p.rows[r].terms) {
      rows.push_back(static_cast<int>(r));
      cols.push_back(col);
      values.push_back(coef);
    }
    c.row_lower.push_back(clp_bound(p.rows[r].lower));
    c.row_upper.push_back(clp_bound(p.rows[r].upper));
  }
  for (std::size_t col = 0; col < p.columns(); ++col) {
    c.lo.push_back(clp_bound(p.lower[col]));
    c.hi.push_back(clp_bound(p.upper[col]));
  }
  c.matrix = CoinPackedMatrix(true, rows.data(), cols.data(), values.data(),
                              static_cast<CoinBigIndex>(values.size()));
  // A column no row names is still a column: the matrix is as wide as the program.
  c.matrix.setDimensions(static_cast<int>(p.rows.size()), static_cast<int>(p.columns()));
  return c;
}

void load(ClpSimplex& model, const Program& p, const Coin& coin) {
  model.setLogLevel(0);
  model.loadProblem(coin.matrix, coin.lo.data(), coin.hi.data(), p.objective.data(),
                    coin.row_lower.data(), coin.row_upper.data());
  model.setOptimizationDirection(p.maximise ? -1.0 : 1.0);
}

Solution solve_simplex(const Program& p, const Coin& coin) {
  ClpSimplex model;
  load(model, p, coin);
  model.dual();
  Solution s;
  if (model.isProvenOptimal()) {
    s.status = Status::optimal;
  } else if (model.isProvenPrimalInfeasible()) {
    s.status = Status::infeasible;
  } else if (model.isProvenDualInfeasible()) {
    s.status = Status::unbounded;
  } else {
    s.status = Status::failed;
  }
  if (s.status == Status::optimal) {
    const double* x = model.getColSolution();
    s.x.assign(x, x + p.columns());
    s.objective = model.objectiveValue();
  }
  return s;
}

bool within(double value, double lower, double upper) {
  const auto slack = [](double bound) {
    return kInteriorTolerance * std::max(1.0, std::abs(bound));
  };
  return (lower == -kInfinity || value >= lower - slack(lower)) &&
         (upper == kInfinity || value <= upper + slack(upper));
}

// The barrier's point, clamped into the columns' bounds, when every row holds and its objective
// is the simplex's `optimum` (both to kInteriorTolerance); nullopt otherwise. Presolve is off so
// that no column is fixed at a bound the barrier would not choose; CLP's barrier reports an
// infeasible or unbounded program as optimal, hence the checks against the simplex's answer.
std::optional<Solution> solve_barrier(const Program& p, const Coin& coin, double optimum) {
  ClpSimplex model;
  load(model, p, coin);
  ClpSolve options;
  options.setSolveType(ClpSolve::useBarrierNoCross);
  options.setPresolveType(ClpSolve::presolveOff);
  model.initialSolve(options);
  if (!model.isProvenOptimal()) {
    return std::nullopt;
  }
  Solution s{.status = Status::optimal, .x = {}, .objective = 0.0, .interior = true};
  const double* x = model.getColSolution();
  for (std::size_t c = 0; c < p.columns(); ++c) {
    if (!std::isfinite(x[c])) {
      return std::nullopt;
    }
    s.x.push_back(std::clamp(x[c], p.lower[c], p.upper[c]));
    s.objective += p.objective[c] * s.x.back();
  }
  for (const Row& row : p.rows) {
    double activity = 0.0;
    for (const auto& [col, coef] : row.terms) {
      activity += coef * s.x[static_cast<std::size_t>(col)];
    }
    if (!within(activity, row.lower, row.upper)) {
      return std::nullopt;
    }
  }
  if (std::abs(s.objective - optimum) > kInteriorTolerance * std::max(1.0, std::abs(optimum))) {
    return std::nullopt;
  }
  return s;
}

static_assert(kCentralGap <= kInteriorTolerance / 2.0);

// A point found inside (lp_central.hpp, lp_ecos.hpp) when its objective is the simplex's
// `optimum`.
std::optional<Solution> inside_point(const Program& p, std::optional<std::vector<double>> x,
                                     double optimum) {
  if (!x) {
    return std::nullopt;
  }
  Solution s{.status = Status::optimal, .x = std::move(*x), .objective = 0.0, .interior = true};
  for (std::size_t c = 0; c < p.columns(); ++c) {
    s.objective += p.objective[c] * s.x[c];
  }
  if (std::abs(s.objective - optimum) > kInteriorTolerance * std::max(1.0, std::abs(optimum))) {
    return std::nullopt;
  }
  return s;
}

}  // namespace

Solution solve(const Program& p, Method method) {
  const Coin coin = to_coin(p);
  Solution vertex = solve_simplex(p, coin);
  if (method == Method::simplex || vertex.status != Status::optimal) {
    return vertex;
  }
  if (method == Method::central || method == Method::ecos) {
    std::optional<std::vector<double>> x =
        method == Method::central ? central_point(p, central_gap(vertex.objective)) : ecos_point(p);
    if (std::optional<Solution> inside = inside_point(p, std::move(x), vertex.objective)) {
      return std::move(*inside);
    }
  }
  std::optional<Solution> inside = solve_barrier(p, coin, vertex.objective);
  return inside ? std::move(*inside) : vertex;
}

Solution solve_mip(const Program& p, const MipLimits& limits, const std::vector<double>& start) {
  const Coin coin = to_coin(p);
  for (const int col : p.integers) {
    if (col < 0 || static_cast<std::size_t>(col) >= p.columns()) {
      throw std::invalid_argument("lp: integer column " + std::to_string(col) + " does not exist");
    }
  }
  OsiClpSolverInterface lp;
  lp.messageHandler()->setLogLevel(0);
  lp.loadProblem(coin.matrix, coin.lo.data(), coin.hi.data(), p.objective.data(),
                 coin.row_lower.data(), coin.row_upper.data());
  lp.setObjSense(p.maximise ? -1.0 : 1.0);
  for (const int col : p.integers) {
    lp.setInteger(col);
  }
  CbcModel model(lp);
  // CBC's default cut generators and heuristics (those of its stand-alone solver), cuts at the
  // root only.
  CbcStrategyDefault strategy(1, 5, 0, 0);
  model.setStrategy(strategy);
  model.setLogLevel(0);
  model.messageHandler()->setLogLevel(0);
  model.setNumberThreads(0);
  model.setAllowableFractionGap(limits.rel_gap);
  model.setMaximumNodes(limits.max_nodes);
  if (start.size() == p.columns()) {
    model.setBestSolution(start.data(), static_cast<int>(start.size()), COIN_DBL_MAX, true);
  }
  model.branchAndBound();
  Solution s;
  if (model.bestSolution() != nullptr) {
    s.status = Status::optimal;
    const double* x = model.bestSolution();
    s.x.assign(x, x + p.columns());
    for (const int col : p.integers) {
      s.x[static_cast<std::size_t>(col)] = std::round(s.x[static_cast<std::size_t>(col)]);
    }
    s.objective = model.getObjValue();
  } else if (model.isProvenInfeasible()) {
    s.status = Status::infeasible;
  } else {
    s.status = Status::failed;
  }
  return s;
}

const char* to_string(Method m) {
  switch (m) {
    case Method::interior:
      return "interior";
    case Method::central:
      return "central";
    case Method::ecos:
      return "ecos";
    case Method::simplex:
      break;
  }
  return "simplex";
}

const char* to_string(Status s) {
  switch (s) {
    case Status::optimal:
      return "optimal";
    case Status::infeasible:
      return "infeasible";
    case Status::unbounded:
      return "unbounded";
    case Status::failed:
      return "failed";
  }
  return "failed";
}

}  // namespace tidesim::lp
