// Statistics against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "tidesim/tools/lib/stats.hpp"

namespace tidesim::app {
namespace {

TEST(Stats, StudentTQuantilesMatchTables) {
  // Exact table values (NIST/SEMATECH 1.3.6.7.2) and, beyond 30 df, published values
  // t(60) = 2.000297822, t(120) = 1.979930405, and the normal limit 1.959963985.
  EXPECT_NEAR(t_quantile_975(1), 12.706204736, 1e-9);
  EXPECT_NEAR(t_quantile_975(9), 2.262157163, 1e-9);
  EXPECT_NEAR(t_quantile_975(30), 2.042272456, 1e-9);
  EXPECT_NEAR(t_quantile_975(60), 2.000297822, 1e-6);
  EXPECT_NEAR(t_quantile_975(120), 1.979930405, 1e-6);
  EXPECT_NEAR(t_quantile_975(1e9), 1.959963985, 1e-6);
  // Fractional df: between its neighbours.
  // Closed forms: df 1 is Cauchy, tan(0.475 pi); df 2 is (2p - 1) / sqrt(2p(1 - p)) at p = 0.975.
  EXPECT_NEAR(t_quantile_975(1), std::tan(0.475 * std::numbers::pi), 1e-9);
  EXPECT_NEAR(t_quantile_975(2), 0.95 / std::sqrt(2 * 0.975 * 0.025), 1e-12);
  // Fractional df (Welch's): the tail of the t density integrated numerically (Simpson's rule
  // over x = t/s, then bisection on t), to about 1e-4. Linear interpolation of the table in 1/df
  // gave 7.10 at df 1.5.
  EXPECT_NEAR(t_quantile_975(1.5), 6.01666, 1e-3);
  EXPECT_NEAR(t_quantile_975(4.5), 2.65891, 1e-4);
  EXPECT_GT(t_quantile_975(9.5), t_quantile_975(10));
  EXPECT_LT(t_quantile_975(9.5), t_quantile_975(9));
  EXPECT_THROW(t_quantile_975(0), std::invalid_argument);
}

TEST(Stats, SummaryOfOneToFive) {
  const std::vector<double> v{1, 2, 3, 4, 5};
  const auto s = summarize(v);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->n, 5u);
  EXPECT_DOUBLE_EQ(s->mean, 3.0);
  // Sample variance: (4 + 1 + 0 + 1 + 4) / 4 = 2.5.
  EXPECT_NEAR(*s->sd, std::sqrt(2.5), 1e-12);
  // 2.776445105 * sqrt(2.5) / sqrt(5) = 2.776445105 * sqrt(0.5) = 1.963243...
  EXPECT_NEAR(*s->ci95_half, 2.776445105 * std::sqrt(0.5), 1e-9);
}

TEST(Stats, SingleValueHasNoInterval) {
  const std::vector<double> v{7};
  const auto s = summarize(v);
  EXPECT_DOUBLE_EQ(s->mean, 7.0);
  EXPECT_FALSE(s->sd);
  EXPECT_FALSE(s->ci95_half);
  EXPECT_FALSE(summarize(std::vector<double>{}));
}

TEST(Stats, PairedDifference) {
  // d = b - a = {-2, -1, -3}: mean -2, sd 1, half-width t(2) / sqrt(3) = 4.302652730 / 1.7320508.
  const std::vector<double> a{10, 12, 14};
  const std::vector<double> b{8, 11, 11};
  const auto d = paired_difference(a, b);
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->mean, -2.0);
  EXPECT_NEAR(*d->ci95_half, 4.302652730 / std::sqrt(3.0), 1e-9);
  // Relative change of the means: (10 - 12) / 12.
  EXPECT_NEAR(*d->relative, -1.0 / 6.0, 1e-12);
  EXPECT_FALSE(paired_difference(a, std::vector<double>{1, 2}));
}

TEST(Stats, WelchDifference) {
  // a = {1, 2, 3}, b = {4, 5, 6}: difference 3; each variance of the mean 1/3; Welch df =
  // (2/3)^2 / (2 * (1/9) / 2) = 4 -> t = 2.776445105; half-width 2.776445105 * sqrt(2/3).
  const auto d = welch_difference(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  ASSERT_TRUE(d);
  EXPECT_DOUBLE_EQ(d->mean, 3.0);
  EXPECT_NEAR(*d->ci95_half, 2.776445105 * std::sqrt(2.0 / 3.0), 1e-9);
  // Zero relative base: no relative change.
  const auto z = welch_difference(std::vector<double>{0, 0}, std::vector<double>{1, 1});
  EXPECT_FALSE(z->relative);
  EXPECT_FALSE(z->ci95_half);  // both variances zero: the difference is exact
}

}  // namespace
}  // namespace tidesim::app
