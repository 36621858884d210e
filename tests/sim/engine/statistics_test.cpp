// The one quantile definition (R-7, linear interpolation between closest ranks) that the job
// metrics and the trace summary both use; every expected number is worked out beside it.
#include "tidesim/sim/engine/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace tidesim {
namespace {

TEST(Statistics, QuantileInterpolatesLinearly) {
  // Sorted 10, 20, 30, 40: h = 3 * 0.5 = 1.5 -> 20 + 0.5 * 10 = 25; h = 3 * 0.9 = 2.7 -> 37.
  EXPECT_DOUBLE_EQ(*quantile({40, 10, 30, 20}, 0.5), 25.0);
  EXPECT_DOUBLE_EQ(*quantile({40, 10, 30, 20}, 0.9), 37.0);
  EXPECT_DOUBLE_EQ(*quantile({7}, 0.99), 7.0);
  EXPECT_FALSE(quantile({}, 0.5).has_value());
}

TEST(Statistics, QuantileEndsAreMinAndMaxAndOutOfRangeClamps) {
  // q = 0 -> x_0, q = 1 -> x_{n-1}; q outside [0, 1] is clamped to the nearer end.
  const std::vector<double> sorted{1, 2, 4, 8, 16};
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, 1.0), 16.0);
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, -0.5), 1.0);
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, 1.5), 16.0);
  // h = 4 * 0.25 = 1 exactly: x_1 = 2, no interpolation.
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, 0.25), 2.0);
  // h = 4 * 0.99 = 3.96: 8 + 0.96 * (16 - 8) = 15.68 (numpy.percentile(..., 99) gives 15.68).
  EXPECT_DOUBLE_EQ(*quantile_of_sorted(sorted, 0.99), 15.68);
  EXPECT_FALSE(quantile_of_sorted(std::vector<double>{}, 0.5).has_value());
}

TEST(ExactSum, AddsAndRemovesWithoutDrift) {
  ExactSum s;
  EXPECT_TRUE(s.zero());
  EXPECT_EQ(s.value(), 0.0);
  // Ten times 0.1: the left-to-right double sum is 0.9999999999999999; the exact sum of the ten
  // doubles is 1.0000000000000000555, which rounds to 1.
  for (int i = 0; i < 10; ++i) {
    s.add(0.1);
  }
  EXPECT_EQ(s.value(), 1.0);
  for (int i = 0; i < 10; ++i) {
    s.remove(0.1);
  }
  EXPECT_TRUE(s.zero());
  // A sliding sum keeps a tiny value next to a large one that comes and goes.
  s.add(1e-300);
  s.add(1.0);
  EXPECT_EQ(s.value(), 1.0);
  s.remove(1.0);
  EXPECT_EQ(s.value(), 1e-300);
  s.remove(1e-300);
  s.add(5e-324);  // the least subnormal
  EXPECT_EQ(s.value(), 5e-324);
  s.add(0.25);
  s.add(0.5);
  s.remove(5e-324);
  EXPECT_EQ(s.value(), 0.75);
}

TEST(ExactSum, RefusesWhatItCannotHold) {
  ExactSum s;
  EXPECT_THROW(s.add(-1.0), std::invalid_argument);
  EXPECT_THROW(s.add(NAN), std::invalid_argument);
  EXPECT_THROW(s.add(0x1p63), std::invalid_argument);
  s.add(0.5);
  EXPECT_THROW(s.remove(1.0), std::logic_error);
}

}  // namespace
}  // namespace tidesim
