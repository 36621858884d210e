// The other readings of the seed's four metrics (docs/metrics.md, "Other readings"), on
// hand-built timelines; every expected number is worked out in the comment above it.
#include <gtest/gtest.h>

#include <algorithm>

#include "tidesim/sim/metrics/catalog.hpp"
#include "tidesim/sim/metrics/cluster_balance.hpp"
#include "tidesim/sim/metrics/job_metrics.hpp"
#include "tidesim/sim/metrics/nvlink_contention.hpp"

namespace tidesim::metrics {
namespace {

using std::chrono::seconds;

TimePoint at_s(long s) {
  return TimePoint{seconds(s)};
}

JobEvent job_event(long t, JobEventKind kind, std::string job, int attempt = 0) {
  JobEvent e;
  e.at = at_s(t);
  e.kind = kind;
  e.job = std::move(job);
  e.attempt = attempt;
  e.gpus = 1;
  return e;
}

NodeState node(std::string name, double util) {
  NodeState n;
  n.name = std::move(name);
  n.gpu_utilization = {util};
  return n;
}

ClusterSample sample(long t, std::vector<NodeState> nodes, int pending) {
  ClusterSample s;
  s.at = at_s(t);
  s.nodes = std::move(nodes);
  s.pending_pods = pending;
  return s;
}

using K = JobEventKind;

TEST(KaplanMeier, CensoredTimesKeepTheirRisk) {
  // 10 (done), 20 (censored), 30 (done), 40 (censored). At 10: 4 at risk, S = 3/4. At 30: 2 at
  // risk (30, 40), S = 3/4 x 1/2 = 3/8 <= 1/2: the median is 30. Dropping the censored jobs would
  // give median{10, 30} = 20; counting failures as completions median{10..40} = 25.
  EXPECT_DOUBLE_EQ(*kaplan_meier_median({{10, true}, {20, false}, {30, true}, {40, false}}), 30.0);
  // A censoring tied with an event is still at risk at that time: at 10, 3 at risk and 1 event,
  // S = 2/3; at 20, 1 at risk, S = 0: the median is 20.
  EXPECT_DOUBLE_EQ(*kaplan_meier_median({{10, false}, {20, true}, {10, true}}), 20.0);
  // 10 done, then two censored: S stays at 2/3, never 1/2: no median.
  EXPECT_FALSE(kaplan_meier_median({{10, true}, {20, false}, {30, false}}).has_value());
  EXPECT_FALSE(kaplan_meier_median({}).has_value());
}

TEST(JobMetricsReadings, PendingOverAttemptsStartAndCensoredJct) {
  JobMetricsCollector c;
  // a (restartPolicy Never): queued 0, bound 100, started 110, OOM 200; new pods queued 260,
  //   bound 300 and 320 (two pods), started 330, succeeded 1000.
  // b (OnFailure): queued 0, bound 50, started 60, OOM 100, restarted in place at 130 (no bind),
  //   succeeded 500.
  // c: queued 0, bound 40, started 50, OOM 60, failed 60 (backoffLimit).
  // d: queued 0, never bound.   e: queued 0, bound 10, started 20, succeeded 700.
  for (const auto& e :
       {job_event(0, K::kSubmitted, "a"),      job_event(0, K::kSubmitted, "b"),
        job_event(0, K::kSubmitted, "c"),      job_event(0, K::kSubmitted, "d"),
        job_event(0, K::kSubmitted, "e"),      job_event(10, K::kBound, "e"),
        job_event(20, K::kStarted, "e"),       job_event(40, K::kBound, "c"),
        job_event(50, K::kBound, "b"),         job_event(50, K::kStarted, "c"),
        job_event(60, K::kStarted, "b"),       job_event(60, K::kOomKilled, "c"),
        job_event(60, K::kFailed, "c"),        job_event(100, K::kBound, "a"),
        job_event(100, K::kOomKilled, "b"),    job_event(110, K::kStarted, "a"),
        job_event(130, K::kRestarted, "b", 1), job_event(130, K::kStarted, "b", 1),
        job_event(200, K::kOomKilled, "a"),    job_event(260, K::kRestarted, "a", 1),
        job_event(300, K::kBound, "a", 1),     job_event(320, K::kBound, "a", 1),
        job_event(330, K::kStarted, "a", 1),   job_event(500, K::kSucceeded, "b", 1),
        job_event(700, K::kSucceeded, "e"),    job_event(1000, K::kSucceeded, "a", 1)}) {
    c.on_job(e);
  }
  MetricValues m;
  c.finish(at_s(2000), m);
  // First bind (today's): (100 + 50 + 40 + 10) / 4 = 50.
  EXPECT_DOUBLE_EQ(m.at("mean_wait_s"), 50.0);
  // In the queue over all attempts: a 100 + (320 - 260) = 160, b 50 (its restart kept its
  // cards), c 40, e 10: (160 + 50 + 40 + 10) / 4 = 65. d is never bound: unscheduled_jobs.
  EXPECT_DOUBLE_EQ(m.at("pending_total_mean_s"), 65.0);
  // To the start of the latest attempt: a 330, b 130, c 50 (the attempt that failed), d never
  // started (censored at the run's end, 2000), e 20: (330 + 130 + 50 + 2000 + 20) / 5 = 506.
  EXPECT_DOUBLE_EQ(m.at("start_wait_mean_s"), 506.0);
  // Kills 3 (a, b, c once each), jobs killed 3.
  EXPECT_DOUBLE_EQ(m.at("oom_kills"), 3.0);
  EXPECT_DOUBLE_EQ(m.at("oom_jobs"), 3.0);
  // JCT: b 500, e 700, a 1000 done; c censored at 60, d at the run's end 2000. KM: at 500, 4 at
  // risk (500, 700, 1000, 2000): S = 3/4; at 700, 3 at risk: S = 1/2: the median is 700.
  EXPECT_DOUBLE_EQ(m.at("jct_km_p50_s"), 700.0);
  EXPECT_DOUBLE_EQ(m.at("censored_jobs"), 2.0);
}

TEST(JobMetricsReadings, AnAttemptStillQueuedCountsToTheEnd) {
  JobMetricsCollector c;
  // x: queued 0, bound 10, started 10, OOM 40, new pods queued 50, never bound again; the run
  // ends at 450: pending 10 + (450 - 50) = 410. Two kills of one job: oom_kills 2, oom_jobs 1.
  c.on_job(job_event(0, K::kSubmitted, "x"));
  c.on_job(job_event(10, K::kBound, "x"));
  c.on_job(job_event(10, K::kStarted, "x"));
  c.on_job(job_event(20, K::kOomKilled, "x"));
  c.on_job(job_event(40, K::kOomKilled, "x"));
  c.on_job(job_event(50, K::kRestarted, "x", 1));
  MetricValues m;
  c.finish(at_s(450), m);
  EXPECT_DOUBLE_EQ(m.at("pending_total_mean_s"), 410.0);
  EXPECT_DOUBLE_EQ(m.at("oom_kills"), 2.0);
  EXPECT_DOUBLE_EQ(m.at("oom_jobs"), 1.0);
  // Its latest attempt never started: the start wait is censored at the run's end, 450. No
  // success, and the only time is censored: no KM median.
  EXPECT_DOUBLE_EQ(m.at("start_wait_mean_s"), 450.0);
  EXPECT_EQ(m.count("jct_km_p50_s"), 0u);
  EXPECT_DOUBLE_EQ(m.at("censored_jobs"), 1.0);
}

TEST(ClusterBalanceReadings, HotSpotThatMovesAndTheBusyWindow) {
  ClusterBalanceCollector c;
  // [0, 10): a 1, b 0, 3 pods pending. [10, 20): a 0, b 1, none pending. [20, 40): both 0.5.
  c.on_sample(sample(0, {node("a", 1.0), node("b", 0.0)}, 3));
  c.on_sample(sample(10, {node("a", 0.0), node("b", 1.0)}, 0));
  c.on_sample(sample(20, {node("a", 0.5), node("b", 0.5)}, 0));
  MetricValues m;
  c.finish(at_s(40), m);
  // Per sample std-dev 0.5, 0.5, 0: (0.5 x 10 + 0.5 x 10 + 0 x 20) / 40 = 0.25.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev"), 0.25);
  // Busy window: only [0, 10) had pending pods: 0.5.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev_busy"), 0.5);
  // Each node averages (10 + 0 + 10) / 40 = 0.5 over the run: the hot spot moved, spread 0.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev_node_avg"), 0.0);
}

TEST(ClusterBalanceReadings, NoPendingSampleMeansNoBusyValue) {
  ClusterBalanceCollector c;
  c.on_sample(sample(0, {node("a", 1.0), node("b", 0.0)}, 0));
  MetricValues m;
  c.finish(at_s(10), m);
  EXPECT_EQ(m.count("gpu_util_stddev_busy"), 0u);
  // One node at 1, one at 0: spread of the means 0.5.
  EXPECT_DOUBLE_EQ(m.at("gpu_util_stddev_node_avg"), 0.5);
}

JobRate rate(long t, std::string job, bool running, double bw) {
  JobRate r;
  r.at = at_s(t);
  r.job = std::move(job);
  r.running = running;
  r.nvlink_required = true;
  r.collective_bandwidth = bw;
  r.ideal_collective_bandwidth = 100.0;
  return r;
}

TEST(NvlinkContentionReadings, ShareOfJobsContendedForMostOfTheirTime) {
  NvlinkContentionCollector c;
  // j: 40 s counted, contended over [10, 30) = 20 s: exactly half, not more: not counted.
  // k: 20 s counted, all contended: counted. m: 30 s counted, contended over [0, 20) = 20 s
  // (> 15): counted.
  c.on_rate(rate(0, "j", true, 100));
  c.on_rate(rate(0, "k", true, 10));
  c.on_rate(rate(0, "m", true, 50));
  c.on_rate(rate(10, "j", true, 50));
  c.on_rate(rate(20, "k", false, 0));
  c.on_rate(rate(20, "m", true, 100));
  c.on_rate(rate(30, "j", true, 100));
  c.on_rate(rate(30, "m", false, 0));
  c.on_rate(rate(40, "j", false, 0));
  MetricValues m;
  c.finish(at_s(40), m);
  // k and m of the three: 2 / 3.
  EXPECT_DOUBLE_EQ(m.at("nvlink_contended_jobs_share"), 2.0 / 3.0);
  // Time share: contended 20 + 20 + 20 = 60 over 40 + 20 + 30 = 90.
  EXPECT_DOUBLE_EQ(m.at("nvlink_contention_rate"), 60.0 / 90.0);
}

TEST(Catalog, HeadlineRowsAreCataloguedWithADirection) {
  for (const auto name : headline_metric_names()) {
    const MetricInfo* info = find_metric(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_NE(info->direction, Direction::kNeutral) << name;
  }
  EXPECT_LE(headline_metric_names().size(), 11u);
  // The jobs a wait or JCT figure leaves out are always in the default table.
  const auto names = headline_metric_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "unscheduled_jobs"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "censored_jobs"), names.end());
}

}  // namespace
}  // namespace tidesim::metrics
