// End-to-end runs of the driver on tiny scenarios whose outcome follows from the models.
#include "tidesim/sim/experiments/run.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "tidesim/tools/lib/result.hpp"
#include "tidesim/workloads/step_time.hpp"

namespace tidesim::app {
namespace {

struct Outcome {
  SeedRun run;
  RunSummary summary;
  std::vector<JobRate> rates;
};

Outcome run_file(const std::string& file, std::size_t policy = 0, std::uint64_t seed = 1) {
  const Scenario s = load_scenario("tests/tools/data/" + file);
  const Workload w = make_jobs(s, seed);
  Recorder recorder(s.policies[policy].name, seed);
  RunSignals signals;
  recorder.attach(signals);
  Outcome o;
  signals.rate.connect([&](const JobRate& r) { o.rates.push_back(r); });
  o.summary = run_policy(s, w, s.policies[policy], seed, signals);
  o.run = recorder.finish(o.summary.end);
  return o;
}

TEST(Runner, LoneJobRunsAtItsUncontendedSpeed) {
  const Outcome o = run_file("solo.yaml");
  ASSERT_EQ(o.run.jobs.size(), 1u);
  const JobRecord& job = o.run.jobs[0];
  EXPECT_EQ(job.state, "succeeded");
  ASSERT_TRUE(job.first_bind_s && job.start_s && job.finish_s);
  EXPECT_DOUBLE_EQ(*job.first_bind_s, 0.0) << "bound in the first cycle";
  EXPECT_DOUBLE_EQ(*job.start_s, 5.0) << "run.pod_startup";
  // Expected run time: 1000 steps at the catalogue's uncontended step time (1 GPU: no
  // all-reduce; local NVMe at 7 GB/s is faster than the job reads, so no IO stall).
  const auto profile = workloads::profile_for("resnet50", 64, "amp", "A10");
  const double step = workloads::step_time(profile, workloads::StepConditions{}).seconds;
  EXPECT_NEAR(*job.finish_s - *job.start_s, 1000 * step, 1e-5);
  EXPECT_EQ(job.oom_kills, 0);
  EXPECT_EQ(o.summary.succeeded, 1);
}

TEST(Runner, TwoHeavyJobsOnOneTimeSlicedCardOom) {
  // Each job needs about 13.2 GiB at steady state (docs/model-workloads.md); two on one A10
  // (22.49 GiB visible) cannot both fit: memory is not isolated under time-slicing. They ramp
  // together (bound 10 ms apart, 10 s ramps), so both fail at the first crossing (10 s); their
  // new pods come back after the same 10 s back-off, ramp together again and both fail again:
  // with backoff_limit 1 that is 2 x 2 = 4 kills and both jobs failed.
  const Outcome o = run_file("one_card.yaml");
  int ooms = 0;
  for (const auto& j : o.run.jobs) {
    ooms += j.oom_kills;
    EXPECT_EQ(j.state, "failed") << j.name;
  }
  EXPECT_EQ(ooms, 4);
  EXPECT_EQ(o.summary.unfinished, 0);
  EXPECT_EQ(o.summary.succeeded, 0);
  bool restarted = false;
  for (const auto& e : o.run.events) {
    restarted = restarted || e.kind == "restarted";
  }
  EXPECT_TRUE(restarted);
}

TEST(Runner, RingsSharingALinkInBurstsDoNotSlowEachOther) {
  // Two GPT-2 124M (fused attention, batch 4: about 5.4 GiB each, 6.1 with the peak) 2-GPU
  // jobs on the same two time-sliced cards: both rings cross the same PCIe links. Each moves
  // V = 4 x 124,439,808 x 2(2 - 1)/2 = 497,759,232 bytes per step, once per step of about
  // 0.3 s (half the card each), i.e. under 2 GB/s on average, far below the links' capacity: with
  // the all-reduce as bursts capped at their average demand each burst runs at the path's full
  // bandwidth (the ideal), where two always-on flows would each have had half of it.
  const Outcome o = run_file("shared_pair.yaml");
  EXPECT_EQ(o.summary.succeeded, 2);
  int both = 0;
  for (const auto& r : o.rates) {
    if (!r.running) {
      continue;
    }
    EXPECT_NEAR(r.collective_bandwidth, r.ideal_collective_bandwidth,
                1e-9 * r.ideal_collective_bandwidth);
    ++both;
  }
  EXPECT_GE(both, 2);
  for (const auto& j : o.run.jobs) {
    EXPECT_DOUBLE_EQ(j.nvlink_contended_s, 0.0) << j.name;
  }
}

TEST(Runner, DisjointNvlinkPairsDoNotSlowEachOther) {
  const Outcome o = run_file("two_rings.yaml");
  EXPECT_EQ(o.summary.succeeded, 2);
  int running = 0;
  for (const auto& r : o.rates) {
    if (!r.running) {
      continue;
    }
    ++running;
    EXPECT_TRUE(r.nvlink_required);
    EXPECT_GT(r.collective_bandwidth, 0.0);
    EXPECT_DOUBLE_EQ(r.collective_bandwidth, r.ideal_collective_bandwidth)
        << "each pair alone on its NVLink";
  }
  EXPECT_GE(running, 2);
  for (const auto& j : o.run.jobs) {
    EXPECT_DOUBLE_EQ(j.nvlink_contended_s, 0.0);
  }
}

TEST(Runner, SameSeedSameResultAndPoliciesSeeTheSameJobs) {
  const Outcome a = run_file("one_card.yaml", 0, 7);
  const Outcome b = run_file("one_card.yaml", 0, 7);
  EXPECT_EQ(a.run, b.run);
  const Outcome x = run_file("two_rings.yaml", 0, 3);
  const Outcome y = run_file("two_rings.yaml", 1, 3);
  ASSERT_EQ(x.run.jobs.size(), y.run.jobs.size());
  for (std::size_t i = 0; i < x.run.jobs.size(); ++i) {
    EXPECT_EQ(x.run.jobs[i].name, y.run.jobs[i].name);
    EXPECT_EQ(x.run.jobs[i].submit_s, y.run.jobs[i].submit_s);
  }
}

TEST(Runner, SeedBenchmarkRunsToCompletion) {
  const Scenario s = load_scenario("scenarios/seed-benchmark.yaml");
  const Workload w = make_jobs(s, 1);
  ASSERT_EQ(w.jobs.size(), 100u);
  for (const auto& policy : s.policies) {
    Recorder recorder(policy.name, 1, RecorderOptions{.record_series = false, .collectors = {}});
    RunSignals signals;
    recorder.attach(signals);
    const RunSummary summary = run_policy(s, w, policy, 1, signals);
    EXPECT_EQ(summary.jobs, 100);
    EXPECT_EQ(summary.unfinished, 0) << policy.name;
    EXPECT_EQ(summary.succeeded + summary.failed, 100) << policy.name;
    const SeedRun run = recorder.finish(summary.end);
    EXPECT_TRUE(run.metrics.contains("gpu_util_stddev"));
    EXPECT_TRUE(run.metrics.contains("mean_wait_s"));
  }
}

}  // namespace
}  // namespace tidesim::app
