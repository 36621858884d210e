// Kueue-style queues and quotas (sim/admission/quota.hpp): the quota walk on hand-worked cases,
// whole runs of two teams sharing a 4-GPU cluster with and without reclaim, their quota metrics,
// and bad input refused with its place and field.
#include "tidesim/sim/admission/quota.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/quota.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// Two ClusterQueues of `nominal` GPUs each in cohort "shared".
QuotaConfig two_teams(std::int64_t nominal, bool reclaim,
                      std::optional<std::int64_t> limit = std::nullopt) {
  QuotaConfig q;
  q.resources = {kGpuResource};
  for (const char* name : {"team-a", "team-b"}) {
    ClusterQueueConfig c;
    c.name = name;
    c.cohort = "shared";
    ResourceQuota gpus;
    gpus.covered = true;
    gpus.nominal = nominal;
    gpus.borrowing_limit = limit;
    c.quota = {gpus};
    c.reclaim_within_cohort = reclaim ? ReclaimWithinCohort::kAny : ReclaimWithinCohort::kNever;
    q.local_queues[name] = static_cast<int>(q.cluster_queues.size());
    q.cluster_queues.push_back(c);
  }
  return q;
}

QuotaJob job(int id, int gpus, int queue, bool kept = false, int admitted_s = 0,
             std::int32_t priority = 0) {
  QuotaJob j;
  j.priority = priority;
  j.id = id;
  j.gpus = gpus;
  j.requests = {gpus};  // nvidia.com/gpu, the only resource of two_teams()
  j.queue = queue;
  j.admitted = kept;
  j.kept = kept;
  j.admitted_at = TimePoint(std::chrono::seconds(admitted_s));
  j.order = id;
  return j;
}

TEST(QuotaWalk, BorrowsTheCohortsUnusedQuota) {
  // 2 + 2 GPUs nominal, 4 free: team-a's four 1-GPU jobs use its 2 and borrow team-b's 2.
  const QuotaDecision d = select_with_quotas(
      {job(0, 1, 0), job(1, 1, 0), job(2, 1, 0), job(3, 1, 0)}, two_teams(2, false), 4);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(d.reclaimed.empty());
}

TEST(QuotaWalk, BorrowingLimitCapsTheBorrowing) {
  // borrowingLimit 1: team-a may hold 2 + 1 = 3 GPUs; the fourth job waits (BestEffortFIFO walks
  // on: team-b's job behind it is admitted).
  const QuotaDecision d =
      select_with_quotas({job(0, 1, 0), job(1, 1, 0), job(2, 1, 0), job(3, 1, 0), job(4, 1, 1)},
                         two_teams(2, false, 1), 4);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2, 4}));
}

TEST(QuotaWalk, WithoutACohortTheNominalQuotaIsTheLimit) {
  QuotaConfig q = two_teams(2, false);
  q.cluster_queues[0].cohort.clear();
  q.cluster_queues[1].cohort.clear();
  const QuotaDecision d = select_with_quotas({job(0, 1, 0), job(1, 1, 0), job(2, 1, 0)}, q, 4);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1}));
}

TEST(QuotaWalk, ReclaimSuspendsTheBorrowersNewestJobs) {
  // team-a holds 4 (2 borrowed), admitted at 0, 1, 2, 3 s. team-b's 2-GPU job is within its
  // nominal 2: the cohort (4) is full, so team-a's newest, jobs 3 then 2, are reclaimed; team-a
  // is then at its nominal 2 and nothing more is taken.
  const std::vector<QuotaJob> jobs = {job(0, 1, 0, true, 0), job(1, 1, 0, true, 1),
                                      job(2, 1, 0, true, 2), job(3, 1, 0, true, 3), job(4, 2, 1)};
  const QuotaDecision reclaim = select_with_quotas(jobs, two_teams(2, true), 4);
  EXPECT_EQ(reclaim.chosen, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(reclaim.reclaimed, (std::vector<int>{2, 3}));
  // Never: team-b waits.
  const QuotaDecision never = select_with_quotas(jobs, two_teams(2, false), 4);
  EXPECT_EQ(never.chosen, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(never.reclaimed.empty());
  // A 3-GPU job would exceed team-b's nominal 2: reclaim does not apply, nothing is taken.
  std::vector<QuotaJob> big = jobs;
  big[4].gpus = 3;
  const QuotaDecision over = select_with_quotas(big, two_teams(2, true), 4);
  EXPECT_TRUE(over.reclaimed.empty());
}

TEST(QuotaWalk, StrictFifoBlocksOnlyItsOwnQueue) {
  // team-a: StrictFIFO, nominal 2, no cohort. Its 3-GPU head does not fit: its 1-GPU job behind
  // waits too; team-b's job is admitted.
  QuotaConfig q = two_teams(2, false);
  q.cluster_queues[0].cohort.clear();
  q.cluster_queues[0].strict_fifo = true;
  const QuotaDecision strict = select_with_quotas({job(0, 3, 0), job(1, 1, 0), job(2, 1, 1)}, q, 4);
  EXPECT_EQ(strict.chosen, (std::vector<int>{2}));
  q.cluster_queues[0].strict_fifo = false;  // BestEffortFIFO: job 1 goes past the head
  const QuotaDecision best = select_with_quotas({job(0, 3, 0), job(1, 1, 0), job(2, 1, 1)}, q, 4);
  EXPECT_EQ(best.chosen, (std::vector<int>{1, 2}));
}

// Two queues covering nvidia.com/gpu and cpu (millicores) outside a cohort (or in "shared").
QuotaConfig gpu_and_cpu(std::int64_t gpus, std::int64_t cpu_milli, bool cohort, bool reclaim) {
  QuotaConfig q;
  q.resources = {kGpuResource, "cpu", "memory"};  // memory: covered by no queue
  for (const char* name : {"team-a", "team-b"}) {
    ClusterQueueConfig c;
    c.name = name;
    c.cohort = cohort ? "shared" : "";
    c.quota.resize(3);
    c.quota[0].covered = c.quota[1].covered = true;
    c.quota[0].nominal = gpus;
    c.quota[1].nominal = cpu_milli;
    c.reclaim_within_cohort = reclaim ? ReclaimWithinCohort::kAny : ReclaimWithinCohort::kNever;
    q.local_queues[name] = static_cast<int>(q.cluster_queues.size());
    q.cluster_queues.push_back(c);
  }
  return q;
}

QuotaJob job_asking(int id, int queue, std::vector<std::int64_t> requests, bool kept = false,
                    int admitted_s = 0) {
  QuotaJob j = job(id, static_cast<int>(requests[0]), queue, kept, admitted_s);
  j.requests = std::move(requests);
  return j;
}

TEST(QuotaWalk, AJobFitsWhenEveryCoveredResourceFits) {
  // team-a: 4 GPUs and 8 CPUs (8,000 m) nominal, no cohort. Jobs 0 and 1 (1 GPU, 4 CPUs) use
  // 2 GPUs and all 8 CPUs; job 2 (1 GPU, 1 CPU) fits the GPUs (3 <= 4) but not the CPUs
  // (8,000 + 1,000 > 8,000): it waits. Job 3 asks 1 GPU, no CPU and 1 TiB of memory, which no
  // queue covers: only its GPU counts (3 <= 4), it is admitted.
  const QuotaDecision d = select_with_quotas(
      {job_asking(0, 0, {1, 4000, 0}), job_asking(1, 0, {1, 4000, 0}),
       job_asking(2, 0, {1, 1000, 0}), job_asking(3, 0, {1, 0, std::int64_t{1} << 40})},
      gpu_and_cpu(4, 8000, false, false), 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 3}));
}

