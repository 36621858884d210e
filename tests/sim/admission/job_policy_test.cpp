// The job-level policies' decisions (sim/admission/builtin_job_policies.hpp) and the policy
// registry (sim/admission/job_policy_registry.hpp), worked by hand.
#include "tidesim/sim/admission/job_policy.hpp"

#include <gtest/gtest.h>

#include "tidesim/sim/admission/builtin_job_policies.hpp"
#include "tidesim/sim/admission/job_policy_registry.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

JobView job(int id, int submitted_s, int gpus, double estimate_s, bool admitted = false) {
  JobView j;
  j.id = id;
  j.submitted = TimePoint(std::chrono::seconds(submitted_s));
  j.order = id;
  j.gpus = gpus;
  j.estimate_s = estimate_s;
  j.remaining_s = estimate_s;
  j.admitted = admitted;
  return j;
}

JobPolicyState state_of(std::vector<JobView> jobs, std::int64_t capacity, int now_s = 20) {
  JobPolicyState s;
  s.now = TimePoint(std::chrono::seconds(now_s));
  s.jobs = std::move(jobs);
  s.capacity_gpus = capacity;
  return s;
}

std::vector<int> run(JobPolicy& policy, const std::vector<JobView>& jobs, std::int64_t capacity) {
  return policy.decide(state_of(jobs, capacity)).run;
}

// Three jobs on a 4-GPU cluster at t = 20 s: A (id 0, submitted 0 s, 4 GPUs, 1000 s, running
// since 0 s: 980 s left), B (id 1, 10 s, 2 GPUs, 100 s) and C (id 2, 20 s, 2 GPUs, 50 s), both
// waiting.
std::vector<JobView> three_jobs() {
  std::vector<JobView> jobs = {job(0, 0, 4, 1000, true), job(1, 10, 2, 100), job(2, 20, 2, 50)};
  jobs[0].remaining_s = 980;
  return jobs;
}

// Tiresias' state of A after running 20 s on 4 GPUs (80 GPU-s attained), B and C fresh behind it.
TiresiasPolicy tiresias(std::vector<double> thresholds, double starvation_limit = 0) {
  AdmissionConfig c;
  c.policy = "tiresias";
  c.thresholds = std::move(thresholds);
  c.starvation_limit = starvation_limit;
  TiresiasPolicy t(c);
  for (int id = 0; id < 3; ++id) {
    TiresiasPolicy::Entry e;
    e.queue_seq = id;
    e.accounted = TimePoint(20s);
    if (id == 0) {
      e.service_gpu_s = 80;
      e.executed_s = 20;
    }
    t.set_entry(id, e);
  }
  return t;
}

TEST(JobPolicy, FifoKeepsTheRunningJobAndQueuesByArrival) {
  // FIFO is not preemptive: A keeps its 4 GPUs; nothing is left for B or C.
  FifoPolicy fifo;
  EXPECT_EQ(run(fifo, three_jobs(), 4), (std::vector<int>{0}));
  // When A has ended, B (earlier) then C: 2 + 2 GPUs fit both.
  auto jobs = three_jobs();
  jobs.erase(jobs.begin());
  EXPECT_EQ(run(fifo, jobs, 4), (std::vector<int>{1, 2}));
  // On 3 GPUs only B fits; C (2 GPUs) does not fit the 1 left.
  EXPECT_EQ(run(fifo, jobs, 3), (std::vector<int>{1}));
  EXPECT_EQ(fifo.interval(), std::nullopt);  // event-driven
}

TEST(JobPolicy, SrtfPreemptsForShorterRemainingWork) {
  // Remaining: C 50 s < B 100 s < A 980 s. C fits (2 of 4), B fits (2 left), A (4) does not:
  // A is preempted.
  SrtfPolicy srtf;
  EXPECT_EQ(run(srtf, three_jobs(), 4), (std::vector<int>{1, 2}));
  EXPECT_EQ(srtf.interval(), std::optional<Duration>(60s));
  // SJF orders the waiting jobs the same way but keeps A.
  SjfPolicy sjf;
  EXPECT_EQ(run(sjf, three_jobs(), 4), (std::vector<int>{0}));
  // SJF's order among waiting jobs: C (50 s) before B (100 s) though B came first.
  const std::vector<std::size_t> order = sjf.order(state_of(three_jobs(), 4));
  EXPECT_EQ(order, (std::vector<std::size_t>{2, 1, 0}));
}

