#pragma once
/// A whole run under default-k8s observed through its signals: the job events, the cluster
/// samples and the job-scheduling metrics (preemptions, gang waits). Shared by the tests of
/// preemption and gangs written inline (job_scheduling_test.cpp) and as manifests
/// (manifest_scheduling_test.cpp).
#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "sim/metrics/job_scheduling.hpp"
#include "sim/run.hpp"

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
  o.summary = run_policy(s, w, PolicyConfig{"default-k8s", "default-k8s"}, 1, signals);
  collector.finish(o.summary.end, o.metrics);
  return o;
}

inline double seconds(TimePoint t) {
  return to_seconds(t);
}

}  // namespace tidesim::test
