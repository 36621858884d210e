// A pod rejected by a filter that reads node metrics is retried when fresh metrics arrive, not at
// the next pod deletion (docs/policies.md, "Metrics events"): tests/sim/data/metrics_requeue.yaml.
#include <gtest/gtest.h>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

TEST(MetricsRequeue, AScrapeThatAdmitsAPodBindsItWithoutAnyDeletion) {
  const Scenario s = load_scenario("tests/sim/data/metrics_requeue.yaml");
  Workload w = make_jobs(s, 1);
  ASSERT_EQ(w.jobs.size(), 1u);
  w.jobs[0].name = "first";
  w.jobs[0].pod_template.name = "first";
  w.jobs[0].submit_time = TimePoint(1s);  // after the agents' first sample, at 0 s
  workloads::JobSpec second = w.jobs[0];
  second.name = "second";
  second.pod_template.name = "second";
  second.submit_time = TimePoint(2s);
  w.jobs.push_back(second);

  RunSignals signals;
  std::vector<JobEvent> events;
  std::vector<SchedulingEvent> cycles;
  signals.job.connect([&](const JobEvent& e) { events.push_back(e); });
  signals.scheduling.connect([&](const SchedulingEvent& e) { cycles.push_back(e); });
  run_policy(s, w, s.policies.at(0), 1, signals);

  std::map<std::string, double> bound;
  for (const JobEvent& e : events) {
    if (e.kind == JobEventKind::kBound) {
      bound.emplace(e.job, to_seconds(e.at));
    }
  }
  ASSERT_EQ(bound.count("first"), 1u);
  ASSERT_EQ(bound.count("second"), 1u);
  EXPECT_DOUBLE_EQ(bound.at("first"), 1.0);
  // Rejected at 2 s (the first pod, bound after the last sample, estimated at 90% of a card),
  // then retried by the scrape at 15 s, whose sample (taken at 10 s) is newer than the first
  // bind: bound in that cycle. Without the metrics event it waited for the 5-minute
  // unschedulable timeout: 302 s.
  EXPECT_DOUBLE_EQ(bound.at("second"), 15.0);
  int second_cycles = 0;
  for (const SchedulingEvent& c : cycles) {
    second_cycles += c.pod.starts_with("second");
  }
  EXPECT_EQ(second_cycles, 2);
}

}  // namespace
}  // namespace tidesim
