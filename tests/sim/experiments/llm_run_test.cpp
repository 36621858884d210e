// LLM jobs in a run (tests/sim/data/llm_jobs.yaml): alone they run their stated run time; their
// step follows where their pods land (data parallel across an oversubscribed leaf up-link runs at
// the bandwidth the oversubscription leaves, by the LLM model's own formula); a layout whose
// memory overflows the card is OOM-killed; a layout that is not whole pods is refused.
#include <gtest/gtest.h>

#include <array>
#include <filesystem>

#include "tests/common/errors.hpp"
#include "tests/common/temp_file.hpp"
#include "tests/sim/experiments/observed_run.hpp"
#include "tidesim/sim/experiments/run.hpp"
#include "tidesim/workloads/llm_job.hpp"

namespace tidesim {
namespace {

using test::Observed;
using test::run_seconds;

// The scenario with the job's layout replaced.
Scenario with_layout(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t batch) {
  Scenario s = load_scenario("tests/sim/data/llm_jobs.yaml");
  auto& job = s.workload.mix[0].job;
  auto spec = std::make_shared<workloads::LlmSpec>(*job.llm);
  spec->execution.tensor_par = tp;
  spec->execution.pipeline_par = pp;
  spec->execution.data_par = dp;
  spec->execution.num_procs = tp * pp * dp;
  spec->execution.batch_size = batch;
  job.replicas = static_cast<int>(tp * pp * dp / 8);
  job.llm = spec;
  return s;
}

TEST(LlmRun, AnLlmJobAloneRunsItsStatedRunTime) {
  for (const auto& [tp, pp, dp] :
       std::vector<std::array<std::int64_t, 3>>{{8, 1, 1}, {8, 1, 4}, {8, 2, 2}, {8, 4, 2}}) {
    const Scenario s = with_layout(tp, pp, dp, 64);
    const Observed o = test::run(s, make_jobs(s, 1));
    EXPECT_NEAR(run_seconds(o, "llama8b-0"), 3600.0, 36.0) << tp << " x " << pp << " x " << dp;
  }
}

TEST(LlmRun, ALayoutThatOverflowsTheCardIsAnOom) {
  Scenario s = with_layout(8, 1, 1, 16);
  auto spec = std::make_shared<workloads::LlmSpec>(*s.workload.mix[0].job.llm);
  spec->model = *llm::model_preset("llama3-70B");  // 70.6 B parameters x 18 bytes / 8 GPUs
  s.workload.mix[0].job.llm = spec;
  s.workload.mix[0].job.backoff_limit = 0;
  const Observed o = test::run(s, make_jobs(s, 1));
  EXPECT_FALSE(o.of(JobEventKind::kOomKilled, "llama8b-0").empty());
  EXPECT_TRUE(o.of(JobEventKind::kSucceeded, "llama8b-0").empty());
}

// Two pods of 8 GPUs, data parallel across them, on four nodes in two leaves of two nodes, 16:1
// oversubscribed. Inside one leaf their ring runs at the nodes' NICs (8 x 50 GB/s x 0.93 =
// 372 GB/s, 46.5 GB/s per GPU); across the leaves at a leaf's up-link, 2 x 372 / 16 = 46.5 GB/s
// (5.8 GB/s per GPU). Each run is 200 steps of llm_step_time at that bandwidth.
double data_parallel_run(const std::map<std::string, std::string>& selector, double burst,
                         double* expected) {
  Scenario s = with_layout(8, 1, 2, 16);
  s.cluster.fabric->fabric.tiers = {
      FabricTier{"leaf", "network.topology.nvidia.com/leaf", 2, 16.0, 1.0, 0.0}};
  NodeGroup g = s.cluster.groups[0];
  g.count = 1;
  s.cluster.groups.clear();
  for (const std::string name : {"a1", "b1", "a2", "b2"}) {
    g.name = name;
    g.labels["pair"] = name.substr(0, 1);
    s.cluster.groups.push_back(g);
  }
  Workload w = make_jobs(s, 1);
  w.jobs[0].steps = 200;
  w.jobs[0].pod_template.node_selector = selector;
  const Observed o = test::run(s, w);
  workloads::StepConditions c;
  c.gpus = 16;
  c.allreduce_bandwidth = burst;
  c.allreduce_latency = 20e-6;  // the preset's, one tier spanned or none: no tier latency
  *expected = 200 * workloads::llm_step_time(*w.jobs[0].llm,
                                             workloads::llm_system_for_gpu("H100-SXM"), c, 8)
                        .seconds;
  return run_seconds(o, "llama8b-0");
}

TEST(LlmRun, DataParallelAcrossAnOversubscribedLeafSlowsByWhatItImplies) {
  double within = 0.0;
  double across = 0.0;
  const double in_leaf =
      data_parallel_run({{"network.topology.nvidia.com/leaf", "leaf-0000"}}, 372e9, &within);
  const double spread = data_parallel_run({{"pair", "a"}}, 46.5e9, &across);
  EXPECT_NEAR(in_leaf, within, 1e-6 * within);
  EXPECT_NEAR(spread, across, 1e-6 * across);
  // 8 micro-batches per step: the 2 GB gradient reduction (0.04 s at 46.5 GB/s per GPU, 0.35 s
  // at 5.8) is a tenth of the step across the leaves.
  EXPECT_GT(across, within * 1.1) << "the oversubscribed up-link slows the data-parallel step";
}

TEST(LlmRun, ALayoutThatIsNotWholePodsIsRefusedAtTheLlmSection) {
  const std::string path =
      test::temp_file("llm-pods",
                      "name: l\n"
                      "cluster:\n"
                      "  node_groups: [{name: n, gpu: H100-SXM, topology: hgx-h100x8}]\n"
                      "workload:\n"
                      "  arrivals: {process: burst, count: 1}\n"
                      "  jobs:\n"
                      "    - name: j\n"
                      "      pod: {gpus: 8}\n"
                      "      llm:\n"
                      "        model: llama3-8B\n"
                      "        execution: {tensor_par: 4, pipeline_par: 1, data_par: 1, "
                      "batch_size: 8, microbatch_size: 1}\n"
                      "      steps: 10\n"
                      "policies: [default-k8s]\n");
  const std::string e = test::message_of([&] { (void)load_scenario(path); });
  std::filesystem::remove(path);
  EXPECT_NE(e.find(":10:9: workload.jobs[0].llm: the layout's 4 GPUs"), std::string::npos) << e;
}

}  // namespace
}  // namespace tidesim
