// Shockwave's planner (sim/admission/shockwave_plan, shockwave_policy; uw-mad-dash/shockwave
// scheduler/shockwave.py and JobMetaData.py), worked by hand.
//
// The small case: 2 GPUs of one type, a plan of 2 rounds of 100 s, k = 1e-3, the artifact's log
// bases (0, 0.2, ..., 1; log 0 taken as log 1e-6). Three static jobs of one GPU, epochs of 100 s:
//   A: 10 epochs, none done; B: 10 epochs, 5 done; C: 2 epochs, none done.
// A static job's Dirichlet remaining time at p epochs done is (E - p - 1) x d (prior E counts,
// p + 1 observed, rebased to E, less the p + 1 observed; inflated = E - p): A 900, B 400, C 100.
#include <gtest/gtest.h>

#include <cmath>

#include "tidesim/sim/admission/gavel_allocation.hpp"
#include "tidesim/sim/admission/gavel_policy.hpp"
#include "tidesim/sim/admission/shockwave_plan.hpp"
#include "tidesim/sim/admission/shockwave_policy.hpp"

namespace tidesim::shockwave {
namespace {

Job job(int id, int epochs, int done, double submit = 0.0) {
  Job j;
  j.id = id;
  j.submit_s = submit;
  j.batch.assign(static_cast<std::size_t>(epochs), 32);
  j.epoch_s.assign(static_cast<std::size_t>(epochs), 100.0);
  j.progress = done;
  return j;
}

Config small() {
  Config c;
  c.future_rounds = 2;
  c.round_s = 100.0;
  return c;
}

std::vector<Job> three() {
  return {job(0, 10, 0), job(1, 10, 5), job(2, 2, 0)};
}

TEST(ShockwavePlan, StaticRemainingTimeIsTheEpochsAfterThisOne) {
  EXPECT_DOUBLE_EQ(remaining_runtime(job(0, 10, 0), 0), 900.0);
  EXPECT_DOUBLE_EQ(remaining_runtime(job(1, 10, 5), 5), 400.0);
  EXPECT_DOUBLE_EQ(remaining_runtime(job(2, 2, 0), 0), 100.0);
  EXPECT_DOUBLE_EQ(remaining_runtime(job(2, 2, 2), 2), 1.0);  // nothing left: 1
}

// A batch-size change in the schedule (two epochs at 32 of 100 s, then two at 64 of 50 s, as a
// GNS doubling gives) takes effect in the prediction once the job reaches the new batch's epoch:
// modes {32, 64}, prior 2 each.
//  0 done: counts 32: 3, 64: 2 -> rebased 2.4, 1.6; less 1 (32) -> 1.4, 1.6; sum 3 -> inflated 4;
//          1.4 x 100 + 1.6 x 50 = 220.
//  1 done: counts 4, 2 -> 2.667, 1.333; less 2 (32) -> 0.667, 1.333; inflated 3 = left 3;
//          66.67 + 66.67 = 400/3.
//  2 done (epoch 2 at 64 observed): counts 4, 3 -> 16/7, 12/7; less 2 and 1 -> 2/7, 5/7; sum 1,
//          inflated 2 = left 2; 200/7 + 250/7 = 450/7.
TEST(ShockwavePlan, BatchChangeTakesEffectInTheRemainingTime) {
  Job j = job(0, 4, 0);
  j.batch = {32, 32, 64, 64};
  j.epoch_s = {100.0, 100.0, 50.0, 50.0};
  EXPECT_NEAR(remaining_runtime(j, 0), 220.0, 1e-9);
  EXPECT_NEAR(remaining_runtime(j, 1), 400.0 / 3.0, 1e-9);
  EXPECT_NEAR(remaining_runtime(j, 2), 450.0 / 7.0, 1e-9);
}

// The same job seen through the admission layer: its view's profile and progress (half its work:
// 2 of 4 epochs) give the planner the epoch of the new batch.
TEST(ShockwavePolicy, JobsOfReadsTheProfileAndTheEpochsDone) {
  workloads::EpochProfile profile{.batch = {32, 32, 64, 64}, .seconds = {99.6, 100.2, 50.4, 0.2}};
  JobPolicyState state;
  JobView v;
  v.id = 7;
  v.gpus = 2;
  v.progress = 0.5;
  v.submitted = TimePoint(from_seconds(30.0));
  v.epochs = &profile;
  state.jobs.push_back(v);
  const std::vector<Job> jobs = jobs_of(state, {7});
  ASSERT_EQ(jobs.size(), 1U);
  EXPECT_EQ(jobs[0].progress, 2);
  EXPECT_EQ(jobs[0].workers, 2);
  EXPECT_DOUBLE_EQ(jobs[0].submit_s, 30.0);
  // JobMetaData rounds each epoch to whole seconds, at least 1.
  EXPECT_EQ(jobs[0].epoch_s, (std::vector<double>{100.0, 100.0, 50.0, 1.0}));
  state.jobs[0].epochs = nullptr;
  EXPECT_THROW(jobs_of(state, {7}), gavel::AllocationError);
}

// Equal share min(1, 2 / 3): B, submitted at 50 with 500 s done and 400 s left, finishes at
// 50 + 900 / (2/3) = 1,400.
TEST(ShockwavePlan, EqualShareFinish) {
  EXPECT_DOUBLE_EQ(equal_share_finish(job(1, 10, 5, 50.0), 2, 3), 1400.0);
}

// Estimates 100 from round 0 and 200 from round 2, at round 4: each held 2 rounds -> 150;
// 0.9 x 150 + 0.1 x 200 = 155.
TEST(ShockwavePlan, MomentumAverage) {
  EXPECT_DOUBLE_EQ(momentum_average({{0, 100.0}, {2, 200.0}}, 4, 0.9), 155.0);
  EXPECT_DOUBLE_EQ(momentum_average({{3, 100.0}}, 3, 0.9), 100.0);
}

// Targets far away: the finish-time constraints hold. The makespan term (k x max remaining: A's
// 900 - 100 p_A at best 700) gives A both rounds (0.1 a round, more than any utility but C's);
// of the 2 GPU-rounds left, C's log utility (x = p/2: slope 61/2 per epoch up to 0.4 epochs, then
// 1.73, 1.01, 0.72, 0.56, all over 6) beats B's (x = 0.5 + p/10: 0.2027, then 0.1438, over 6), so
// C gets both. Rounds: [A, C], [A, C].
TEST(ShockwavePlan, SmallCaseMeetsTheTargets) {
  const Counts counts = plan_counts(three(), {1e9, 1e9, 1e9}, 2, 0.0, small());
  EXPECT_FALSE(counts.relaxed);
  EXPECT_EQ(counts.rounds, (std::vector<int>{2, 0, 2}));
  const auto rounds = assign_rounds(three(), counts, 2, small());
  EXPECT_EQ(rounds, (std::vector<std::vector<int>>{{0, 2}, {0, 2}}));
}

// B's target 100 is before the plan's end (200): infeasible, so the constraints are dropped and
// B, behind by rho = (0 + 400 / (2/3)) / 100 = 6, is weighted 6^12 (clipped to 1e6 in the
// program). B then takes both its rounds (utility 0.2027 + 0.1438, x 1e6 / 6). The 2 GPU-rounds
// left are whole rounds (the artifact's 0/1 variable per job and round), p <= n: A 2 gives A's
// utility 2 x 6.103 / 6 + the makespan term 2 x 0.1 = 2.234; C 2 gives C's (x = p/2: 0.4 epochs
// at 30.5, then 0.4 each at 1.733, 1.013, 0.719, 0.558, all over 6) 2.302; A 1 and C 1 give
// 1.017 + 0.1 + 2.034 + 0.116 + 0.034 = 3.300, the best. (The linear relaxation's p = (1.6, 2,
// 0.4) gives C 0.4 of a round, which no round assignment can run.) Rounds: B has as many rounds
// as the plan (it runs in both); A and C tie (weight / count 1) and take one each, A first.
TEST(ShockwavePlan, SmallCaseRelaxesTheTargets) {
  const Counts counts = plan_counts(three(), {1e9, 100.0, 1e9}, 2, 0.0, small());
  EXPECT_TRUE(counts.relaxed);
  EXPECT_DOUBLE_EQ(counts.priority[1], std::pow(6.0, 12.0));
  EXPECT_DOUBLE_EQ(counts.priority[0], 1.0);
  EXPECT_EQ(counts.rounds, (std::vector<int>{1, 2, 1}));
  const auto rounds = assign_rounds(three(), counts, 2, small());
  EXPECT_EQ(rounds, (std::vector<std::vector<int>>{{1, 0}, {1, 2}}));
}

// rank_in_schedule_jobs keeps each job's count: A, planned both rounds, runs in both although
// B and C outweigh it (by weight alone B and C would take round 0 and A only round 1). B and C
// (weight / count 1e6) share the other GPU, B first (in the last round every job with a round
// left must run, the heavier first).
TEST(ShockwavePlan, EveryJobRunsItsCountOfRounds) {
  const Counts counts{.rounds = {2, 1, 1}, .priority = {1.0, 1e6, 1e6}, .relaxed = true};
  EXPECT_EQ(assign_rounds(three(), counts, 2, small()),
            (std::vector<std::vector<int>>{{0, 1}, {2, 0}}));
}

// rank_in_schedule_jobs minimises sum_j weight_j x (mean round of j): a round of job j costs
// weight_j / count_j x its index. One GPU, 5 rounds: A (weight 4, 4 rounds: 1 a round) and C
// (weight 3, 1 round: 3). C first costs 0 + A's 1 + 2 + 3 + 4 = 10; A first costs 0 + 1 + 2 + 3
// + C's 3 x 4 = 18. So C runs first, although A weighs more.
TEST(ShockwavePlan, RoundsRankByWeightPerRound) {
  Config c = small();
  c.future_rounds = 5;
  const std::vector<Job> jobs = {job(0, 10, 0), job(2, 2, 0)};
  const Counts counts{.rounds = {4, 1}, .priority = {4.0, 3.0}, .relaxed = true};
  EXPECT_EQ(assign_rounds(jobs, counts, 1, c),
            (std::vector<std::vector<int>>{{2}, {0}, {0}, {0}, {0}}));
}

// The artifact's work-conserving fill (construct_schedules): GPUs the plan leaves idle go to the
// jobs not chosen, by remaining time descending. With 3 GPUs and a 1-round plan every job fits.
TEST(ShockwavePlan, IdleGpusAreFilledByRemainingTime) {
  Config c = small();
  c.future_rounds = 1;
  const Counts counts{.rounds = {0, 0, 1}, .priority = {1.0, 1.0, 1.0}, .relaxed = false};
  EXPECT_EQ(assign_rounds(three(), counts, 3, c), (std::vector<std::vector<int>>{{2, 0, 1}}));
  EXPECT_EQ(assign_rounds(three(), counts, 2, c), (std::vector<std::vector<int>>{{2, 0}}));
}

// Re-solves (scheduler.py): at the first round, when the jobs change, every reopt_rounds rounds;
// otherwise the stored plan's round.
TEST(ShockwavePolicy, ResolvesOnArrivalsAndEveryReoptRounds) {
  Config c = small();
  c.future_rounds = 20;
  Scheduler s(c);
  std::vector<Job> jobs = three();
  for (int r = 0; r < 8; ++r) {
    s.round(jobs, 2, 100.0 * r);
  }
  EXPECT_EQ(s.solves(), 1);
  s.round(jobs, 2, 800.0);  // round 8
  EXPECT_EQ(s.solves(), 2);
  jobs.push_back(job(3, 4, 0, 850.0));
  s.round(jobs, 2, 900.0);
  EXPECT_EQ(s.solves(), 3);
  s.round(jobs, 2, 1000.0);
  EXPECT_EQ(s.solves(), 3);
}

ClusterView v100s(const std::vector<std::string>& models) {
  ClusterView c;
  for (std::size_t i = 0; i < models.size(); ++i) {
    NodeInfo n;
    n.node.name = "node-" + std::to_string(i);
    n.node.labels["nvidia.com/gpu.product"] = models[i];
    n.node.allocatable.gpus = 1;
    c.nodes.push_back(n);
  }
  return c;
}

// The small case through the job-level policy and Gavel's placement: round 0 estimates the
// targets under the share 2/3: A 900 x 1.5 = 1,350, B (500 s done + 400) x 1.5 = 1,350, C 150.
// C's is before the plan's end (200 s): relaxed, but every rho is at most 1 (A 1,350 / 1,350, B
// 600 / 1,350, C 150 / 150), so all weights stay 1 and the plan is SmallCaseMeetsTheTargets':
// A and C run, on node-0 and node-1.
TEST(ShockwavePolicy, RunsThePlanThroughGavelsRounds) {
  const ClusterView c = v100s({"V100-SXM2-16", "V100-SXM2-16"});
  workloads::EpochProfile ten{.batch = std::vector<int>(10, 32),
                              .seconds = std::vector<double>(10, 100.0)};
  workloads::EpochProfile two{.batch = {32, 32}, .seconds = {100.0, 100.0}};
  std::vector<JobView> jobs(3);
  for (int i = 0; i < 3; ++i) {
    jobs[static_cast<std::size_t>(i)].id = i;
    jobs[static_cast<std::size_t>(i)].gpus = 1;
    jobs[static_cast<std::size_t>(i)].throughputs = {{"V100-SXM2-16", 1.0}};
  }
  jobs[0].epochs = &ten;
  jobs[1].epochs = &ten;
  jobs[1].progress = 0.5;
  jobs[2].epochs = &two;
  AdmissionConfig config;
  config.args = {{"policy", "shockwave"}, {"round", "100"}, {"future_rounds", "2"}};
  GavelPolicy p(config);
  JobPolicyState state;
  state.jobs = jobs;
  state.cluster = &c;
  state.capacity_gpus = 2;
  const JobDecision d = p.decide(state);
  EXPECT_EQ(d.run, (std::vector<int>{0, 2}));
  EXPECT_EQ(d.pod_nodes.at(0), (std::vector<std::string>{"node-0"}));
  EXPECT_EQ(d.pod_nodes.at(2), (std::vector<std::string>{"node-1"}));
  // Two GPU types: the artifact plans one.
  const ClusterView mixed = v100s({"V100-SXM2-16", "P100"});
  state.cluster = &mixed;
  GavelPolicy q(config);
  EXPECT_THROW(q.decide(state), std::invalid_argument);
}

TEST(ShockwavePolicy, ArgumentsAreChecked) {
  const Config c = parse_config({{"future_rounds", "20"},
                                 {"k", "1e-3"},
                                 {"lambda", "12.0"},
                                 {"rhomax", "1.0"},
                                 {"log_approximation_bases", "[0.0, 0.2, 0.4, 0.6, 0.8, 1.0]"},
                                 {"gpu_ram", "16"},
                                 {"solver_rel_gap", "1e-3"},
                                 {"solver_num_threads", "24"},
                                 {"solver_timeout", "15"}},
                                120.0);
  EXPECT_EQ(c.future_rounds, 20);
  EXPECT_EQ(c.log_bases.size(), 6U);
  EXPECT_DOUBLE_EQ(c.round_s, 120.0);
  EXPECT_THROW(parse_config({{"future_rounds", "0"}}, 120.0), std::invalid_argument);
  EXPECT_THROW(parse_config({{"k", "0"}}, 120.0), std::invalid_argument);
  EXPECT_THROW(parse_config({{"log_approximation_bases", "0,0.5,0.4,1"}}, 120.0),
               std::invalid_argument);
  EXPECT_THROW(parse_config({{"log_approximation_bases", "0.1,0.5,1"}}, 120.0),
               std::invalid_argument);
  EXPECT_THROW(parse_config({{"solver_num_threads", "2.5"}}, 120.0), std::invalid_argument);
  EXPECT_DOUBLE_EQ(c.solver_rel_gap, 1e-3);
  EXPECT_EQ(parse_config({{"solver_max_nodes", "50"}}, 120.0).solver_max_nodes, 50);
  EXPECT_THROW(parse_config({{"solver_rel_gap", "2"}}, 120.0), std::invalid_argument);
  EXPECT_THROW(parse_config({{"solver_max_nodes", "-1"}}, 120.0), std::invalid_argument);
  AdmissionConfig other;
  other.args = {{"policy", "max_min_fairness"}, {"k", "1"}};
  EXPECT_THROW(GavelPolicy{other}, std::invalid_argument);
  AdmissionConfig sw;
  sw.args = {{"policy", "shockwave"}, {"round", "120"}, {"lambda", "5"}};
  EXPECT_NO_THROW(GavelPolicy{sw});
}

}  // namespace
}  // namespace tidesim::shockwave