TEST(JobPolicy, TiresiasDemotesAfterTheThresholdThenServesTheFirstQueue) {
  // Threshold 1000 GPU-s: A's 80 GPU-s keep it in queue 0 ahead of B and C (FIFO in a queue).
  TiresiasPolicy t = tiresias({1000});
  EXPECT_EQ(run(t, three_jobs(), 4), (std::vector<int>{0}));
  EXPECT_EQ(t.moved(), 0);
  // Threshold 60 GPU-s: A (80 >= 60) is demoted to queue 1, behind B and C of queue 0, which
  // take the 4 GPUs: A is preempted. Its new place is the next sequence number, 3.
  t = tiresias({60});
  EXPECT_EQ(run(t, three_jobs(), 4), (std::vector<int>{1, 2}));
  EXPECT_EQ(t.moved(), 1);
  EXPECT_EQ(t.entry(0).queue, 1);
  EXPECT_EQ(t.entry(0).queue_seq, 3);
  // Two thresholds, 50 and 70: 80 GPU-s passes both, straight to queue 2.
  t = tiresias({50, 70});
  run(t, three_jobs(), 4);
  EXPECT_EQ(t.entry(0).queue, 2);
}

TEST(JobPolicy, TiresiasAccountsServiceBetweenDecisions) {
  // A runs on 4 GPUs from 20 s; at 30 s it has 80 + 10 x 4 = 120 GPU-s and 30 s executed: under a
  // 100 GPU-s threshold it is demoted then, not at 20 s. B, waiting and never run, does not
  // starve (its starving time counts only once it has run).
  TiresiasPolicy t = tiresias({100});
  EXPECT_EQ(t.decide(state_of(three_jobs(), 4, 20)).run, (std::vector<int>{0}));
  EXPECT_EQ(t.entry(0).queue, 0);
  EXPECT_EQ(t.decide(state_of(three_jobs(), 4, 30)).run, (std::vector<int>{1, 2}));
  EXPECT_EQ(t.entry(0).service_gpu_s, 120);
  EXPECT_EQ(t.entry(0).executed_s, 30);
  EXPECT_EQ(t.entry(0).queue, 1);
  EXPECT_EQ(t.entry(1).starving_s, 0);
}

TEST(JobPolicy, TiresiasGivesNewJobsTheirPlaceInSubmissionOrder) {
  // Two jobs first seen in one decision, listed by id (3 before 2) but submitted 2 before 3:
  // they join queue 0 in submission order.
  AdmissionConfig c;
  TiresiasPolicy t(c);
  std::vector<JobView> jobs = {job(2, 0, 1, 10), job(3, 0, 1, 10)};
  jobs[0].order = 7;
  jobs[1].order = 6;
  t.decide(state_of(jobs, 4));
  EXPECT_LT(t.entry(3).queue_seq, t.entry(2).queue_seq);
}

TEST(JobPolicy, TiresiasPromotesAStarvedJob) {
  // STARVELIMIT 1.5: a waiting job of queue 1 that ran 100 s is promoted once it has starved
  // 1.5 x 100 = 150 s, and its attained service starts again from 0.
  AdmissionConfig c;
  c.thresholds = {60};
  c.starvation_limit = 1.5;
  TiresiasPolicy t(c);
  TiresiasPolicy::Entry e;
  e.queue = 1;
  e.queue_seq = 9;
  e.executed_s = 100;
  e.service_gpu_s = 100;
  e.starving_s = 149;
  e.accounted = TimePoint(20s);
  t.set_entry(0, e);
  const std::vector<JobView> jobs = {job(0, 0, 1, 500)};
  t.decide(state_of(jobs, 4, 20));
  EXPECT_EQ(t.moved(), 0);
  t.decide(state_of(jobs, 4, 21));  // one more second waiting: 150 s
  EXPECT_EQ(t.moved(), 1);
  EXPECT_EQ(t.entry(0).queue, 0);
  EXPECT_EQ(t.entry(0).service_gpu_s, 0);
  EXPECT_EQ(t.entry(0).queue_seq, 10);
  // Off (0): never promoted.
  c.starvation_limit = 0;
  TiresiasPolicy off(c);
  e.starving_s = 1e9;
  off.set_entry(0, e);
  off.decide(state_of(jobs, 4, 20));
  EXPECT_EQ(off.moved(), 0);
  EXPECT_EQ(off.entry(0).queue, 1);
}

