#include "workloads/lifecycle.hpp"

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

TEST(Lifecycle, ResumeFromTheLastCheckpoint) {
  EXPECT_EQ(last_checkpoint(95min, 30min), 90min);
  EXPECT_EQ(last_checkpoint(29min, 30min), 0min);
  EXPECT_EQ(last_checkpoint(95min, 0min), 0min);
  // 1000 steps saved before the attempt; it ran 95 min at 0.5 s/step; its last checkpoint, at
  // 90 min = 5400 s, holds 5400 / 0.5 = 10,800 more steps: resume at 11,800.
  EXPECT_EQ(resume_step(1000, 12'400, 95min, 30min, 0.5), 11'800);
  // Died before its first checkpoint: back to what was saved before the attempt.
  EXPECT_EQ(resume_step(1000, 1500, 10min, 30min, 0.5), 1000);
  // No checkpoints at all: from scratch.
  EXPECT_EQ(resume_step(1000, 1500, 10min, 0min, 0.5), 0);
}

TEST(Lifecycle, StateNames) {
  EXPECT_STREQ(to_string(JobState::kOomKilled), "oom-killed");
  EXPECT_STREQ(to_string(JobState::kSucceeded), "succeeded");
}

}  // namespace
}  // namespace tidesim::workloads
