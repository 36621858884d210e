// Faults in a run: a node failure loses exactly the progress since each job's last checkpoint,
// and every job is still accounted for; the faults section's checks; the draws.
#include "tidesim/sim/scenario/faults.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "tests/common/errors.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/input/yaml_fields.hpp"
#include "tidesim/sim/metrics/interruptions.hpp"

namespace tidesim {
namespace {

ConfigNode yaml(const std::string& text) {
  return load_yaml_string(text, "s.yaml");
}

using namespace std::chrono_literals;

double secs(TimePoint t) {
  return to_seconds(t - TimePoint{});
}

// node_failure.yaml: default-k8s spreads the four jobs over both nodes (LeastAllocated), so
// gpu-01 holds some of them. A job started at s runs at one speed alone on its card, checkpoints
// at s + 10 min and s + 20 min, and at 25 min has run 25 min - s, of which 25 min - (s + 20 min)
// = 300 s - s since its last checkpoint: that is its loss (x 1 GPU). Its new pod is created at
// once (an interruption waits for no back-off and does not count against backoff_limit 0) and
// runs on gpu-02, at the same speed, the work left after the checkpoint: W - 1,200 s, where W is
// what a job takes undisturbed (60 min of work made whole steps at the uncontended step time,
// 3,600 s to within a step), as the jobs on gpu-02 do.
TEST(Faults, NodeFailureLosesExactlyTheProgressSinceTheLastCheckpoint) {
  const Scenario s = load_scenario("tests/sim/data/node_failure.yaml");
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  std::vector<JobEvent> events;
  signals.job.connect([&](const JobEvent& e) { events.push_back(e); });
  const RunSummary summary = run_policy(s, w, s.policies[0], 1, signals);
  EXPECT_EQ(summary.succeeded, 4);
  EXPECT_EQ(summary.failed, 0);
  EXPECT_EQ(summary.unfinished, 0);
  std::map<std::string, std::vector<JobEvent>> by_job;
  for (const auto& e : events) {
    by_job[e.job].push_back(e);
  }
  ASSERT_EQ(by_job.size(), 4u);
  // W: the undisturbed jobs' run time (all equal).
  std::optional<double> whole;
  for (const auto& [job, list] : by_job) {
    const auto evicted = std::find_if(list.begin(), list.end(), [](const JobEvent& e) {
      return e.kind == JobEventKind::kEvicted;
    });
    if (evicted == list.end()) {
      whole = secs(list.back().at) - secs(list[2].at);  // succeeded - started
      EXPECT_EQ(list.back().kind, JobEventKind::kSucceeded);
      EXPECT_EQ(list[2].kind, JobEventKind::kStarted);
    }
  }
  ASSERT_TRUE(whole);
  EXPECT_NEAR(*whole, 3600.0, 0.1);
  int evicted_jobs = 0;
  for (const auto& [job, list] : by_job) {
    std::vector<const JobEvent*> starts;
    const JobEvent* evicted = nullptr;
    const JobEvent* done = nullptr;
    for (const auto& e : list) {
      if (e.kind == JobEventKind::kStarted) {
        starts.push_back(&e);
      } else if (e.kind == JobEventKind::kEvicted) {
        evicted = &e;
      } else if (e.kind == JobEventKind::kSucceeded) {
        done = &e;
      }
    }
    ASSERT_NE(done, nullptr) << job;
    ASSERT_FALSE(starts.empty()) << job;
    const double s0 = secs(starts[0]->at);
    EXPECT_LT(s0, 1.0) << job;  // bound in the first cycles
    if (evicted == nullptr) {
      EXPECT_EQ(starts.size(), 1u) << job;
      EXPECT_NEAR(secs(done->at) - s0, *whole, 1e-3) << job;
      continue;
    }
    ++evicted_jobs;
    EXPECT_EQ(evicted->node, "gpu-01");
    EXPECT_EQ(evicted->cause, "node-failure");
    EXPECT_EQ(evicted->at, TimePoint(25min));
    EXPECT_NEAR(evicted->lost_gpu_seconds, 300.0 - s0, 1e-6) << job;
    ASSERT_EQ(starts.size(), 2u) << job;
    EXPECT_EQ(starts[1]->attempt, 1);
    EXPECT_LT(secs(starts[1]->at) - 1500.0, 0.1) << job;  // within a few cycles
    EXPECT_NEAR(secs(done->at) - secs(starts[1]->at), *whole - 1200.0, 1e-3) << job;
  }
  // Exactly the jobs whose first pod went to gpu-01.
  int on_failed_node = 0;
  for (const auto& e : events) {
    on_failed_node += e.kind == JobEventKind::kBound && e.attempt == 0 && e.node == "gpu-01";
  }
  EXPECT_GE(on_failed_node, 1);
  EXPECT_EQ(evicted_jobs, on_failed_node);
}

// The same scenario with an XID-style error on card 0 of gpu-01 at 25 min instead: only the jobs
// with a pod on that card are interrupted (reason card-failure), each losing 300 s - s of GPU
// time; the node stays schedulable and every job still succeeds.
TEST(Faults, CardErrorInterruptsOnlyTheJobsOnThatCard) {
  const Scenario s = load_scenario("tests/sim/data/node_failure.yaml", [](ConfigNode& root) {
    root.set("faults", yaml("{scheduled: [{kind: card-error, node: gpu-01, card: 0, at: 25m}]}"));
  });
  const Workload w = make_jobs(s, 1);
  RunSignals signals;
  std::vector<JobEvent> events;
  signals.job.connect([&](const JobEvent& e) { events.push_back(e); });
  const RunSummary summary = run_policy(s, w, s.policies[0], 1, signals);
  EXPECT_EQ(summary.succeeded, 4);
  std::map<std::string, double> started;  // first start, s
  std::set<std::string> on_card;
  for (const auto& e : events) {
    if (e.kind == JobEventKind::kStarted && e.attempt == 0) {
      started[e.job] = secs(e.at);
    }
    if (e.kind == JobEventKind::kBound && e.attempt == 0 && e.node == "gpu-01" &&
        std::find(e.cards.begin(), e.cards.end(), 0) != e.cards.end()) {
      on_card.insert(e.job);
    }
  }
  std::set<std::string> evicted;
  for (const auto& e : events) {
    if (e.kind == JobEventKind::kEvicted) {
      evicted.insert(e.job);
      EXPECT_EQ(e.cause, "card-failure");
      EXPECT_EQ(e.at, TimePoint(25min));
      EXPECT_NEAR(e.lost_gpu_seconds, 300.0 - started.at(e.job), 1e-6);
    }
  }
  EXPECT_EQ(on_card.size(), 1u);
  EXPECT_EQ(evicted, on_card);
}

TEST(Faults, SectionIsChecked) {
  const std::vector<std::string> nodes{"a", "b"};
  const auto off = parse_faults(ConfigNode(), "s.yaml", nodes);  // absent
  EXPECT_FALSE(off.enabled);
  const auto on = parse_faults(yaml("{node_failures: {}, card_errors: {distribution: "
                                    "weibull, shape: 0.7}}"),
                               "s.yaml", nodes);
  ASSERT_TRUE(on.node_failures && on.card_errors);
  EXPECT_EQ(on.node_failures->mtbf, std::chrono::hours(15'300));
  EXPECT_EQ(on.node_failures->repair, std::chrono::hours(2));
  EXPECT_EQ(on.card_errors->mtbf, std::chrono::hours(86'300));
  EXPECT_NE(test::message_of([&] {
              parse_faults(yaml("{scheduled: [{kind: drain, node: c, at: 1h, duration: 1h}]}"),
                           "s.yaml", nodes);
            }).find("faults.scheduled[0].node"),
            std::string::npos);
  EXPECT_NE(test::message_of([&] {
              parse_faults(yaml("{node_failures: {shape: 2}}"), "s.yaml", nodes);
            }).find("faults.node_failures.shape"),
            std::string::npos);
}

TEST(Faults, DrawsHaveTheConfiguredMean) {
  // 20,000 draws: the sample mean's relative standard error is 1/sqrt(20000) = 0.7% for the
  // exponential and sqrt(Gamma(1+2/k)/Gamma(1+1/k)^2 - 1)/sqrt(20000) = 1.0% for Weibull
  // k = 0.7 (coefficient of variation 1.46); 5% is about 5 standard errors.
  for (const auto d :
       {FailureProcess::Distribution::kExponential, FailureProcess::Distribution::kWeibull}) {
    FailureProcess p;
    p.distribution = d;
    p.mtbf = std::chrono::hours(100);
    p.shape = d == FailureProcess::Distribution::kWeibull ? 0.7 : 1.0;
    RandomStream rng(3, "draws");
    double sum = 0.0;
    for (int i = 0; i < 20000; ++i) {
      sum += to_seconds(draw_time_between_failures(p, rng));
    }
    EXPECT_NEAR(sum / 20000.0 / 360000.0, 1.0, 0.05);
  }
}

// Repair times: fixed is the value itself; exponential and lognormal (sigma 1) have the
// configured mean. 20,000 draws: relative standard error 1/sqrt(20000) = 0.7% (exponential) and
// sqrt(e^1 - 1)/sqrt(20000) = 0.9% (lognormal, coefficient of variation 1.31); 5% is over 5.
TEST(Faults, RepairDrawsHaveTheConfiguredMean) {
  FailureProcess p;
  p.repair = std::chrono::hours(2);
  RandomStream rng(5, "repairs");
  EXPECT_EQ(draw_repair_time(p, rng), std::chrono::hours(2));
  for (const auto d : {FailureProcess::Repair::kExponential, FailureProcess::Repair::kLognormal}) {
    p.repair_distribution = d;
    double sum = 0.0;
    for (int i = 0; i < 20000; ++i) {
      sum += to_seconds(draw_repair_time(p, rng));
    }
    EXPECT_NEAR(sum / 20000.0 / 7200.0, 1.0, 0.05);
  }
  EXPECT_NE(test::message_of([&] {
              parse_faults(yaml("{node_failures: {repair_sigma: 0.5}}"), "s.yaml", {"a"});
            }).find("faults.node_failures.repair_sigma"),
            std::string::npos);
  const auto on =
      parse_faults(yaml("{node_failures: {repair_distribution: lognormal, repair_sigma: 0.5}}"),
                   "s.yaml", {"a"});
  EXPECT_EQ(on.node_failures->repair_distribution, FailureProcess::Repair::kLognormal);
  EXPECT_DOUBLE_EQ(on.node_failures->repair_sigma, 0.5);
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

// Jobs affected by cause: a hit by two node failures (attempts 0 and 1), b by a drain then a node
// failure, c by a migration; one attempt's several evicted pods count once. So 5 stopped attempts
// (interruptions), 3 jobs (jobs_interrupted), 2 of them by node failures, 1 each by a drain and a
// migration, none by a preemption or a card error.
TEST(Faults, JobsInterruptedCountEachJobOncePerCause) {
  RunSignals signals;
  metrics::InterruptionsCollector collector;
  collector.attach(signals);
  const auto evict = [&](const char* job, int attempt, const char* cause, int minute) {
    JobEvent e;
    e.kind = JobEventKind::kEvicted;
    e.job = job;
    e.attempt = attempt;
    e.cause = cause;
    e.at = TimePoint(std::chrono::minutes(minute));
    signals.job.emit(e);
  };
  evict("a", 0, "node-failure", 10);
  evict("a", 0, "node-failure", 10);  // its second pod: the same attempt
  evict("a", 1, "node-failure", 30);
  evict("b", 0, "drain", 20);
  evict("b", 1, "node-failure", 40);
  evict("c", 0, "migration", 50);
  metrics::MetricValues out;
  collector.finish(TimePoint(60min), out);
  EXPECT_EQ(out.at("interruptions"), 5.0);
  EXPECT_EQ(out.at("interruptions_node_failure"), 3.0);
  EXPECT_EQ(out.at("jobs_interrupted"), 3.0);
  EXPECT_EQ(out.at("jobs_interrupted_node_failure"), 2.0);
  EXPECT_EQ(out.at("jobs_interrupted_drain"), 1.0);
  EXPECT_EQ(out.at("jobs_interrupted_migration"), 1.0);
  EXPECT_EQ(out.at("jobs_interrupted_preemption"), 0.0);
  EXPECT_EQ(out.at("jobs_interrupted_card_failure"), 0.0);
}

// tests/sim/data/node_back.yaml, counted by hand: at 10 min the second job's pod is tried and
// fails (no node has 8 free GPUs); under Kubernetes' hints the third's, of the same class, is a
// fast-fail replay (two unschedulable cycles), under precise hints it goes back without a cycle
// when it comes up (its class just failed and nothing changed since: one). They wait in the
// unschedulable set until their 5-minute timeout (15 min) and after. spare-01 comes back at 18
// min. Kubernetes' hints move both pods at that event (the unschedulable plugins of both include
// NodeUnschedulable, which rejected spare-01, and its hint queues a pod when a node becomes
// schedulable), so both are tried again at 18 min. Under precise hints the event is on spare-01
// alone, whose 4 GPUs still reject an 8-GPU pod: neither moves, and from 11 to 25 min the pods
// take no cycle (at 15 min the timeout pops them and the same hint puts them back).
TEST(Faults, ANodeBackIsAnEventOnThatNodeAlone) {
  const auto unschedulable_between = [](policies::QueueingHints hints, int from_min, int to_min) {
    Scenario s = load_scenario("tests/sim/data/node_back.yaml");
    s.run.queueing_hints = hints;
    const Workload w = make_jobs(s, 1);
    RunSignals signals;
    int count = 0;
    signals.scheduling.connect([&](const SchedulingEvent& e) {
      if (e.node.empty() && e.at >= TimePoint(std::chrono::minutes(from_min)) &&
          e.at < TimePoint(std::chrono::minutes(to_min))) {
        ++count;
      }
    });
    run_policy(s, w, s.policies[0], 1, signals);
    return count;
  };
  EXPECT_EQ(unschedulable_between(policies::QueueingHints::kKubernetes, 10, 11), 2);
  EXPECT_EQ(unschedulable_between(policies::QueueingHints::kKubernetes, 18, 19), 2);
  EXPECT_EQ(unschedulable_between(policies::QueueingHints::kPrecise, 10, 11), 1);
  EXPECT_EQ(unschedulable_between(policies::QueueingHints::kPrecise, 11, 25), 0);
}

}  // namespace
}  // namespace tidesim