TEST(JobPolicy, BackfillWalksPastAJobThatDoesNotFit) {
  // 4 GPUs; A (2, running); B (4, waiting, earlier) cannot fit the 2 left; C (1) can.
  const std::vector<JobView> jobs = {job(0, 0, 2, 10, true), job(1, 1, 4, 10), job(2, 2, 1, 10)};
  FifoPolicy backfill(true);
  EXPECT_EQ(run(backfill, jobs, 4), (std::vector<int>{0, 2}));
  FifoPolicy strict(false);  // strict FIFO: C waits behind B
  EXPECT_EQ(run(strict, jobs, 4), (std::vector<int>{0}));
}

// A policy written against the interface: the job with the most GPUs first, preemptive.
class MostGpusFirst final : public OrderedJobPolicy {
 public:
  MostGpusFirst() : OrderedJobPolicy(true, true) {}
  std::string_view name() const override { return "most-gpus-first"; }
  bool before(const JobView& a, const JobView& b) const override { return a.gpus > b.gpus; }
};

TEST(JobPolicyRegistry, HasTheBuiltInsAndTakesNewPolicies) {
  const std::vector<std::string> names = job_policy_names();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4),
            (std::vector<std::string>{"fifo", "sjf", "srtf", "tiresias"}));
  AdmissionConfig c;
  c.policy = "tiresias";
  EXPECT_EQ(make_job_policy(c)->name(), "tiresias");
  c.policy = "most-gpus-first";
  EXPECT_THROW(make_job_policy(c), std::invalid_argument);
  register_job_policy({"most-gpus-first",
                       {},
                       [](const AdmissionConfig&) { return std::make_unique<MostGpusFirst>(); },
                       true,
                       false});
  const std::unique_ptr<JobPolicy> p = make_job_policy(c);
  // A (4 GPUs) first, then B or C do not fit; with 6 GPUs: A, then B (2, earlier than C).
  EXPECT_EQ(run(*p, three_jobs(), 4), (std::vector<int>{0}));
  EXPECT_EQ(run(*p, three_jobs(), 6), (std::vector<int>{0, 1}));
  // Its entry reads `args:` only; a built-in's name cannot be taken.
  EXPECT_EQ(find_job_policy("most-gpus-first")->keys,
            (std::vector<AdmissionKey>{AdmissionKey::kArgs}));
  EXPECT_THROW(
      register_job_policy(
          {"fifo", {}, [](const AdmissionConfig&) { return std::make_unique<MostGpusFirst>(); }}),
      std::invalid_argument);
}

// A registry is a value (as kube-scheduler's plugin Registry): two hold different policies of
// one name, a configuration builds its policy from the registry it was read with, and neither
// changes the default registry.
TEST(JobPolicyRegistry, TwoValuesHoldDifferentPoliciesOfOneName) {
  const JobPolicyRegistry builtin = JobPolicyRegistry::builtin();
  const auto entry = [](bool largest_first) {
    return JobPolicyEntry{"mine",
                          {},
                          [largest_first](const AdmissionConfig&) -> std::unique_ptr<JobPolicy> {
                            if (largest_first) {
                              return std::make_unique<MostGpusFirst>();
                            }
                            return std::make_unique<FifoPolicy>(false);
                          },
                          true,
                          false,
                          nullptr};
  };
  const JobPolicyRegistryPtr a = job_policy_registry_with(builtin, {entry(true)});
  const JobPolicyRegistryPtr b = job_policy_registry_with(builtin, {entry(false)});
  AdmissionConfig c;
  c.policy = "mine";
  c.registry = a;
  EXPECT_EQ(make_job_policy(c)->name(), "most-gpus-first");
  c.registry = b;
  EXPECT_EQ(make_job_policy(c)->name(), "fifo");
  EXPECT_EQ(b->names().back(), "mine");
  EXPECT_EQ(builtin.find("mine"), nullptr);
  EXPECT_FALSE(find_job_policy("mine").has_value());
  // A built-in's name cannot be taken in a value either.
  JobPolicyEntry fifo = entry(true);
  fifo.name = "fifo";
  EXPECT_THROW((void)job_policy_registry_with(builtin, {fifo}), std::invalid_argument);
}

}  // namespace
}  // namespace tidesim
