#pragma once
/// A linear program and its solution by CLP (COIN-OR's simplex solver, the Debian package
/// coinor-libclp-dev), for the allocation policies of Gavel (gavel_*.hpp, docs/gavel.md). CLP is
/// a private dependency of tidesim::admission: nothing outside this file's source names it.
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
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

  /// Adds a column with its objective coefficient and bounds; returns its index.
  int add_column(double cost, double lo = 0.0, double hi = kInfinity);
  std::size_t columns() const { return objective.size(); }
};

enum class Status { optimal, infeasible, unbounded, failed };

struct Solution {
  Status status = Status::failed;
  std::vector<double> x;
  double objective = 0.0;
};

/// Solves `p` with CLP's dual simplex (deterministic: one thread, no randomisation), messages
/// off. std::invalid_argument when a term names a column that does not exist or a coefficient
/// or bound is NaN.
Solution solve(const Program& p);

/// The words for a status ("optimal", "infeasible", ...).
const char* to_string(Status s);

}  // namespace tidesim::lp
