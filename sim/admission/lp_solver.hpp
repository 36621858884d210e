#pragma once
/// A linear program and its solution by CLP (COIN-OR's simplex solver, the Debian package
/// coinor-libclp-dev), for the allocation policies of Gavel (gavel_*.hpp, docs/gavel.md), and a
/// mixed integer one by CBC (COIN-OR's branch and cut over CLP, coinor-libcbc-dev), for
/// Shockwave's plan (shockwave_plan.hpp). CLP and CBC are private dependencies of
/// tidesim::admission: nothing outside this file's source names them.
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
  /// The columns that must take whole values (solve_mip; solve ignores it).
  std::vector<int> integers;

  /// Adds a column with its objective coefficient and bounds; returns its index.
  int add_column(double cost, double lo = 0.0, double hi = kInfinity);
  /// Adds a column that must take whole values.
  int add_integer_column(double cost, double lo, double hi);
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

/// When branch and bound stops: a relative gap between the best solution and the bound (CBC's
/// allowable fraction gap, as Gurobi's MIPGap) and a number of nodes (a limit that, unlike a
/// time limit, gives the same answer on every machine).
struct MipLimits {
  double rel_gap = 1e-3;
  int max_nodes = 1000;
};

/// Solves `p` with its integer columns by CBC: one thread, its fixed seed, messages off, from
/// `start` when it is a feasible solution with whole values (empty: none).
/// `optimal` when a solution with whole values was found (proven within the gap or the best at
/// the node limit), `infeasible` when none exists, `failed` when the limits stopped it before
/// one was found. The same checks as solve.
Solution solve_mip(const Program& p, const MipLimits& limits,
                   const std::vector<double>& start = {});

/// The words for a status ("optimal", "infeasible", ...).
const char* to_string(Status s);

}  // namespace tidesim::lp