TEST(QuotaWalk, ReclaimTakesOnlyJobsBorrowingWhatThePreemptorAsks) {
  // team-a and team-b: 2 GPUs and 4 CPUs nominal each, one cohort (4 GPUs, 8 CPUs). team-a
  // holds job 0 (3 GPUs: 1 borrowed, admitted at 0 s) and job 1 (no GPU, 6 CPUs: 2 borrowed,
  // admitted at 1 s). team-b's job 2 asks 2 GPUs, within its nominal: the cohort has 4 - 3 = 1
  // GPU left. Newest first: job 1 borrows CPUs, which job 2 does not ask (skipped); job 0
  // borrows GPUs: reclaimed, and job 2 fits (team-a 0 + team-b 2 GPUs).
  const QuotaDecision d =
      select_with_quotas({job_asking(0, 0, {3, 0, 0}, true, 0),
                          job_asking(1, 0, {0, 6000, 0}, true, 1), job_asking(2, 1, {2, 0, 0})},
                         gpu_and_cpu(2, 4000, true, true), 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.reclaimed, (std::vector<int>{0}));
}

TEST(QuotaWalk, LendingLimitKeepsTheRestOfTheNominalQuotaForItsQueue) {
  // team-a and team-b: 4 GPUs nominal each, one cohort, 10 GPUs free. team-b's lendingLimit 1:
  // its guaranteed part G = 4 - 1 = 3; the cohort's lendable pool Q = (4 - 0) + (4 - 3) = 5.
  // team-a's six 1-GPU jobs: available(a) = 0 + (Q - U) with U = team-a's usage: jobs 0..4 fit
  // (U = 5), job 5 does not. team-b's 3-GPU job 6: max(0, 3 - 0) + (5 - 5) = 3: fits; its
  // 1-GPU job 7: max(0, 3 - 3) + 0 = 0: waits.
  QuotaConfig q = two_teams(4, false);
  q.cluster_queues[1].quota[0].lending_limit = 1;
  std::vector<QuotaJob> jobs;
  for (int i = 0; i < 6; ++i) {
    jobs.push_back(job(i, 1, 0));
  }
  jobs.push_back(job(6, 3, 1));
  jobs.push_back(job(7, 1, 1));
  EXPECT_EQ(select_with_quotas(jobs, q, 10).chosen, (std::vector<int>{0, 1, 2, 3, 4, 6}));
  // Without the limit team-a borrows 2 (6 of the cohort's 8); team-b's 3-GPU job then finds
  // 8 - 6 = 2 and waits, its 1-GPU job fits.
  EXPECT_EQ(select_with_quotas(jobs, two_teams(4, false), 10).chosen,
            (std::vector<int>{0, 1, 2, 3, 4, 5, 7}));
}

TEST(QuotaWalk, LendingLimitWithABorrowingLimit) {
  // team-a: 2 nominal, lendingLimit 1 (G = 1), borrowingLimit 1; team-b: 2 nominal. Q = 1 + 2
  // = 3. team-a's jobs of 1 GPU: the 1st uses G (U stays 0); the 2nd: B = (2 - 1) - 0 + 1 = 2,
  // min(3 - 0, 2) = 2 >= 1: fits (U = 1); the 3rd: B = 1 - 1 + 1 = 1, min(3 - 1, 1) = 1: fits
  // (u = 3 = nominal + borrowingLimit, U = 2); the 4th: B = 1 - 2 + 1 = 0: waits.
  QuotaConfig q = two_teams(2, false, 1);
  q.cluster_queues[0].quota[0].lending_limit = 1;
  q.cluster_queues[1].quota[0].borrowing_limit.reset();
  const QuotaDecision d = select_with_quotas(
      {job(0, 1, 0), job(1, 1, 0), job(2, 1, 0), job(3, 1, 0), job(4, 1, 1)}, q, 8);
  // team-b's job: max(0, 0 - 0) + (Q - U) = 3 - 2 = 1: fits.
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2, 4}));
}

