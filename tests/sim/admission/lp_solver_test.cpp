// The wrapper over CLP and CBC (sim/admission/lp_solver): small programs solved by hand.
#include "tidesim/sim/admission/lp_solver.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace tidesim::lp {
namespace {

// maximise x + y, x + 2y <= 4, 3x + y <= 6: the vertex where both rows meet, x = 8/5, y = 6/5.
TEST(LpSolver, SolvesASmallProgram) {
  Program p;
  const int x = p.add_column(1.0);
  const int y = p.add_column(1.0);
  p.rows.push_back({.terms = {{x, 1.0}, {y, 2.0}}, .lower = -kInfinity, .upper = 4.0});
  p.rows.push_back({.terms = {{x, 3.0}, {y, 1.0}}, .lower = -kInfinity, .upper = 6.0});
  const Solution s = solve(p);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.x[0], 1.6, 1e-9);
  EXPECT_NEAR(s.x[1], 1.2, 1e-9);
  EXPECT_NEAR(s.objective, 2.8, 1e-9);
  p.maximise = false;  // the least of x + y over the same set: the origin
  EXPECT_NEAR(solve(p).objective, 0.0, 1e-12);
}

TEST(LpSolver, ReportsInfeasibleAndUnbounded) {
  Program p;
  const int x = p.add_column(1.0);
  p.rows.push_back({.terms = {{x, 1.0}}, .lower = 2.0, .upper = kInfinity});
  p.rows.push_back({.terms = {{x, 1.0}}, .lower = -kInfinity, .upper = 1.0});
  EXPECT_EQ(solve(p).status, Status::infeasible);
  Program q;
  q.add_column(1.0);
  EXPECT_EQ(solve(q).status, Status::unbounded);
  EXPECT_STREQ(to_string(Status::unbounded), "unbounded");
}

TEST(LpSolver, RefusesBadPrograms) {
  Program p;
  p.add_column(1.0, 0.0, 1.0);
  p.rows.push_back({.terms = {{3, 1.0}}, .lower = 0.0, .upper = 1.0});
  EXPECT_THROW((void)solve(p), std::invalid_argument);
  Program q;
  q.add_column(std::nan(""));
  EXPECT_THROW((void)solve(q), std::invalid_argument);
}

TEST(LpSolver, AColumnNoRowNamesIsStillSolved) {
  Program p;
  p.add_column(1.0, 0.0, 2.0);
  const int y = p.add_column(1.0, 0.0, 5.0);
  p.rows.push_back({.terms = {{y, 1.0}}, .lower = -kInfinity, .upper = 3.0});
  const Solution s = solve(p);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.x[0], 2.0, 1e-12);
  EXPECT_NEAR(s.x[1], 3.0, 1e-12);
}

// A knapsack: maximise 5x + 4y + 3z, 2x + 3y + z <= 5, x, y, z in {0, 1}. The relaxation takes
// z and x (best value per weight: 3, 2.5) and 2/3 of y (10.67); in whole values x + y (weight 5,
// value 9) beats x + z (8) and y + z (7), and all three weigh 6.
TEST(LpSolver, SolvesAMixedIntegerProgram) {
  Program p;
  const int x = p.add_integer_column(5.0, 0.0, 1.0);
  const int y = p.add_integer_column(4.0, 0.0, 1.0);
  const int z = p.add_integer_column(3.0, 0.0, 1.0);
  p.rows.push_back({.terms = {{x, 2.0}, {y, 3.0}, {z, 1.0}}, .lower = -kInfinity, .upper = 5.0});
  EXPECT_NEAR(solve(p).objective, 5.0 + 3.0 + 4.0 * 2.0 / 3.0, 1e-9);
  const MipLimits gap0{.rel_gap = 0.0, .max_nodes = 1000};
  const Solution s = solve_mip(p, gap0);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_EQ(s.x, (std::vector<double>{1.0, 1.0, 0.0}));
  EXPECT_NEAR(s.objective, 9.0, 1e-9);
  // From a feasible start (x + z) it still finds x + y; an infeasible start is ignored.
  EXPECT_EQ(solve_mip(p, gap0, {1.0, 0.0, 1.0}).x, (std::vector<double>{1.0, 1.0, 0.0}));
  EXPECT_EQ(solve_mip(p, gap0, {1.0, 1.0, 1.0}).x, (std::vector<double>{1.0, 1.0, 0.0}));
  // x + y = 1.5 has no solution in whole values, though the relaxation has.
  p.rows.push_back({.terms = {{x, 1.0}, {y, 1.0}}, .lower = 1.5, .upper = 1.5});
  EXPECT_EQ(solve(p).status, Status::optimal);
  EXPECT_EQ(solve_mip(p, gap0).status, Status::infeasible);
  p.integers.push_back(7);
  EXPECT_THROW(solve_mip(p, gap0), std::invalid_argument);
}

