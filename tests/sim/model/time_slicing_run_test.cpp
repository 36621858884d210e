// Time-slicing in whole runs (sim/model/execution.cpp with topologies/time_slicing.hpp): only
// running processes get a card's compute, every change of who runs re-rates the card's jobs at
// once, and an idle slice goes to the process that has work (docs/model-hardware.md,
// "Time-slicing"). One node of two time-sliced A10 cards (tests/sim/data/time_sliced_node.yaml).
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;
using test::Observed;
using test::seconds;

workloads::JobSpec job(const workloads::JobSpec& base, std::string name, std::string model,
                       int batch_size, std::int64_t steps, Duration submit) {
  workloads::JobSpec j = base;
  j.name = std::move(name);
  j.model = std::move(model);
  j.batch_size = batch_size;
  j.steps = steps;
  j.duration.reset();
  j.submit_time = TimePoint(submit);
  j.pod_template.name = j.name;
  return j;
}

// Card `card` of the node at every sample, by time in whole seconds.
std::map<int, double> card_utilization(const Observed& o, int card) {
  std::map<int, double> out;
  for (const ClusterSample& c : o.samples) {
    out[static_cast<int>(seconds(c.at))] = c.nodes.at(0).gpu_utilization.at(card);
  }
  return out;
}

double finished_at(const Observed& o, const std::string& name) {
  const auto done = o.of(JobEventKind::kSucceeded, name);
  EXPECT_EQ(done.size(), 1u) << name;
  return done.empty() ? 0.0 : seconds(done.front().at);
}

// From its container's start to its end.
double ran(const Observed& o, const std::string& name) {
  const auto started = o.of(JobEventKind::kStarted, name);
  EXPECT_EQ(started.size(), 1u) << name;
  return started.empty() ? 0.0 : finished_at(o, name) - seconds(started.front().at);
}

// Job A runs alone on card 0 from 60 s (its pod starts for 60 s). Job B binds to card 0 at
// 100 s and starts at 160 s; job C, on card 1, ends at about 123 s. Until B's container starts,
// A has card 0 to itself: the card reads the same at 110 s (after B bound) and at 130-150 s
// (after C's end re-rated the node) as at 90 s. Before, B's slot halved A from the first
// unrelated event on: 0.5 x A's utilisation at 130-150 s.
TEST(TimeSlicingRun, APodThatHasNotStartedTakesNoCompute) {
  const Scenario s = load_scenario("tests/sim/data/time_sliced_node.yaml");
  const workloads::JobSpec base = make_jobs(s, 1).jobs.at(0);
  Workload w;
  // C: about 63 s of steps at GPT-2 124M's speed at batch 4 alone on an A10. Batch 4 keeps two
  // of them within the card's memory.
  w.jobs = {job(base, "a", "gpt2-124m", 4, 20'000, 0s), job(base, "c", "gpt2-124m", 4, 520, 0s),
            job(base, "b", "gpt2-124m", 4, 20'000, 100s)};
  const Observed o = test::run(s, w);
  for (const auto& e : o.events) {
    EXPECT_NE(e.kind, JobEventKind::kOomKilled) << e.job << " at " << seconds(e.at);
  }
  const auto binds_b = o.of(JobEventKind::kBound, "b");
  ASSERT_EQ(binds_b.size(), 1u);
  EXPECT_EQ(binds_b.front().cards, std::vector<int>{0});
  EXPECT_NEAR(seconds(binds_b.front().at), 100.0, 0.1);
  const double c_end = finished_at(o, "c");
  EXPECT_GT(c_end, 115.0);
  EXPECT_LT(c_end, 130.0);
  const auto u = card_utilization(o, 0);
  const double a_alone = u.at(90);
  ASSERT_GT(a_alone, 0.5);
  for (const int t : {70, 100, 110, 125, 130, 140, 150, 159}) {
    EXPECT_DOUBLE_EQ(u.at(t), a_alone) << "card 0 at " << t << " s, A alone running";
  }
  // From 160 s both run on card 0, compute-bound: together they keep it as busy as A alone did
  // (each at half speed), never past 1.
  for (const int t : {161, 200, 300}) {
    EXPECT_LE(u.at(t), 1.0) << t;
    EXPECT_NEAR(u.at(t), a_alone, 1e-9) << t;
  }
}

// A GPT-2 124M job of 2,000 steps shares one A10 with a ResNet-50 job that reads its images from
// a 20 MB/s disk and so leaves most of its slice idle. Work-conserving time-slicing gives that idle
// time to GPT-2: it finishes well before twice its time alone and the card stays busy. The equal
// rule (`slicing: equal`, the earlier model) halves GPT-2 whatever its neighbour does: exactly
// twice its time alone, with the card partly idle.
TEST(TimeSlicingRun, AnIdleSliceGoesToTheProcessThatHasWork) {
  Scenario s = load_scenario("tests/sim/data/time_sliced_node.yaml");
  s.run.pod_startup = Duration::zero();
  s.cluster.groups.at(0).topology = "pcie-1";
  const workloads::JobSpec base = make_jobs(s, 1).jobs.at(0);
  const workloads::JobSpec gpt = job(base, "gpt", "gpt2-124m", 8, 2'000, 0s);
  const workloads::JobSpec resnet = job(base, "resnet", "resnet50", 64, 1'000'000, 0s);
  Workload alone;
  alone.jobs = {gpt};
  const double solo = ran(test::run(s, alone), "gpt");
  ASSERT_GT(solo, 10.0);
  Workload pair;
  pair.jobs = {gpt, resnet};
  std::map<SliceModel, double> took;
  std::map<SliceModel, double> idle;
  for (const SliceModel m : {SliceModel::kWorkConserving, SliceModel::kEqual}) {
    s.cluster.groups.at(0).slicing = m;
    const Observed o = test::run(s, pair);
    took[m] = ran(o, "gpt");
    idle[m] = 1.0 - card_utilization(o, 0).at(static_cast<int>(took[m] / 2));
    std::cout << to_string(m) << ": GPT-2 ran " << took[m] << " s (alone " << solo
              << " s), card idle " << idle[m] << "\n";
  }
  // Equal: half speed from the ResNet job's start, one cycle (10 ms) after GPT-2's, so twice the
  // time alone less the 10 ms it ran at full speed.
  EXPECT_NEAR(took[SliceModel::kEqual], 2.0 * solo - 0.01, 1e-5);
  EXPECT_GT(idle[SliceModel::kEqual], 0.05);
  EXPECT_LT(took[SliceModel::kWorkConserving], 1.5 * solo);
  EXPECT_NEAR(idle[SliceModel::kWorkConserving], 0.0, 1e-9);
}

}  // namespace
}  // namespace tidesim