TEST(QuotaWalk, WithinClusterQueueLowerPriorityTakesTheLowestNewestAndFillsBack) {
  // team-a alone (no cohort), 4 GPUs nominal, full: job 0 (2 GPUs, priority 0, admitted at
  // 0 s), job 1 (1 GPU, priority 0, 1 s), job 2 (1 GPU, priority 5, 2 s). Job 3 asks 2 GPUs at
  // priority 10. Candidates, lower priority first, newest first: 1, 0, 2. Removing 1 leaves 1
  // GPU, removing 0 too leaves 3: it fits. Fill back: with job 1 back 2 are left, enough: only
  // job 0 is suspended.
  QuotaConfig q = two_teams(4, false);
  q.cluster_queues[0].cohort.clear();
  q.cluster_queues[1].cohort.clear();
  q.cluster_queues[0].within_cluster_queue = WithinClusterQueue::kLowerPriority;
  std::vector<QuotaJob> jobs = {job(0, 2, 0, true, 0, 0), job(1, 1, 0, true, 1, 0),
                                job(2, 1, 0, true, 2, 5), job(3, 2, 0, false, 0, 10)};
  QuotaDecision d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(d.reclaimed, (std::vector<int>{0}));
  // At priority 0 there is no lower-priority job: it waits.
  jobs[3].priority = 0;
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(d.reclaimed.empty());
  // LowerOrNewerEqualPriority: jobs 0 and 1 (priority 0) were submitted after job 3 (order -1,
  // a job suspended earlier and waiting again): they are candidates, and job 0 goes as above.
  q.cluster_queues[0].within_cluster_queue = WithinClusterQueue::kLowerOrNewerEqualPriority;
  jobs[3].order = -1;
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.reclaimed, (std::vector<int>{0}));
  // Submitted after them (order 3), it has no candidate.
  jobs[3].order = 3;
  EXPECT_TRUE(select_with_quotas(jobs, q, 8).reclaimed.empty());
}

// team-a holds 3 of the cohort's 4 GPUs (1 borrowed) with jobs 0, 1, 2 (1 GPU, admitted at 0,
// 1, 2 s, priorities p_a), team-b 1 with job 3 (priority 0, 3 s); team-b's job 4 asks 1 GPU at
// priority 5. Both queues: withinClusterQueue LowerPriority.
QuotaDecision reclaim_case(ReclaimWithinCohort reclaim, std::int32_t p_a) {
  QuotaConfig q = two_teams(2, false);
  for (ClusterQueueConfig& c : q.cluster_queues) {
    c.reclaim_within_cohort = reclaim;
    c.within_cluster_queue = WithinClusterQueue::kLowerPriority;
  }
  return select_with_quotas(
      {job(0, 1, 0, true, 0, p_a), job(1, 1, 0, true, 1, p_a), job(2, 1, 0, true, 2, p_a),
       job(3, 1, 1, true, 3, 0), job(4, 1, 1, false, 0, 5)},
      q, 4);
}

TEST(QuotaWalk, ReclaimByPriorityAndTheCandidatesOrder) {
  // Borrowers at priority 10 and reclaim LowerPriority: team-a's jobs are no candidates; team-b's
  // own job 3 (priority 0 < 5) is the only one: suspended, job 4 fits.
  QuotaDecision d = reclaim_case(ReclaimWithinCohort::kLowerPriority, 10);
  EXPECT_EQ(d.reclaimed, (std::vector<int>{3}));
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2, 4}));
  // reclaim Any: the borrowers come first (other queues before its own), newest first: job 2
  // goes; team-a is then at its nominal 2 and job 4 fits within team-b's nominal.
  d = reclaim_case(ReclaimWithinCohort::kAny, 10);
  EXPECT_EQ(d.reclaimed, (std::vector<int>{2}));
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 3, 4}));
  // Borrowers at priority 0 and reclaim LowerPriority: they are candidates and go before
  // team-b's own job 3 (also priority 0): the newest, job 2.
  d = reclaim_case(ReclaimWithinCohort::kLowerPriority, 0);
  EXPECT_EQ(d.reclaimed, (std::vector<int>{2}));
  // Never, and withinClusterQueue Never: job 4 waits.
  QuotaConfig q = two_teams(2, false);
  const QuotaDecision never =
      select_with_quotas({job(0, 1, 0, true, 0), job(1, 1, 0, true, 1), job(2, 1, 0, true, 2),
                          job(3, 1, 1, true, 3), job(4, 1, 1, false, 0, 5)},
                         q, 4);
  EXPECT_TRUE(never.reclaimed.empty());
  EXPECT_EQ(never.chosen, (std::vector<int>{0, 1, 2, 3}));
}

// One resource (nvidia.com/gpu) and two flavours, "reserved" (node label pool: reserved) then
// "spot" (pool: spot): slot 0 is (reserved, GPU), slot 1 (spot, GPU). One queue per row of
// `nominal` ({reserved, spot} GPUs), named team-a, team-b, ..., in cohort "shared" or in none.
QuotaConfig flavoured(const std::vector<std::array<std::int64_t, 2>>& nominal, bool cohort) {
  QuotaConfig q;
  q.resources = {kGpuResource};
  q.flavors.resize(2);
  q.flavors[0].name = "reserved";
  q.flavors[0].node_labels = {{"pool", "reserved"}};
  q.flavors[1].name = "spot";
  q.flavors[1].node_labels = {{"pool", "spot"}};
  q.slots = {FlavorResource{0, 0}, FlavorResource{1, 0}};
  for (std::size_t i = 0; i < nominal.size(); ++i) {
    ClusterQueueConfig c;
    c.name = std::string("team-") + static_cast<char>('a' + i);
    c.cohort = cohort ? "shared" : "";
    c.quota.resize(2);
    for (std::size_t f = 0; f < 2; ++f) {
      c.quota[f].covered = true;
      c.quota[f].nominal = nominal[i][f];
    }
    c.groups = {ResourceGroup{{0}, {0, 1}}};
    q.cluster_queues.push_back(c);
  }
  return q;
}

// Job `id`'s flavour for its GPUs in `d` ("" when not admitted by this walk).
std::string flavour_of(const QuotaDecision& d, const QuotaConfig& q, int id) {
  const auto it = d.flavors.find(id);
  return it == d.flavors.end() || it->second[0] < 0
             ? ""
             : q.flavors[static_cast<std::size_t>(it->second[0])].name;
}

