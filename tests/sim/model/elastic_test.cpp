// A resize's cost, worked by hand (sim/model/admission_controller.hpp, "Elastic jobs" in
// docs/job-scheduling.md): one elastic job of 100 steps whose step takes 1 s / its GPUs, on one
// node of four A10s, given 2 GPUs when it arrives and 1 from 50 s on. A resize checkpoints first
// (nothing is lost, though the job's own checkpoints are an hour apart) and costs the re-scale
// delay (run.pod_startup, 10 s) without progress.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <string>

#include "tidesim/sim/admission/job_policy_registry.hpp"
#include "tidesim/sim/experiments/run.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

// `seconds` a step on one GPU (1 s unless given), linear in the GPUs.
class LinearSpeed final : public workloads::MeasuredSpeed {
 public:
  explicit LinearSpeed(double seconds = 1.0) : seconds_(seconds) {}
  double step_seconds(const std::vector<int>& gpus_per_node) const override {
    return seconds_ / std::max(1, std::accumulate(gpus_per_node.begin(), gpus_per_node.end(), 0));
  }
  double compute_seconds(const std::vector<int>& gpus_per_node) const override {
    return step_seconds(gpus_per_node);
  }

 private:
  double seconds_;
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

// Runs every job but from 50 s to 60 s (suspended there); decides every 10 s.
class SuspendFrom50sTo60s final : public JobPolicy {
 public:
  std::string_view name() const override { return "test-suspend-50s-60s"; }
  std::optional<Duration> interval() const override { return Duration(10s); }
  JobDecision decide(const JobPolicyState& state) override {
    JobDecision d;
    for (const JobView& j : state.jobs) {
      if (state.now < TimePoint(50s) || state.now >= TimePoint(60s)) {
        d.run.push_back(j.id);
      }
    }
    return d;
  }
};

// The same, and the job it admits again at 60 s starts 25 s late (JobDecision::start_delay).
class SuspendAndDelay final : public JobPolicy {
 public:
  std::string_view name() const override { return "test-suspend-and-delay"; }
  std::optional<Duration> interval() const override { return Duration(10s); }
  JobDecision decide(const JobPolicyState& state) override {
    JobDecision d = inner_.decide(state);
    if (state.now >= TimePoint(60s)) {
      for (const int j : d.run) {
        d.start_delay[j] = Duration(25s);
      }
    }
    return d;
  }

