// MIG (docs/model-hardware.md, "MIG"): whole runs of tests/sim/data/mig.yaml, one A100-SXM4-40
// partitioned into GPU instances, observed through the run's signals.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/topologies/gpu_models.hpp"
#include "tidesim/workloads/memory.hpp"

namespace tidesim {
namespace {

struct Observed {
  RunSummary summary;
  std::vector<JobEvent> events;

  long count(JobEventKind kind) const {
    return std::count_if(events.begin(), events.end(),
                         [&](const JobEvent& e) { return e.kind == kind; });
  }
  // Seconds from each job's start to its success.
  std::map<std::string, double> run_seconds() const {
    std::map<std::string, TimePoint> started;
    std::map<std::string, double> out;
    for (const JobEvent& e : events) {
      if (e.kind == JobEventKind::kStarted) {
        started[e.job] = e.at;
      } else if (e.kind == JobEventKind::kSucceeded) {
        out[e.job] = to_seconds(e.at - started.at(e.job));
      }
    }
    return out;
  }
};

Observed run(const Scenario& s, const Workload& w) {
  RunSignals signals;
  Observed o;
  signals.job.connect([&](const JobEvent& e) { o.events.push_back(e); });
  o.summary = run_policy(s, w, make_policy("default-k8s", "default-k8s"), 1, signals);
  return o;
}

// The same scenario with one 7g.40gb instance per card, the pods asking for it.
Scenario whole_instance() {
  Scenario s = load_scenario("tests/sim/data/mig.yaml");
  s.cluster.groups.front().mig_layout = {"7g.40gb"};
  return s;
}

Workload asking(const Scenario& s, const std::string& profile) {
  Workload w = make_jobs(s, 1);
  for (auto& job : w.jobs) {
    job.pod_template.requests.gpus = 0;
    job.pod_template.requests.extended.clear();
    job.pod_template.requests.extended["nvidia.com/mig-" + profile] = 1;
  }
  return w;
}

// The jobs' worker (GPT-2 124M, fused attention, AMP, batch 2) on an A100-SXM4-40: its compute
// seconds per step and its most memory.
workloads::ModelProfile small_profile(const Workload& w) {
  return w.catalogue.profile("gpt2-124m-sdpa", 2, "amp", "A100-SXM4-40");
}

TEST(Mig, SevenSmallInstancesRunTogetherAtOneSeventhTheSpeed) {
  const Scenario seven = load_scenario("tests/sim/data/mig.yaml");
  const Workload w7 = asking(seven, "1g.5gb");
  const workloads::ModelProfile p = small_profile(w7);
  // The job fits a 1g.5gb instance: 40,960 MiB / 8 = 5,120 MiB.
  const std::int64_t slice = 40960LL * 1024 * 1024 / 8;
  ASSERT_LT(workloads::peak_memory(p), slice);
  const Observed a = run(seven, w7);
  // Seven instances, seven jobs: all start at once (t = 0 plus scheduling cycles), no kill.
  EXPECT_EQ(a.summary.succeeded, 7);
  EXPECT_EQ(a.count(JobEventKind::kOomKilled), 0);
  // Each runs on 1/7 of the SMs: step = compute_seconds / (1/7) (input reads are far below the
  // compute time here), 700 steps = 4,900 x compute_seconds.
  const double on_1g = 700.0 * p.compute_seconds * 7.0;
  for (const auto& [job, seconds] : a.run_seconds()) {
    EXPECT_NEAR(seconds, on_1g, 1e-3) << job;
  }
  // Every job starts before the first one ends: they ran side by side.
  std::vector<TimePoint> starts;
  for (const JobEvent& e : a.events) {
    if (e.kind == JobEventKind::kStarted) {
      starts.push_back(e.at);
    }
  }
  ASSERT_EQ(starts.size(), 7u);
  EXPECT_LT(to_seconds(*std::max_element(starts.begin(), starts.end())), on_1g);

  // One 7g.40gb instance: one job at a time at the whole card's speed, 700 x compute_seconds
  // each; the others wait for the instance. Seven in sequence take as long as seven side by side
  // on 1g instances (7 x 700 x c = 4,900 x c), plus the scheduling cycles between them.
  const Scenario one = whole_instance();
  const Observed b = run(one, asking(one, "7g.40gb"));
  EXPECT_EQ(b.summary.succeeded, 7);
  EXPECT_EQ(b.count(JobEventKind::kOomKilled), 0);
  for (const auto& [job, seconds] : b.run_seconds()) {
    EXPECT_NEAR(seconds, 700.0 * p.compute_seconds, 1e-3) << job;
  }
  // Never two at once: each start comes after the previous success.
  int running = 0;
  int most = 0;
  for (const JobEvent& e : b.events) {
    running += e.kind == JobEventKind::kStarted ? 1 : (e.kind == JobEventKind::kSucceeded ? -1 : 0);
    most = std::max(most, running);
  }
  EXPECT_EQ(most, 1);
}

TEST(Mig, AJobOverItsInstanceMemoryFailsAlone) {
  // Job 0 at batch 64 holds more than a 1g.5gb instance's 5,120 MiB after its ramp-up: every
  // attempt is killed (1 + backoff_limit 2 = 3 kills) and the job fails. Its six neighbours on
  // the other instances are never killed and all succeed.
  const Scenario s = load_scenario("tests/sim/data/mig.yaml");
  Workload w = asking(s, "1g.5gb");
  w.jobs[0].batch_size = 64;
  ASSERT_GT(
      workloads::peak_memory(w.catalogue.profile("gpt2-124m-sdpa", 64, "amp", "A100-SXM4-40")),
      40960LL * 1024 * 1024 / 8);
  const Observed o = run(s, w);
  EXPECT_EQ(o.count(JobEventKind::kOomKilled), 3);
  for (const JobEvent& e : o.events) {
    if (e.kind == JobEventKind::kOomKilled) {
      EXPECT_EQ(e.job, w.jobs[0].name);
      EXPECT_EQ(e.memory_capacity, 40960LL * 1024 * 1024 / 8);  // the instance's, not the card's
      EXPECT_TRUE(e.co_located.empty());
    }
  }
  EXPECT_EQ(o.summary.failed, 1);
  EXPECT_EQ(o.summary.succeeded, 6);
}

// A pod takes one MIG instance: asking for two (mixed: nvidia.com/mig-1g.5gb: 2; single: 2
// nvidia.com/gpu) would pass the scheduler's count and fail at bind on every retry, so
// check_scenario refuses it, naming the job.
TEST(Mig, APodAskingForTwoInstancesIsRefused) {
  Scenario s = load_scenario("tests/sim/data/mig.yaml");
  Workload w = make_jobs(s, 1);
  w.jobs.front().pod_template.requests.extended["nvidia.com/mig-1g.5gb"] = 2;
  try {
    (void)check_scenario(s, w);
    ADD_FAILURE() << "two instances per pod were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("job 'small-0' asks for 2 nvidia.com/mig-1g.5gb per pod; "
                                         "a pod takes at most one MIG instance"),
              std::string::npos)
        << e.what();
  }
  w = make_jobs(s, 1);
  EXPECT_NO_THROW((void)check_scenario(s, w));  // one instance each
  s.cluster.groups.front().mig_layout.assign(7, "1g.5gb");
  s.cluster.groups.front().mig_single = true;
  for (auto& job : w.jobs) {
    job.pod_template.requests.extended.clear();
    job.pod_template.requests.gpus = 1;
  }
  EXPECT_NO_THROW((void)check_scenario(s, w));
  w.jobs.back().pod_template.requests.gpus = 2;
  try {
    (void)check_scenario(s, w);
    ADD_FAILURE() << "two nvidia.com/gpu under strategy single were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("asks for 2 nvidia.com/gpu per pod, but group 'a100' "
                                         "advertises MIG instances as nvidia.com/gpu"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tidesim
