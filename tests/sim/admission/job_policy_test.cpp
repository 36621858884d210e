// The job-level policies' decisions (sim/admission/job_policy.hpp), worked by hand.
#include "tidesim/sim/admission/job_policy.hpp"

#include <gtest/gtest.h>

namespace tidesim {
namespace {

using namespace std::chrono_literals;

PolicyJob job(int id, int submitted_s, int gpus, double estimate_s, bool admitted = false) {
  PolicyJob j;
  j.id = id;
  j.submitted = TimePoint(std::chrono::seconds(submitted_s));
  j.order = id;
  j.queue_seq = id;
  j.gpus = gpus;
  j.estimate_s = estimate_s;
  j.remaining_s = estimate_s;
  j.admitted = admitted;
  return j;
}

AdmissionConfig config(JobPolicyKind kind) {
  AdmissionConfig c;
  c.policy = kind;
  return c;
}

// Three jobs on a 4-GPU cluster at t = 20 s: A (id 0, submitted 0 s, 4 GPUs, 1000 s, running
// since 0 s: 980 s left, 80 GPU-s attained), B (id 1, 10 s, 2 GPUs, 100 s) and C (id 2, 20 s,
// 2 GPUs, 50 s), both waiting.
std::vector<PolicyJob> three_jobs() {
  std::vector<PolicyJob> jobs = {job(0, 0, 4, 1000, true), job(1, 10, 2, 100), job(2, 20, 2, 50)};
  jobs[0].remaining_s = 980;
  jobs[0].service_gpu_s = 80;
  jobs[0].executed_s = 20;
  return jobs;
}

TEST(JobPolicy, FifoKeepsTheRunningJobAndQueuesByArrival) {
  // FIFO is not preemptive: A keeps its 4 GPUs; nothing is left for B or C.
  EXPECT_EQ(select_jobs(three_jobs(), config(JobPolicyKind::kFifo), 4), (std::vector<int>{0}));
  // When A has ended, B (earlier) then C: 2 + 2 GPUs fit both.
  auto jobs = three_jobs();
  jobs.erase(jobs.begin());
  EXPECT_EQ(select_jobs(jobs, config(JobPolicyKind::kFifo), 4), (std::vector<int>{1, 2}));
  // On 3 GPUs only B fits; C (2 GPUs) does not fit the 1 left.
  EXPECT_EQ(select_jobs(jobs, config(JobPolicyKind::kFifo), 3), (std::vector<int>{1}));
}

TEST(JobPolicy, SrtfPreemptsForShorterRemainingWork) {
  // Remaining: C 50 s < B 100 s < A 980 s. C fits (2 of 4), B fits (2 left), A (4) does not:
  // A is preempted.
  EXPECT_EQ(select_jobs(three_jobs(), config(JobPolicyKind::kSrtf), 4), (std::vector<int>{1, 2}));
  // SJF orders the waiting jobs the same way but keeps A.
  EXPECT_EQ(select_jobs(three_jobs(), config(JobPolicyKind::kSjf), 4), (std::vector<int>{0}));
}

TEST(JobPolicy, TiresiasDemotesAfterTheThresholdThenServesTheFirstQueue) {
  // Threshold 1000 GPU-s: A's 80 GPU-s keep it in queue 0 ahead of B and C (FIFO in a queue).
  AdmissionConfig c = config(JobPolicyKind::kTiresias);
  c.thresholds = {1000};
  std::int64_t seq = 3;
  auto jobs = three_jobs();
  EXPECT_EQ(tiresias_update(jobs, c, seq), 0);
  EXPECT_EQ(select_jobs(jobs, c, 4), (std::vector<int>{0}));
  // Threshold 60 GPU-s: A (80 >= 60) is demoted to queue 1, behind B and C of queue 0, which
  // take the 4 GPUs: A is preempted.
  c.thresholds = {60};
  EXPECT_EQ(tiresias_update(jobs, c, seq), 1);
  EXPECT_EQ(jobs[0].queue, 1);
  EXPECT_EQ(jobs[0].queue_seq, 3);
  EXPECT_EQ(seq, 4);
  EXPECT_EQ(select_jobs(jobs, c, 4), (std::vector<int>{1, 2}));
  // Two thresholds, 50 and 70: 80 GPU-s passes both, straight to queue 2.
  c.thresholds = {50, 70};
  jobs = three_jobs();
  tiresias_update(jobs, c, seq);
  EXPECT_EQ(jobs[0].queue, 2);
}

TEST(JobPolicy, TiresiasPromotesAStarvedJob) {
  // STARVELIMIT 1.5: a waiting job of queue 1 that ran 100 s is promoted once it has starved
  // 1.5 x 100 = 150 s, and its attained service starts again from 0.
  AdmissionConfig c = config(JobPolicyKind::kTiresias);
  c.thresholds = {60};
  c.starvation_limit = 1.5;
  PolicyJob j = job(0, 0, 1, 500);
  j.queue = 1;
  j.executed_s = 100;
  j.service_gpu_s = 100;
  j.starving_s = 149;
  std::vector<PolicyJob> jobs = {j};
  std::int64_t seq = 10;
  EXPECT_EQ(tiresias_update(jobs, c, seq), 0);
  jobs[0].starving_s = 150;
  EXPECT_EQ(tiresias_update(jobs, c, seq), 1);
  EXPECT_EQ(jobs[0].queue, 0);
  EXPECT_EQ(jobs[0].service_gpu_s, 0);
  EXPECT_EQ(jobs[0].queue_seq, 10);
  // Off (0): never promoted.
  c.starvation_limit = 0;
  jobs[0].queue = 1;
  jobs[0].executed_s = 100;
  jobs[0].starving_s = 1e9;
  jobs[0].service_gpu_s = 0;
  EXPECT_EQ(tiresias_update(jobs, c, seq), 0);
}

TEST(JobPolicy, BackfillWalksPastAJobThatDoesNotFit) {
  // 4 GPUs; A (2, running); B (4, waiting, earlier) cannot fit the 2 left; C (1) can.
  std::vector<PolicyJob> jobs = {job(0, 0, 2, 10, true), job(1, 1, 4, 10), job(2, 2, 1, 10)};
  AdmissionConfig c = config(JobPolicyKind::kFifo);
  EXPECT_EQ(select_jobs(jobs, c, 4), (std::vector<int>{0, 2}));
  c.backfill = false;  // strict FIFO: C waits behind B
  EXPECT_EQ(select_jobs(jobs, c, 4), (std::vector<int>{0}));
}

}  // namespace
}  // namespace tidesim
