// A job alone on an empty cluster runs its stated run time (docs/model-workloads.md, "Run
// times"): its run time is converted to steps at its step time packed onto the fewest nodes of
// its reference GPU model, communication over NVLink and the fabric included, so that placed so
// it runs what was stated. Within 1% (a step is whole): one GPU, a whole node, and gangs of 16 to
// 512 GPUs across scalable units.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/common/temp_file.hpp"
#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/sim/model/reference_speed.hpp"

namespace tidesim {
namespace {

using test::Observed;

struct Case {
  std::string model;
  int pods = 1;
  int gpus_per_pod = 8;
};

double run_time(const Case& c, const std::string& scenario = "stated_run_times.yaml") {
  Scenario s = load_scenario("tests/sim/data/" + scenario);
  for (auto& entry : s.workload.mix) {
    entry.job.model = c.model;
    entry.job.replicas = c.pods;
    entry.job.pod_template.requests.gpus = c.gpus_per_pod;
  }
  const Observed o = test::run(s, make_jobs(s, 1));
  return test::run_seconds(o, s.workload.mix[0].name + "-0");
}

TEST(StatedRunTime, AJobAloneRunsItsStatedRunTime) {
  const std::vector<Case> cases = {
      {"gpt2-1.5b", 1, 1}, {"gpt2-1.5b", 1, 8},  {"gpt2-1.5b", 2, 8},
      {"gpt2-1.5b", 8, 8}, {"gpt2-1.5b", 32, 8}, {"gpt2-1.5b", 64, 8},
      {"resnet50", 4, 8},  {"gpt2-124m", 16, 8}, {"gpt2-355m", 1, 4},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(run_time(c), 3600.0, 36.0)
        << c.model << ", " << c.pods << " pods of " << c.gpus_per_pod << " GPUs";
  }
}

// Runs each job of `scenario`'s trace alone (submitted at 0) and checks it runs its hour; the
// trace has `jobs` jobs.
void each_alone_runs_an_hour(const std::string& scenario, std::size_t jobs) {
  const Scenario s = load_scenario("tests/sim/data/" + scenario);
  const Workload all = make_jobs(s, 1);
  ASSERT_EQ(all.jobs.size(), jobs);
  for (const auto& job : all.jobs) {
    Workload one{all.catalogue, {job}};
    one.jobs[0].submit_time = TimePoint{};
    const Observed o = test::run(s, one);
    EXPECT_NEAR(test::run_seconds(o, job.name), 3600.0, 36.0)
        << job.name << ", " << job.replicas << " pods";
  }
}

TEST(StatedRunTime, ReplayedPhillyJobsAloneRunTheirTracedTime) {
  each_alone_runs_an_hour("stated_run_times_philly.yaml", 2);
}

TEST(StatedRunTime, ReplayedOpenbPodsAloneRunTheirTracedTime) {
  // Whole, several and a shared GPU (its share is its compute share), and a pod whose gpu_spec
  // names its models (the first is its reference): each alone runs its traced hour.
  each_alone_runs_an_hour("stated_run_times_openb.yaml", 4);
}

}  // namespace
}  // namespace tidesim

namespace tidesim {
namespace {

NodeGroup group(const std::string& name, const std::string& gpu, int count, int gpus) {
  NodeGroup g;
  g.name = name;
  g.gpu_model = gpu;
  g.count = count;
  g.gpus = gpus;
  return g;
}

TEST(ReferenceGpu, TheModelWithTheMostGpusNotTheFirstGroup) {
  Scenario s;
  s.cluster.groups = {group("a10", "A10", 2, 4), group("h100", "H100-SXM", 2, 8),
                      group("cpu", "", 10, 0)};
  EXPECT_EQ(default_reference_gpu(s), "H100-SXM");
  // Equal GPUs: the first name in alphabetical order, whichever group comes first.
  s.cluster.groups = {group("t4", "T4", 4, 4), group("a10", "A10", 4, 4)};
  EXPECT_EQ(default_reference_gpu(s), "A10");
  s.workload.reference_gpu = "T4";
  EXPECT_EQ(default_reference_gpu(s), "T4");
}

TEST(ReferenceGpu, AJobsOwnThenItsSelectorThenTheWorkloads) {
  workloads::JobSpec job;
  EXPECT_EQ(workloads::reference_gpu_of(job, "A10"), "A10");
  job.pod_template.node_selector["nvidia.com/gpu.product"] = "T4";
  EXPECT_EQ(workloads::reference_gpu_of(job, "A10"), "T4");
  job.reference_gpu = "H100-SXM";
  EXPECT_EQ(workloads::reference_gpu_of(job, "A10"), "H100-SXM");
}

TEST(ReferenceGpu, AnUnknownModelIsRefusedAtItsPlace) {
  const std::string path =
      test::temp_file("reference-gpu",
                      "name: r\n"
                      "cluster:\n"
                      "  node_groups: [{name: n, gpu: A10, topology: a10x4-pcie}]\n"
                      "workload:\n"
                      "  reference_gpu: A1000\n"
                      "  arrivals: {process: burst, count: 1}\n"
                      "  jobs: [{name: j, pod: {gpus: 1}, model: resnet50, batch_size: 8, "
                      "duration: 1h}]\n"
                      "policies: [default-k8s]\n");
  try {
    (void)load_scenario(path);
    ADD_FAILURE() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.field(), "workload.reference_gpu");
  }
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace tidesim