 private:
  SuspendFrom50sTo60s inner_;
};

// Runs every job on one replica; the decision at 50 s changes its speed to 0.5 s a step (a job's
// speed after a change of its batch, say) and its work to `done` of 60 steps
// (JobDecision::speed_change). Decides every 10 s.
template <int Done>
class ChangeSpeedAt50s final : public JobPolicy {
 public:
  std::string_view name() const override { return "test-change-speed-at-50s"; }
  std::optional<Duration> interval() const override { return Duration(10s); }
  JobDecision decide(const JobPolicyState& state) override {
    JobDecision d;
    for (const JobView& j : state.jobs) {
      d.run.push_back(j.id);
      d.replicas[j.id] = 1;
      if (state.now == TimePoint(50s)) {
        d.speed_change[j.id] = {.speed = std::make_shared<const LinearSpeed>(0.5),
                                .done = Done,
                                .steps = 60,
                                .elastic = nullptr};
      }
    }
    return d;
  }
};

struct Outcome {
  double done_s = -1;
  std::vector<double> started_s;
  int evictions = 0;  // of the cause asked for
  double lost_gpu_s = 0;
};

template <class Policy>
void register_test_policy(const std::string& name) {
  register_job_policy(
      {name, {}, [](const AdmissionConfig&) { return std::make_unique<Policy>(); }, false, false});
}

template <class Policy>
Outcome run_elastic(const std::string& policy, const std::string& cause, bool elastic = true) {
  // The scenario names the first; the run, `policy`.
  register_test_policy<ResizeAt50s>("test-resize-at-50s");
  register_test_policy<Policy>(policy);
  Scenario s = load_scenario("tests/sim/data/elastic.yaml");
  s.policies.front().admission->policy = policy;
  Workload w = make_jobs(s, 1);
  w.jobs[0].steps = 100;
  w.jobs[0].duration.reset();
  w.jobs[0].measured = std::make_shared<const LinearSpeed>();
  if (elastic) {
    w.jobs[0].elastic = std::make_shared<const LinearElastic>();
  }
  RunSignals signals;
  Outcome o;
  signals.job.connect([&o, cause](const JobEvent& e) {
    if (e.kind == JobEventKind::kSucceeded) {
      o.done_s = to_seconds(e.at);
    }
    if (e.kind == JobEventKind::kStarted) {
      o.started_s.push_back(to_seconds(e.at));
    }
    if (e.kind == JobEventKind::kEvicted && e.cause == cause) {
      ++o.evictions;
      o.lost_gpu_s += e.lost_gpu_seconds;
    }
  });
  (void)run_policy(s, w, s.policies.front(), 1, signals);
  return o;
}

TEST(ElasticJob, AResizeKeepsTheWorkAndCostsTheRescaleDelay) {
  const Outcome o = run_elastic<ResizeAt50s>("test-resize-at-50s", "resize");
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
  EXPECT_EQ(o.evictions, 2);
  EXPECT_DOUBLE_EQ(o.lost_gpu_s, 0.0);
  // 100 = 2 x (50 - start1) + (done - start2).
  EXPECT_NEAR(o.done_s, o.started_s[1] + 100.0 - 2.0 * (50.0 - o.started_s[0]), 1e-3);
  EXPECT_NEAR(o.done_s, 80.0, 0.2);
}

// A suspension by the policy: an elastic (AdaptDL) job checkpoints first and loses nothing; a job
// of a fixed size loses the work since its last checkpoint (an hour apart here: all of it).
TEST(ElasticJob, ASuspendedElasticJobKeepsItsWork) {
  // One replica, 1 step a second from ~10 s: ~40 steps by 50 s, suspended until the decision at
  // 60 s, starts again at ~70 s with ~60 steps left: done at ~130 s.
  const Outcome elastic =
      run_elastic<SuspendFrom50sTo60s>("test-suspend-50s-60s", "suspension", true);
  ASSERT_EQ(elastic.started_s.size(), 2u);
  EXPECT_NEAR(elastic.started_s[0], 10.0, 0.1);
  EXPECT_NEAR(elastic.started_s[1], 70.0, 0.1);
  EXPECT_EQ(elastic.evictions, 1);
  EXPECT_DOUBLE_EQ(elastic.lost_gpu_s, 0.0);
  // 100 = (50 - start1) + (done - start2).
  EXPECT_NEAR(elastic.done_s, elastic.started_s[1] + 100.0 - (50.0 - elastic.started_s[0]), 1e-3);
  // The same job not elastic: the ~40 steps are lost (~40 GPU-seconds), all 100 run again from
  // ~70 s: done at ~170 s.
  const Outcome fixed =
      run_elastic<SuspendFrom50sTo60s>("test-suspend-50s-60s", "suspension", false);
  ASSERT_EQ(fixed.started_s.size(), 2u);
  EXPECT_EQ(fixed.evictions, 1);
  EXPECT_NEAR(fixed.lost_gpu_s, 50.0 - fixed.started_s[0], 0.1);
  EXPECT_NEAR(fixed.done_s, fixed.started_s[1] + 100.0, 1e-3);
}

// A start delay (Shockwave's simulator's restart overhead, sim/admission/gavel_restart.hpp): the
// job of the test above admitted again at 60 s, bound at ~60.0 s, starts after pod_startup (10 s)
// and the delay (25 s) at ~95 s, with ~60 steps left: done at ~155 s. The decisions after 60 s
// repeat the delay for a job admitted already: it does not count again.
TEST(ElasticJob, AStartDelayPostponesTheWorkOfAJobAdmittedAgain) {
  const Outcome o = run_elastic<SuspendAndDelay>("test-suspend-and-delay", "suspension", true);
  ASSERT_EQ(o.started_s.size(), 2u);
  EXPECT_NEAR(o.started_s[0], 10.0, 0.1);
  EXPECT_NEAR(o.started_s[1], 95.0, 0.1);
  EXPECT_NEAR(o.done_s, o.started_s[1] + 100.0 - (50.0 - o.started_s[0]), 1e-3);
  EXPECT_NEAR(o.done_s, 155.0, 0.2);
}

// A speed change without a restart (JobDecision::speed_change, as Shockwave's batch changes
// between rounds use it): one replica from ~10 s at 1 step a second, ~40 steps of 100 by the
// decision at 50 s, which counts its work again as 30 of 60 steps at 0.5 s a step: the 30 left
// take 15 s, done at ~65 s, with no eviction and no second start. A change to more steps done
// than the job's steps is refused, naming the job.
TEST(ElasticJob, ASpeedChangeCarriesOnWithTheWorkItGives) {
  const Outcome o = run_elastic<ChangeSpeedAt50s<30>>("test-change-speed-at-50s", "resize");
  ASSERT_EQ(o.started_s.size(), 1u);
  EXPECT_NEAR(o.started_s[0], 10.0, 0.1);
  EXPECT_EQ(o.evictions, 0);
  EXPECT_NEAR(o.done_s, 65.0, 1e-3);
  try {
    (void)run_elastic<ChangeSpeedAt50s<61>>("test-change-speed-to-61", "resize");
    ADD_FAILURE() << "a change to 61 of 60 steps ran";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("changed the speed of job 0"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("61 of 60 steps"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tidesim
