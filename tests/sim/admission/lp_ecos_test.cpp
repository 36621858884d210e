// ECOS's algorithm on linear programs (lp_ecos.hpp, lp::Method::ecos) against ECOS itself: the
// expected values are ECOS 2.0.7's answers (Debian's r-cran-ecosolver 0.5.4, ECOS_csolve with its
// default settings, each program in cvxpy's form: x >= 0 as -x <= 0, then the rows), printed to
// 10 digits. The answers follow ECOS's to 2% where an answer is a crumb of 1e-11 (ECOS's own
// rounding, its factorisation's dynamic regularisation and refinement, is of that size there) and
// to 1e-7 elsewhere.
#include "tidesim/sim/admission/lp_ecos.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tidesim/sim/admission/lp_solver.hpp"

namespace tidesim::lp {
namespace {

// Jobs in blocks, each x >= 0 and x <= 1 (its row), one capacity row of the scale factors.
Program knapsack(const std::vector<double>& tput, const std::vector<double>& gpus, double cap) {
  Program p;
  Row capacity{.terms = {}, .lower = -kInfinity, .upper = cap};
  for (std::size_t j = 0; j < tput.size(); ++j) {
    const int c = p.add_column(tput[j]);
    p.blocks[static_cast<std::size_t>(c)] = static_cast<int>(j);
    p.rows.push_back({.terms = {{c, 1.0}}, .lower = -kInfinity, .upper = 1.0});
    capacity.terms.emplace_back(c, gpus[j]);
  }
  p.rows.push_back(capacity);
  return p;
}

// Max-sum-throughput's knapsack: 3, 4 (2 GPUs), 1 and 0.5 steps/s on 2 GPUs. ECOS: (1 - 3e-10,
// 0.5 + 2e-10, 7.107e-11, -5.539e-11) in 6 iterations: the job nearer to a share (reduced cost 1)
// a crumb above 0, the farther (1.5) one below, which Gavel clips to 0.
TEST(LpEcos, KnapsackAsEcosAnswersIt) {
  const auto x = ecos_point(knapsack({3.0, 4.0, 1.0, 0.5}, {1.0, 2.0, 1.0, 1.0}, 2.0));
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 0.9999999997, 1e-9);
  EXPECT_NEAR((*x)[1], 0.5000000002, 1e-9);
  EXPECT_NEAR((*x)[2], 7.106928093e-11, 0.02 * 7.1e-11);
  EXPECT_NEAR((*x)[3], -5.538576523e-11, 0.02 * 5.5e-11);
}

// Min total duration's program has no objective: jobs of 1 and 2 steps/s with 300 and 400 steps
// left at T = 500 s on 2 GPUs (each at least 0.6 and 0.4). ECOS stops after 5 iterations at
// (0.75501954, 0.5874499029), not the feasible set's analytic centre.
TEST(LpEcos, NoObjectiveEndsWhereEcosStops) {
  Program p;
  const double tput[] = {1.0, 2.0};
  const double left[] = {300.0, 400.0};
  Row capacity{.terms = {}, .lower = -kInfinity, .upper = 2.0};
  for (int j = 0; j < 2; ++j) {
    const int c = p.add_column(0.0);
    p.blocks[static_cast<std::size_t>(c)] = j;
    p.rows.push_back({.terms = {{c, 1.0}}, .lower = -kInfinity, .upper = 1.0});
    capacity.terms.emplace_back(c, 1.0);
  }
  p.rows.push_back(capacity);
  for (int j = 0; j < 2; ++j) {
    p.rows.push_back({.terms = {{j, tput[j]}}, .lower = left[j] / 500.0, .upper = kInfinity});
  }
  const auto x = ecos_point(p);
  ASSERT_TRUE(x.has_value());
  EXPECT_NEAR((*x)[0], 0.75501954, 1e-7);
  EXPECT_NEAR((*x)[1], 0.5874499029, 1e-7);
}

// Seven jobs on 3.3 GPUs, five alike (2 steps/s): ECOS gives them 0.46 each and the faster job 1
// in 6 iterations, the alike ones differing in their last digits (0.4600000007 for the first,
// 0.4599999998 for the others); here they end alike bit for bit, and the slower job's crumb is
// ECOS's -1.830e-11.
TEST(LpEcos, JobsAlikeEndAlike) {
  const Solution s =
      solve(knapsack({2.0, 3.0, 2.0, 2.0, 1.0, 2.0, 2.0}, std::vector<double>(7, 1.0), 3.3),
            Method::ecos);
  ASSERT_EQ(s.status, Status::optimal);
  ASSERT_TRUE(s.interior);
  for (const int j : {2, 3, 5, 6}) {
    EXPECT_EQ(s.x[static_cast<std::size_t>(j)], s.x[0]) << j;
  }
  EXPECT_NEAR(s.x[0], 0.46, 1e-8);
  EXPECT_NEAR(s.x[1], 1.0000000000388312, 1e-9);
  EXPECT_NEAR(s.x[4], -1.8300136363655457e-11, 0.02 * 1.83e-11);
}

// An equality row is not ECOS's form here: no answer, and lp::solve falls back to the barrier;
// an infeasible program keeps the simplex's status.
TEST(LpEcos, WhatItDoesNotTake) {
  Program equal;
  const int a = equal.add_column(1.0, 0.0, 2.0);
  const int b = equal.add_column(0.0, 0.0, 2.0);
  equal.rows.push_back({.terms = {{a, 1.0}, {b, 1.0}}, .lower = 1.0, .upper = 1.0});
  EXPECT_FALSE(ecos_point(equal).has_value());
  const Solution e = solve(equal, Method::ecos);
  ASSERT_EQ(e.status, Status::optimal);
  EXPECT_NEAR(e.objective, 1.0, 1e-6);
  Program infeasible;
  const int c = infeasible.add_column(1.0);
  infeasible.rows.push_back({.terms = {{c, 1.0}}, .lower = 2.0, .upper = 1.0});
  EXPECT_EQ(solve(infeasible, Method::ecos).status, Status::infeasible);
}

}  // namespace
}  // namespace tidesim::lp
