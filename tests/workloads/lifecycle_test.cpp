#include "tidesim/workloads/lifecycle.hpp"

#include <gtest/gtest.h>

namespace tidesim::workloads {
namespace {

using namespace std::chrono_literals;

TEST(Lifecycle, BackoffDoublesFromTenSecondsAndCapsAtSixMinutes) {
  EXPECT_EQ(backoff_delay(0), 0s);
  EXPECT_EQ(backoff_delay(1), 10s);
  EXPECT_EQ(backoff_delay(2), 20s);
  EXPECT_EQ(backoff_delay(3), 40s);
  EXPECT_EQ(backoff_delay(6), 320s);  // 10 x 2^5
  EXPECT_EQ(backoff_delay(7), 360s);  // 640 s capped at 6 min
  EXPECT_EQ(backoff_delay(1000), 360s);
}

TEST(Lifecycle, BackoffLimitCountsFailuresBeyondTheLimit) {
  EXPECT_FALSE(backoff_exhausted(6, 6));
  EXPECT_TRUE(backoff_exhausted(7, 6));
  EXPECT_TRUE(backoff_exhausted(1, 0));
}

TEST(Lifecycle, CrashLoopBackOffDoublesFromTenSecondsAndCapsAtFiveMinutes) {
  EXPECT_EQ(crash_loop_delay(0), 0s);
  EXPECT_EQ(crash_loop_delay(1), 10s);
  EXPECT_EQ(crash_loop_delay(2), 20s);
  EXPECT_EQ(crash_loop_delay(5), 160s);  // 10 x 2^4
  EXPECT_EQ(crash_loop_delay(6), 300s);  // 320 s capped at 5 min
  EXPECT_EQ(crash_loop_delay(1000), 300s);
  EXPECT_EQ(kCrashLoopResetAfter, 10min);
}

}  // namespace
}  // namespace tidesim::workloads
