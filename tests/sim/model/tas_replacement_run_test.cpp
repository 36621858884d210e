// Kueue's failed-node replacement (TASFailedNodeReplacement) for a TAS-admitted gang in a run
// (sim/model/gang_failures.hpp, recover_tas; sim/model/topology_admission.hpp, replace_node):
// tests/sim/data/tas-gang-failure.yaml, two leaves of three 4-GPU nodes, a 2-pod gang required
// within one leaf, one-pod fillers pinned to their nodes, a faulty GPU under one of the gang's
// nodes at 25 min. Times worked by hand from the scenario's parameters.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

double secs(TimePoint t) {
  return to_seconds(t - TimePoint{});
}

struct Seen {
  std::vector<JobEvent> events;
  std::vector<GangLifeRecord> lives;
  const GangLifeRecord& life(const std::string& job) const {
    for (const auto& r : lives) {
      if (r.job == job) {
        return r;
      }
    }
    throw std::out_of_range("no life of " + job);
  }
  std::vector<const JobEvent*> of(const std::string& job, JobEventKind kind) const {
    std::vector<const JobEvent*> out;
    for (const auto& e : events) {
      if (e.job == job && e.kind == kind) {
        out.push_back(&e);
      }
    }
    return out;
  }
  std::set<std::string> nodes(const std::string& job, std::size_t from, std::size_t to) const {
    std::set<std::string> out;
    const auto bound = of(job, JobEventKind::kBound);
    for (std::size_t i = from; i < to && i < bound.size(); ++i) {
      out.insert(bound[i]->node);
    }
    return out;
  }
};

struct Filler {
  std::string node;
  double share = 100.0;  // its steps, in the gang's steps (100: never ends within these runs)
};

// The gang (submitted at 1 s) after one-pod fillers F1, F2, ... of 4 GPUs pinned to their nodes
// at 0 s; the injected failure on node `failed` (none when empty).
Seen run(const std::vector<Filler>& fillers, const std::string& failed) {
  Scenario s = load_scenario("tests/sim/data/tas-gang-failure.yaml");
  if (failed.empty()) {
    s.faults.gang.injected.clear();
  } else {
    s.faults.gang.injected.at(0).node = std::stoi(failed.substr(4)) - 1;  // gpu-0N: node N - 1
  }
  Workload w = make_jobs(s, 1);
  workloads::JobSpec gang = w.jobs.at(0);
  gang.name = "gang";
  gang.submit_time = TimePoint(std::chrono::seconds(1));
  w.jobs.clear();
  for (std::size_t i = 0; i < fillers.size(); ++i) {
    workloads::JobSpec f = gang;
    f.name = "F" + std::to_string(i + 1);
    f.submit_time = TimePoint{};
    f.replicas = 1;
    f.gang.reset();
    f.steps = static_cast<std::int64_t>(static_cast<double>(gang.steps) * fillers[i].share);
    f.pod_template.annotations.clear();
    f.pod_template.node_selector["kubernetes.io/hostname"] = fillers[i].node;
    w.jobs.push_back(f);
  }
  w.jobs.push_back(gang);
  RunSignals signals;
  Seen seen;
  signals.job.connect([&](const JobEvent& e) { seen.events.push_back(e); });
  signals.gang_life.connect([&](const GangLifeRecord& r) { seen.lives.push_back(r); });
  run_policy(s, w, s.policies[0], 1, signals);
  return seen;
}

// The undisturbed gang after `fillers`: its start, its run time W and its first pod's node.
struct Baseline {
  double start = 0.0;
  double work = 0.0;
  std::string node;
  std::set<std::string> nodes;
};

Baseline baseline(const std::vector<Filler>& fillers) {
  const Seen seen = run(fillers, "");
  Baseline b;
  b.start = secs(seen.of("gang", JobEventKind::kStarted).at(0)->at);
  b.work = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at) - b.start;
  b.node = seen.of("gang", JobEventKind::kBound).at(0)->node;
  b.nodes = seen.nodes("gang", 0, 2);
  return b;
}

const std::set<std::string> kLeaf0{"gpu-01", "gpu-02", "gpu-03"};
const std::set<std::string> kLeaf1{"gpu-04", "gpu-05", "gpu-06"};

bool within(const std::set<std::string>& nodes, const std::set<std::string>& leaf) {
  for (const std::string& n : nodes) {
    if (!leaf.contains(n)) {
      return false;
    }
  }
  return !nodes.empty();
}

