// The invariant suite: every built-in policy under every sharing mode and both restart policies,
// on a small cluster with jobs that contend and OOM, must keep the model's books straight:
//  - every job ends exactly once (succeeded or failed), or is unfinished at the horizon;
//  - no card's memory is negative or above its capacity at any sample (an OOM kill removes the
//    allocation that crossed the line at the instant it is made);
//  - no node has more device-plugin units allocated than it advertises;
//  - no card is busy more than all the time: the busy times of the processes running on it (the
//    sampled utilisation, their unclamped sum) add up to at most 1;
//  - every change of who runs on a time-sliced card re-rates the card's jobs before a share is
//    read: GpuNodeState refuses to give a share of a card with a division pending (a logic error
//    that fails the run), and only running processes get a share;
//  - GPU-seconds are conserved: the units held by bound pods, integrated from the bind and
//    release events, equal the allocation the samples see, up to the sampling error;
//  - results do not depend on anything but the scenario and the seed (two runs are identical).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "tidesim/policies/scheduler.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using Params = std::tuple<std::string, SharingMode, workloads::RestartPolicy>;

struct Record {
  RunSummary summary;
  std::vector<JobEvent> events;
  std::vector<ClusterSample> samples;
};

Record run(const Params& p) {
  const auto& [policy, sharing, restart] = p;
  Scenario s = load_scenario("tests/sim/data/invariants.yaml");
  for (auto& g : s.cluster.groups) {
    g.sharing = sharing;
    g.replicas = sharing == SharingMode::kTimeSlicing ? 2 : 1;
  }
  Workload w = make_jobs(s, 7);
  for (auto& j : w.jobs) {
    j.restart_policy = restart;
    if (sharing == SharingMode::kFractional && j.name.starts_with("light")) {
      drop_containers(j.pod_template);
      j.pod_template.requests.gpus = 0;
      j.pod_template.requests.gpu_milli = 500;  // half a card
    }
  }
  RunSignals signals;
  Record r;
  signals.job.connect([&](const JobEvent& e) { r.events.push_back(e); });
  signals.sample.connect([&](const ClusterSample& c) { r.samples.push_back(c); });
  r.summary = run_policy(s, w, make_policy(policy, policy), 7, signals);
  return r;
}

class Invariants : public ::testing::TestWithParam<Params> {};

TEST_P(Invariants, Hold) {
  const Record r = run(GetParam());
  const RunSummary& s = r.summary;
  ASSERT_EQ(s.jobs, 40);

  // Every job ends exactly once, or is unfinished.
  std::map<std::string, int> ends;
  for (const auto& e : r.events) {
    if (e.kind == JobEventKind::kSucceeded || e.kind == JobEventKind::kFailed) {
      ++ends[e.job];
    }
  }
  for (const auto& [job, n] : ends) {
    EXPECT_EQ(n, 1) << job << " ended " << n << " times";
  }
  EXPECT_EQ(static_cast<int>(ends.size()), s.succeeded + s.failed);
  EXPECT_EQ(s.succeeded + s.failed + s.unfinished, s.jobs);

  // Memory and allocation at every sample.
  for (const auto& c : r.samples) {
    for (const auto& n : c.nodes) {
      for (const auto used : n.gpu_memory_used) {
        EXPECT_GE(used, 0) << n.name << " at " << to_seconds(c.at);
        EXPECT_LE(used, n.gpu_memory_capacity) << n.name << " at " << to_seconds(c.at);
      }
      EXPECT_LE(n.gpus_allocated, n.gpus_allocatable) << n.name << " at " << to_seconds(c.at);
      for (const double u : n.gpu_utilization) {
        EXPECT_GE(u, 0.0) << n.name << " at " << to_seconds(c.at);
        EXPECT_LE(u, 1.0 + 1e-9) << n.name << " at " << to_seconds(c.at);
      }
      EXPECT_GE(n.gpus_allocated, 0) << n.name;
    }
  }

  // GPU-seconds: each bound pod holds its whole-GPU units (requests.gpus; fractional pods hold
  // none) from its bind until its attempt ends (restartPolicy Never: the next OOM kill,
  // success or failure of its job; OnFailure: success or failure only) or the run ends.
  const bool in_place = std::get<2>(GetParam()) == workloads::RestartPolicy::kOnFailure;
  const double dt = 1.0;  // the scenario's sample_interval
  const double end = to_seconds(s.end);
  std::map<std::string, std::vector<std::pair<double, int>>> held;  // job -> (bind time, units)
  double event_integral = 0.0;
  double bound = 0.0;  // sampling error bound: each change of allocation can be off by units x dt
  auto release = [&](const std::string& job, double at) {
    for (const auto& [t, units] : held[job]) {
      event_integral += (at - t) * units;
      bound += 2 * units * dt;
    }
    held[job].clear();
  };
  for (const auto& e : r.events) {
    const double t = to_seconds(e.at);
    if (e.kind == JobEventKind::kBound) {
      // Units of the pod: one per card entry (a fractional share counts none in
      // gpus_allocated).
      const int per_pod =
          std::get<1>(GetParam()) == SharingMode::kFractional && e.job.starts_with("light")
              ? 0
              : static_cast<int>(e.cards.size());
      held[e.job].emplace_back(t, per_pod);
    } else if (e.kind == JobEventKind::kSucceeded || e.kind == JobEventKind::kFailed ||
               (e.kind == JobEventKind::kOomKilled && !in_place)) {
      release(e.job, t);
    }
  }
  for (auto& [job, pods] : held) {
    release(job, end);
  }
  double sampled = 0.0;
  for (std::size_t i = 0; i + 1 < r.samples.size(); ++i) {
    const double span = to_seconds(r.samples[i + 1].at) - to_seconds(r.samples[i].at);
    int allocated = 0;
    for (const auto& n : r.samples[i].nodes) {
      allocated += n.gpus_allocated;
    }
    sampled += allocated * span;
  }
  EXPECT_GT(event_integral, 0.0);
  if (std::get<1>(GetParam()) == SharingMode::kTimeSlicing) {
    // The suite must exercise kills: heavy jobs sharing a card OOM.
    EXPECT_TRUE(std::any_of(r.events.begin(), r.events.end(),
                            [](const JobEvent& e) { return e.kind == JobEventKind::kOomKilled; }));
  }
  EXPECT_NEAR(sampled, event_integral, bound)
      << "GPU-seconds from events " << event_integral << ", from samples " << sampled;

  // Same inputs, same run.
  const Record again = run(GetParam());
  ASSERT_EQ(again.events.size(), r.events.size());
  for (std::size_t i = 0; i < r.events.size(); ++i) {
    EXPECT_EQ(again.events[i].at, r.events[i].at);
    EXPECT_EQ(again.events[i].job, r.events[i].job);
    EXPECT_EQ(again.events[i].kind, r.events[i].kind);
  }
}

std::string name_of(const ::testing::TestParamInfo<Params>& info) {
  const auto& [policy, sharing, restart] = info.param;
  std::string n = policy + "_" + std::string(to_string(sharing)) + "_" + to_string(restart);
  for (char& c : n) {
    c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(
    EveryPolicyAndSharingMode, Invariants,
    ::testing::Combine(::testing::ValuesIn(policies::builtin_scheduler_names()),
                       ::testing::Values(SharingMode::kExclusive, SharingMode::kTimeSlicing,
                                         SharingMode::kFractional),
                       ::testing::Values(workloads::RestartPolicy::kNever,
                                         workloads::RestartPolicy::kOnFailure)),
    name_of);

}  // namespace
}  // namespace tidesim
