// Whole runs of jobs written as Kubernetes manifests: priorities from PriorityClass objects drive
// preemption, and PodGroup objects make gangs (docs/scenario-workload.md, "Kubernetes manifests").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/metrics/job_scheduling.hpp"
#include "tidesim/workloads/workload_spec.hpp"

namespace tidesim {
namespace {

using namespace std::chrono_literals;

using test::Observed;
using test::run;
using test::seconds;

// The job that mix entry `entry` makes, as make_jobs builds it (its manifest's pod template,
// priority and gang; its 100 s converted to steps on the cluster's A10), named `name` and
// submitted at `submit`.
workloads::JobSpec job_of(const Scenario& s, std::size_t entry, const std::string& name,
                          TimePoint submit) {
  workloads::WorkloadSpec spec = s.workload;
  spec.mix = {spec.mix.at(entry)};
  spec.arrivals->count = 1;
  RandomStream rng(1, "workload");
  workloads::JobSpec job = workloads::generate_jobs(spec, rng, workloads::SpeedReference{}).at(0);
  job.name = name;
  job.pod_template.name = name;
  job.submit_time = submit;
  return job;
}

// The case of JobScheduling.APreemptedJobResumesFromItsLastCheckpoint (tests/sim/
// job_scheduling_test.cpp), with the priorities written as Kubernetes writes them: "low" names no
// class and gets the globalDefault class "batch" (10); "high", in another manifest file, names
// "urgent" (1000) declared in the first. One node with one A10: low (1000 s of work, checkpoints
// every 60 s) starts at 0 s; high arrives at 130 s, fits nowhere and preempts low's pod (30 s
// grace period). At 160 s low's attempt stops, losing the 40 s since its 120 s checkpoint
// (40 GPU-seconds); high binds at 160 s and runs 100 s: done at 260 s; low then does its
// remaining 1000 - 120 = 880 s: done at about 1140 s.
TEST(ManifestScheduling, AClassOfHigherPriorityPreempts) {
  const Scenario s = load_scenario("tests/sim/data/manifest_preemption.yaml");
  Workload w = make_jobs(s, 1);
  workloads::JobSpec low = job_of(s, 0, "low", TimePoint(0s));
  const std::int64_t steps_per_100s = low.steps;
  low.steps = steps_per_100s * 10;
  low.backoff_limit = 0;
  const workloads::JobSpec high = job_of(s, 1, "high", TimePoint(130s));
  EXPECT_EQ(low.pod_template.priority, 10);
  EXPECT_EQ(high.pod_template.priority, 1000);
  EXPECT_EQ(high.pod_template.preemption_policy, "PreemptLowerPriority");
  EXPECT_EQ(high.steps, steps_per_100s);
  w.jobs = {low, high};
  const Observed o = run(s, w);
  EXPECT_EQ(o.summary.succeeded, 2);
  const auto evicted = o.of(JobEventKind::kEvicted, "low");
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].cause, "preemption");
  EXPECT_EQ(evicted[0].at, TimePoint(160s));
  EXPECT_DOUBLE_EQ(evicted[0].lost_gpu_seconds, 40.0);
  const auto high_done = o.of(JobEventKind::kSucceeded, "high");
  ASSERT_EQ(high_done.size(), 1u);
  EXPECT_NEAR(seconds(high_done[0].at), 260.0, 0.1);
  const auto low_done = o.of(JobEventKind::kSucceeded, "low");
  ASSERT_EQ(low_done.size(), 1u);
  EXPECT_NEAR(seconds(low_done[0].at), 1140.0, 0.5);
  EXPECT_EQ(o.metrics.at("preemptions"), 1.0);
}

