// run.job_window: the run ends when the window's jobs have ended, and the job metrics count only
// them; Gavel's lease extensions reach the run's metrics (JobPolicy::add_metrics). On
// scenarios/shockwave-tacc-32gpus.yaml (rounds of 120 s, 32 V100) with the tests' small Gavel
// trace and table (tests/workloads/data/gavel): job 0 (type A, 1,200 steps at 4 steps/s alone on
// the `fast` type: 300 s) arrives at 0, job 1 (type C, 40 steps on 2 GPUs at 1 step/s: 40 s)
// at 120 s, the start of the second round, and both run at once (the cluster has room).
#include <gtest/gtest.h>

#include <string>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/scenario/scenario.hpp"
#include "tidesim/sim/scenario/scenario_override.hpp"

namespace tidesim {
namespace {

Scenario with_window(const std::string& window) {
  const std::string data = std::string(TIDESIM_SOURCE_DIR) + "/tests/workloads/data/gavel/";
  return load_scenario_with(
      "scenarios/shockwave-tacc-32gpus.yaml",
      {parse_override("workload.gavel.trace=" + data + "physical_small.trace"),
       parse_override("workload.gavel.throughputs=" + data + "throughputs_small.json"),
       parse_override("workload.gavel.gpu_types={V100-SXM2-16: fast}"),
       parse_override("run.job_window=" + window)});
}

RunSummary run_window(const std::string& window) {
  const Scenario s = with_window(window);
  RunSignals signals;
  return run_policy(s, make_jobs(s, 0), s.policies.at(2), 0, signals);  // max_min_fairness
}

TEST(JobWindow, RunEndsWhenTheWindowsJobsEnded) {
  // Window = job 1 only: it ends at 120 + 40 = 160 s, and the run with it; job 0 is unfinished.
  const RunSummary one = run_window("{first: 1, last: 1}");
  EXPECT_NEAR(to_seconds(one.end.time_since_epoch()), 160.0, 1e-6);
  EXPECT_EQ(one.succeeded, 1);
  EXPECT_EQ(one.unfinished, 1);
  // Both: the run goes on to job 0's end at 300 s.
  const RunSummary both = run_window("{first: 0, last: 1}");
  EXPECT_NEAR(to_seconds(both.end.time_since_epoch()), 300.0, 1e-6);
  EXPECT_EQ(both.succeeded, 2);
  // Two opportunities: job 0 at the starts of rounds 2 and 3 (120 s, 240 s; job 1, placed in
  // round 2, has left by round 3). One extension: in round 2 job 1 (2 GPUs) is placed first, its
  // scale factor being the larger, and takes the first two servers from the pointer, job 0's GPU
  // among them, as Gavel's passes per scale factor do (scheduler.py _schedule_jobs_on_workers:
  // keep, then assign, for 2 GPUs before 1); job 0 moves to the third and keeps it in round 3.
  EXPECT_EQ(both.policy_metrics.at("lease_extensions"), 1.0);
  EXPECT_EQ(both.policy_metrics.at("lease_extension_share"), 0.5);
}

TEST(JobWindow, BadWindowIsAnError) {
  try {
    (void)with_window("{first: 5, last: 4}");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("run.job_window.last"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tidesim
