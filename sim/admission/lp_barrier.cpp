// The program as slacks, and Newton's system by blocks (lp_barrier.hpp).
#include "tidesim/sim/admission/lp_barrier.hpp"

#include <algorithm>
#include <cstddef>
#include <map>

namespace tidesim::lp::detail {

double slack(const Term& term, const Eigen::VectorXd& z) {
  double s = term.offset;
  for (const auto& [u, coef] : term.a) {
    s += coef * z[u];
  }
  return s;
}

double step_slack(const Term& term, const Eigen::VectorXd& d) {
  double s = 0.0;
  for (const auto& [u, coef] : term.a) {
    s += coef * d[u];
  }
  return s;
}

NewtonSystem::NewtonSystem(const Barrier& b, const std::vector<double>& w, double shift)
    : b_(b),
      hgg_(shift * Eigen::MatrixXd::Identity(b.globals, b.globals)),
      c_(Eigen::MatrixXd::Zero(b.locals, b.globals)) {
  std::vector<Eigen::MatrixXd> blocks;
  for (const auto& [begin, end] : b.blocks) {
    blocks.push_back(shift * Eigen::MatrixXd::Identity(end - begin, end - begin));
  }
  std::vector<std::size_t> wide;
  for (std::size_t k = 0; k < b.terms.size(); ++k) {
    const Term& term = b.terms[k];
    if (term.kind == -2) {
      wide.push_back(k);
      continue;
    }
    for (const auto& [u, cu] : term.a) {
      for (const auto& [v, cv] : term.a) {
        add(blocks, term.kind, u, v, w[k] * cu * cv);
      }
    }
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    factors_.emplace_back(blocks[i]);
  }
  u_ = Eigen::MatrixXd::Zero(b.locals, static_cast<Eigen::Index>(wide.size()));
  Eigen::MatrixXd ug = Eigen::MatrixXd::Zero(b.globals, static_cast<Eigen::Index>(wide.size()));
  Eigen::VectorXd weight(static_cast<Eigen::Index>(wide.size()));
  for (std::size_t i = 0; i < wide.size(); ++i) {
    const auto col = static_cast<Eigen::Index>(i);
    weight[col] = w[wide[i]];
    for (const auto& [u, coef] : b.terms[wide[i]].a) {
      if (u < b.locals) {
        u_(u, col) += coef;
      } else {
        ug(u - b.locals, col) += coef;
      }
    }
  }
  const Eigen::MatrixXd bu = solve_blocks(u_);
  Eigen::MatrixXd k = u_.transpose() * bu;
  for (Eigen::Index i = 0; i < k.rows(); ++i) {
    k(i, i) += 1.0 / weight[i];
  }
  capacitance_.compute(k);
  c_ += u_ * weight.asDiagonal() * ug.transpose();
  hgg_ += ug * weight.asDiagonal() * ug.transpose();
  if (b.globals > 0) {
    schur_.compute(hgg_ - c_.transpose() * solve_locals(c_));
  }
}

Eigen::VectorXd NewtonSystem::solve(const Eigen::VectorXd& r) const {
  const Eigen::VectorXd rl = r.head(b_.locals);
  const Eigen::VectorXd rg = r.tail(b_.globals);
  Eigen::VectorXd d(b_.unknowns());
  Eigen::VectorXd dg = Eigen::VectorXd::Zero(b_.globals);
  if (b_.globals > 0) {
    dg = schur_.solve(rg - c_.transpose() * solve_locals(rl));
    d.tail(b_.globals) = dg;
  }
  d.head(b_.locals) = solve_locals(rl - c_ * dg);
  return d;
}

void NewtonSystem::add(std::vector<Eigen::MatrixXd>& blocks, int kind, int u, int v, double h) {
  const bool lu = u < b_.locals;
  const bool lv = v < b_.locals;
  if (lu && lv) {
    const int begin = b_.blocks[static_cast<std::size_t>(kind)].first;
    blocks[static_cast<std::size_t>(kind)](u - begin, v - begin) += h;
  } else if (lu) {
    c_(u, v - b_.locals) += h;
  } else if (!lv) {
    hgg_(u - b_.locals, v - b_.locals) += h;
  }
}

// B^-1 x, block by block.
Eigen::MatrixXd NewtonSystem::solve_blocks(const Eigen::MatrixXd& x) const {
  Eigen::MatrixXd out(x.rows(), x.cols());
  for (std::size_t i = 0; i < factors_.size(); ++i) {
    const auto [begin, end] = b_.blocks[i];
    out.middleRows(begin, end - begin) = factors_[i].solve(x.middleRows(begin, end - begin));
  }
  return out;
}

// (B + U W U^T)^-1 x by the Woodbury identity.
Eigen::MatrixXd NewtonSystem::solve_locals(const Eigen::MatrixXd& x) const {
  Eigen::MatrixXd bx = solve_blocks(x);
  if (u_.cols() == 0) {
    return bx;
  }
  const Eigen::MatrixXd inner = capacitance_.solve(u_.transpose() * bx);
  return bx - solve_blocks(u_ * inner);
}

Columns columns_of(const Program& p) {
  const std::size_t n = p.columns();
  const bool blocked = p.blocks.size() == n &&
                       std::any_of(p.blocks.begin(), p.blocks.end(), [](int x) { return x >= 0; });
  std::map<int, std::vector<std::size_t>> by_block;
  std::vector<std::size_t> global;
  for (std::size_t c = 0; c < n; ++c) {
    if (p.lower[c] == p.upper[c]) {
      continue;
    }
    const int block = blocked ? p.blocks[c] : 0;
    if (block >= 0) {
      by_block[block].push_back(c);
    } else {
      global.push_back(c);
    }
  }
  Columns out{.unknown = std::vector<int>(n, -1), .barrier = {}};
  Barrier& b = out.barrier;
  for (const auto& [block, cols] : by_block) {
    const int begin = b.locals;
    for (const std::size_t c : cols) {
      out.unknown[c] = b.locals++;
      b.block_of.push_back(static_cast<int>(b.blocks.size()));
    }
    b.blocks.emplace_back(begin, b.locals);
  }
  for (const std::size_t c : global) {
    out.unknown[c] = b.locals + b.globals++;
  }
  b.cost = Eigen::VectorXd::Zero(b.unknowns());
  for (std::size_t c = 0; c < n; ++c) {
    if (out.unknown[c] >= 0) {
      b.cost[out.unknown[c]] = p.maximise ? -p.objective[c] : p.objective[c];
    }
  }
  return out;
}

std::vector<double> columns_from(const Program& p, const Columns& cols, const Eigen::VectorXd& z) {
  std::vector<double> x(p.columns());
  for (std::size_t c = 0; c < p.columns(); ++c) {
    const int u = cols.unknown[c];
    x[c] = u < 0 ? p.lower[c] : z[u];
  }
  return x;
}

bool add_terms(const Program& p, Columns& cols) {
  Barrier& b = cols.barrier;
  const auto add = [&](std::vector<std::pair<int, double>> a, double offset) {
    b.terms.push_back({.a = std::move(a), .offset = offset, .kind = -1});
    b.classify(b.terms.back());
  };
  for (std::size_t c = 0; c < p.columns(); ++c) {
    const int u = cols.unknown[c];
    if (u >= 0 && p.lower[c] != -kInfinity) {
      add({{u, 1.0}}, -p.lower[c]);
    }
    if (u >= 0 && p.upper[c] != kInfinity) {
      add({{u, -1.0}}, p.upper[c]);
    }
  }
  for (const Row& row : p.rows) {
    double fixed = 0.0;
    std::vector<std::pair<int, double>> a;
    for (const auto& [col, coef] : row.terms) {
      const int u = cols.unknown[static_cast<std::size_t>(col)];
      if (u < 0) {
        fixed += coef * p.lower[static_cast<std::size_t>(col)];
      } else {
        a.emplace_back(u, coef);
      }
    }
    if (row.lower == row.upper || (a.empty() && !(fixed > row.lower && fixed < row.upper))) {
      return false;
    }
    if (a.empty()) {
      continue;
    }
    if (row.lower != -kInfinity) {
      add(a, fixed - row.lower);
    }
    if (row.upper != kInfinity) {
      for (auto& [u, coef] : a) {
        coef = -coef;
      }
      add(std::move(a), row.upper - fixed);
    }
  }
  return true;
}

}  // namespace tidesim::lp::detail