TEST(QuotaFlavours, TheFirstFlavourFullTheSecondIsTaken) {
  // team-a: reserved 2, spot 2, no cohort; five 1-GPU jobs, 8 GPUs free. Jobs 0, 1: reserved
  // fits (1 <= 2, then 1 <= 2 - 1). Job 2: reserved has 2 - 2 = 0 < 1 and nothing can be
  // preempted (withinClusterQueue Never): spot, 1 <= 2. Job 3: spot (1 <= 1). Job 4: neither
  // (0 and 0 left): it waits.
  const QuotaConfig q = flavoured({{2, 2}}, false);
  const QuotaDecision d = select_with_quotas(
      {job(0, 1, 0), job(1, 1, 0), job(2, 1, 0), job(3, 1, 0), job(4, 1, 0)}, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(flavour_of(d, q, 0), "reserved");
  EXPECT_EQ(flavour_of(d, q, 1), "reserved");
  EXPECT_EQ(flavour_of(d, q, 2), "spot");
  EXPECT_EQ(flavour_of(d, q, 3), "spot");
  EXPECT_EQ(flavour_of(d, q, 4), "");
  // Kept jobs stay on their flavour: with job 0 kept on spot (flavours {1}), jobs 1 and 2 take
  // reserved and job 3 the last spot GPU (2 - 1 - 1 = 0 left), job 4 waits.
  std::vector<QuotaJob> jobs = {job(0, 1, 0, true), job(1, 1, 0), job(2, 1, 0), job(3, 1, 0),
                                job(4, 1, 0)};
  jobs[0].flavors = {1};
  const QuotaDecision kept = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(kept.chosen, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(flavour_of(kept, q, 1), "reserved");
  EXPECT_EQ(flavour_of(kept, q, 2), "reserved");
  EXPECT_EQ(flavour_of(kept, q, 3), "spot");
}

TEST(QuotaFlavours, BorrowingOrTheNextFlavour) {
  // Cohort "shared": team-a reserved 1, spot 2; team-b reserved 2, spot 0. The cohort sums per
  // flavour: reserved Q = 1 + 2 = 3, spot Q = 2. Job 0 (team-a, 1 GPU): reserved, u 0 -> 1 <= N
  // 1, no borrowing. Job 1: reserved available = Q - U = 3 - 1 = 2 >= 1, but u + 1 = 2 > N = 1:
  // it fits by borrowing. whenCanBorrow Borrow (the default) takes it: reserved.
  QuotaConfig q = flavoured({{1, 2}, {2, 0}}, true);
  const std::vector<QuotaJob> jobs = {job(0, 1, 0), job(1, 1, 0)};
  QuotaDecision d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1}));
  EXPECT_EQ(flavour_of(d, q, 1), "reserved");
  // TryNextFlavor: spot is tried, 1 <= 2 - 0 within team-a's nominal 2: spot.
  q.cluster_queues[0].when_can_borrow = WhenCanBorrow::kTryNextFlavor;
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(flavour_of(d, q, 1), "spot");
  // With spot's quota 0 nothing fits there: the best seen, reserved by borrowing, is taken.
  q.cluster_queues[0].quota[1].nominal = 0;
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1}));
  EXPECT_EQ(flavour_of(d, q, 1), "reserved");
}

TEST(QuotaFlavours, PreemptingOrTheNextFlavour) {
  // team-a alone: reserved 1, spot 1, withinClusterQueue LowerPriority. Job 0 (priority 0) holds
  // reserved. Job 1 (priority 10): reserved has 0 left but job 0 could be preempted (Preempt
  // mode); whenCanPreempt TryNextFlavor (the default) tries spot, which fits: spot, nothing is
  // suspended.
  QuotaConfig q = flavoured({{1, 1}}, false);
  q.cluster_queues[0].within_cluster_queue = WithinClusterQueue::kLowerPriority;
  std::vector<QuotaJob> jobs = {job(0, 1, 0, true, 0, 0), job(1, 1, 0, false, 0, 10)};
  jobs[0].flavors = {0};
  QuotaDecision d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{0, 1}));
  EXPECT_TRUE(d.reclaimed.empty());
  EXPECT_EQ(flavour_of(d, q, 1), "spot");
  // whenCanPreempt Preempt: reserved is taken at once and job 0 is suspended.
  q.cluster_queues[0].when_can_preempt = WhenCanPreempt::kPreempt;
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{1}));
  EXPECT_EQ(d.reclaimed, (std::vector<int>{0}));
  EXPECT_EQ(flavour_of(d, q, 1), "reserved");
  // Both full (job 2, priority 0, on spot, admitted after job 0), the default again: both
  // flavours need preemption; the first of equals, reserved, is taken, so job 0 is suspended
  // though job 2 is newer (candidates use the flavour the preemptor was given).
  q.cluster_queues[0].when_can_preempt = WhenCanPreempt::kTryNextFlavor;
  jobs.push_back(job(2, 1, 0, true, 1, 0));
  jobs.back().flavors = {1};
  std::swap(jobs[1], jobs[2]);  // kept ones first, as the admission layer orders them
  d = select_with_quotas(jobs, q, 8);
  EXPECT_EQ(d.chosen, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.reclaimed, (std::vector<int>{0}));
  EXPECT_EQ(flavour_of(d, q, 1), "reserved");
}

TEST(QuotaFlavours, AFlavourContradictingTheNodeSelectorIsSkipped) {
  // A job whose pods select pool: spot skips reserved (pool: reserved) though it has room.
  const QuotaConfig q = flavoured({{2, 2}}, false);
  QuotaJob j = job(0, 1, 0);
  j.node_selector = {{"pool", "spot"}};
  QuotaDecision d = select_with_quotas({j}, q, 8);
  EXPECT_EQ(flavour_of(d, q, 0), "spot");
  // A selector on another key does not contradict: reserved.
  j.node_selector = {{"zone", "b"}};
  d = select_with_quotas({j}, q, 8);
  EXPECT_EQ(flavour_of(d, q, 0), "reserved");
}

struct Outcome {
  RunSummary summary;
  std::map<std::string, double> done_s;
  std::map<std::string, int> preempted;
  std::map<std::string, double> lost_gpu_s;
  metrics::MetricValues metrics;
};