// The same with "polite", whose class "urgent-nonpreempting" has the same value but
// preemptionPolicy Never: it waits for low to end (about 1000 s: 10 x 100 s) and then runs its
// 100 s; nothing is preempted.
TEST(ManifestScheduling, AClassThatNeverPreemptsWaits) {
  const Scenario s = load_scenario("tests/sim/data/manifest_preemption.yaml");
  Workload w = make_jobs(s, 1);
  workloads::JobSpec low = job_of(s, 0, "low", TimePoint(0s));
  low.steps *= 10;
  const workloads::JobSpec polite = job_of(s, 2, "polite", TimePoint(130s));
  EXPECT_EQ(polite.pod_template.priority, 1000);
  EXPECT_EQ(polite.pod_template.preemption_policy, "Never");
  w.jobs = {low, polite};
  const Observed o = run(s, w);
  EXPECT_EQ(o.summary.succeeded, 2);
  EXPECT_TRUE(o.of(JobEventKind::kEvicted, "low").empty());
  // A run with no preemption and no gang reports no job-scheduling metrics (docs/metrics.md).
  EXPECT_FALSE(o.metrics.contains("preemptions"));
  const auto low_done = o.of(JobEventKind::kSucceeded, "low");
  const auto polite_started = o.of(JobEventKind::kStarted, "polite");
  const auto polite_done = o.of(JobEventKind::kSucceeded, "polite");
  ASSERT_EQ(low_done.size(), 1u);
  ASSERT_EQ(polite_started.size(), 1u);
  ASSERT_EQ(polite_done.size(), 1u);
  EXPECT_NEAR(seconds(low_done[0].at), 1000.0, 0.5);
  EXPECT_GE(polite_started[0].at, low_done[0].at);
  EXPECT_NEAR(seconds(polite_done[0].at), 1100.0, 1.0);
}

// The case of JobScheduling.AGangWaitsWithoutHoldingGpusThenBindsAtOnce with the gang written as
// a PodGroup manifest: a 1-GPU job holds one of the 4 cards for 100 s; a 4-pod Job in a PodGroup
// of minMember 4, submitted at 1 s, cannot fit on the 3 free cards. Coscheduling's
// (minResources 4 GPUs: PreFilter turns its pods away) and Volcano's (all-or-nothing) gangs hold
// no GPU meanwhile: every sample before 100 s shows 1 GPU allocated; at about 100 s all 4 pods
// bind at once, after a gang wait of about 99 s.
TEST(ManifestScheduling, APodGroupJobWaitsWithoutHoldingGpus) {
  const Scenario s = load_scenario("tests/sim/data/manifest_gangs.yaml");
  const workloads::GangSpec coscheduling{
      workloads::GangMode::kPermit, 4, 30s, true, false, "", std::nullopt, std::nullopt};
  const workloads::GangSpec volcano{
      workloads::GangMode::kAllOrNothing, 0, 60s, false, false, "", std::nullopt, std::nullopt};
  for (const std::size_t entry : {1u, 2u}) {
    Workload w = make_jobs(s, 1);
    const workloads::JobSpec gang = job_of(s, entry, "gang", TimePoint(1s));
    ASSERT_TRUE(gang.gang);
    EXPECT_EQ(*gang.gang, entry == 1 ? coscheduling : volcano);
    EXPECT_EQ(gang.replicas, 4);
    w.jobs = {job_of(s, 0, "busy", TimePoint(0s)), gang};
    const Observed o = run(s, w);
    const std::string label = std::string(workloads::to_string(gang.gang->mode));
    expect_gang_waited_without_holding_gpus(o, label);
  }
}

