// The one-line cluster and workload descriptions of a result's metadata and the report's header.
#include "tidesim/tools/lib/scenario_describe.hpp"

#include <gtest/gtest.h>

namespace tidesim::app {
namespace {

TEST(ScenarioDescribe, NodeGroupsAreCountedByGpuModel) {
  ClusterConfig c;
  NodeGroup a;
  a.count = 6;
  a.gpu_model = "A10";
  NodeGroup b = a;
  b.count = 2;
  NodeGroup cpu;
  cpu.count = 1;
  NodeGroup h100;
  h100.count = 3;
  h100.gpu_model = "H100";
  h100.gpus = 8;
  c.groups = {a, cpu, b, h100};
  EXPECT_EQ(describe_cluster(c), "12 nodes: 8 x A10, 1 x CPU-only, 3 x H100 (8 GPUs each)");
  c.nodes_from = NodesFrom{};
  c.nodes_from->file = "../data/openb_node_list_gpu_node.csv";
  EXPECT_EQ(describe_cluster(c), "12 nodes from openb_node_list_gpu_node.csv");
}

TEST(ScenarioDescribe, TheSeedBenchmarksWorkload) {
  const Scenario s = load_scenario("scenarios/seed-benchmark.yaml");
  EXPECT_EQ(describe_cluster(s.cluster), "8 nodes: 8 x A10");
  const std::string w = describe_workload(s.workload);
  EXPECT_EQ(w.rfind("4 job kinds (", 0), 0u) << w;
  EXPECT_NE(w.find("resnet50-light, "), std::string::npos) << w;
  EXPECT_NE(w.find(", 100 jobs, at once"), std::string::npos) << w;
}

TEST(ScenarioDescribe, TracesAndPolluxWorkloadsNameTheirFile) {
  workloads::WorkloadSpec w;
  w.trace = workloads::TraceSource{};
  w.trace->file = "x/y/pollux_philly.csv";
  EXPECT_EQ(describe_workload(w), "trace pollux_philly.csv");
}

}  // namespace
}  // namespace tidesim::app
