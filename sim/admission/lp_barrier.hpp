#pragma once
/// What lp_central.hpp and lp_ecos.hpp share (internal to tidesim::admission): a linear program
/// as its slacks over the unknowns that its bounds leave free, and Newton's system
/// sum_k w_k a_k a_k^T d = r over them, solved by blocks (Woodbury for the wide rows, Schur for
/// the global columns) so that columns the program treats alike get the same values bit for bit.
#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "tidesim/sim/admission/lp_program.hpp"

namespace tidesim::lp::detail {

// One slack of the barrier: a . z + offset > 0, over the unknowns z.
struct Term {
  std::vector<std::pair<int, double>> a;
  double offset = 0.0;
  int kind = -1;  // the block of its local unknowns, -1 when it has none, -2 when several (wide)
};

// The program as the path sees it: minimise cost . z with every term's slack positive, over the
// unknowns: locals [0, locals) grouped in blocks (contiguous ranges), then the global ones.
struct Barrier {
  int locals = 0;
  int globals = 0;
  std::vector<std::pair<int, int>> blocks;  // [begin, end) of each block's locals
  std::vector<int> block_of;                // per local unknown
  std::vector<Term> terms;
  Eigen::VectorXd cost;

  int unknowns() const { return locals + globals; }
  void classify(Term& term) const {
    term.kind = -1;
    for (const auto& [u, coef] : term.a) {
      if (u >= locals || coef == 0.0) {
        continue;
      }
      const int b = block_of[static_cast<std::size_t>(u)];
      term.kind = term.kind == -1 || term.kind == b ? b : -2;
      if (term.kind == -2) {
        return;
      }
    }
  }
};

/// a . z + offset.
double slack(const Term& term, const Eigen::VectorXd& z);
/// a . d.
double step_slack(const Term& term, const Eigen::VectorXd& d);

// Newton's system H d = r, H = shift I + sum_k w_k a_k a_k^T: blocks + wide rows (Woodbury) +
// global columns (Schur).
class NewtonSystem {
 public:
  NewtonSystem(const Barrier& b, const std::vector<double>& w, double shift = 0.0);
  Eigen::VectorXd solve(const Eigen::VectorXd& r) const;

 private:
  void add(std::vector<Eigen::MatrixXd>& blocks, int kind, int u, int v, double h);
  Eigen::MatrixXd solve_blocks(const Eigen::MatrixXd& x) const;
  Eigen::MatrixXd solve_locals(const Eigen::MatrixXd& x) const;

  const Barrier& b_;
  Eigen::MatrixXd hgg_;
  Eigen::MatrixXd c_;
  Eigen::MatrixXd u_;
  std::vector<Eigen::LDLT<Eigen::MatrixXd>> factors_;
  Eigen::LDLT<Eigen::MatrixXd> capacitance_;
  Eigen::LDLT<Eigen::MatrixXd> schur_;
};

// Where each column goes among the unknowns (-1 when its bounds fix it), and the program as
// slacks over them.
struct Columns {
  std::vector<int> unknown;
  Barrier barrier;
};

/// The unknowns of `p` (its columns that bounds do not fix) in blocks (Program::blocks), cost
/// c (maximised: -objective).
Columns columns_of(const Program& p);
/// Each column of `p` from the unknowns `z` (a column its bounds fix at its bound).
std::vector<double> columns_from(const Program& p, const Columns& cols, const Eigen::VectorXd& z);
/// The slacks of every finite bound and row side; false for an equality row, or a row with no
/// unknown that is not strictly met.
bool add_terms(const Program& p, Columns& cols);

}  // namespace tidesim::lp::detail
