// Metrics that cannot reward failure (docs/metrics.md, docs/failures.md): goodput counts the GPU
// time of failed work as lost, the wait to start keeps failing and never-started jobs, and
// migrations, preemptions and suspensions are counted apart. Hand-built timelines; every expected
// number is worked out in the comment above it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tidesim/sim/metrics/interruptions.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/metrics/job_scheduling.hpp"

namespace tidesim::metrics {
namespace {

using K = JobEventKind;

struct Ev {
  long t;
  K kind;
  std::string job;
  int attempt = 0;
  int gpus = 1;
  double lost = 0.0;       // JobEvent::lost_gpu_seconds
  std::string cause = "";  // kEvicted
};

JobEvent event(const Ev& ev) {
  JobEvent e;
  e.at = TimePoint{std::chrono::seconds(ev.t)};
  e.kind = ev.kind;
  e.job = ev.job;
  e.attempt = ev.attempt;
  e.gpus = ev.gpus;
  e.lost_gpu_seconds = ev.lost;
  e.cause = ev.cause;
  return e;
}

MetricValues interruption_metrics(const std::vector<Ev>& events, long end) {
  InterruptionsCollector c;
  for (const Ev& ev : events) {
    c.on_job(event(ev));
  }
  MetricValues m;
  c.finish(TimePoint{std::chrono::seconds(end)}, m);
  return m;
}

MetricValues job_metrics(const std::vector<Ev>& events, long end) {
  JobMetricsCollector c;
  for (const Ev& ev : events) {
    c.on_job(event(ev));
  }
  MetricValues m;
  c.finish(TimePoint{std::chrono::seconds(end)}, m);
  return m;
}

// Job A, 2 GPUs: starts at 100, drained at 700 with no checkpoint (loses (700 - 100) x 2 = 1,200
// GPU-s), starts again at 800 and succeeds at 1,800: run 600 x 2 + 1,000 x 2 = 3,200 GPU-s.
const std::vector<Ev> kJobA{
    {100, K::kStarted, "a", 0, 2},
    {700, K::kEvicted, "a", 0, 2, 1200.0, "drain"},
    {800, K::kStarted, "a", 1, 2},
    {1800, K::kSucceeded, "a", 1, 2},
};

std::vector<Ev> with(std::vector<Ev> base, const std::vector<Ev>& more) {
  base.insert(base.end(), more.begin(), more.end());
  return base;
}

TEST(Goodput, AFailedJobLosesAllItsGpuTime) {
  // A alone: goodput 1 - 1,200 / 3,200 = 0.625.
  const MetricValues calm = interruption_metrics(kJobA, 2000);
  EXPECT_DOUBLE_EQ(calm.at("goodput"), 0.625);
  EXPECT_DOUBLE_EQ(calm.at("gpu_hours_lost_failures"), 0.0);
  // With B, 1 GPU, OOM-killed twice and failed (backoffLimit): starts at 0, killed at 400 (its
  // last checkpoint at 300: 100 GPU-s lost), restarted in place at 500, killed at 800 (300 GPU-s
  // since that attempt's start), then failed. B ran 400 + 300 = 700 GPU-s and, failed, keeps
  // none of them: 400 lost to the kills, the other 300 (its checkpointed work) at the failure.
  // Run 3,900, lost 1,200 + 700 = 1,900: goodput 2,000 / 3,900, below the 0.625 without B.
  // (Counting only interruptions as lost gave 1 - 1,200 / 3,900 = 0.692: the failure raised it.)
  const MetricValues churn = interruption_metrics(with(kJobA,
                                                       {
                                                           {0, K::kStarted, "b"},
                                                           {400, K::kOomKilled, "b", 0, 1, 100.0},
                                                           {500, K::kStarted, "b", 1},
                                                           {800, K::kOomKilled, "b", 1, 1, 300.0},
                                                           {800, K::kFailed, "b", 1},
                                                       }),
                                                  2000);
  EXPECT_DOUBLE_EQ(churn.at("gpu_hours_run"), 3900.0 / 3600.0);
  EXPECT_DOUBLE_EQ(churn.at("gpu_hours_lost"), 1900.0 / 3600.0);
  EXPECT_DOUBLE_EQ(churn.at("gpu_hours_lost_failures"), 700.0 / 3600.0);
  EXPECT_DOUBLE_EQ(churn.at("goodput"), 2000.0 / 3900.0);
  EXPECT_LT(churn.at("goodput"), calm.at("goodput"));
}

TEST(Goodput, AnOomKillLosesTheWorkSinceTheLastCheckpoint) {
  // C, 1 GPU, does 1,600 s of work. Without a kill it runs 0 -> 1,600: with A, run 3,200 +
  // 1,600 = 4,800, lost 1,200: goodput 0.75.
  const MetricValues calm =
      interruption_metrics(with(kJobA, {{0, K::kStarted, "c"}, {1600, K::kSucceeded, "c"}}), 2000);
  EXPECT_DOUBLE_EQ(calm.at("goodput"), 0.75);
  // OOM-killed at 1,000 with its last checkpoint at 800 (200 GPU-s lost), restarted at 1,010
  // from 800 s of work, so it needs 800 s more: succeeds at 1,810. Run 4,800 + 200 = 5,000, lost
  // 1,400: goodput 0.72, below 0.75 (counting the kill's time as run but not lost gave 0.76).
  const std::vector<Ev> c_killed{{0, K::kStarted, "c"},
                                 {1000, K::kOomKilled, "c", 0, 1, 200.0},
                                 {1010, K::kStarted, "c", 1},
                                 {1810, K::kSucceeded, "c", 1}};
  const MetricValues killed = interruption_metrics(with(kJobA, c_killed), 2000);
  EXPECT_DOUBLE_EQ(killed.at("gpu_hours_run"), 5000.0 / 3600.0);
  EXPECT_DOUBLE_EQ(killed.at("goodput"), 0.72);
  // C alone, no interruption at all: goodput is still reported, 1 - 200 / 1,800 = 8/9, and the
  // interruption counts are absent.
  const MetricValues alone = interruption_metrics(c_killed, 2000);
  EXPECT_DOUBLE_EQ(alone.at("goodput"), 1.0 - 200.0 / 1800.0);
  EXPECT_DOUBLE_EQ(alone.at("gpu_hours_lost_failures"), 200.0 / 3600.0);
  EXPECT_EQ(alone.count("interruptions"), 0u);
  // A job still running at the end keeps its work: D starts at 1,500, runs to the end (2,000):
  // 500 GPU-s run, none lost.
  const MetricValues running = interruption_metrics({{1500, K::kStarted, "d"}}, 2000);
  EXPECT_DOUBLE_EQ(running.at("goodput"), 1.0);
  EXPECT_DOUBLE_EQ(running.at("gpu_hours_run"), 500.0 / 3600.0);
}

TEST(StartWait, FailedAndNeverStartedJobsCount) {
  // s: OOM-killed on its first attempt, succeeds on the second, which started at 200: 200.
  // f: its second attempt started at 100, was OOM-killed and the job failed: 100.
  // n: submitted at 100, never bound; the run ends at 1,000: censored, 900.
  // q: bound at 30 but never started (a sibling pod never bound): censored, 1,000.
  // r: drained at 300, its new attempt started at 460 and runs at the end: 460.
  // w: drained at 500, its new pods never bound: censored, 1,000.
  // (200 + 100 + 900 + 1,000 + 460 + 1,000) / 6 = 610. Over succeeded jobs only (s) it was 200.
  const MetricValues m = job_metrics(
      {
          {0, K::kSubmitted, "s"},      {0, K::kSubmitted, "f"},
          {0, K::kSubmitted, "q"},      {0, K::kSubmitted, "r"},
          {0, K::kSubmitted, "w"},      {5, K::kBound, "r"},
          {5, K::kBound, "w"},          {10, K::kBound, "s"},
          {10, K::kStarted, "r"},       {10, K::kStarted, "w"},
          {20, K::kBound, "f"},         {30, K::kBound, "q"},
          {40, K::kStarted, "s"},       {50, K::kStarted, "f"},
          {60, K::kOomKilled, "f"},     {70, K::kRestarted, "f", 1},
          {80, K::kBound, "f", 1},      {100, K::kSubmitted, "n"},
          {100, K::kStarted, "f", 1},   {100, K::kOomKilled, "s"},
          {110, K::kRestarted, "s", 1}, {120, K::kOomKilled, "f", 1},
          {120, K::kFailed, "f", 1},    {150, K::kBound, "s", 1},
          {200, K::kStarted, "s", 1},   {300, K::kEvicted, "r", 0, 1, 290.0, "drain"},
          {300, K::kRestarted, "r", 1}, {400, K::kBound, "r", 1},
          {460, K::kStarted, "r", 1},   {500, K::kEvicted, "w", 0, 1, 490.0, "drain"},
          {500, K::kRestarted, "w", 1}, {900, K::kSucceeded, "s", 1},
      },
      1000);
  EXPECT_DOUBLE_EQ(m.at("start_wait_mean_s"), 610.0);
}

// m: migrated once (two pods, one attempt); p: preempted once; u: suspended twice (two pods
// each time); v: suspended once; x: never stopped. 8 evicted pods, 5 jobs.
const std::vector<Ev> kStops{
    {0, K::kSubmitted, "m"},
    {0, K::kSubmitted, "p"},
    {0, K::kSubmitted, "u"},
    {0, K::kSubmitted, "v"},
    {0, K::kSubmitted, "x"},
    {100, K::kEvicted, "m", 0, 2, 150.0, "migration"},
    {100, K::kEvicted, "m", 0, 2, 0.0, "migration"},
    {110, K::kEvicted, "p", 0, 1, 40.0, "preemption"},
    {120, K::kEvicted, "u", 0, 2, 60.0, "suspension"},
    {120, K::kEvicted, "u", 0, 2, 0.0, "suspension"},
    {130, K::kEvicted, "v", 0, 1, 30.0, "suspension"},
    {200, K::kEvicted, "u", 1, 2, 20.0, "suspension"},
    {200, K::kEvicted, "u", 1, 2, 0.0, "suspension"},
};

TEST(StopRates, MigrationsPreemptionsAndSuspensionsApart) {
  // Attempts stopped: 1 migration, 1 preemption, 3 suspensions (u twice, v), over 5 jobs. The
  // migration rate counted every evicted pod before: 8 / 5 = 160%.
  const MetricValues m = job_metrics(kStops, 300);
  EXPECT_DOUBLE_EQ(m.at("evictions"), 8.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate"), 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate_alert"), 1.0);
  EXPECT_DOUBLE_EQ(m.at("preemption_rate"), 1.0 / 5.0);
  EXPECT_DOUBLE_EQ(m.at("suspension_rate"), 3.0 / 5.0);

