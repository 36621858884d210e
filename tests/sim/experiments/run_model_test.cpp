// Whole runs of the cluster model on tiny scenarios, observed through the run's signals only:
// wake-ups after cluster events, queue order, restart policies.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

struct Observed {
  RunSummary summary;
  std::vector<JobEvent> events;
  std::vector<SchedulingEvent> cycles;

  std::vector<JobEvent> of(JobEventKind kind) const {
    std::vector<JobEvent> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out),
                 [&](const JobEvent& e) { return e.kind == kind; });
    return out;
  }
};

Observed run(const Scenario& s, const Workload& w, const std::string& scheduler) {
  RunSignals signals;
  Observed o;
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  signals.scheduling.connect([&](const SchedulingEvent& e) { o.cycles.push_back(e); });
  o.summary = run_policy(s, w, make_policy(scheduler, scheduler), 1, signals);
  return o;
}

Scenario scenario(const std::string& file) {
  return load_scenario("tests/sim/data/" + file);
}

TEST(RunModel, PodsFreedByCompletionsBindWithinOneCycle) {
  const Scenario s = scenario("four_cards_eight_jobs.yaml");
  const Observed o = run(s, make_jobs(s, 1), "default-k8s");
  EXPECT_EQ(o.summary.succeeded, 8);
  const auto binds = o.of(JobEventKind::kBound);
  const auto done = o.of(JobEventKind::kSucceeded);
  ASSERT_EQ(binds.size(), 8u);
  ASSERT_EQ(done.size(), 8u);
  // Four bind in the first four cycles (10 ms apart).
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(binds[i].at, TimePoint(10ms * static_cast<int>(i))) << binds[i].job;
  }
  // The other four were popped once (at 40-70 ms) and wait as unschedulable. The completions
  // come at 100 s + 0, 10, 20, 30 ms (+1 us). The first completion moves all four back to the
  // active queue (their 1 s back-off is long over) and the next pod binds at once. A pod popped
  // in a later cycle before the next completion fails a second time, so the next event moves it
  // to back-off: podInitialBackoffSeconds x 2 = 2 s (Kubernetes' queue). So each binds within
  // one cycle of a completion or of the end of a 2 s back-off: between 100 s and about 102.1 s,
  // not at the 5-minute unschedulable flush.
  for (std::size_t i = 4; i < 8; ++i) {
    const TimePoint at = binds[i].at;
    EXPECT_GE(at, done.front().at) << binds[i].job;
    EXPECT_LT(at, TimePoint(102s + 100ms)) << binds[i].job;
    const bool soon = std::any_of(done.begin(), done.end(), [&](const JobEvent& d) {
      const Duration after = at - d.at;
      return (after >= 0s && after <= s.run.cycle_time) ||
             (after >= 2s && after <= 2s + 4 * s.run.cycle_time);
    });
    EXPECT_TRUE(soon) << binds[i].job << " bound at " << to_seconds(at - TimePoint{});
  }
}

TEST(RunModel, PodsFreedByAKillBindWithinOneCycle) {
  const Scenario s = scenario("oom_frees_a_card.yaml");
  Workload w = make_jobs(s, 1);
  // A third, light job (1 GPU unit, ResNet-50 at batch 32) arrives at 1 s and waits.
  workloads::JobSpec light = w.jobs.front();
  light.name = "light";
  light.submit_time = TimePoint(1s);
  light.precision = "amp";
  light.batch_size = 32;
  light.backoff_limit = 6;
  w.jobs.push_back(light);
  const Observed o = run(s, w, "first-fit");
  const auto ooms = o.of(JobEventKind::kOomKilled);
  ASSERT_GE(ooms.size(), 1u);
  const TimePoint kill = ooms.front().at;
  EXPECT_GT(kill, TimePoint(1s)) << "the OOM comes at the end of the ramp-up, after light waits";
  EXPECT_EQ(ooms.front().cards, std::vector<int>{0});
  EXPECT_EQ(ooms.front().co_located.size(), 1u) << "the other heavy job";
  EXPECT_GT(ooms.front().memory_used, ooms.front().memory_capacity);
  const auto binds = o.of(JobEventKind::kBound);
  const auto light_bind =
      std::find_if(binds.begin(), binds.end(), [](const JobEvent& e) { return e.job == "light"; });
  ASSERT_NE(light_bind, binds.end());
  EXPECT_GE(light_bind->at, kill);
  EXPECT_LE(light_bind->at - kill, s.run.cycle_time);
}

TEST(RunModel, TwoProcessesRampingTogetherBothFail) {
  // One A10 (visible 23,028 MiB = 24,146,608,128 bytes), two ResNet-50 fp32 batch-128 jobs.
  // Each grows from base = 300 MiB + 12 x 25,557,032 = 621,257,184 bytes to steady
  // 14,219,354,752 bytes over its 10 s ramp in 5 steps of 2,719,619,513.6 bytes: at 8 s each
  // holds 11,499,735,238 (together 23.0e9, fits); at 10 s the first reaches steady (25.7e9 > the
  // card) while the second, bound 10 ms later, is still ramping: both fail at 10 s.
  const Scenario s = scenario("oom_frees_a_card.yaml");
  const Observed together = run(s, make_jobs(s, 1), "first-fit");
  const auto ooms = together.of(JobEventKind::kOomKilled);
  ASSERT_EQ(ooms.size(), 2u);
  EXPECT_NE(ooms[0].job, ooms[1].job);
  EXPECT_EQ(ooms[0].at, ooms[1].at);
  EXPECT_EQ(ooms[0].at, TimePoint(10s));
  EXPECT_EQ(together.summary.failed, 2);  // backoff_limit 0
  // The second submitted at 20 s, when the first is steady: only the newcomer's allocation fails
  // (at its 4th step, 8 s after its bind: 14.2e9 + 11.5e9 > the card); the first, which
  // allocates nothing more, runs on and succeeds.
  Workload w = make_jobs(s, 1);
  w.jobs[1].submit_time = TimePoint(20s);
  const Observed apart = run(s, w, "first-fit");
  const auto kill = apart.of(JobEventKind::kOomKilled);
  ASSERT_EQ(kill.size(), 1u);
  EXPECT_EQ(kill[0].job, w.jobs[1].name);
  EXPECT_EQ(apart.summary.succeeded, 1);
  EXPECT_EQ(apart.summary.failed, 1);
}

