// Whole runs with preemption and gangs, observed through the run's signals: a preempted job
// resumes from its last checkpoint, and a gang binds all at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/job_scheduling.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

using test::Observed;
using test::run;
using test::seconds;

// One node with one A10. "low" (priority 0, 1000 s of work alone, checkpoints every 60 s of
// running, and backoffLimit 0 so that a preemption counted as a failure would fail it) binds and
// starts at 0 s; checkpoints at 60 s and 120 s. "high" (priority 100, 100 s) is submitted at
// 130 s: it fits nowhere, DefaultPreemption picks low's pod (the one lower-priority pod) and
// deletes it with a 30 s grace period. At 160 s low's attempt stops: it loses the 40 s since its
// 120 s checkpoint, 40 s x 1 GPU = 40 GPU-seconds, and its new pod is created at once (no
// back-off, not a failure). high binds at 160 s on its nominated node and runs 100 s: done at
// 260 s. low's new pod then binds and does the remaining 1000 - 120 = 880 s: done at about
// 260 + 880 = 1140 s (from step 0 it would be 1260 s; without the loss 1100 s).
TEST(JobScheduling, APreemptedJobResumesFromItsLastCheckpoint) {
  const Scenario s = load_scenario("tests/sim/data/preemption.yaml");
  Workload w = make_jobs(s, 1);
  ASSERT_EQ(w.jobs.size(), 2u);
  auto& low = w.jobs[0];
  auto& high = w.jobs[1];
  const std::int64_t steps_per_100s = low.steps;
  low.name = "low";
  low.steps = steps_per_100s * 10;
  low.backoff_limit = 0;
  high.name = "high";
  high.submit_time = TimePoint(130s);
  high.pod_template.priority = 100;
  const Observed o = run(s, w);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_EQ(o.summary.failed, 0);
  const auto evicted = o.of(JobEventKind::kEvicted, "low");
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].cause, "preemption");
  EXPECT_EQ(evicted[0].at, TimePoint(160s));
  EXPECT_DOUBLE_EQ(evicted[0].lost_gpu_seconds, 40.0);
  const auto restarted = o.of(JobEventKind::kRestarted, "low");
  ASSERT_EQ(restarted.size(), 1u);
  EXPECT_EQ(restarted[0].at, TimePoint(160s)) << "replaced at once, no Job back-off";
  const auto high_done = o.of(JobEventKind::kSucceeded, "high");
  ASSERT_EQ(high_done.size(), 1u);
  EXPECT_NEAR(seconds(high_done[0].at), 260.0, 0.1);
  const auto low_done = o.of(JobEventKind::kSucceeded, "low");
  ASSERT_EQ(low_done.size(), 1u);
  EXPECT_NEAR(seconds(low_done[0].at), 1140.0, 0.5);
  // Exactly: low's work is 10 x high's (steps, at the same uncontended speed), so its second
  // attempt runs 10 x high's run time - the 120 s it had checkpointed (the step count of 100 s
  // is rounded to whole steps, which is why the times above are "about").
  const auto high_started = o.of(JobEventKind::kStarted, "high");
  const auto low_started = o.of(JobEventKind::kStarted, "low");
  ASSERT_EQ(high_started.size(), 1u);
  ASSERT_EQ(low_started.size(), 2u);
  const double high_run = seconds(high_done[0].at) - seconds(high_started[0].at);
  EXPECT_NEAR(seconds(low_done[0].at) - seconds(low_started[1].at), 10 * high_run - 120.0, 1e-3);
  EXPECT_EQ(o.metrics.at("preemptions"), 1.0);
  EXPECT_DOUBLE_EQ(o.metrics.at("preemption_lost_gpu_s"), 40.0);
}