  const MetricValues i = interruption_metrics(kStops, 300);
  EXPECT_DOUBLE_EQ(i.at("interruptions"), 5.0);
  EXPECT_DOUBLE_EQ(i.at("interruptions_migration"), 1.0);
  EXPECT_DOUBLE_EQ(i.at("interruptions_preemption"), 1.0);
  EXPECT_DOUBLE_EQ(i.at("interruptions_suspension"), 3.0);
  EXPECT_DOUBLE_EQ(i.at("jobs_interrupted_suspension"), 2.0);

  // Preemption keeps its own count and loss (40 GPU-s); suspensions lose 60 + 30 + 20 = 110.
  JobSchedulingCollector s;
  for (const Ev& ev : kStops) {
    s.on_job(event(ev));
  }
  MetricValues js;
  s.finish(TimePoint{std::chrono::seconds(300)}, js);
  EXPECT_DOUBLE_EQ(js.at("preemptions"), 1.0);
  EXPECT_DOUBLE_EQ(js.at("preemption_lost_gpu_s"), 40.0);
  EXPECT_DOUBLE_EQ(js.at("suspension_lost_gpu_s"), 110.0);
}

TEST(StopRates, SuspensionsAreNotMigrations) {
  // A job-level policy that suspends 2 jobs 3 times and migrates nothing (pollux-workload-6
  // under SRTF read 495% "task migration rate" with no migration): migration rate 0, no alert;
  // suspension rate 3 / 2.
  const MetricValues m = job_metrics(
      {
          {0, K::kSubmitted, "a"},
          {0, K::kSubmitted, "b"},
          {60, K::kEvicted, "a", 0, 1, 60.0, "suspension"},
          {120, K::kEvicted, "a", 1, 1, 30.0, "suspension"},
          {120, K::kEvicted, "b", 0, 1, 120.0, "suspension"},
      },
      200);
  EXPECT_DOUBLE_EQ(m.at("migration_rate"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("migration_rate_alert"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("preemption_rate"), 0.0);
  EXPECT_DOUBLE_EQ(m.at("suspension_rate"), 1.5);
}

}  // namespace
}  // namespace tidesim::metrics