// Four one-A10 nodes; team-a submits A1..A4 (1 GPU, 100, 200, 300, 400 s of work) at 0 s,
// team-b submits B1 (1 GPU, 100 s) at 10 s. Checkpoints every 60 s.
Outcome run(const std::string& policy, const std::string& b_queue = "team-b",
            std::int32_t b_priority = 0) {
  const Scenario s = load_scenario("tests/sim/data/quota.yaml");
  Workload w = make_jobs(s, 1);
  const std::int64_t per_100s = w.jobs[0].steps;
  for (int i = 0; i < 5; ++i) {
    const bool b = i == 4;
    const std::string name = b ? "B1" : "A" + std::to_string(i + 1);
    w.jobs[i].name = name;
    w.jobs[i].pod_template.name = name;
    w.jobs[i].pod_template.labels[kQueueNameLabel] = b ? b_queue : "team-a";
    w.jobs[i].pod_template.priority = b ? b_priority : 0;
    w.jobs[i].submit_time = TimePoint(std::chrono::seconds(b ? 10 : 0));
    w.jobs[i].steps = per_100s * (b ? 1 : i + 1);
  }
  const auto it = std::find_if(s.policies.begin(), s.policies.end(),
                               [&](const PolicyConfig& p) { return p.name == policy; });
  RunSignals signals;
  Outcome o;
  metrics::QuotaCollector quota;
  signals.quota.connect([&quota](const QuotaEvent& e) { quota.on_quota(e); });
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
  quota.finish(o.summary.end, o.metrics);
  return o;
}

// Within 1 s of the hand-worked times (binds take 10 ms cycles; steps are whole).
constexpr double kTol = 1.0;

TEST(QuotaRun, WithoutReclaimTheLateTeamWaitsForTheFirstEnd) {
  // 0 s: A1..A4 admitted (team-a 2 nominal + 2 borrowed: the cohort's 4 are used).
  // 10 s: B1 is within team-b's nominal but the cohort is full and Never reclaims: it waits.
  // 100 s: A1 ends; B1 admitted (wait 90 s), done at 200 s. A2, A3, A4 end at 200, 300, 400 s.
  const Outcome o = run("borrow");
  EXPECT_EQ(o.summary.succeeded, 5);
  EXPECT_NEAR(o.done_s.at("A1"), 100, kTol);
  EXPECT_NEAR(o.done_s.at("B1"), 200, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 400, kTol);
  EXPECT_TRUE(o.preempted.empty());
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-b"), 90, kTol);
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-a"), 0, kTol);
  // T = 400 s. team-a holds 4, 3, 2, 1 GPUs over the four 100 s spans: 1,000 GPU-s over
  // 2 x 400 = 800 nominal GPU-s -> 1.25; borrowed (above 2): 2 x 100 + 1 x 100 = 300 -> 0.3.
  // team-b: 1 GPU over 100 -> 200 s: 100 / 800 = 0.125, nothing borrowed.
  EXPECT_NEAR(o.metrics.at("quota_utilisation/team-a"), 1.25, 0.005);
  EXPECT_NEAR(o.metrics.at("quota_borrowed_share/team-a"), 0.3, 0.005);
  EXPECT_NEAR(o.metrics.at("quota_utilisation/team-b"), 0.125, 0.005);
  EXPECT_NEAR(o.metrics.at("quota_borrowed_share/team-b"), 0.0, 1e-12);
}

TEST(QuotaRun, ReclaimSuspendsTheBorrowersNewestJobAndAdmitsAtOnce) {
  // 10 s: B1 (within team-b's nominal) reclaims: team-a's newest admitted job, A4 (all four
  // were admitted at 0 s; the last submitted is the newest), is suspended, losing its 10 s (no
  // checkpoint yet). B1 admitted at 10 s (wait 0), done at 110 s.
  // A4 waits: team-a at 3 would borrow a 4th while the cohort (3 + 1) is full. 100 s: A1 ends,
  // A4 admitted again, 400 s of work from 100 s: done at 500 s.
  const Outcome o = run("reclaim");
  EXPECT_EQ(o.summary.succeeded, 5);
  EXPECT_NEAR(o.done_s.at("B1"), 110, kTol);
  EXPECT_NEAR(o.done_s.at("A1"), 100, kTol);
  EXPECT_NEAR(o.done_s.at("A3"), 300, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 500, kTol);
  EXPECT_EQ(o.preempted.size(), 1u);
  EXPECT_EQ(o.preempted.at("A4"), 1);
  EXPECT_NEAR(o.lost_gpu_s.at("A4"), 10, kTol);
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-b"), 0, kTol);
}

TEST(QuotaRun, BorrowingLimitHoldsTheFourthJob) {
  // borrowingLimit 1: A1..A3 at 0 s, A4 waits; B1 admitted at 10 s (cohort 3 + 1 = 4), done at
  // 110 s. 100 s: A1 ends, team-a at 2: A4 admitted (3), done at 500 s.
  const Outcome o = run("limited");
  EXPECT_NEAR(o.done_s.at("B1"), 110, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 500, kTol);
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-b"), 0, kTol);
  EXPECT_TRUE(o.preempted.empty());
}

TEST(QuotaRun, LendingLimitZeroKeepsTeamBsQuota) {
  // team-b lends nothing (lendingLimit 0): the cohort's pool is team-a's own 2. 0 s: A1, A2
  // admitted, A3 and A4 wait. 10 s: B1 uses team-b's guaranteed GPU: admitted (wait 0), done
  // at 110 s; its end frees nothing team-a may use. 100 s: A1 ends, A3 admitted (done 400 s);
  // 200 s: A2 ends, A4 admitted (done 600 s).
  const Outcome o = run("lending");
  EXPECT_EQ(o.summary.succeeded, 5);
  EXPECT_NEAR(o.done_s.at("B1"), 110, kTol);
  EXPECT_NEAR(o.done_s.at("A3"), 400, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 600, kTol);
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-b"), 0, kTol);
  // team-a's waits: A1, A2 0 s, A3 100 s, A4 200 s: mean 75 s.
  EXPECT_NEAR(o.metrics.at("queue_wait_mean_s/team-a"), 75, kTol);
  EXPECT_TRUE(o.preempted.empty());
}

