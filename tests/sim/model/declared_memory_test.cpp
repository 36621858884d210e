// Declared GPU memory (HAMi-style) against stock time-slicing on the same jobs: whole runs of
// tests/sim/data/declared_memory.yaml, observed through the run's signals.
#include <gtest/gtest.h>

#include <algorithm>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

struct Observed {
  RunSummary summary;
  std::vector<JobEvent> events;

  long count(JobEventKind kind) const {
    return std::count_if(events.begin(), events.end(),
                         [&](const JobEvent& e) { return e.kind == kind; });
  }
};

Observed run(const Scenario& s, const std::string& name, const std::string& scheduler) {
  RunSignals signals;
  Observed o;
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  o.summary = run_policy(s, make_jobs(s, 1), make_policy(name, scheduler), 1, signals);
  return o;
}

Scenario declared(bool isolate) {
  Scenario s = load_scenario("tests/sim/data/declared_memory.yaml");
  s.cluster.groups.front().declared_memory = true;
  s.cluster.groups.front().isolate_memory = isolate;
  return s;
}

TEST(DeclaredMemory, CardFitAvoidsTheKillsOfStockTimeSlicing) {
  // Stock: 8 units on 4 cards x 2 replicas, distributed: every card holds two heavy jobs, whose
  // steady memory (2 x 13.2 GiB, docs/seed-benchmark.md) exceeds an A10's 24 GiB: on each card
  // one of the two is killed at the end of its ramp-up, so at least 4 kills.
  // The stock run ignores the declaration: the device plugin does not know it, and nodes do not
  // advertise the resource (NodeResourcesFit would find no node), so the pods ask plain GPUs.
  Scenario stock = load_scenario("tests/sim/data/declared_memory.yaml");
  stock.workload.mix[0].job.pod_template.requests.extended.erase("nvidia.com/gpumem");
  const Observed a = run(stock, "default-k8s", "default-k8s");
  EXPECT_GE(a.count(JobEventKind::kOomKilled), 4);
  // Declared: each job claims 16,000 MiB; 2 x 16,000 > 24,576 MiB, so a card takes one job and
  // the other four wait for a card: no kill, and all eight succeed.
  const Observed b = run(declared(false), "hami", "scenarios/schedulers/hami.yaml");
  EXPECT_EQ(b.count(JobEventKind::kOomKilled), 0);
  EXPECT_EQ(b.summary.succeeded, 8);
  // No card ever held two jobs: each bind names one card, distinct among the jobs running.
  for (const auto& e : b.events) {
    if (e.kind == JobEventKind::kBound) {
      EXPECT_EQ(e.cards.size(), 1u);
    }
  }
  // Isolation changes nothing here: every job stays under the 16,000 MiB it declared.
  const Observed c = run(declared(true), "hami", "scenarios/schedulers/hami.yaml");
  EXPECT_EQ(c.count(JobEventKind::kOomKilled), 0);
  EXPECT_EQ(c.summary.succeeded, 8);
}

TEST(DeclaredMemory, IsolationFailsTheContainerOverItsOwnLimit) {
  // The same jobs declaring 4,000 MiB: the card fit lets up to two share a card (4,000 x 2 and
  // the replica limit), and their steady memory passes 4,000 MiB. With isolation each one's
  // allocation over its limit fails in its own container: every job is killed at its ramp's end
  // whatever its neighbour does, and fails after backoffLimit.
  Scenario s = declared(true);
  s.workload.mix[0].job.pod_template.requests.extended["nvidia.com/gpumem"] = 4000;
  const Observed o = run(s, "hami", "scenarios/schedulers/hami.yaml");
  // Every attempt of every job is killed: 1 + backoffLimit 6 = 7 attempts x 8 jobs = 56 kills.
  EXPECT_EQ(o.count(JobEventKind::kOomKilled), 56);
  EXPECT_EQ(o.summary.failed, 8);
  EXPECT_EQ(o.summary.succeeded, 0);
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

// The study's Poisson scenario (docs/seed-benchmark.md, "Study"): footprints of 41-61% of a card
// under stock time-slicing. Seed 1: default-k8s has 305 OOM kills and 11 jobs that never
// succeed; card-aware load-aware, which asks whether some card has room for half a card per GPU,
// 14 kills and none; bin-packing (most-allocated), which co-locates on purpose, 667 and 63.
// (Under equal time slices, the earlier model, these were 354 and 21, 9 and 0, 818 and 83:
// work-conserving slices finish co-located jobs sooner, so fewer ramps meet.)
TEST(Study, CardAwareFitAvoidsMostKillsOfPoissonArrivals) {
  const Scenario s = load_scenario("scenarios/study/poisson-moderate.yaml");
  const Workload w = make_jobs(s, 1);
  const auto kills = [&](const std::string& name, const std::string& scheduler) {
    RunSignals signals;
    long n = 0;
    signals.job.connect([&](const JobEvent& e) { n += e.kind == JobEventKind::kOomKilled; });
    const RunSummary summary = run_policy(s, w, make_policy(name, scheduler), 1, signals);
    return std::pair{n, summary.succeeded};
  };
  const auto stock = kills("default-k8s", "default-k8s");
  const auto card = kills("card-fit", "scenarios/schedulers/load-aware-card-fit.yaml");
  const auto packed = kills("most-allocated", "most-allocated");
  EXPECT_EQ(stock.first, 305);
  EXPECT_EQ(stock.second, 200 - 11);
  EXPECT_EQ(card.first, 14);
  EXPECT_EQ(card.second, 200);
  EXPECT_EQ(packed.first, 667);
  EXPECT_EQ(packed.second, 200 - 63);
}

}  // namespace
}  // namespace tidesim