// At 1,500 s the gang has run 1,500 - s (s its start, about 1 s); its checkpoints at 600 s and
// 1,200 s of compute hold 1,200 s, so 300 - s is lost and W - 1,200 s of work remain.
TEST(TasReplacementRun, AFailedNodeIsReplacedInsideTheGangsLeaf) {
  // F1, F2 hold gpu-05 and gpu-06: only leaf-0000 holds both pods, on two of its three nodes.
  // The failed node's domain is replaced by the leaf's third node (the required leaf is the
  // domain Kueue's requiredReplacementDomain keeps), the other pod stays bound; the gang
  // restarts after detection 180 + replacement 120 + loading 120 s: 1,500 + 420 s.
  const std::vector<Filler> fillers{{"gpu-05"}, {"gpu-06"}};
  const Baseline b = baseline(fillers);
  ASSERT_TRUE(within(b.nodes, kLeaf0));
  ASSERT_EQ(b.nodes.size(), 2u);
  const Seen seen = run(fillers, b.node);
  const auto evicted = seen.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 1u);  // the failed node's pod only
  EXPECT_EQ(evicted[0]->node, b.node);
  EXPECT_DOUBLE_EQ(secs(evicted[0]->at), 1500.0);
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 3u);
  std::set<std::string> third = kLeaf0;
  for (const std::string& n : b.nodes) {
    third.erase(n);
  }
  EXPECT_EQ(bound[2]->node, *third.begin());
  EXPECT_NEAR(secs(bound[2]->at), 1500.0, 0.05);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 1500.0 + 420.0, 0.05);
  const double end = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at);
  EXPECT_NEAR(end, 1500.0 + 420.0 + b.work - 1200.0, 0.1);
  EXPECT_NEAR(seen.life("gang").lost_work, 300.0 - b.start, 1e-6);
  EXPECT_NEAR(seen.life("gang").restart, 240.0, 0.05);
}

TEST(TasReplacementRun, NoFreeNodeInTheLeafEvictsTheGangWhichIsAdmittedAfresh) {
  // F1 holds gpu-03: leaf-0000 has 2 free nodes, leaf-0001 3; BestFit takes leaf-0000 (gpu-01,
  // gpu-02). Its failed node has no replacement in the leaf (gpu-03 is F1's): the Workload is
  // evicted (both pods at 1,500 s), admitted afresh at once, in leaf-0001 (leaf-0000 has one
  // healthy free node), and restarts after detection 180 + rescheduling 600 + loading 120 s:
  // 2,400 s. (Pinned to its old assignment, it would wait for the repair, 3,300 s.)
  const std::vector<Filler> fillers{{"gpu-03"}};
  const Baseline b = baseline(fillers);
  ASSERT_EQ(b.nodes, (std::set<std::string>{"gpu-01", "gpu-02"}));
  const Seen seen = run(fillers, b.node);
  const auto evicted = seen.of("gang", JobEventKind::kEvicted);
  ASSERT_EQ(evicted.size(), 2u);
  EXPECT_DOUBLE_EQ(secs(evicted[1]->at), 1500.0);
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 4u);
  EXPECT_TRUE(within(seen.nodes("gang", 2, 4), kLeaf1));
  EXPECT_EQ(seen.nodes("gang", 2, 4).size(), 2u);
  EXPECT_NEAR(secs(bound[3]->at), 1500.0, 0.05);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), 2400.0, 0.05);
  const double end = secs(seen.of("gang", JobEventKind::kSucceeded).at(0)->at);
  EXPECT_NEAR(end, 2400.0 + b.work - 1200.0, 0.1);
  EXPECT_NEAR(seen.life("gang").restart, 720.0, 0.05);
}

TEST(TasReplacementRun, AnEvictedGangWaitsForItsLeafToBeAdmittedAgain) {
  // F1 and F2 hold gpu-03 and gpu-04, F3 gpu-05 until it ends at T: the gang takes leaf-0000
  // (2 free nodes against 1). Evicted at 1,500 s, it fits no leaf (one healthy free node in
  // each) and waits; when F3 ends at T leaf-0001 holds it (gpu-05, gpu-06): bound at T, started
  // at T + 900 s.
  const std::vector<Filler> fillers{{"gpu-03"}, {"gpu-04"}, {"gpu-05", 0.5}};
  const Baseline b = baseline(fillers);
  ASSERT_EQ(b.nodes, (std::set<std::string>{"gpu-01", "gpu-02"}));
  const Seen seen = run(fillers, b.node);
  const double t = secs(seen.of("F3", JobEventKind::kSucceeded).at(0)->at);
  ASSERT_GT(t, 1500.0);
  ASSERT_LT(t, 3300.0);  // before the repair
  const auto bound = seen.of("gang", JobEventKind::kBound);
  ASSERT_EQ(bound.size(), 4u);
  EXPECT_EQ(seen.nodes("gang", 2, 4), (std::set<std::string>{"gpu-05", "gpu-06"}));
  EXPECT_NEAR(secs(bound[3]->at), t, 0.05);
  const auto started = seen.of("gang", JobEventKind::kStarted);
  ASSERT_EQ(started.size(), 2u);
  EXPECT_NEAR(secs(started[1]->at), t + 900.0, 0.05);
}

}  // namespace
}  // namespace tidesim
