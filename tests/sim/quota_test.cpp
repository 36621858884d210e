// Kueue-style queues and quotas (sim/quota.hpp): the quota walk on hand-worked cases, whole runs
// of two teams sharing a 4-GPU cluster with and without reclaim, their quota metrics, and bad
// input refused with its place and field.
#include "sim/quota.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "sim/metrics/quota.hpp"
#include "sim/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// Two ClusterQueues of `nominal` GPUs each in cohort "shared".
QuotaConfig two_teams(std::int64_t nominal, bool reclaim,
                      std::optional<std::int64_t> limit = std::nullopt) {
  QuotaConfig q;
  for (const char* name : {"team-a", "team-b"}) {
    ClusterQueueConfig c;
    c.name = name;
    c.cohort = "shared";
    c.nominal_gpus = nominal;
    c.reclaim_within_cohort = reclaim;
    c.borrowing_limit_gpus = limit;
    q.local_queues[name] = static_cast<int>(q.cluster_queues.size());
    q.cluster_queues.push_back(c);
  }
  return q;
}

QuotaJob job(int id, int gpus, int queue, bool kept = false, int admitted_s = 0) {
  QuotaJob j;
  j.id = id;
  j.gpus = gpus;
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

struct Outcome {
  RunSummary summary;
  std::map<std::string, double> done_s;
  std::map<std::string, int> preempted;
  std::map<std::string, double> lost_gpu_s;
  metrics::MetricValues metrics;
};

// Four one-A10 nodes; team-a submits A1..A4 (1 GPU, 100, 200, 300, 400 s of work) at 0 s,
// team-b submits B1 (1 GPU, 100 s) at 10 s. Checkpoints every 60 s.
Outcome run(const std::string& policy) {
  const Scenario s = load_scenario("tests/sim/data/quota.yaml");
  Workload w = make_jobs(s, 1);
  const std::int64_t per_100s = w.jobs[0].steps;
  for (int i = 0; i < 5; ++i) {
    const bool b = i == 4;
    const std::string name = b ? "B1" : "A" + std::to_string(i + 1);
    w.jobs[i].name = name;
    w.jobs[i].pod_template.name = name;
    w.jobs[i].pod_template.labels[kQueueNameLabel] = b ? "team-b" : "team-a";
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
    if (e.kind == JobEventKind::kEvicted && e.cause == "preemption") {
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

// Bad queue input is refused with its file, line and field.
std::string error_of(const std::string& queues, const std::string& label = "team-a") {
  const auto path = std::filesystem::temp_directory_path() / "tidesim-quota-bad.yaml";
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
  const std::string queue = error_of(ok_cq, "team-z");
  EXPECT_NE(queue.find(":19:"), std::string::npos) << queue;
  EXPECT_NE(queue.find("local_queues"), std::string::npos) << queue;
  EXPECT_NE(queue.find("'team-z'"), std::string::npos) << queue;
  const std::string flavour =
      error_of("        cluster_queues: [{name: team-a, nominal_gpus: 2, flavor: h100}]\n");
  EXPECT_NE(flavour.find("flavor"), std::string::npos) << flavour;
}

}  // namespace
}  // namespace tidesim