// Method::interior: CLP's barrier without crossover, the point inside the optimal face.

// x, y in [0, 1] with x + y <= 1, maximising `objective` x (x + y).
Program unit_square_under_diagonal(double objective) {
  Program p;
  const int x = p.add_column(objective, 0.0, 1.0);
  const int y = p.add_column(objective, 0.0, 1.0);
  p.rows.push_back({.terms = {{x, 1.0}, {y, 1.0}}, .lower = -kInfinity, .upper = 1.0});
  return p;
}

// maximise x on the unit square (x <= 1 a row, y only bounded): the optimal face is the edge
// x = 1, 0 <= y <= 1. The simplex returns one of its ends; the barrier's point is the edge's
// analytic centre, which maximises log y + log(1 - y): its midpoint y = 1/2.
TEST(LpSolverInterior, TheMidpointOfTheSquaresEdge) {
  Program p;
  const int x = p.add_column(1.0);
  p.add_column(0.0, 0.0, 1.0);
  p.rows.push_back({.terms = {{x, 1.0}}, .lower = -kInfinity, .upper = 1.0});
  const Solution vertex = solve(p);
  ASSERT_EQ(vertex.status, Status::optimal);
  EXPECT_FALSE(vertex.interior);
  EXPECT_TRUE(vertex.x[1] == 0.0 || vertex.x[1] == 1.0);
  const Solution s = solve(p, Method::interior);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_TRUE(s.interior);
  EXPECT_NEAR(s.x[0], 1.0, 1e-6);
  EXPECT_NEAR(s.x[1], 0.5, 1e-6);
  EXPECT_NEAR(s.objective, 1.0, 1e-6);
}

// maximise x + y with x + y <= 1 on the unit square: the face is the diagonal from (1, 0) to
// (0, 1), symmetric in x and y, so its centre is (1/2, 1/2). Columns stay within their bounds
// (clamped) and the same program gives the same point bit for bit.
TEST(LpSolverInterior, TheCentreOfASymmetricFace) {
  Program p = unit_square_under_diagonal(1.0);
  const Solution s = solve(p, Method::interior);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_NEAR(s.x[0], 0.5, 1e-6);
  EXPECT_NEAR(s.x[1], 0.5, 1e-6);
  EXPECT_NEAR(s.objective, 1.0, 1e-6);
  EXPECT_EQ(solve(p, Method::interior).x, s.x);
  // A unique optimum, (1, 1) when the row allows 2: the barrier's point is the vertex, within
  // the bounds.
  p.rows[0].upper = 2.0;
  const Solution corner = solve(p, Method::interior);
  EXPECT_NEAR(corner.x[0], 1.0, 1e-6);
  EXPECT_NEAR(corner.x[1], 1.0, 1e-6);
  EXPECT_LE(corner.x[0], 1.0);
  EXPECT_LE(corner.x[1], 1.0);
}

// No objective (Gavel's Maximize(1) feasibility programs): every feasible point is optimal, and
// the barrier's is inside the set, away from every bound. On x + y <= 1 over the unit square,
// symmetric in x and y, the analytic centre maximises log x + log y + log(1 - x) + log(1 - y) +
// log(1 - x - y); at x = y the derivative 2/x - 2/(1 - x) - 2/(1 - 2x) vanishes where 5x^2 - 5x +
// 1 = 0: x = (5 - sqrt(5)) / 10 = 0.2764 (the barrier stops near it: within 1e-3).
TEST(LpSolverInterior, AFeasibilityProgramGetsAPointInside) {
  const Program p = unit_square_under_diagonal(0.0);
  const Solution s = solve(p, Method::interior);
  ASSERT_EQ(s.status, Status::optimal);
  EXPECT_TRUE(s.interior);
  EXPECT_NEAR(s.x[0], s.x[1], 1e-9);
  EXPECT_NEAR(s.x[0], (5.0 - std::sqrt(5.0)) / 10.0, 1e-3);
}

// CLP's barrier calls an infeasible or unbounded program optimal; the simplex's status is
// what solve returns.
TEST(LpSolverInterior, InfeasibleAndUnboundedAsTheSimplexSays) {
  Program p;
  const int x = p.add_column(1.0);
  p.rows.push_back({.terms = {{x, 1.0}}, .lower = 2.0, .upper = kInfinity});
  p.rows.push_back({.terms = {{x, 1.0}}, .lower = -kInfinity, .upper = 1.0});
  EXPECT_EQ(solve(p, Method::interior).status, Status::infeasible);
  Program q;
  q.add_column(1.0);
  EXPECT_EQ(solve(q, Method::interior).status, Status::unbounded);
  EXPECT_STREQ(to_string(Method::interior), "interior");
  EXPECT_STREQ(to_string(Method::simplex), "simplex");
}

}  // namespace
}  // namespace tidesim::lp
