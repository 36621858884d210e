#pragma once
/// A linear (or mixed-integer) program as the solvers take it: columns with bounds and an
/// objective, rows with bounds (lp_solver.hpp solves it by CLP and CBC, lp_central.hpp finds its
/// central path).
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

namespace tidesim::lp {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// One row: lower <= sum of coefficient x column <= upper (either bound may be infinite).
struct Row {
  std::vector<std::pair<int, double>> terms;
  double lower = -kInfinity;
  double upper = kInfinity;
};

/// maximise (or minimise) objective . x over lower <= x <= upper and the rows.
struct Program {
  std::vector<double> objective;
  std::vector<double> lower;
  std::vector<double> upper;
  std::vector<Row> rows;
  bool maximise = true;
  /// The columns that must take whole values (solve_mip; solve ignores it).
  std::vector<int> integers;
  /// Method::central: each column's block (>= 0), or -1 for a global column (lp_central.hpp);
  /// empty, or no column in a block: every column in one block. Other methods ignore it.
  std::vector<int> blocks;

  /// Adds a column with its objective coefficient and bounds; returns its index.
  int add_column(double cost, double lo = 0.0, double hi = kInfinity);
  /// Adds a column that must take whole values.
  int add_integer_column(double cost, double lo, double hi);
  std::size_t columns() const { return objective.size(); }
};

}  // namespace tidesim::lp
