// Whole runs under the admission layer (sim/model/admission_controller.hpp): the order in which
// FIFO, SRTF and Tiresias run three jobs on one GPU, worked by hand.
#include "tidesim/sim/model/admission_controller.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  RunSummary summary;
  std::map<std::string, double> done_s;  // job -> its kSucceeded time, seconds
  std::map<std::string, int> preempted;  // job -> kEvicted events with cause suspension
  std::map<std::string, double> lost_gpu_s;
};

// One A10, three 1-GPU jobs: A submitted at 0 s with 1000 s of work, B at 10 s with 100 s, C at
// 20 s with 50 s (steps from the fixture's 100 s job; each checkpoints every 60 s of running).
Outcome run(const std::string& policy) {
  const Scenario s = load_scenario("tests/sim/data/admission.yaml");
  Workload w = make_jobs(s, 1);
  const std::int64_t per_100s = w.jobs[0].steps;
  const char* names[] = {"A", "B", "C"};
  const int submit[] = {0, 10, 20};
  const std::int64_t steps[] = {per_100s * 10, per_100s, per_100s / 2};
  const int seconds[] = {1000, 100, 50};  // the run times SJF/SRTF know
  for (int i = 0; i < 3; ++i) {
    w.jobs[i].name = names[i];
    w.jobs[i].pod_template.name = names[i];
    w.jobs[i].submit_time = TimePoint(std::chrono::seconds(submit[i]));
    w.jobs[i].steps = steps[i];
    w.jobs[i].duration = std::chrono::seconds(seconds[i]);
  }
  const auto it = std::find_if(s.policies.begin(), s.policies.end(),
                               [&](const PolicyConfig& p) { return p.name == policy; });
  RunSignals signals;
  Outcome o;
  signals.job.connect([&o](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded) {
      o.done_s[e.job] = to_seconds(e.at);
    }
    if (e.kind == JobEventKind::kEvicted && e.cause == "suspension") {
      ++o.preempted[e.job];
      o.lost_gpu_s[e.job] += e.lost_gpu_seconds;
    }
  });
  o.summary = run_policy(s, w, *it, 1, signals);
  return o;
}

// Within 1 s of the hand-worked times: each bind takes one 10 ms scheduling cycle, and the steps
// of 100 s are rounded to whole steps (A's 1,000 s of work takes 1,000.4 s).
constexpr double kTol = 1.0;

TEST(Admission, FifoRunsTheJobsInArrivalOrder) {
  // A 0 -> 1000 s, then B 1000 -> 1100 s, then C 1100 -> 1150 s; nothing preempted.
  const Outcome o = run("fifo");
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_NEAR(o.done_s.at("A"), 1000, kTol);
  EXPECT_NEAR(o.done_s.at("B"), 1100, kTol);
  EXPECT_NEAR(o.done_s.at("C"), 1150, kTol);
  EXPECT_TRUE(o.preempted.empty());
}

TEST(Admission, SrtfPreemptsForTheShortestRemainingTime) {
  // 10 s: B (100 s left) < A (990 s left): A is suspended, losing its 10 s (no checkpoint yet).
  // 20 s: C (50 s) < B (90 s): B is suspended, losing its 10 s. C runs 20 -> 70 s; then B
  // (100 s) before A (1000 s): B 70 -> 170 s, A 170 -> 1170 s.
  const Outcome o = run("srtf");
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_NEAR(o.done_s.at("C"), 70, kTol);
  EXPECT_NEAR(o.done_s.at("B"), 170, kTol);
  EXPECT_NEAR(o.done_s.at("A"), 1170, kTol);
  EXPECT_EQ(o.preempted.at("A"), 1);
  EXPECT_EQ(o.preempted.at("B"), 1);
  EXPECT_NEAR(o.lost_gpu_s.at("A"), 10, kTol);
  EXPECT_NEAR(o.lost_gpu_s.at("B"), 10, kTol);
}

TEST(Admission, TiresiasDemotesAfterTheThresholdAndResumesFromTheCheckpoint) {
  // Threshold 200 GPU-s, checked every 5 s. A (queue 0, first) runs alone until 200 s, when its
  // 1 GPU x 200 s reaches the threshold: demoted to queue 1, suspended, it loses the 20 s since
  // its 180 s checkpoint. B (queue 0) runs 200 -> 300 s (100 GPU-s, below the threshold), C
  // 300 -> 350 s, then A resumes at its checkpoint (820 s left): done at 1170 s.
  const Outcome o = run("tiresias");
  EXPECT_EQ(o.summary.succeeded, 3);
  EXPECT_NEAR(o.done_s.at("B"), 300, kTol);
  EXPECT_NEAR(o.done_s.at("C"), 350, kTol);
  EXPECT_NEAR(o.done_s.at("A"), 1170, kTol);
  EXPECT_EQ(o.preempted.at("A"), 1);
  EXPECT_EQ(o.preempted.count("B"), 0u);
  EXPECT_NEAR(o.lost_gpu_s.at("A"), 20, kTol);
}

}  // namespace
}  // namespace tidesim
