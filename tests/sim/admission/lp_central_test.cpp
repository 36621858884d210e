// The central path's point of a linear program (lp_central.hpp, lp::Method::central): cases
// whose point is known in closed form, the crumbs an interior-point method leaves to columns
// that are 0 on the optimal face, and columns treated alike ending alike bit for bit.
#include "tidesim/sim/admission/lp_central.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tidesim/sim/admission/lp_solver.hpp"

namespace tidesim::lp {
namespace {

// Gavel's max-sum-throughput on one GPU type: each job a column in its own block, X >= 0 and
// X <= 1 (its row), one capacity row (a wide row) of `gpus` GPUs.
Program one_type(const std::vector<double>& tput, double gpus) {
  Program p;
  Row capacity{.terms = {}, .lower = -kInfinity, .upper = gpus};
  for (std::size_t j = 0; j < tput.size(); ++j) {
    const int c = p.add_column(tput[j]);
    p.blocks[static_cast<std::size_t>(c)] = static_cast<int>(j);
    p.rows.push_back({.terms = {{c, 1.0}}, .lower = -kInfinity, .upper = 1.0});
    capacity.terms.emplace_back(c, 1.0);
  }
  p.rows.push_back(capacity);
  return p;
}

// One column x in [0, 1], maximise x: the slacks x and 1 - x, duals y0 - y1 = -1 (minimising
// -x), s y = mu with mu = gap / 2, so mu / (1 - x) - mu / x = 1: x^2 + (2 mu - 1) x - mu = 0,
// x = ((1 - 2 mu) + sqrt(1 + 4 mu^2)) / 2 (1 - x = mu to first order).
TEST(LpCentral, OneColumnOnTheUnitInterval) {
  Program p;
  p.add_column(1.0, 0.0, 1.0);
  for (const double gap : {1e-2, 1e-4, 1e-7}) {
    const auto x = central_point(p, gap);
    ASSERT_TRUE(x.has_value());
    const double mu = gap / 2.0;
    const double want = ((1.0 - 2.0 * mu) + std::sqrt(1.0 + 4.0 * mu * mu)) / 2.0;
    EXPECT_NEAR((*x)[0], want, 1e-12 * std::max(1.0, 1.0 / gap)) << gap;
    EXPECT_NEAR(1.0 - (*x)[0], mu, mu * mu * 4.0) << gap;
  }
}

// With no objective the point is the feasible set's analytic centre: x, y >= 0, x + y <= 1 gives
// (1/3, 1/3) (the gradient 1/x - 1/(1 - x - y) = 0 in each).
TEST(LpCentral, AnalyticCentreOfATriangle) {
  Program p;
  const int x = p.add_column(0.0);
  const int y = p.add_column(0.0);
  p.rows.push_back({.terms = {{x, 1.0}, {y, 1.0}}, .lower = -kInfinity, .upper = 1.0});
  const auto c = central_point(p, 1e-8);
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR((*c)[0], 1.0 / 3.0, 1e-9);
  EXPECT_NEAR((*c)[1], 1.0 / 3.0, 1e-9);
}

// Gavel's max-sum-throughput on one GPU type: jobs of 3, 2, 1 and 0.5 steps/s, each X <= 1 (its
// row, local to its block), 1.5 GPUs (a wide row). The optimum is X = (1, 0.5, 0, 0) with the
// capacity's dual 2 (the second job's throughput), so the reduced costs of the last two are 1
// and 1.5. On the central path at mu a column 0 on the face is mu / (its reduced cost) to first
// order: mu and mu / 1.5, the nearer job to a share the larger.
TEST(LpCentral, CrumbsFollowTheReducedCosts) {
  const Program p = one_type({3.0, 2.0, 1.0, 0.5}, 1.5);
  const double gap = 1e-7;
  const auto x = central_point(p, gap);
  ASSERT_TRUE(x.has_value());
  const double mu = gap / 9.0;  // 4 bounds, 4 rows and the capacity
  EXPECT_NEAR((*x)[0], 1.0, 1e-6);
  EXPECT_NEAR((*x)[1], 0.5, 1e-6);
  EXPECT_NEAR((*x)[2] / mu, 1.0, 1e-3);
  EXPECT_NEAR((*x)[3] / (mu / 1.5), 1.0, 1e-3);
  // The same by lp::solve, whose objective is the simplex's to kInteriorTolerance.
  const Solution s = solve(p, Method::central);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_TRUE(s.interior);
  EXPECT_NEAR(s.objective, 4.0, 1e-6 * 4.0);
  EXPECT_GT(s.x[2], s.x[3]);
  EXPECT_GT(s.x[3], 0.0);
}

// Seven jobs on 3.3 GPUs, five of them alike (2 steps/s) in the first, middle and last
// positions, one faster (3) and one slower (1): the faster gets 1, the five share 2.3 and the
// slower a crumb. The five end with the same bits, wherever they stand.
TEST(LpCentral, ColumnsTreatedAlikeEndAlikeBitForBit) {
  const Program p = one_type({2.0, 3.0, 2.0, 2.0, 1.0, 2.0, 2.0}, 3.3);
  const Solution s = solve(p, Method::central);
  ASSERT_EQ(s.status, Status::optimal);
  ASSERT_TRUE(s.interior);
  for (const int j : {2, 3, 5, 6}) {
    EXPECT_EQ(s.x[static_cast<std::size_t>(j)], s.x[0]) << j;
  }
  EXPECT_NEAR(s.x[0], 2.3 / 5.0, 1e-5);
  EXPECT_NEAR(s.x[1], 1.0, 1e-5);
  EXPECT_GT(s.x[4], 0.0);
  EXPECT_LT(s.x[4], 1e-5);
}

// Max-min fairness's program with its level column global (-1) and the jobs in blocks, against
// the same program with every column in one block (Newton's system solved whole): one point.
TEST(LpCentral, BlocksAndOneBlockAgree) {
  const auto program = [](bool blocked) {
    Program p;
    const double scale[] = {1.0, 2.0, 0.5};
    std::vector<int> x;
    for (int j = 0; j < 3; ++j) {
      for (int t = 0; t < 2; ++t) {
        x.push_back(p.add_column(0.0));
        if (blocked) {
          p.blocks.back() = j;
        }
      }
    }
    const int level = p.add_column(1.0);
    for (int j = 0; j < 3; ++j) {
      const int a = x[static_cast<std::size_t>(2 * j)];
      const int b = x[static_cast<std::size_t>(2 * j + 1)];
      p.rows.push_back({.terms = {{a, 1.0}, {b, 1.0}}, .lower = -kInfinity, .upper = 1.0});
      p.rows.push_back({.terms = {{a, scale[j]}, {b, 2.0 * scale[j]}, {level, -1.0}},
                        .lower = 0.0,
                        .upper = kInfinity});
    }
    for (int t = 0; t < 2; ++t) {
      Row gpus{.terms = {}, .lower = -kInfinity, .upper = 1.0};
      for (int j = 0; j < 3; ++j) {
        gpus.terms.emplace_back(x[static_cast<std::size_t>(2 * j + t)], 1.0);
      }
      p.rows.push_back(gpus);
    }
    return p;
  };
  const auto blocked = central_point(program(true), 1e-7);
  const auto whole = central_point(program(false), 1e-7);
  ASSERT_TRUE(blocked.has_value());
  ASSERT_TRUE(whole.has_value());
  for (std::size_t c = 0; c < blocked->size(); ++c) {
    EXPECT_NEAR((*blocked)[c], (*whole)[c], 1e-9) << c;
  }
}

// No strictly feasible point (x >= 0 and a row x <= 0), or an equality row: no central point,
// and lp::solve keeps the simplex's status and an answer of Method::interior.
TEST(LpCentral, NoInteriorFallsBackToTheBarrier) {
  Program thin;
  const int x = thin.add_column(1.0);
  thin.rows.push_back({.terms = {{x, 1.0}}, .lower = -kInfinity, .upper = 0.0});
  EXPECT_FALSE(central_point(thin, 1e-7).has_value());
  const Solution s = solve(thin, Method::central);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.x[0], 0.0, kInteriorTolerance);

  Program equal;
  const int a = equal.add_column(1.0, 0.0, 2.0);
  const int b = equal.add_column(0.0, 0.0, 2.0);
  equal.rows.push_back({.terms = {{a, 1.0}, {b, 1.0}}, .lower = 1.0, .upper = 1.0});
  EXPECT_FALSE(central_point(equal, 1e-7).has_value());
  const Solution e = solve(equal, Method::central);
  ASSERT_EQ(e.status, Status::optimal);
  EXPECT_NEAR(e.objective, 1.0, 1e-6);

  Program infeasible;
  const int c = infeasible.add_column(1.0);
  infeasible.rows.push_back({.terms = {{c, 1.0}}, .lower = 2.0, .upper = 1.0});
  EXPECT_EQ(solve(infeasible, Method::central).status, Status::infeasible);
}

}  // namespace
}  // namespace tidesim::lp
