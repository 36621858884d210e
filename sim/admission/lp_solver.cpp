#include "tidesim/sim/admission/lp_solver.hpp"

#include <ClpSimplex.hpp>
#include <CoinPackedMatrix.hpp>
#include <cmath>

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

}  // namespace

int Program::add_column(double cost, double lo, double hi) {
  objective.push_back(cost);
  lower.push_back(lo);
  upper.push_back(hi);
  return static_cast<int>(objective.size()) - 1;
}

Solution solve(const Program& p) {
  check(p);
  std::vector<int> rows;
  std::vector<int> cols;
  std::vector<double> values;
  std::vector<double> row_lower;
  std::vector<double> row_upper;
  for (std::size_t r = 0; r < p.rows.size(); ++r) {
    for (const auto& [col, coef] : p.rows[r].terms) {
      rows.push_back(static_cast<int>(r));
      cols.push_back(col);
      values.push_back(coef);
    }
    row_lower.push_back(clp_bound(p.rows[r].lower));
    row_upper.push_back(clp_bound(p.rows[r].upper));
  }
  std::vector<double> lo;
  std::vector<double> hi;
  for (std::size_t c = 0; c < p.columns(); ++c) {
    lo.push_back(clp_bound(p.lower[c]));
    hi.push_back(clp_bound(p.upper[c]));
  }
  CoinPackedMatrix matrix(true, rows.data(), cols.data(), values.data(),
                          static_cast<CoinBigIndex>(values.size()));
  // A column no row names is still a column: the matrix is as wide as the program.
  matrix.setDimensions(static_cast<int>(p.rows.size()), static_cast<int>(p.columns()));
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(matrix, lo.data(), hi.data(), p.objective.data(), row_lower.data(),
                    row_upper.data());
  model.setOptimizationDirection(p.maximise ? -1.0 : 1.0);
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
