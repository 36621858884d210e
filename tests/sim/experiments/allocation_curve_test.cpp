// The allocation curve's arithmetic (merge_alloc_discrete.py of the FGD simulator), by hand.
#include "tidesim/sim/experiments/allocation_curve.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace tidesim {
namespace {

TEST(AllocationCurve, PairwiseSumMatchesNumpyBlocks) {
  // Fewer than 8 values: a plain left-to-right sum.
  const std::vector<double> small = {0.1, 0.2, 0.3};
  EXPECT_EQ(numpy_pairwise_sum(small), (0.1 + 0.2) + 0.3);
  // 9 values: eight accumulators r[j] = a[j], combined ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)),
  // then a[8] added.
  std::vector<double> nine = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9};
  const double expect = (((0.1 + 0.2) + (0.3 + 0.4)) + ((0.5 + 0.6) + (0.7 + 0.8))) + 0.9;
  EXPECT_EQ(numpy_pairwise_sum(nine), expect);
}

TEST(AllocationCurve, Rounding) {
  // Python's round is exact on the binary value: 2.675 is 2.67499999... -> 2.67; numpy's
  // rint(267.49999999999997) / 100 gives 2.67 too, but 0.125 (exact) ties to even: 0.12.
  EXPECT_EQ(python_round(2.675, 2), 2.67);
  EXPECT_EQ(python_round(0.125, 2), 0.12);
  EXPECT_EQ(python_round(0.375, 2), 0.38);
  EXPECT_EQ(numpy_round(0.125, 2), 0.12);
  EXPECT_EQ(python_float(12.0), "12.0");
  EXPECT_EQ(python_float(95.23), "95.23");
}

TEST(AllocationCurve, MeansPerPercentAndNeighbours) {
  // A 1-GPU cluster (1000 milli): a row's arrive is arrived / 10 rounded, its alloc used / 10.
  // Rows: (arrived 0, used 0) -> x 0, alloc 0; (5 -> 0.5 rounds to even 0, used 5 -> 0.5);
  // (15 -> 1.5 -> 2, used 15 -> 1.5); (30 -> 3, 20 -> 2.0).
  const std::vector<std::int64_t> arrived = {0, 5, 15, 30};
  const std::vector<std::int64_t> used = {0, 5, 15, 20};
  const AllocationCurve c = allocation_curve(arrived, used, 1);
  ASSERT_TRUE(c[0].has_value());
  EXPECT_EQ(*c[0], 0.25);  // mean(0, 0.5)
  // x = 1: no row; neighbours 0..2: mean(0, 0.5, 1.5) = 0.6666 -> 0.67.
  ASSERT_TRUE(c[1].has_value());
  EXPECT_EQ(*c[1], 0.67);
  EXPECT_EQ(*c[2], 1.5);
  EXPECT_EQ(*c[3], 2.0);
  EXPECT_EQ(*c[4], 2.0);  // x = 4: neighbour 3
  EXPECT_FALSE(c[5].has_value());
}

}  // namespace
}  // namespace tidesim
