// A resize's cost, worked by hand (sim/model/admission_controller.hpp, "Elastic jobs" in
// docs/job-scheduling.md): one elastic job of 100 steps whose step takes 1 s / its GPUs, on one
// node of four A10s, given 2 GPUs when it arrives and 1 from 50 s on. A resize checkpoints first
// (nothing is lost, though the job's own checkpoints are an hour apart) and costs the re-scale
// delay (run.pod_startup, 10 s) without progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// 1 s a step on one GPU, linear in the GPUs.
class LinearSpeed final : public workloads::MeasuredSpeed {
 public:
  double step_seconds(const std::vector<int>& gpus_per_node) const override {
    return 1.0 / std::max(1, std::accumulate(gpus_per_node.begin(), gpus_per_node.end(), 0));
  }
  double compute_seconds(const std::vector<int>& gpus_per_node) const override {
    return step_seconds(gpus_per_node);
  }
};

class LinearElastic final : public workloads::ElasticModel {
 public:
  int min_replicas() const override { return 1; }
  int max_replicas() const override { return 4; }
  int min_batch_size() const override { return 64; }
  int max_batch_size() const override { return 256; }
  std::shared_ptr<const workloads::MeasuredSpeed> speed(int, int) const override {
    return std::make_shared<const LinearSpeed>();
  }
};

// 2 replicas before 50 s, 1 from then on; decides every 50 s.
class ResizeAt50s final : public JobPolicy {
 public:
  std::string_view name() const override { return "test-resize-at-50s"; }
  std::optional<Duration> interval() const override { return Duration(50s); }
  JobDecision decide(const JobPolicyState& state) override {
    JobDecision d;
    for (const JobView& j : state.jobs) {
      d.run.push_back(j.id);
      d.replicas[j.id] = state.now < TimePoint(50s) ? 2 : 1;
    }
    return d;
  }
};

struct Outcome {
  double done_s = -1;
  std::vector<double> started_s;
  int resize_evictions = 0;
  double lost_gpu_s = 0;
};

Outcome run_elastic() {
  register_job_policy({"test-resize-at-50s",
                       {},
                       [](const AdmissionConfig&) { return std::make_unique<ResizeAt50s>(); },
                       false,
                       false});
  const Scenario s = load_scenario("tests/sim/data/elastic.yaml");
  Workload w = make_jobs(s, 1);
  w.jobs[0].steps = 100;
  w.jobs[0].duration.reset();
  w.jobs[0].measured = std::make_shared<const LinearSpeed>();
  w.jobs[0].elastic = std::make_shared<const LinearElastic>();
  RunSignals signals;
  Outcome o;
  signals.job.connect([&o](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded) {
      o.done_s = to_seconds(e.at);
    }
    if (e.kind == JobEventKind::kStarted) {
      o.started_s.push_back(to_seconds(e.at));
    }
    if (e.kind == JobEventKind::kEvicted && e.cause == "resize") {
      ++o.resize_evictions;
      o.lost_gpu_s += e.lost_gpu_seconds;
    }
  });
  (void)run_policy(s, w, s.policies.front(), 1, signals);
  return o;
}

TEST(ElasticJob, AResizeKeepsTheWorkAndCostsTheRescaleDelay) {
  const Outcome o = run_elastic();
  // Arrives at 0 s as 1 replica, resized to 2 before it starts (no pod bound: no eviction);
  // bound within a few 10 ms scheduling cycles, it starts 10 s later at ~10.0 s and does 2 steps
  // a second: ~80 steps by 50 s. There its 2 pods are evicted (two events, no GPU time lost:
  // it checkpointed at 50 s although its own checkpoints are an hour apart); 1 pod is bound at
  // ~50.0 s and starts at ~60.0 s (10 s without progress: the resize's cost), then does the ~20
  // steps left at 1 a second: done at ~80 s. Losing the work instead (a suspension here) would
  // end it at ~160 s.
  ASSERT_EQ(o.started_s.size(), 2u);
  EXPECT_NEAR(o.started_s[0], 10.0, 0.1);
  EXPECT_NEAR(o.started_s[1], 60.0, 0.1);
  EXPECT_EQ(o.resize_evictions, 2);
  EXPECT_DOUBLE_EQ(o.lost_gpu_s, 0.0);
  // 100 = 2 x (50 - start1) + (done - start2).
  EXPECT_NEAR(o.done_s, o.started_s[1] + 100.0 - 2.0 * (50.0 - o.started_s[0]), 1e-3);
  EXPECT_NEAR(o.done_s, 80.0, 0.2);
}

}  // namespace
}  // namespace tidesim