TEST(QuotaRun, CpuQuotaLimitsAQueueWithGpusToSpare) {
  // team-a covers nvidia.com/gpu (4) and cpu (8); each pod asks 1 GPU and 4 CPUs: two jobs at a
  // time. A1, A2 at 0 s; A3 at 100 s (done 400 s), A4 at 200 s (done 600 s). team-b (GPUs
  // only, 4) admits B1 at 10 s.
  const Outcome o = run("cpu");
  EXPECT_EQ(o.summary.succeeded, 5);
  EXPECT_NEAR(o.done_s.at("B1"), 110, kTol);
  EXPECT_NEAR(o.done_s.at("A3"), 400, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 600, kTol);
  // team-a's jobs hold 1 GPU for 100 + 200 + 300 + 400 = 1,000 GPU-s (2 GPUs until 400 s, then
  // A4 alone) over 4 nominal x 600 s = 2,400: 0.4167.
  EXPECT_NEAR(o.metrics.at("quota_utilisation/team-a"), 1000.0 / 2400.0, 0.005);
}

TEST(QuotaRun, AHigherPriorityJobPreemptsWithinItsQueue) {
  // team-a alone, 3 GPUs nominal, withinClusterQueue LowerPriority; B1 joins team-a at priority
  // 10. 0 s: A1..A3 admitted, A4 waits (no lower-priority job). 10 s: B1 takes the newest
  // (A3, last submitted of those admitted at 0 s), which loses its 10 s; B1 done at 110 s.
  // 100 s: A1 ends, A3 (before A4 in FIFO) admitted again, done at 400 s; 110 s: B1 ends, A4
  // admitted, done at 510 s.
  const Outcome o = run("within", "team-a", 10);
  EXPECT_EQ(o.summary.succeeded, 5);
  EXPECT_NEAR(o.done_s.at("B1"), 110, kTol);
  EXPECT_NEAR(o.done_s.at("A3"), 400, kTol);
  EXPECT_NEAR(o.done_s.at("A4"), 510, kTol);
  EXPECT_EQ(o.preempted.size(), 1u);
  EXPECT_EQ(o.preempted.at("A3"), 1);
  EXPECT_NEAR(o.lost_gpu_s.at("A3"), 10, kTol);
}

struct Placement {
  std::map<std::string, double> done_s;
  std::map<std::string, double> bound_s;
  std::map<std::string, std::string> node;
};

// tests/sim/data/quota-flavours.yaml: J1..J4 (1 GPU; 100, 200, 300, 400 s of work) at 0 s and
// J5 (100 s) at 10 s, all in team-a.
Placement run_flavours(const std::string& policy) {
  const Scenario s = load_scenario("tests/sim/data/quota-flavours.yaml");
  Workload w = make_jobs(s, 1);
  const std::int64_t per_100s = w.jobs[0].steps;
  const int work[] = {1, 2, 3, 4, 1};
  for (int i = 0; i < 5; ++i) {
    const std::string name = "J" + std::to_string(i + 1);
    w.jobs[i].name = name;
    w.jobs[i].pod_template.name = name;
    w.jobs[i].submit_time = TimePoint(std::chrono::seconds(i == 4 ? 10 : 0));
    w.jobs[i].steps = per_100s * work[i];
  }
  const auto it = std::find_if(s.policies.begin(), s.policies.end(),
                               [&](const PolicyConfig& p) { return p.name == policy; });
  RunSignals signals;
  Placement o;
  signals.job.connect([&o](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded) {
      o.done_s[e.job] = to_seconds(e.at);
    }
    if (e.kind == JobEventKind::kBound) {
      o.bound_s[e.job] = to_seconds(e.at);
      o.node[e.job] = e.node;
    }
  });
  const RunSummary summary = run_policy(s, w, *it, 1, signals);
  EXPECT_EQ(summary.succeeded, 5);
  return o;
}

bool on(const Placement& o, const std::string& job, const std::string& pool) {
  return o.node.at(job).rfind(pool + "-", 0) == 0;
}

TEST(QuotaFlavoursRun, TheFirstJobsGoToTheFirstFlavoursNodes) {
  // reserved 2, spot 2. 0 s: J1, J2 take reserved, J3, J4 spot (the walk in
  // TheFirstFlavourFullTheSecondIsTaken); their pods get nodeSelector pool: reserved or spot and
  // bind there. 10 s: J5 finds both flavours full (and 4 of 4 GPUs used): it waits. 100 s: J1
  // ends, reserved has 1 left: J5 takes it, binds on J1's node, done at 200 s. J2, J3, J4 end
  // at 200, 300, 400 s.
  const Placement o = run_flavours("two-and-two");
  EXPECT_TRUE(on(o, "J1", "reserved")) << o.node.at("J1");
  EXPECT_TRUE(on(o, "J2", "reserved")) << o.node.at("J2");
  EXPECT_TRUE(on(o, "J3", "spot")) << o.node.at("J3");
  EXPECT_TRUE(on(o, "J4", "spot")) << o.node.at("J4");
  EXPECT_TRUE(on(o, "J5", "reserved")) << o.node.at("J5");
  EXPECT_EQ(o.node.at("J5"), o.node.at("J1"));
  EXPECT_NEAR(o.bound_s.at("J5"), 100, kTol);
  EXPECT_NEAR(o.done_s.at("J1"), 100, kTol);
  EXPECT_NEAR(o.done_s.at("J5"), 200, kTol);
  EXPECT_NEAR(o.done_s.at("J2"), 200, kTol);
  EXPECT_NEAR(o.done_s.at("J3"), 300, kTol);
  EXPECT_NEAR(o.done_s.at("J4"), 400, kTol);
}

TEST(QuotaFlavoursRun, TheNodeSelectorHoldsAPodOffAnotherFlavoursFreeNode) {
  // reserved 1, spot 3. 0 s: J1 takes reserved; J2, J3, J4 spot (1, 2, 3 <= 3); the cluster has
  // 4 GPUs, so all four are admitted. J2 and J3 bind on the two spot nodes; J4's pod selects
  // pool: spot and waits although reserved-02 is free. 10 s: J5: reserved full (1 of 1), spot
  // full (3 of 3), no free GPU: it waits. 100 s: J1 ends: J5 takes reserved (done at 200 s).
  // 200 s: J2 ends, its spot node frees: J4 binds there and runs 400 s: done at 600 s. J3 ends
  // at 300 s.
  const Placement o = run_flavours("one-and-three");
  EXPECT_TRUE(on(o, "J1", "reserved")) << o.node.at("J1");
  EXPECT_TRUE(on(o, "J2", "spot")) << o.node.at("J2");
  EXPECT_TRUE(on(o, "J3", "spot")) << o.node.at("J3");
  EXPECT_TRUE(on(o, "J4", "spot")) << o.node.at("J4");
  EXPECT_EQ(o.node.at("J4"), o.node.at("J2"));
  EXPECT_TRUE(on(o, "J5", "reserved")) << o.node.at("J5");
  EXPECT_NEAR(o.bound_s.at("J4"), 200, kTol);
  EXPECT_NEAR(o.done_s.at("J4"), 600, kTol);
  EXPECT_NEAR(o.bound_s.at("J5"), 100, kTol);
  EXPECT_NEAR(o.done_s.at("J5"), 200, kTol);
  EXPECT_NEAR(o.done_s.at("J3"), 300, kTol);
}

