// The linear-program wrapper over CLP (sim/admission/lp_solver): small programs solved by hand.
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

}  // namespace
}  // namespace tidesim::lp