// Gangs in a whole run: a 1-GPU job holds one of the 4 cards for 100 s; a 4-pod gang
// (all-or-nothing) submitted at 1 s cannot fit on the 3 free cards, so every sample until the
// first job ends shows 1 GPU allocated (the gang holds none); at about 100 s all 4 pods bind at
// once. Its gang wait is from 1 s to that instant, about 99 s.
TEST(JobScheduling, AGangWaitsWithoutHoldingGpusThenBindsAtOnce) {
  for (const auto mode : {workloads::GangMode::kAllOrNothing, workloads::GangMode::kPermit}) {
    const Scenario s = load_scenario("tests/sim/data/job_scheduling.yaml");
    Workload w = make_jobs(s, 1);
    w.jobs[0].name = "busy";
    auto& gang = w.jobs[1];
    gang.name = "gang";
    gang.replicas = 4;
    gang.submit_time = TimePoint(1s);
    gang.gang = workloads::GangSpec{};
    gang.gang->mode = mode;
    gang.gang->schedule_timeout = 60s;
    gang.gang->min_resources = mode == workloads::GangMode::kPermit;
    const Observed o = run(s, w);
    const std::string label = workloads::to_string(mode);
    expect_gang_waited_without_holding_gpus(o, label);
    EXPECT_EQ(o.metrics.at("preemptions"), 0.0) << label;
  }
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

// Bad gang and preemption input is refused with its place and field.
std::string error_of(const std::string& jobs_extra, const std::string& run_extra = "") {
  const auto path = std::filesystem::temp_directory_path() / "tidesim-job-scheduling-bad.yaml";
  std::ofstream(path) << "name: bad\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - {name: gpu, count: 1, gpu: A10, topology: a10x4-pcie}\n"
                         "workload:\n"
                         "  arrivals: {process: burst, count: 1}\n"
                         "  jobs:\n"
                         "    - name: job\n"
                         "      model: resnet50\n"
                         "      batch_size: 64\n"
                         "      duration: 100s\n"
                      << jobs_extra << run_extra << "policies: [default-k8s]\n";
  try {
    const Scenario s = load_scenario(path.string());
    (void)make_jobs(s, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JobScheduling, BadGangAndPreemptionInputNamesTheField) {
  EXPECT_NE(error_of("      gang: {mode: sometimes}\n").find(":12:"), std::string::npos);
  EXPECT_NE(error_of("      gang: {mode: sometimes}\n").find("gang.mode"), std::string::npos);
  EXPECT_NE(
      error_of("      replicas: 2\n      gang: {min_member: 3}\n").find("min_member 3 is more"),
      std::string::npos);
  EXPECT_NE(error_of("      gang: {mode: all-or-nothing, schedule_timeout: 5s}\n")
                .find("only mode: permit reads schedule_timeout"),
            std::string::npos);
  EXPECT_NE(
      error_of("      pod: {gpus: 1, preemption_policy: Sometimes}\n").find("preemption_policy"),
      std::string::npos);
  EXPECT_NE(error_of("", "run:\n  preemption: {grace: 3s}\n").find("run.preemption.grace"),
            std::string::npos);
  EXPECT_EQ(error_of("      gang: {mode: permit}\n", "run:\n  preemption: {enabled: true}\n"), "");
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

// The shipped scenario exercises both mechanisms: under seed 1 some job is preempted and loses
// work, every job still finishes, and gangs of both modes bind.
TEST(JobScheduling, TheShippedScenarioPreemptsAndBindsGangs) {
  const Scenario s = load_scenario("scenarios/gangs-and-priorities.yaml");
  const Workload w = make_jobs(s, 1);
  const Observed o = run(s, w);
  EXPECT_EQ(o.summary.succeeded, static_cast<int>(w.jobs.size()));
  EXPECT_GT(o.metrics.at("preemptions"), 0.0);
  EXPECT_GT(o.metrics.at("preemption_lost_gpu_s"), 0.0);
  int gangs = 0;
  for (const auto& j : w.jobs) {
    gangs += j.gang.has_value();
  }
  // Every gang job bound at least once (a preempted one binds again).
  EXPECT_GE(o.metrics.at("gangs_bound"), static_cast<double>(gangs));
  EXPECT_GT(gangs, 0);
}

}  // namespace
}  // namespace tidesim