// An OOM kill throws away the work since the attempt's start or the job's last checkpoint,
// whichever is later (the job resumes from that checkpoint), and says so on its event, as an
// eviction does: goodput counts it as lost (docs/metrics.md, "Goodput").
TEST(RunModel, AnOomKillReportsTheWorkItLoses) {
  const Scenario s = scenario("oom_frees_a_card.yaml");
  const auto start_of = [](const Observed& o, const std::string& job) {
    for (const auto& e : o.of(JobEventKind::kStarted)) {
      if (e.job == job) {
        return e.at;
      }
    }
    ADD_FAILURE() << job << " never started";
    return TimePoint{};
  };
  // No checkpoints (checkpoint_interval 0s): both jobs killed at 10 s lose 10 s less their start,
  // x 1 GPU.
  const Observed together = run(s, make_jobs(s, 1), "first-fit");
  const auto ooms = together.of(JobEventKind::kOomKilled);
  ASSERT_EQ(ooms.size(), 2u);
  for (const auto& kill : ooms) {
    EXPECT_DOUBLE_EQ(kill.lost_gpu_seconds, to_seconds(kill.at - start_of(together, kill.job)))
        << kill.job;
  }
  // The newcomer submitted at 20 s, checkpointing every 3 s: killed 8 s after its start, its
  // last checkpoint 6 s after it: it loses 8 - 6 = 2 GPU-seconds.
  Workload w = make_jobs(s, 1);
  w.jobs[1].submit_time = TimePoint(20s);
  w.jobs[1].checkpoint_interval = 3s;
  const Observed apart = run(s, w, "first-fit");
  const auto kill = apart.of(JobEventKind::kOomKilled);
  ASSERT_EQ(kill.size(), 1u);
  EXPECT_EQ(kill[0].at - start_of(apart, kill[0].job), 8s);
  EXPECT_NEAR(kill[0].lost_gpu_seconds, 2.0, 1e-9);
}

TEST(RunModel, QueueSortOfTheProfileDecidesWhoBindsFirst) {
  const Scenario s = scenario("queue_order.yaml");
  Workload w = make_jobs(s, 1);
  ASSERT_EQ(w.jobs.size(), 3u);
  w.jobs[0].name = "busy";
  w.jobs[1].name = "low";
  w.jobs[1].submit_time = TimePoint(10s);
  w.jobs[2].name = "high";
  w.jobs[2].submit_time = TimePoint(20s);
  w.jobs[2].pod_template.priority = 100;
  for (const auto& [scheduler, first] :
       std::map<std::string, std::string>{{"default-k8s", "high"}, {"first-fit", "low"}}) {
    const Observed o = run(s, w, scheduler);
    const auto binds = o.of(JobEventKind::kBound);
    ASSERT_EQ(binds.size(), 3u) << scheduler;
    EXPECT_EQ(binds[0].job, "busy") << scheduler;
    EXPECT_EQ(binds[1].job, first) << scheduler;
  }
}

TEST(RunModel, OnFailureRestartsInPlaceAndNeverReschedules) {
  const Scenario s = scenario("restart_policy.yaml");
  // most-allocated packs both heavy jobs onto the first node's card: one OOMs.
  for (const auto policy :
       {workloads::RestartPolicy::kOnFailure, workloads::RestartPolicy::kNever}) {
    Workload w = make_jobs(s, 1);
    for (auto& j : w.jobs) {
      j.restart_policy = policy;
    }
    const Observed o = run(s, w, "most-allocated");
    const auto ooms = o.of(JobEventKind::kOomKilled);
    ASSERT_GE(ooms.size(), 1u);
    const std::string victim = ooms.front().job;
    std::vector<JobEvent> victim_binds;
    for (const auto& e : o.of(JobEventKind::kBound)) {
      if (e.job == victim) {
        victim_binds.push_back(e);
      }
    }
    const auto restarts = o.of(JobEventKind::kRestarted);
    ASSERT_GE(restarts.size(), 1u);
    EXPECT_EQ(restarts.front().job, victim);
    if (policy == workloads::RestartPolicy::kOnFailure) {
      // The kubelet restarts the container after CrashLoopBackOff's first 10 s; the pod is
      // never bound again.
      EXPECT_EQ(victim_binds.size(), 1u);
      EXPECT_EQ(restarts.front().at - ooms.front().at, Duration(10s));
      EXPECT_EQ(restarts.front().attempt, 1);
    } else {
      // The Job controller creates a new pod after 10 s; the scheduler places it afresh.
      ASSERT_GE(victim_binds.size(), 2u);
      EXPECT_GE(victim_binds[1].at - ooms.front().at, Duration(10s));
      EXPECT_EQ(victim_binds[1].attempt, 1);
    }
  }
}

}  // namespace
}  // namespace tidesim
