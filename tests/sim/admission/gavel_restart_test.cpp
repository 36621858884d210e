// The restart overhead of Shockwave's simulator (sim/admission/gavel_restart.hpp; scheduler.py
// `simulate`, the "preemption_overhead = 20" block), worked by hand on rounds of 120 s.
#include "tidesim/sim/admission/gavel_restart.hpp"

#include <gtest/gtest.h>

namespace tidesim::gavel {
namespace {

RestartCase resumed(double steps_left, double throughput) {
  return {.ran_last_round = false,
          .first_round = false,
          .steps_left = steps_left,
          .throughput = throughput};
}

// A job back after a round away (or new) loses 20 s; one that ran in the last round, or any job
// of the run's first round, loses none; no overhead configured, none.
TEST(GavelRestart, ChargedOnlyToAJobThatWasAway) {
  EXPECT_EQ(restart_delay(resumed(1e6, 4.0), 120.0, 20.0), 20.0);
  RestartCase kept = resumed(1e6, 4.0);
  kept.ran_last_round = true;
  EXPECT_EQ(restart_delay(kept, 120.0, 20.0), 0.0);
  RestartCase first = resumed(1e6, 4.0);
  first.first_round = true;
  EXPECT_EQ(restart_delay(first, 120.0, 20.0), 0.0);
  EXPECT_EQ(restart_delay(resumed(1e6, 4.0), 120.0, 0.0), 0.0);
}

// Its last round: at 2 steps/s a round holds floor(2 x 120) = 240 steps; 230 steps left run
// 115 s, not more than 120 - 5 = 115 s, so no overhead; 231 steps run 115.5 s, so 20 s.
TEST(GavelRestart, ALastRoundOfAtMostRoundLessFiveSecondsIsExempt) {
  EXPECT_EQ(restart_delay(resumed(230.0, 2.0), 120.0, 20.0), 0.0);
  EXPECT_EQ(restart_delay(resumed(231.0, 2.0), 120.0, 20.0), 20.0);
}

// Whole steps: at 0.99 steps/s a round holds floor(118.8) = 118 steps, 119.19 s (> 115): charged;
// at 0.5 steps/s with 57 steps left, 114 s: exempt.
TEST(GavelRestart, WholeStepsOfARound) {
  EXPECT_EQ(restart_delay(resumed(1e6, 0.99), 120.0, 20.0), 20.0);
  EXPECT_EQ(restart_delay(resumed(57.0, 0.5), 120.0, 20.0), 0.0);
}

// A micro-task: floor(1.001 x 360) = 360 steps at 1.001 steps/s last 359.64 s; 230 steps left at 2
// steps/s, 115 s of a 120-s round; no throughput, none.
TEST(GavelRestart, MicroTaskIsTheRoundsWholeStepsOrTheStepsLeft) {
  EXPECT_DOUBLE_EQ(micro_task_s(1.001, 1e6, 360.0), 360.0 / 1.001);
  EXPECT_DOUBLE_EQ(micro_task_s(2.0, 230.0, 120.0), 115.0);
  EXPECT_DOUBLE_EQ(micro_task_s(4.0, 1e6, 120.0), 120.0);
  EXPECT_EQ(micro_task_s(0.0, 1e6, 120.0), 0.0);
}

}  // namespace
}  // namespace tidesim::gavel