// The InputError message of building the jobs of the scenario at `path` ("" when none).
std::string input_error_of(const std::string& path) {
  try {
    (void)make_jobs(load_scenario(path), 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A class is visible only where it is declared: a scenario naming urgent.yaml without
// batch.yaml (which declares "urgent") is refused at the pod's priorityClassName (line 9,
// column 26 = 6 spaces + "priorityClassName: " + 1).
TEST(ManifestScheduling, AClassDeclaredInNoFileOfTheScenarioIsAnError) {
  const auto path = std::filesystem::temp_directory_path() / "tidesim-manifest-classes.yaml";
  const auto urgent = std::filesystem::absolute("tests/sim/data/manifests/urgent.yaml");
  std::ofstream(path) << "name: bad\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - {name: gpu, count: 1, gpu: A10, topology: a10x4-pcie}\n"
                         "workload:\n"
                         "  arrivals: {process: burst, count: 1}\n"
                         "  jobs:\n"
                         "    - manifest: "
                      << urgent.string()
                      << "\n"
                         "      manifest_name: high\n"
                         "      model: resnet50\n"
                         "      batch_size: 64\n"
                         "      duration: 100s\n"
                         "policies: [default-k8s]\n";
  const std::string message = input_error_of(path.string());
  EXPECT_NE(message.find("urgent.yaml:9:26: spec.template.spec.priorityClassName: no "
                         "PriorityClass named 'urgent'"),
            std::string::npos)
      << message;
}

// An entry's manifest must hold a Job or Pod to be its template: a file of PriorityClasses only is
// refused at the entry's `manifest` key (line 8, column 17 = "    - manifest: " + 1).
TEST(ManifestScheduling, AnEntryNamingAFileWithoutJobsIsAnError) {
  const auto dir = std::filesystem::temp_directory_path();
  std::ofstream(dir / "tidesim-classes-only.yaml")
      << "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n";
  const auto path = dir / "tidesim-classes-only-scenario.yaml";
  std::ofstream(path) << "name: bad\n"
                         "cluster:\n"
                         "  node_groups:\n"
                         "    - {name: gpu, count: 1, gpu: A10, topology: a10x4-pcie}\n"
                         "workload:\n"
                         "  arrivals: {process: burst, count: 1}\n"
                         "  jobs:\n"
                         "    - manifest: tidesim-classes-only.yaml\n"
                         "      model: resnet50\n"
                         "      batch_size: 64\n"
                         "      duration: 100s\n"
                         "policies: [default-k8s]\n";
  const std::string message = input_error_of(path.string());
  EXPECT_EQ(message, path.string() +
                         ":8:17: workload.jobs[0].manifest: the file holds no Job or Pod (only "
                         "PriorityClasses or PodGroups)");
}

// scenarios/manifest-gangs.yaml writes the jobs of scenarios/gangs-and-priorities.yaml as
// manifests (PriorityClasses, a Coscheduling and a Volcano PodGroup, Jobs): the jobs get the same
// priorities, preemption policies, gangs and sizes as the inline entries give, so the two runs
// are the same run (here seed 1 under default-k8s: every event and metric equal).
TEST(ManifestScheduling, TheManifestScenarioRunsAsItsInlineTwin) {
  const Scenario manifests = load_scenario("scenarios/manifest-gangs.yaml");
  const Scenario inline_jobs = load_scenario("scenarios/gangs-and-priorities.yaml");
  const Workload a = make_jobs(manifests, 1);
  const Workload b = make_jobs(inline_jobs, 1);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  int gangs = 0;
  int never = 0;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const auto& x = a.jobs[i];
    const auto& y = b.jobs[i];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.submit_time, y.submit_time) << x.name;
    EXPECT_EQ(x.replicas, y.replicas) << x.name;
    EXPECT_EQ(x.steps, y.steps) << x.name;
    EXPECT_EQ(x.pod_template.requests.gpus, y.pod_template.requests.gpus) << x.name;
    EXPECT_EQ(x.pod_template.priority, y.pod_template.priority) << x.name;
    EXPECT_EQ(x.pod_template.preemption_policy, y.pod_template.preemption_policy) << x.name;
    ASSERT_EQ(x.gang.has_value(), y.gang.has_value()) << x.name;
    if (x.gang) {
      // min_member 0 means every pod of the job (the inline dp4 entry gives none; the PodGroup
      // gives minMember 4 = its parallelism).
      const auto effective = [](const workloads::JobSpec& j) {
        return j.gang->min_member > 0 ? j.gang->min_member : j.replicas;
      };
      EXPECT_EQ(x.gang->mode, y.gang->mode) << x.name;
      EXPECT_EQ(effective(x), effective(y)) << x.name;
      EXPECT_EQ(x.gang->schedule_timeout, y.gang->schedule_timeout) << x.name;
      EXPECT_EQ(x.gang->min_resources, y.gang->min_resources) << x.name;
    }
    gangs += x.gang.has_value();
    never += x.pod_template.preemption_policy == "Never";
  }
  EXPECT_GT(gangs, 0);
  EXPECT_GT(never, 0);
  const Observed o = run(manifests, a);
  const Observed p = run(inline_jobs, b);
  EXPECT_EQ(o.summary.end, p.summary.end);
  EXPECT_EQ(o.summary.events, p.summary.events);
  EXPECT_EQ(o.summary.succeeded, static_cast<int>(a.jobs.size()));
  EXPECT_EQ(o.metrics, p.metrics);
  EXPECT_GT(o.metrics.at("preemptions"), 0.0);
  ASSERT_EQ(o.events.size(), p.events.size());
  for (std::size_t i = 0; i < o.events.size(); ++i) {
    EXPECT_EQ(o.events[i].at, p.events[i].at) << i;
    EXPECT_EQ(o.events[i].job, p.events[i].job) << i;
    EXPECT_EQ(o.events[i].kind, p.events[i].kind) << i;
  }
}

}  // namespace
}  // namespace tidesim