// Bad queue input is refused with its file, line and field.
std::string error_of(const std::string& queues, const std::string& label = "team-a") {
  // One folder per test: ctest runs the tests of this file in parallel.
  const auto dir = std::filesystem::temp_directory_path() /
                   (std::string("tidesim-quota-") +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  const auto path = dir / "tidesim-quota-bad.yaml";
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
                         "      pod: {gpus: 1, labels: {kueue.x-k8s.io/queue-name: "
                      << label
                      << "}}\n"
                         "policies:\n"
                         "  - name: q\n"
                         "    scheduler: default-k8s\n"
                         "    admission:\n"
                         "      policy: fifo\n"
                         "      queues:\n"
                      << queues;
  try {
    const Scenario s = load_scenario(path.string());
    const Workload w = make_jobs(s, 1);
    RunSignals signals;
    (void)run_policy(s, w, s.policies[0], 1, signals);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(QuotaInput, BadValuesNameFileLineAndField) {
  const std::string ok_cq = "        cluster_queues: [{name: team-a, nominal_gpus: 2}]\n";
  EXPECT_EQ(error_of(ok_cq), "");
  // Line 19 is the cluster_queues entry, 20 local_queues.
  const std::string negative =
      error_of("        cluster_queues: [{name: team-a, nominal_gpus: -1}]\n");
  EXPECT_NE(negative.find("tidesim-quota-bad.yaml:19"), std::string::npos) << negative;
  EXPECT_NE(negative.find("nominal_gpus"), std::string::npos) << negative;
  const std::string cohort =
      error_of("        cluster_queues: [{name: team-a, cohort: x, nominal_gpus: 2}]\n");
  EXPECT_NE(cohort.find(":19:"), std::string::npos) << cohort;
  EXPECT_NE(cohort.find("cohort"), std::string::npos) << cohort;
  EXPECT_NE(cohort.find("unknown cohort 'x'"), std::string::npos) << cohort;
  const std::string local = error_of(ok_cq + "        local_queues: {team-a: nobody}\n");
  EXPECT_NE(local.find(":20:"), std::string::npos) << local;
  EXPECT_NE(local.find("local_queues.team-a"), std::string::npos) << local;
  // An unknown queue is reported at the job's label (line 12, the `jobs` entry's pod).
  const std::string queue = error_of(ok_cq, "team-z");
  EXPECT_NE(queue.find(":12:"), std::string::npos) << queue;
  EXPECT_NE(queue.find("workload.jobs[0].pod.labels.kueue.x-k8s.io/queue-name"), std::string::npos)
      << queue;
  EXPECT_NE(queue.find("'team-z'"), std::string::npos) << queue;
  EXPECT_NE(queue.find("policy 'q'"), std::string::npos) << queue;
  const std::string flavour =
      error_of("        cluster_queues: [{name: team-a, nominal_gpus: 2, flavor: h100}]\n");
  EXPECT_NE(flavour.find("flavor"), std::string::npos) << flavour;
}

TEST(QuotaInput, ResourceGroupsAndLimitsAreChecked) {
  const auto groups = [](const std::string& resources, const std::string& extra = "",
                         const std::string& flavors = "") {
    return "        cohorts: [c]\n"
           "        cluster_queues:\n"
           "          - name: team-a\n" +
           extra +
           "            resource_groups:\n"
           "              - covered_resources: [nvidia.com/gpu, cpu]\n"
           "                flavors:\n"
           "                  - name: default-flavor\n"
           "                    resources:\n" +
           resources + flavors;
  };
  const std::string ok =
      "                      - {name: nvidia.com/gpu, nominal_quota: 2}\n"
      "                      - {name: cpu, nominal_quota: 500m}\n";
  EXPECT_EQ(error_of(groups(ok)), "");
  EXPECT_EQ(error_of(groups(ok, "            cohort: c\n")), "");
  // Line 19 is `cohorts`, 21 the queue's name; without an extra line the resources are on lines
  // 27 (GPUs), 28 (cpu) and 29; with one, a line later.
  const std::string bad_cpu =
      error_of(groups("                      - {name: nvidia.com/gpu, nominal_quota: 2}\n"
                      "                      - {name: cpu, nominal_quota: lots}\n"));
  EXPECT_NE(bad_cpu.find(":28:"), std::string::npos) << bad_cpu;
  EXPECT_NE(bad_cpu.find("resources[1].nominal_quota"), std::string::npos) << bad_cpu;
  const std::string uncovered =
      error_of(groups(ok + "                      - {name: memory, nominal_quota: 1Gi}\n"));
  EXPECT_NE(uncovered.find(":29:"), std::string::npos) << uncovered;
  EXPECT_NE(uncovered.find("'memory' is not in the group's covered_resources"), std::string::npos)
      << uncovered;
  const std::string missing =
      error_of(groups("                      - {name: nvidia.com/gpu, nominal_quota: 2}\n"));
  EXPECT_NE(missing.find("no quota for covered resource 'cpu'"), std::string::npos) << missing;
  // Several flavours need declarations under resource_flavors: without any, the group's first
  // flavour (line 25) is reported.
  const std::string two = error_of(groups(ok, "", "                  - name: other\n"));
  EXPECT_NE(two.find(":25:"), std::string::npos) << two;
  EXPECT_NE(two.find("resource_groups[0].flavors[0].name"), std::string::npos) << two;
  EXPECT_NE(two.find("unknown flavour 'default-flavor' (declare it under"), std::string::npos)
      << two;
  const std::string lend_no_cohort = error_of(
      groups("                      - {name: nvidia.com/gpu, nominal_quota: 2, lending_limit: 1}\n"
             "                      - {name: cpu, nominal_quota: 1}\n"));
  EXPECT_NE(lend_no_cohort.find(":27:"), std::string::npos) << lend_no_cohort;
  EXPECT_NE(lend_no_cohort.find("lending_limit"), std::string::npos) << lend_no_cohort;
  EXPECT_NE(lend_no_cohort.find("only to a queue in a cohort"), std::string::npos)
      << lend_no_cohort;
  const std::string lend_over = error_of(
      groups("                      - {name: nvidia.com/gpu, nominal_quota: 2, lending_limit: 3}\n"
             "                      - {name: cpu, nominal_quota: 1}\n",
             "            cohort: c\n"));
  EXPECT_NE(lend_over.find(":28:"), std::string::npos) << lend_over;
  EXPECT_NE(lend_over.find("lending limit 3 exceeds the nominal quota 2"), std::string::npos)
      << lend_over;
  const std::string both =
      error_of(groups(ok, "            cohort: c\n            nominal_gpus: 2\n"));
  EXPECT_NE(both.find("nominal_gpus"), std::string::npos) << both;
  EXPECT_NE(both.find("either resource_groups or the GPU shorthand"), std::string::npos) << both;
  const std::string shorthand = error_of(
      "        cluster_queues: [{name: team-a, nominal_gpus: 2, lending_limit_gpus: 1}]\n");
  EXPECT_NE(shorthand.find(":19:"), std::string::npos) << shorthand;
  EXPECT_NE(shorthand.find("lending_limit_gpus"), std::string::npos) << shorthand;
}

TEST(QuotaInput, FlavoursAreChecked) {
  // Line 19 is `resource_flavors`, 20 its first entry; the queue follows.
  const auto with = [](const std::string& flavours, const std::string& names,
                       const std::string& fungibility = "") {
    std::string queue = "        resource_flavors:\n" + flavours +
                        "        cluster_queues:\n"
                        "          - name: team-a\n" +
                        fungibility +
                        "            resource_groups:\n"
                        "              - covered_resources: [nvidia.com/gpu]\n"
                        "                flavors:\n";
    for (const char c : names) {
      queue += std::string("                  - name: ") + c +
               "\n"
               "                    resources: [{name: nvidia.com/gpu, nominal_quota: 1}]\n";
    }
    return queue;
  };
  // The test cluster's one node is gpu-01 (label kubernetes.io/hostname).
  const std::string a_b =
      "          - {name: a, node_labels: {kubernetes.io/hostname: gpu-01}}\n"
      "          - {name: b}\n";
  EXPECT_EQ(error_of(with(a_b, "ab")), "");
  // Unknown flavour (line 23 is the queue's name, 27 the first flavour's, 29 the second's).
  const std::string unknown = error_of(with(a_b, "ac"));
  EXPECT_NE(unknown.find(":29:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("cluster_queues[0].resource_groups[0].flavors[1].name"), std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("unknown flavour 'c'"), std::string::npos) << unknown;
  const std::string twice = error_of(with(a_b, "aa"));
  EXPECT_NE(twice.find(":29:"), std::string::npos) << twice;
  EXPECT_NE(twice.find("flavour 'a' is listed twice"), std::string::npos) << twice;
  const std::string declared_twice = error_of(with(a_b + "          - {name: a}\n", "ab"));
  EXPECT_NE(declared_twice.find(":22:"), std::string::npos) << declared_twice;
  EXPECT_NE(declared_twice.find("resource_flavors[2].name"), std::string::npos) << declared_twice;
  EXPECT_NE(declared_twice.find("declared twice"), std::string::npos) << declared_twice;
  // A flavour whose labels select no node: refused when the run starts, at the flavour.
  const std::string nowhere =
      error_of(with("          - {name: a, node_labels: {gpu-type: h100}}\n", "a"));
  EXPECT_NE(nowhere.find(":20:"), std::string::npos) << nowhere;
  EXPECT_NE(nowhere.find("resource_flavors[0].node_labels"), std::string::npos) << nowhere;
  EXPECT_NE(nowhere.find("selects no node"), std::string::npos) << nowhere;
  const std::string taints =
      error_of(with("          - {name: a, node_taints: [{key: k, effect: NoSchedule}]}\n", "a"));
  EXPECT_NE(taints.find(":20:"), std::string::npos) << taints;
  EXPECT_NE(taints.find("node_taints"), std::string::npos) << taints;
  EXPECT_NE(taints.find("not modelled"), std::string::npos) << taints;
  EXPECT_EQ(error_of(with(a_b, "ab",
                          "            flavor_fungibility: {when_can_borrow: TryNextFlavor, "
                          "when_can_preempt: Preempt}\n")),
            "");
  const std::string fungible =
      error_of(with(a_b, "ab", "            flavor_fungibility: {when_can_borrow: Sometimes}\n"));
  EXPECT_NE(fungible.find(":24:"), std::string::npos) << fungible;
  EXPECT_NE(fungible.find("flavor_fungibility.when_can_borrow"), std::string::npos) << fungible;
}

TEST(QuotaInput, PreemptionPoliciesAreChecked) {
  const std::string bad = error_of(
      "        cluster_queues: [{name: team-a, nominal_gpus: 2, within_cluster_queue: Any}]\n");
  EXPECT_NE(bad.find(":19:"), std::string::npos) << bad;
  EXPECT_NE(bad.find("within_cluster_queue"), std::string::npos) << bad;
  const std::string lonely = error_of(
      "        cluster_queues: [{name: team-a, nominal_gpus: 2, reclaim_within_cohort: "
      "LowerPriority}]\n");
  EXPECT_NE(lonely.find("reclaim_within_cohort"), std::string::npos) << lonely;
  EXPECT_NE(lonely.find("only to a queue in a cohort"), std::string::npos) << lonely;
  EXPECT_EQ(error_of("        cluster_queues: [{name: team-a, nominal_gpus: 2, "
                     "within_cluster_queue: LowerOrNewerEqualPriority}]\n"),
            "");
}

}  // namespace
}  // namespace tidesim
