#pragma once
/// A whole run under default-k8s observed through its signals: the job events, the cluster
/// samples and the job-scheduling metrics (preemptions, gang waits). Shared by the tests of
/// preemption and gangs written inline (job_scheduling_test.cpp) and as manifests
/// (manifest_scheduling_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/job_scheduling.hpp"

namespace tidesim::test {

struct Observed {
  RunSummary summary;
  std::vector<JobEvent> events;
  std::vector<ClusterSample> samples;
  metrics::MetricValues metrics;

  std::vector<JobEvent> of(JobEventKind kind, const std::string& job) const {
    std::vector<JobEvent> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out),
                 [&](const JobEvent& e) { return e.kind == kind && e.job == job; });
    return out;
  }
};

inline Observed run(const Scenario& s, const Workload& w) {
  RunSignals signals;
  Observed o;
  metrics::JobSchedulingCollector collector;
  collector.attach(signals);
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  signals.sample.connect([&](const ClusterSample& c) { o.samples.push_back(c); });
  o.summary = run_policy(s, w, make_policy("default-k8s", "default-k8s"), 1, signals);
  collector.finish(o.summary.end, o.metrics);
  return o;
}

inline double seconds(TimePoint t) {
  return to_seconds(t);
}

/// Seconds from job `job`'s start to its success; a test failure (and 0) unless it started and
/// succeeded exactly once.
inline double run_seconds(const Observed& o, const std::string& job) {
  const auto started = o.of(JobEventKind::kStarted, job);
  const auto done = o.of(JobEventKind::kSucceeded, job);
  if (started.size() != 1 || done.size() != 1) {
    ADD_FAILURE() << job << " did not start and succeed once";
    return 0.0;
  }
  return seconds(done[0].at) - seconds(started[0].at);
}

/// The gang case of both files: job "busy" holds node 0's only free GPU until 100 s, and the
/// 4-pod job "gang", submitted at 1 s, holds no GPU while it waits (node 0 stays at one GPU
/// allocated), then binds all four pods at once at 100 s; its gang wait is 99 s.
inline void expect_gang_waited_without_holding_gpus(const Observed& o, const std::string& label) {
  EXPECT_EQ(o.summary.succeeded, 2) << label;
  for (const auto& c : o.samples) {
    if (c.at > TimePoint(std::chrono::seconds(0)) && c.at < TimePoint(std::chrono::seconds(100))) {
      EXPECT_EQ(c.nodes[0].gpus_allocated, 1) << label << " at " << seconds(c.at);
    }
  }
  const auto binds = o.of(JobEventKind::kBound, "gang");
  ASSERT_EQ(binds.size(), 4u) << label;
  const double bound = seconds(binds[0].at);
  EXPECT_NEAR(bound, 100.0, 0.1) << label;
  for (const auto& b : binds) {
    EXPECT_EQ(b.at, binds[0].at) << label << ": " << b.pod;
  }
  EXPECT_DOUBLE_EQ(o.metrics.at("gang_wait_mean_s"), bound - 1.0) << label;
  EXPECT_EQ(o.metrics.at("gangs_bound"), 1.0) << label;
}

}  // namespace tidesim::test
